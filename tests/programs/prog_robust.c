/* Robustness: forks a child that computes, execs /bin/echo from another child, reallocs
 * heavily in several threads, then keeps sampling until killed (argv[1] = "wait") or
 * ends normally. Prints deterministic results the test compares with an unprofiled run. */
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *grower(void *arg)
{
	long id = (long)arg;
	unsigned long sum = 0;
	for (int round = 0; round < 200; round++) {
		char *p = NULL;
		for (size_t n = 1; n <= 4096; n *= 2) {
			char *q = realloc(p, n * 16);
			if (!q)
				break;
			p = q;
			memset(p, (int)(id + round), n * 16);
			sum += (unsigned char)p[n * 8];
		}
		free(p);
	}
	return (void *)sum;
}

int main(int argc, char **argv)
{
	int wait_for_kill = argc > 1 && !strcmp(argv[1], "wait");
	pthread_t t[4];
	unsigned long total = 0;
	int status;

	setvbuf(stdout, NULL, _IOLBF, 0);
	fprintf(stderr, "print without mark: %d\n", memphis_print());
	memphis_mark_named("robust");
	pid_t c = fork();
	if (c == 0) {
		unsigned long s = 0;
		for (unsigned long i = 0; i < 10000000; i++)
			s += i % 7;
		printf("child %lu\n", s);
		_exit(0);
	}
	waitpid(c, &status, 0);
	c = fork();
	if (c == 0) {
		execl("/bin/echo", "echo", "exec ok", (char *)NULL);
		_exit(127);
	}
	waitpid(c, &status, 0);
	for (long i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, grower, (void *)i);
	for (int i = 0; i < 4; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (unsigned long)r;
	}
	printf("realloc %lu\n", total);
	if (wait_for_kill) {
		printf("waiting\n");
		volatile double s = 0;
		double *x = calloc(1 << 21, sizeof(*x));
		for (unsigned long i = 0;; i++)
			s += x[(i * 2654435761u) & ((1 << 21) - 1)];
	}
	memphis_print();
	return 0;
}
