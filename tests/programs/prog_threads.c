/* Thread handling: 32 threads exist before memphis_mark(), 32 are created inside the
 * region, and half of each group exits before memphis_print(). Every thread burns a fixed
 * amount of its own CPU time inside the region (argv[1] ms, default 40) and prints
 * "ran TID". */
#include <memphis.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define GROUP 32
static atomic_int go, finish;
static double burn_s = 0.04;
static volatile double sink;

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void burn(double seconds)
{
	static double buf[1 << 16];
	double t0 = cpu_seconds(), s = 0;
	unsigned i = 0;
	while (cpu_seconds() - t0 < seconds)
		for (int k = 0; k < 200000; k++, i = i * 1103515245u + 12345u)
			s += buf[(i >> 8) & ((1 << 16) - 1)];
	sink = s;
}

static void *worker(void *arg)
{
	long exits_early = (long)arg;
	while (!atomic_load(&go))
		usleep(1000);
	burn(burn_s);
	printf("ran %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	if (!exits_early)
		while (!atomic_load(&finish))
			usleep(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t before[GROUP], after[GROUP];

	if (argc > 1)
		burn_s = atof(argv[1]) / 1000;
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (long i = 0; i < GROUP; i++)
		if (pthread_create(&before[i], NULL, worker, (void *)(i & 1)))
			return 1;
	memphis_mark_named("threads");
	atomic_store(&go, 1);
	for (long i = 0; i < GROUP; i++)
		if (pthread_create(&after[i], NULL, worker, (void *)(i & 1)))
			return 1;
	burn(burn_s);
	printf("ran %ld\n", (long)syscall(SYS_gettid));
	for (int i = 0; i < GROUP; i++)
		if (i & 1) {
			pthread_join(before[i], NULL);
			pthread_join(after[i], NULL);
		}
	/* all odd threads have exited; the even ones are still alive but idle */
	usleep(300000);
	memphis_print();
	atomic_store(&finish, 1);
	for (int i = 0; i < GROUP; i += 2) {
		pthread_join(before[i], NULL);
		pthread_join(after[i], NULL);
	}
	return 0;
}
