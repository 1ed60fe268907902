/* Ground truth for stack locals (issue 16 item 4): kernel() loads from its two local arrays
 * hot[] and cold[] seven to three, loads of equal cost (every value is -0.0 and each index
 * adds the running sum, always 0 at run time, unknown to the compiler: one dependent chain
 * of L1 hits), so its samples split 70/30 between kernel::hot and kernel::cold.
 * Then peek() loads from main's array far[] through a pointer: the address is in its
 * caller's frame, main::far. Last, vla() loads from its variable-length array, whose size
 * DWARF gives as an expression (no size: no variable): those samples stay
 * <stack of thread 0>.
 *   prog_locals [SECONDS]   (CPU time of each of the three phases) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 1024 /* 8 KiB per array: all in L1 */

/* CPU time: each phase gets its share of samples however loaded the machine is */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) double kernel(uint64_t span, const uint32_t *idx)
{
	double hot[N], cold[N];
	uint64_t t0 = now_ns();
	double s = 0;

	for (int i = 0; i < N; i++)
		hot[i] = cold[i] = -0.0;
	__asm__ volatile("" : : "r"(hot), "r"(cold) : "memory");
	do {
		for (uint32_t i = 0; i < N; i += 10) {
			s += hot[idx[i] + (uint32_t)s];
			s += cold[idx[i + 1] + (uint32_t)s];
			s += hot[idx[i + 2] + (uint32_t)s];
			s += hot[idx[i + 3] + (uint32_t)s];
			s += cold[idx[i + 4] + (uint32_t)s];
			s += hot[idx[i + 5] + (uint32_t)s];
			s += hot[idx[i + 6] + (uint32_t)s];
			s += cold[idx[i + 7] + (uint32_t)s];
			s += hot[idx[i + 8] + (uint32_t)s];
			s += hot[idx[i + 9] + (uint32_t)s];
		}
	} while (now_ns() - t0 < span);
	return s;
}

static __attribute__((noinline)) double peek(uint64_t span, const double *far,
					     const uint32_t *idx)
{
	uint64_t t0 = now_ns();
	double s = 0;

	do {
		for (uint32_t i = 0; i < N; i++)
			s += far[idx[i] + (uint32_t)s];
	} while (now_ns() - t0 < span);
	return s;
}

static __attribute__((noinline)) double vla(uint64_t span, uint32_t n, const uint32_t *idx)
{
	double v[n];
	uint64_t t0 = now_ns();
	double s = 0;

	for (uint32_t i = 0; i < n; i++)
		v[i] = -0.0;
	__asm__ volatile("" : : "r"(v) : "memory");
	do {
		for (uint32_t i = 0; i < N; i++)
			s += v[idx[i] + (uint32_t)s];
	} while (now_ns() - t0 < span);
	return s;
}

int main(int argc, char **argv)
{
	uint64_t span = (uint64_t)((argc > 1 ? atof(argv[1]) : 1.0) * 1e9);
	static uint32_t idx[N + 10];
	double far[N];
	uint64_t x = 88172645463325252ull;
	double s;

	for (uint32_t i = 0; i < N + 10; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		idx[i] = (uint32_t)(x % N);
	}
	for (int i = 0; i < N; i++)
		far[i] = -0.0;
	__asm__ volatile("" : : "r"(far) : "memory");
	now_ns(); /* bind clock_gettime before the region */
	memphis_mark_named("locals");
	s = kernel(span, idx);
	s += peek(span, far, idx);
	s += vla(span, N + (uint32_t)argc / 1000, idx);
	memphis_print();
	printf("sum %.0f\n", s);
	return 0;
}
