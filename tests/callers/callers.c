/* tests/callers/callers.c - the program of tests/report/t_callers.sh, built there at -O2 and -O3,
 * where gcc turns a copy loop into a memcpy call and a fill loop into a memset call (the
 * test checks with objdump that main calls them). The loops are in main: in a function of
 * their own gcc makes the call a tail call, and the caller's line is then main's call of
 * that function (no frame of it is left to unwind). Region "copy" copies `src` into
 * `dst` again and again: nearly every sample is in libc's memcpy, and its line must be the
 * copy loop's (LINE:copy) through the STACKS entries; a second loop copies `dst` into
 * `back` (LINE:copy2): the same memcpy instructions from another line, which the report's
 * caches must keep apart. Before it, `filled` is first touched
 * by the fill loop (LINE:fill), inside libc's memset, and read in the region (LINE:read)
 * so that it has samples and its first touch is shown (bytes of 1: a loop of zeros after
 * malloc becomes calloc, whose pages the program never touches).
 * Usage: callers [SECONDS]  (length of the region, default 1) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (4u << 20) /* doubles per array: 32 MiB, beyond the caches */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	double sec = argc > 1 ? atof(argv[1]) : 1.0, t0, sum = 0.0;
	double *restrict src = malloc(N * sizeof(*src)); /* SITE:src */
	double *restrict dst = malloc(N * sizeof(*dst)); /* SITE:dst */
	unsigned char *restrict filled = malloc(N * sizeof(double)); /* SITE:filled */
	double *restrict back = malloc(N * sizeof(*back)); /* SITE:back */
	unsigned passes = 0;

	if (!src || !dst || !filled || !back)
		return 1;
	for (size_t i = 0; i < N; i++) {
		src[i] = (double)i;
		dst[i] = -1.0;
		back[i] = -1.0;
	}
	for (size_t i = 0; i < N * sizeof(double); i++) filled[i] = 1; /* LINE:fill */
	memphis_mark_named("copy");
	t0 = now();
	do {
		for (size_t i = 0; i < N; i++) dst[i] = src[i]; /* LINE:copy */
		for (size_t i = 0; i < N; i++) back[i] = dst[i]; /* LINE:copy2 */
		for (size_t i = 0; i < N * sizeof(double); i += 64) sum += filled[i]; /* LINE:read */
		passes++;
	} while (now() - t0 < sec);
	memphis_print();
	for (size_t i = 0; i < N; i += 4096)
		sum += back[i] + filled[i];
	printf("callers ok %u %.0f\n", passes, sum);
	free(src);
	free(dst);
	free(filled);
	free(back);
	return 0;
}
