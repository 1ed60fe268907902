/* A small read-only table read by all threads (issue 18's advice, "replicate"): the
 * master fills a 64 KiB lookup table, then every thread reads random entries of it.
 * Argument: reads per thread in millions (default 400). Prints the sum. */
#include <memphis.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ENTRIES 8192 /* 64 KiB of doubles */

static double table[ENTRIES];

int main(int argc, char **argv)
{
	uint64_t reads = (argc > 1 ? strtoull(argv[1], NULL, 10) : 400) * 1000000ull;
	double total = 0;

	for (int i = 0; i < ENTRIES; i++) /* the master's first touch */
		table[i] = 1.0 / (i + 1);
	memphis_mark_named("table");
#pragma omp parallel reduction(+ : total)
	{
		uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(omp_get_thread_num() + 1);
		double s = 0;

		for (uint64_t i = 0; i < reads; i++) {
			h = h * 6364136223846793005ull + 1442695040888963407ull;
			s += table[(h >> 33) % ENTRIES]; /* loads only */
		}
		total += s;
	}
	memphis_print();
	printf("table: %d entries, %llu reads per thread, sum %g\n", ENTRIES,
	       (unsigned long long)reads, total);
	return 0;
}
