/* Ground truth for attribution: random loads of equal cost, three from the global A for
 * every one from the heap array B. Among exact samples, A:B must be 75:25 (within 5).
 * Equal cost: every value is -0.0 and each load's index adds the running sum (always 0 at
 * run time, unknown to the compiler), so the loads form one dependent chain and none
 * overlaps another (memory-level parallelism would over-weight some of them).
 * Prints the address ranges so the test can classify the samples.
 *   prog_ratio [SECONDS [ELEMENTS]]   (sampling time, at least one pass over 1 Mi
 *   indices; ELEMENTS per array, at most 8 Mi, default 8 Mi) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (8u << 20) /* 64 MiB each: every random load misses the caches */
#define M (1u << 20) /* most random indices per pass (fewer for small arrays) */

double A[N];

/* Integer nanoseconds: no floating-point constant to load from .rodata, whose page cache
 * page may live on another node than the data (the membind test counts every access). */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
		A[i] = B[i] = -0.0;
	for (uint32_t i = 0; i < m; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (uint32_t)(x % n);
	}
	printf("A %p %p\nB %p %p\n", (void *)A, (void *)(A + n), (void *)B, (void *)(B + n));
	fflush(stdout);
	uint64_t t0 = now_ns(), span = (uint64_t)(seconds * 1e9);
	/* (the call above also binds clock_gettime before the region: lazy PLT binding reads
	 * libc's data, which would be sampled too) */
	memphis_mark_named("ratio");
	do {
		for (uint32_t i = 0; i < m; i += 4) {
			s += A[idx[i] + (uint32_t)s];
			s += A[idx[i + 1] + (uint32_t)s];
			s += A[idx[i + 2] + (uint32_t)s];
			s += B[idx[i + 3] + (uint32_t)s];
		}
	} while (now_ns() - t0 < span);
	memphis_print();
	printf("sum %.0f\n", s);
	return 0;
}
