/* tests/golden/golden.h - ground truth of the golden attribution test (tests/report/t_golden.sh).
 *
 * Every access the test measures is a random load of a double, and each load's index
 * depends on the sum of the values loaded before (all are -0.0, so the dependency
 * adds 0): the loads run one after another, each pays one full miss, and no load hides
 * behind another (with memory-level parallelism the oldest miss of a group would take
 * the stall-weighted samples of the others).
 *
 * In each iteration variable V is loaded W_V times, and V holds W_V * GOLDEN_UNIT
 * doubles: the indices are uniform over V, so every cache line and page of every
 * variable sees the same access rate, hits the caches and TLB equally often and costs the
 * same per load. V's share of the region's samples is W_V / (sum of the W).
 * Measured (5 runs of 2 s at 250 us, -O0 and -O2): every share within 1.5 points of that.
 */
#ifndef GOLDEN_H
#define GOLDEN_H

#include <stddef.h>

#define GOLDEN_UNIT (1u << 19) /* doubles per weight unit: 4 MiB */

/* region "main", all in the main thread (thread 0); the weights sum to 55 */
#define W_GLOBAL 8  /* g_global, a global of the executable */
#define W_STATIC 7  /* s_static, a file-scope static */
#define W_FUNC 6    /* func_pool::f_static, a function-scope static */
#define W_HEAP_A 5  /* malloc in main (golden.c) */
#define W_HEAP_B 4  /* malloc in make_b (golden.c) */
#define W_HEAP_C 5  /* malloc in golden_alloc_c (golden_alloc.c) */
#define W_LIB 5     /* golden_lib, a global of libgolden.so */
#define W_LIB_TLS 5 /* golden_lib_tls, a __thread array of libgolden.so (thread 0's copy) */
#define W_TLS 5     /* t_tls, a __thread array of the executable (thread 0's copy) */
#define W_STACK 5   /* an array on the stack of thread 0 */
#define W_MAIN (W_GLOBAL + W_STATIC + W_FUNC + W_HEAP_A + W_HEAP_B + W_HEAP_C + W_LIB + \
		W_LIB_TLS + W_TLS + W_STACK)

/* region "thread", all in a second thread (thread 1); the weights sum to 15 */
#define T_TLS 5     /* t_tls, thread 1's copy (all of it) */
#define T_LIB_TLS 5 /* golden_lib_tls, thread 1's copy (all of it) */
#define T_STACK 3   /* an array on the stack of thread 1 */
#define T_GLOBAL 2  /* g_global, its first T_GLOBAL units */
#define T_SUM (T_TLS + T_LIB_TLS + T_STACK + T_GLOBAL)

/* golden_alloc.c: set p[0..n) to v, on base pages whatever the system's transparent huge
 * page setting (MADV_NOHUGEPAGE before the first touch): loads from an array on huge pages
 * miss the TLB less and cost less - g_global on huge pages took 9.5 % of the samples of
 * region "main" instead of its 14.5 %. */
void golden_fill(double *p, size_t n, double v);

/* golden_alloc.c: n doubles from malloc, each set to v with golden_fill() */
double *golden_alloc_c(size_t n, double v);

/* libgolden.so: its global array golden_lib (W_LIB * GOLDEN_UNIT doubles), and the calling
 * thread's copy of its __thread array golden_lib_tls (W_LIB_TLS * GOLDEN_UNIT doubles) */
double *golden_lib_array(void);
double *golden_lib_tls_array(void);

#endif /* GOLDEN_H */
