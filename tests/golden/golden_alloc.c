/* tests/golden/golden_alloc.c - the heap object of the golden test allocated in a second
 * source file, and golden_fill(), which golden.c uses for every measured array. The array
 * is filled after malloc returns, so the call is not a tail call and its return address
 * stays in golden_alloc_c. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "golden.h"

void golden_fill(double *p, size_t n, double v)
{
	uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t hi = (uintptr_t)(p + n) & ~(uintptr_t)4095;

	/* the lowest page first: on the main thread's stack it extends the mapping over p */
	*(volatile double *)p = v;
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_NOHUGEPAGE); /* best effort */
	for (size_t i = 0; i < n; i++)
		p[i] = v;
}

double *golden_alloc_c(size_t n, double v)
{
	double *p = malloc(n * sizeof(*p)); /* SITE:heap_c */

	if (!p)
		return NULL;
	golden_fill(p, n, v);
	return p;
}
