/* One thread computing in registers, for `make bench`: what a sample costs the program
 * when nothing else does (no barrier to wait at, no data to evict from the caches), which
 * is the clock interrupt the kernel takes for it. ITERS iterations of a dependent
 * floating-point chain in one memphis region; prints the loop's own wall time, so that a
 * tool's start-up and end (perf record's, the library's) are not in it.
 *   prog_spin [ITERS]   (default 500,000,000: about 0.8 s on a 2.6 GHz core)
 * Prints "loop_s SECONDS sum VALUE". */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 500000000L;
	double x = 0, t0, t1;

	if (iters < 1)
		return 1;
	memphis_mark_named("spin");
	t0 = now_s();
	for (long i = 0; i < iters; i++)
		x = x * 0.999999 + 1.0; /* a dependent chain: nothing to overlap */
	t1 = now_s();
	memphis_print();
	printf("loop_s %.6f sum %.6e\n", t1 - t0, x);
	return 0;
}
