/* tests/programs/prog_collide.c - variables that share a name (issue 38): this file and
 * tests/programs/collide_b.c each have a `static double work[N]` of the same size. Region
 * "collide" reads this file's work three times for every read of collide_b.c's, at
 * random (every load misses the caches; one dependent chain, as tests/programs/prog_ratio.c does,
 * so the loads cost alike).
 * The report must tell them apart: prog_collide.c:work and collide_b.c:work
 * (tests/report/t_compare_collide.sh).
 *   prog_collide [SECONDS]   (default 1) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "collide.h"

static double work[COLLIDE_N];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	double *other = collide_b_work();
	uint64_t x = 88172645463325252ull, t0, span = (uint64_t)(seconds * 1e9);
	uint32_t *idx = malloc(COLLIDE_M * sizeof(*idx));
	double s = 0;

	if (!idx)
		return 1;
	for (uint32_t i = 0; i < COLLIDE_N; i++)
		work[i] = other[i] = -0.0;
	for (uint32_t i = 0; i < COLLIDE_M; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (uint32_t)(x % COLLIDE_N);
	}
	t0 = now_ns();
	memphis_mark_named("collide");
	do {
		for (uint32_t i = 0; i < COLLIDE_M; i += 4) {
			s += work[idx[i] + (uint32_t)s];
			s += work[idx[i + 1] + (uint32_t)s];
			s += work[idx[i + 2] + (uint32_t)s];
			s += other[idx[i + 3] + (uint32_t)s];
		}
	} while (now_ns() - t0 < span);
	memphis_print();
	printf("sum %.0f\n", s);
	free(idx);
	return 0;
}
