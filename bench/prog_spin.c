/* One thread computing in registers, for `make bench`: what a sample costs the program
 * when nothing else does (no barrier to wait at, no data to evict from the caches), which
 * is the clock interrupt the kernel takes for it. ITERS iterations of a dependent
 * floating-point chain in one memphis region; prints the loop's own wall time, so that a
 * tool's start-up and end (perf record's, the library's) are not in it.
 *
 * The loop also reads the clock every BLOCK iterations and keeps each interruption: a
 * block that took longer than GAP_NS more than the fastest one. A sample's clock interrupt
 * is such a gap, measured one by one: the median gap is what one interruption costs the
 * thread, free of the run-to-run spread of the loop's time (a few % here, where a sample
 * is 0.4 % of it).
 *   prog_spin [ITERS]   (default 500,000,000: about 1.4 s on the 2-vCPU Xeon VM, 0.8 s
 *                        before the clock reads)
 * Prints "loop_s SECONDS sum VALUE gaps N gap_med_us US gap_s SECONDS": the gaps'
 * count, median and total (those over 1 ms left out of the total: the host's preemption
 * of a virtual CPU, no tool's doing). */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BLOCK 64           /* iterations between two clock reads: about 0.1 us */
#define GAP_NS 1000        /* an interruption: a block this much slower than the fastest */
#define GAP_MAX_NS 1000000 /* longer: the host's, not in gap_s */
#define MAX_GAPS 1000000

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 500000000L;
	uint32_t *gap = malloc(MAX_GAPS * sizeof(*gap));
	uint64_t t0, t1, last, fastest = UINT64_MAX, total = 0;
	size_t ngaps = 0;
	double x = 0;

	if (iters < 1 || !gap)
		return 1;
	memphis_mark_named("spin");
	t0 = last = now_ns();
	for (long i = 0; i < iters; i += BLOCK) {
		uint64_t t, d;

		for (int k = 0; k < BLOCK; k++)
			x = x * 0.999999 + 1.0; /* a dependent chain: nothing to overlap */
		t = now_ns();
		d = t - last;
		last = t;
		if (d < fastest)
			fastest = d;
		else if (d > fastest + GAP_NS && ngaps < MAX_GAPS)
			gap[ngaps++] = (uint32_t)(d - fastest < UINT32_MAX ? d - fastest : UINT32_MAX);
	}
	t1 = now_ns();
	memphis_print();
	for (size_t k = 0; k < ngaps; k++)
		total += gap[k] <= GAP_MAX_NS ? gap[k] : 0;
	qsort(gap, ngaps, sizeof(*gap), by_value);
	printf("loop_s %.6f sum %.6e gaps %zu gap_med_us %.3f gap_s %.6f\n", (double)(t1 - t0) / 1e9,
	       x, ngaps, ngaps ? gap[ngaps / 2] / 1e3 : 0.0, (double)total / 1e9);
	free(gap);
	return 0;
}
