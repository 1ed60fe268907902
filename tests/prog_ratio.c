/* Ground truth for attribution: random loads of equal cost, three from the global A for
 * every one from the heap array B. Among exact samples, A:B must be 75:25 (within 5).
 * Prints the address ranges so the test can classify the samples.
 *   prog_ratio [SECONDS [ELEMENTS]]   (ELEMENTS per array, at most 8 Mi; default 8 Mi) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (8u << 20) /* 64 MiB each: every random load misses the caches */
#define M (1u << 22) /* most random indices (fewer for small arrays) */

double A[N];

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	uint32_t n = argc > 2 ? (uint32_t)atol(argv[2]) : N;
	uint32_t m = n / 2 < M ? (n / 2) & ~3u : M;
	double *B = malloc(N * sizeof(*B));
	uint32_t *idx = malloc(M * sizeof(*idx));
	uint64_t x = 88172645463325252ull;
	double s = 0;

	if (!B || !idx || n < 8 || n > N)
		return 1;
	for (uint32_t i = 0; i < n; i++)
		A[i] = B[i] = i & 7;
	for (uint32_t i = 0; i < m; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (uint32_t)(x % n);
	}
	printf("A %p %p\nB %p %p\n", (void *)A, (void *)(A + n), (void *)B, (void *)(B + n));
	fflush(stdout);
	int reps = (int)(seconds * 20) + 1;
	memphis_mark_named("ratio");
	for (int r = 0; r < reps; r++)
		for (uint32_t i = 0; i < m; i += 4)
			s += A[idx[i]] + A[idx[i + 1]] + A[idx[i + 2]] + B[idx[i + 3]];
	memphis_print();
	printf("sum %.0f\n", s);
	return 0;
}
