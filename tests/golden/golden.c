/* tests/golden/golden.c - the program of the golden attribution test (tests/report/t_golden.sh),
 * built by the test at -O0 and -O2. Ground truth by construction: see golden.h.
 *
 * Region "main" (thread 0) loads a global, a file-scope static, a function-scope static,
 * three heap objects (two call sites here, one in golden_alloc.c), a global and a __thread
 * array of libgolden.so, a __thread array of the executable and an array on its own stack.
 * Region "thread" (thread 1, opened and closed by that thread while thread 0 waits in
 * pthread_join) loads thread 1's copies of both __thread arrays, an array on thread 1's
 * stack and the global.
 *
 * Each line marked LINE:tag is the only line that loads its variable in that region; each
 * SITE:tag marks a malloc call site. tests/golden/check.py finds both in the source.
 * gcc -O2 inlines func_pool, make_b, loads_main and loads_thread: the report has to name
 * the function static and the call site in make_b from DWARF's inline scopes.
 * Usage: golden [SECONDS]  (length of each region in its thread's CPU time, default 1)
 * Needs a stack limit above 24 MiB (ulimit -s) for the main thread's stack array.
 */
#include <memphis.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "golden.h"

/* Every element. -0.0 + -0.0 is -0.0 and (long)-0.0 is 0, so v stays -0.0 and the indices
 * stay as generated. v += (not v =) keeps the load's value in an SSE register: gcc -O2
 * folds a load whose only use is (long) into cvttsd2si (mem),%reg, which overwrites the
 * index register and leaves the sample without an address. Not 0.0: gcc may turn malloc
 * plus a loop of zero stores into calloc, whose pages are never touched. */
#define FILL (-0.0)
#define CHUNK 4096u /* iterations between two looks at the clock */
#define ITERS (1u << 17)
/* ITERS * W_MAIN loads touch most of the 220 MiB of region "main" once per pass over the
 * index array, far more than the last-level cache holds, so a pass does not find the
 * previous pass's lines in the cache. */

_Static_assert(T_TLS == W_TLS, "region thread loads all of t_tls: its weight is its size");
_Static_assert(T_LIB_TLS == W_LIB_TLS, "region thread loads all of golden_lib_tls");
_Static_assert(T_GLOBAL <= W_GLOBAL, "region thread loads the first T_GLOBAL units of g_global");

double g_global[W_GLOBAL * GOLDEN_UNIT];
static double s_static[W_STATIC * GOLDEN_UNIT];
__thread double t_tls[W_TLS * GOLDEN_UNIT];

static double *func_pool(void)
{
	static double f_static[W_FUNC * GOLDEN_UNIT];

	return f_static;
}

static double *make_b(size_t n)
{
	double *p = malloc(n * sizeof(*p)); /* SITE:heap_b */

	if (!p)
		return NULL;
	golden_fill(p, n, FILL);
	return p;
}

static void fill(double *p, size_t n)
{
	golden_fill(p, n, FILL);
}

/* The calling thread's CPU time: a region's samples do not depend on the machine's load. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ITERS iterations of nw groups: group k has w[k] indices below w[k] * GOLDEN_UNIT. */
static uint32_t *make_index(const unsigned *w, int nw, unsigned sum, uint64_t x)
{
	uint32_t *ix = malloc((size_t)ITERS * sum * sizeof(*ix));
	size_t n = 0;

	if (!ix)
		return NULL;
	for (uint32_t it = 0; it < ITERS; it++) {
		for (int k = 0; k < nw; k++) {
			for (unsigned j = 0; j < w[k]; j++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				ix[n++] = (uint32_t)((x >> 8) % (w[k] * GOLDEN_UNIT));
			}
		}
	}
	return ix;
}

struct heaps {
	double *a, *b, *c, *lib, *lib_tls, *stack, *func;
};

/* iters iterations of region "main" over the indices at ix; returns v (-0.0).
 * register: gcc -O0 keeps these in registers, so the loop's only data accesses are the
 * index array and the measured loads. On the stack, v would be stored after every measured
 * load and reloaded at once, and the reload, waiting for the load's value, would take some
 * of its samples for the stack (1.2 % of all at -O0). */
static double loads_main(const uint32_t *ix, unsigned iters, const struct heaps *h, double v0)
{
	register const double *ha = h->a, *hb = h->b, *hc = h->c, *lib = h->lib, *st = h->stack;
	register const double *fp = h->func, *lt = h->lib_tls;
	register const uint32_t *x = ix;
	register double v = v0;
	register unsigned it;
	register int k;

	for (it = 0; it < iters; it++) {
		for (k = 0; k < W_GLOBAL; k++) v += g_global[*x++ + (long)v]; /* LINE:global */
		for (k = 0; k < W_STATIC; k++) v += s_static[*x++ + (long)v]; /* LINE:static */
		for (k = 0; k < W_FUNC; k++) v += fp[*x++ + (long)v]; /* LINE:func */
		for (k = 0; k < W_HEAP_A; k++) v += ha[*x++ + (long)v]; /* LINE:heap_a */
		for (k = 0; k < W_HEAP_B; k++) v += hb[*x++ + (long)v]; /* LINE:heap_b */
		for (k = 0; k < W_HEAP_C; k++) v += hc[*x++ + (long)v]; /* LINE:heap_c */
		for (k = 0; k < W_LIB; k++) v += lib[*x++ + (long)v]; /* LINE:lib */
		for (k = 0; k < W_LIB_TLS; k++) v += lt[*x++ + (long)v]; /* LINE:lib_tls */
		for (k = 0; k < W_TLS; k++) v += t_tls[*x++ + (long)v]; /* LINE:tls */
		for (k = 0; k < W_STACK; k++) v += st[*x++ + (long)v]; /* LINE:stack */
	}
	return v;
}

