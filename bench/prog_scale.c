/* The scale cases of `BENCH_SCALE=1 make bench` (issue 45 item 5), profiled by libmemphis
 * and then reported, the report's time and memory against a smaller case:
 *   prog_scale threads T R   T threads (and main) each summing its own 64 KiB array for
 *                            about 2 ms of its CPU time in each of R regions (main marks
 *                            and prints each; the threads meet at a barrier on each side)
 *   prog_scale objects N one|distinct
 *                            N live objects of 64 bytes in one region, each read once
 *                            after all are made: one call site, or distinct call chains
 *                            (a recursion of 5 levels through 16 calls of its own each:
 *                            16^5 = 1,048,576 chains, the site of object i its digits)
 * Prints "done CHECKSUM". */
#include <memphis.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS (64 * 1024 / 8)

static pthread_barrier_t bar;
static long nregions;
static volatile uint64_t sink;

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* About 2 ms of this thread's CPU time over its array. */
static uint64_t work(uint64_t *a)
{
	double t0 = cpu_s();
	uint64_t s = 0;

	do
		for (size_t k = 0; k < WORDS; k++)
			s += a[k]++;
	while (cpu_s() - t0 < 0.002);
	return s;
}

static void *worker(void *arg)
{
	uint64_t *a = calloc(WORDS, sizeof(*a)), s = 0;

	(void)arg;
	if (!a)
		abort();
	for (long r = 0; r < nregions; r++) {
		pthread_barrier_wait(&bar); /* the region is open */
		s += work(a);
		pthread_barrier_wait(&bar); /* all done: main may close it */
	}
	free(a);
	sink += s;
	return NULL;
}

static int threads(long nt, long nr)
{
	pthread_t *t = calloc((size_t)nt, sizeof(*t));
	uint64_t *a = calloc(WORDS, sizeof(*a)), s = 0;

	nregions = nr;
	if (!t || !a || pthread_barrier_init(&bar, NULL, (unsigned)nt + 1))
		return 1;
	for (long i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, worker, NULL))
			return 1;
	for (long r = 0; r < nr; r++) {
		memphis_mark_named("step");
		pthread_barrier_wait(&bar);
		s += work(a);
		pthread_barrier_wait(&bar);
		memphis_print();
	}
	for (long i = 0; i < nt; i++)
		pthread_join(t[i], NULL);
	printf("done %llu\n", (unsigned long long)(s + sink));
	free(a);
	free(t);
	return 0;
}

/* Object i from a call chain of its own: 5 levels, each of 16 calls by the digit. Each call
 * is followed by its own count, so that the compiler neither merges the 16 calls nor makes
 * them tail calls: 16 return addresses a level. */
static volatile unsigned long hits[16];

#define CALL(k)                                         \
	case k:                                         \
		p = at_depth(i, level + 1);             \
		hits[k]++;                              \
		break;

static void *at_depth(unsigned i, int level)
{
	void *p = NULL;

	if (level == 5)
		return malloc(64);
	switch (i >> (4 * level) & 15) {
	CALL(0) CALL(1) CALL(2) CALL(3) CALL(4) CALL(5) CALL(6) CALL(7)
	CALL(8) CALL(9) CALL(10) CALL(11) CALL(12) CALL(13) CALL(14) CALL(15)
	}
	return p;
}

static int objects(long n, int distinct)
{
	uint64_t **o = malloc((size_t)n * sizeof(*o)), s = 0;

	if (!o)
		return 1;
	memphis_mark_named("objects");
	for (long i = 0; i < n; i++) {
		o[i] = distinct ? at_depth((unsigned)i, 0) : malloc(64);
		if (!o[i])
			return 1;
		memset(o[i], (int)i, 64);
	}
	for (long i = 0; i < n; i++)
		s += o[(i * 7919) % n][i & 7];
	memphis_print();
	for (long i = 0; i < n; i++)
		free(o[i]);
	free(o);
	printf("done %llu\n", (unsigned long long)s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "threads"))
		return threads(atol(argv[2]), atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "objects"))
		return objects(atol(argv[2]), !strcmp(argv[3], "distinct"));
	fprintf(stderr, "usage: prog_scale threads T R | objects N one|distinct\n");
	return 1;
}
