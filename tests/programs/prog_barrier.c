/* A kernel of frequent barriers, for `make bench`: LOOPS short `omp parallel for` loops over
 * a small heap array (64 Ki doubles, 512 KiB: cache-resident, so the loops are short and
 * compute-bound), each ending in the loop's implicit barrier. A thread delayed by the
 * profiler delays every other thread at the next barrier, thousands of times a second.
 * A memphis region (memphis_mark_named .. memphis_print) around every PER loops, like
 * examples/cg's region per iteration. Prints a checksum, so that no loop can be elided.
 *   prog_barrier [LOOPS [PER]]   (default 20000 loops, a region per 500 loops) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

#define N (64u << 10)

int main(int argc, char **argv)
{
	long loops = argc > 1 ? atol(argv[1]) : 20000;
	long per = argc > 2 ? atol(argv[2]) : 500;
	double *x = malloc(N * sizeof(*x)), *y = malloc(N * sizeof(*y));
	double sum = 0;

	if (!x || !y || loops < 1 || per < 1)
		return 1;
#pragma omp parallel for schedule(static)
	for (unsigned i = 0; i < N; i++)
		x[i] = 1.0, y[i] = (double)(i % 7);
	for (long l = 0; l < loops; l++) {
		if (l % per == 0)
			memphis_mark_named("barrier");
#pragma omp parallel for schedule(static) reduction(+ : sum)
		for (unsigned i = 0; i < N; i++) {
			x[i] = 0.5 * x[i] + 0.25 * y[i];
			sum += x[i];
		}
		if (l % per == per - 1 || l == loops - 1)
			memphis_print();
	}
	printf("barrier: %ld loops, a region per %ld, sum %.6e\n", loops, per, sum);
	return 0;
}
