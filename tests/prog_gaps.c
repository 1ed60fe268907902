/* Regions with busy gaps between them: ROUNDS regions "r" of BUSY ms, each followed by GAP
 * ms outside any region, then LONG ms outside any region and one more region "late" of
 * BUSY ms. The main thread and a helper spin all along, so every gap has time to sample.
 * Usage: prog_gaps [ROUNDS BUSY GAP LONG] (default 20 20 10 300). */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile int stop;
static volatile double sink[2][8];

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void spin_ms(int k, double ms)
{
	double end = now_ms() + ms;

	while (now_ms() < end)
		for (int i = 0; i < 1000; i++)
			sink[k][i & 7] += i;
}

static void *helper(void *arg)
{
	(void)arg;
	while (!stop)
		spin_ms(1, 1);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 4 ? atoi(argv[1]) : 20;
	double busy = argc > 4 ? atof(argv[2]) : 20, gap = argc > 4 ? atof(argv[3]) : 10;
	double lng = argc > 4 ? atof(argv[4]) : 300;
	pthread_t t;

	if (pthread_create(&t, NULL, helper, NULL))
		return 1;
	for (int r = 0; r < rounds; r++) {
		memphis_mark_named("r");
		spin_ms(0, busy);
		memphis_print();
		spin_ms(0, gap);
	}
	spin_ms(0, lng);
	memphis_mark_named("late");
	spin_ms(0, busy);
	memphis_print();
	stop = 1;
	pthread_join(t, NULL);
	printf("regions %d\n", rounds + 1);
	return 0;
}
