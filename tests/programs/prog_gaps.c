/* Regions with busy gaps between them: ROUNDS regions "r" of BUSY ms of the main thread's
 * CPU time, each followed by GAP ms (wall) outside any region, then LONG ms outside any
 * region and one more region "late" of BUSY ms of CPU time. The main thread and a helper
 * spin all along, so every gap has time to sample. Prints the main thread's id and how
 * many times a print was followed by the next mark more than 100 ms later (the library's
 * linger, drain.c's LINGER_NS), the long gap apart: a loaded machine stretches a gap.
 * Usage: prog_gaps [ROUNDS BUSY GAP LONG] (default 20 20 10 300). */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static volatile double sink[2][8];

static double now_ms(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Spin for ms of clock c: CLOCK_MONOTONIC (wall) or the thread's CPU time. */
static void spin_ms(int k, double ms, clockid_t c)
{
	double end = now_ms(c) + ms;

	while (now_ms(c) < end)
		for (int i = 0; i < 1000; i++)
			sink[k][i & 7] += i;
}

static void *helper(void *arg)
{
	(void)arg;
	while (!stop)
		spin_ms(1, 1, CLOCK_MONOTONIC);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 4 ? atoi(argv[1]) : 20;
	double busy = argc > 4 ? atof(argv[2]) : 20, gap = argc > 4 ? atof(argv[3]) : 10;
	double lng = argc > 4 ? atof(argv[4]) : 300;
	pthread_t t;
	int long_gaps = 0;
	double printed = 0;

	if (pthread_create(&t, NULL, helper, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
		if (r > 0 && now_ms(CLOCK_MONOTONIC) - printed > 100)
			long_gaps++;
		memphis_mark_named("r");
		spin_ms(0, busy, CLOCK_THREAD_CPUTIME_ID);
		memphis_print();
		printed = now_ms(CLOCK_MONOTONIC);
		spin_ms(0, gap, CLOCK_MONOTONIC);
	}
	spin_ms(0, lng, CLOCK_MONOTONIC);
	memphis_mark_named("late");
	spin_ms(0, busy, CLOCK_THREAD_CPUTIME_ID);
	memphis_print();
	stop = 1;
	pthread_join(t, NULL);
	printf("regions %d\nmain %ld\nlong_gaps %d\n", rounds + 1, (long)gettid(), long_gaps);
	return 0;
}
