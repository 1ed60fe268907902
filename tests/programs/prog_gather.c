/* A random gather (issue 18's advice, "interleave"): the master initialises one big array
 * (so all its pages are on its node), then every thread reads random elements of all of
 * it. Arguments: the array's size in MiB (default 64), reads per thread in millions
 * (default 40). Prints the sum. */
#include <memphis.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	uint64_t reads = (argc > 2 ? strtoull(argv[2], NULL, 10) : 40) * 1000000ull;
	size_t n = (mib << 20) / sizeof(double);
	double *x = malloc(n * sizeof(*x)), total = 0;

	if (!x || !n)
		return 1;
	for (size_t i = 0; i < n; i++) /* the master's first touch: all pages on its node */
		x[i] = (double)(i & 7);
	memphis_mark_named("gather");
#pragma omp parallel reduction(+ : total)
	{
		uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(omp_get_thread_num() + 1);
		double s = 0;

		for (uint64_t i = 0; i < reads; i++) {
			h = h * 6364136223846793005ull + 1442695040888963407ull;
			s += x[(h >> 17) % n]; /* any element, whoever first touched it */
		}
		total += s;
	}
	memphis_print();
	printf("gather: %zu MiB, %llu reads per thread, sum %g\n", mib,
	       (unsigned long long)reads, total);
	free(x);
	return 0;
}
