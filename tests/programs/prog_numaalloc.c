/* tests/programs/prog_numaalloc.c - an array from libnuma's numa_alloc_onnode (an anonymous
 * mmap made inside libnuma), read in a region: the report must name it by this file's line,
 * not by libnuma's code (t_heapkinds). Argument: steps of the chase. */
#include <numa.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <memphis.h>

#define N (1u << 18) /* 2 MiB of uint64_t */

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 50000000;
	uint64_t *a = numa_alloc_onnode(N * sizeof(*a), 0); /* SITE:numa */
	uint64_t sum = 0;

	if (!a)
		return 1;
	for (uint64_t k = 0; k < N; k++)
		a[k] = k;
	memphis_mark_named("numa");
	for (long s = 0; s < steps; s++)
		sum += a[((uint64_t)s * 4099) & (N - 1)]; /* strided: one miss per load */
	memphis_print();
	printf("sum %llu\n", (unsigned long long)sum);
	numa_free(a, N * sizeof(*a));
	return 0;
}