/* The same for region "thread". */
static double loads_thread(const uint32_t *ix, unsigned iters, const double *stack,
			   const double *lib_tls, double v0)
{
	register const double *st = stack, *lt = lib_tls;
	register const uint32_t *x = ix;
	register double v = v0;
	register unsigned it;
	register int k;

	for (it = 0; it < iters; it++) {
		for (k = 0; k < T_TLS; k++) v += t_tls[*x++ + (long)v]; /* LINE:tls_t */
		for (k = 0; k < T_LIB_TLS; k++) v += lt[*x++ + (long)v]; /* LINE:lib_tls_t */
		for (k = 0; k < T_STACK; k++) v += st[*x++ + (long)v]; /* LINE:stack_t */
		for (k = 0; k < T_GLOBAL; k++) v += g_global[*x++ + (long)v]; /* LINE:global_t */
	}
	return v;
}

/* Run loads over the index array in chunks, round and round, for about `seconds`: region
 * "main" (thread 0) or region "thread" (thread 1, which uses only h->stack and h->lib_tls). */
static double run(const uint32_t *ix, unsigned sum, double seconds, const struct heaps *h,
		  int thread)
{
	double t0 = now(), v = FILL;
	unsigned at = 0;

	do {
		if (thread)
			v = loads_thread(ix + (size_t)at * sum, CHUNK, h->stack, h->lib_tls, v);
		else
			v = loads_main(ix + (size_t)at * sum, CHUNK, h, v);
		at = (at + CHUNK) % ITERS;
	} while (now() - t0 < seconds);
	return v;
}

struct thread_arg {
	const uint32_t *ix;
	double seconds, v;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	double st[T_STACK * GOLDEN_UNIT];
	struct heaps h = { .stack = st, .lib_tls = golden_lib_tls_array() };

	fill(t_tls, W_TLS * GOLDEN_UNIT);
	fill(h.lib_tls, W_LIB_TLS * GOLDEN_UNIT);
	fill(st, T_STACK * GOLDEN_UNIT);
	memphis_mark_named("thread");
	a->v = run(a->ix, T_SUM, a->seconds, &h, 1);
	memphis_print();
	return NULL;
}

int main(int argc, char **argv)
{
	static const unsigned wm[] = { W_GLOBAL, W_STATIC, W_FUNC, W_HEAP_A, W_HEAP_B,
				       W_HEAP_C, W_LIB, W_LIB_TLS, W_TLS, W_STACK };
	static const unsigned wt[] = { T_TLS, T_LIB_TLS, T_STACK, T_GLOBAL };
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	double st[W_STACK * GOLDEN_UNIT];
	struct heaps h = { .stack = st };
	struct thread_arg ta = { .seconds = seconds };
	pthread_attr_t attr;
	pthread_t th;
	uint32_t *im, *it;
	double v;

	h.a = malloc(W_HEAP_A * GOLDEN_UNIT * sizeof(double)); /* SITE:heap_a */
	h.b = make_b(W_HEAP_B * GOLDEN_UNIT); /* SITE:recv_b */
	h.c = golden_alloc_c(W_HEAP_C * GOLDEN_UNIT, FILL); /* SITE:recv_c */
	h.lib = golden_lib_array();
	h.lib_tls = golden_lib_tls_array();
	h.func = func_pool();
	im = make_index(wm, sizeof(wm) / sizeof(wm[0]), W_MAIN, 88172645463325252ull);
	it = make_index(wt, sizeof(wt) / sizeof(wt[0]), T_SUM, 1181783497276652981ull);
	if (!h.a || !h.b || !h.c || !im || !it) {
		fprintf(stderr, "golden: out of memory\n");
		return 1;
	}
	fill(h.a, W_HEAP_A * GOLDEN_UNIT);
	fill(g_global, W_GLOBAL * GOLDEN_UNIT);
	fill(s_static, W_STATIC * GOLDEN_UNIT);
	fill(h.func, W_FUNC * GOLDEN_UNIT);
	fill(h.lib, W_LIB * GOLDEN_UNIT);
	fill(h.lib_tls, W_LIB_TLS * GOLDEN_UNIT);
	fill(t_tls, W_TLS * GOLDEN_UNIT);
	fill(st, W_STACK * GOLDEN_UNIT);

	memphis_mark_named("main");
	v = run(im, W_MAIN, seconds, &h, 0);
	memphis_print();

	/* thread 1: its stack must hold its copies of both __thread arrays (glibc carves static
	 * TLS from the thread's stack) and its stack array */
	ta.ix = it;
	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, (W_TLS + W_LIB_TLS + T_STACK + 8) * GOLDEN_UNIT *
						     sizeof(double)) ||
	    pthread_create(&th, &attr, thread_main, &ta) || pthread_join(th, NULL)) {
		fprintf(stderr, "golden: cannot run thread 1\n");
		return 1;
	}
	printf("golden %.1f %.1f\n", v, ta.v);
	return 0;
}
