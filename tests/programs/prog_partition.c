/* Ground truth for addresses and threads together: a statically partitioned OpenMP loop
 * where each thread reads only its own slice. Prints "slice TID LO HI" per thread. */
#include <memphis.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N (16u << 20)

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 12;
	double *x = malloc(N * sizeof(*x));
	double total = 0;

	if (!x)
		return 1;
#pragma omp parallel for schedule(static)
	for (uint32_t i = 0; i < N; i++)
		x[i] = 1.0;
	memphis_mark_named("partition");
#pragma omp parallel reduction(+ : total)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		uint32_t lo = (uint32_t)((uint64_t)N * t / nt), hi = (uint32_t)((uint64_t)N * (t + 1) / nt);
		uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(t + 1);
		double s = 0;
#pragma omp critical
		printf("slice %ld %p %p\n", (long)syscall(SYS_gettid), (void *)(x + lo), (void *)(x + hi));
		for (int r = 0; r < reps; r++)
			for (uint32_t i = 0; i < (hi - lo); i++) {
				h ^= h << 13, h ^= h >> 7, h ^= h << 17;
				s += x[lo + (uint32_t)(h % (hi - lo))];
			}
		total += s;
	}
	memphis_print();
	printf("total %.0f\n", total);
	return 0;
}
