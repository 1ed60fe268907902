/* tests/callers/fpframe.c - the program of tests/report/t_callers_bp.sh: samples in runtime
 * code (tests/callers/fpframe.S, a library without source lines) whose caller's line
 * depends on BP. In region "bp", fp_flat reads `a_flat` called from `deep` (LINE:deep),
 * then `b_flat` called from `shallow` (LINE:shallow); fp_nested does the same with
 * `a_nested` and `b_nested`. Both calls of a kind have their samples' SP at the same
 * address and the same stack words where the first call's return address was, but BP
 * (flat: the register; nested: the word the inner frame saved) and so the return address
 * elsewhere: a report that takes the second call's entries for the first's answers gives
 * LINE:deep to b_flat or b_nested. Prints "fpframe KIND sp SP_A SP_B bp BP_A BP_B" for
 * the test to check that layout.
 * Usage: fpframe [SECONDS]  (each call's reading, default 0.4) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORDS (1u << 22) /* 32 MiB a buffer, beyond the caches */

typedef uint64_t fp_fn(const uint64_t *buf, size_t words, uint64_t target, uint64_t fill,
		       uint64_t rec[2]);
fp_fn fp_flat, fp_nested;

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* f called with 256 bytes more of stack above it than shallow's call */
__attribute__((noinline)) static uint64_t deep(fp_fn *f, const uint64_t *buf, uint64_t target,
					       uint64_t fill, uint64_t rec[2])
{
	volatile char pad[256];
	uint64_t r;

	pad[0] = 1;
	r = f(buf, WORDS, target, fill, rec); /* LINE:deep */
	sink += pad[0];
	return r;
}

__attribute__((noinline)) static uint64_t shallow(fp_fn *f, const uint64_t *buf, uint64_t target,
						  uint64_t fill, uint64_t rec[2])
{
	uint64_t r = f(buf, WORDS, target, fill, rec); /* LINE:shallow */

	sink += 1;
	return r;
}

/* deep's calls of f on a for sec seconds, then shallow's on b at the same SP, the words of
 * its frame holding deep's return address. */
static void pair(const char *kind, fp_fn *f, const uint64_t *a, const uint64_t *b, double sec)
{
	uint64_t ra = 0, rec_a[2] = { 0, 0 }, rec_b[2] = { 0, 0 };
	double t0 = now();

	do
		ra = deep(f, a, rec_a[0], 0, rec_a);
	while (now() - t0 < sec);
	t0 = now();
	do
		shallow(f, b, rec_a[0], ra, rec_b);
	while (now() - t0 < sec);
	printf("fpframe %s sp %#llx %#llx bp %#llx %#llx\n", kind, (unsigned long long)rec_a[0],
	       (unsigned long long)rec_b[0], (unsigned long long)rec_a[1],
	       (unsigned long long)rec_b[1]);
}

int main(int argc, char **argv)
{
	double sec = argc > 1 ? atof(argv[1]) : 0.4;
	uint64_t *a_flat = malloc(WORDS * sizeof(uint64_t));   /* SITE:a_flat */
	uint64_t *b_flat = malloc(WORDS * sizeof(uint64_t));   /* SITE:b_flat */
	uint64_t *a_nested = malloc(WORDS * sizeof(uint64_t)); /* SITE:a_nested */
	uint64_t *b_nested = malloc(WORDS * sizeof(uint64_t)); /* SITE:b_nested */

	if (!a_flat || !b_flat || !a_nested || !b_nested)
		return 1;
	for (size_t i = 0; i < WORDS; i++)
		a_flat[i] = b_flat[i] = a_nested[i] = b_nested[i] = i;
	memphis_mark_named("bp");
	pair("flat", fp_flat, a_flat, b_flat, sec);
	pair("nested", fp_nested, a_nested, b_nested, sec);
	memphis_print();
	printf("fpframe ok %llu\n", (unsigned long long)sink);
	free(a_flat);
	free(b_flat);
	free(a_nested);
	free(b_nested);
	return 0;
}
