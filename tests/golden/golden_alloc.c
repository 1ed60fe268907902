/* tests/golden/golden_alloc.c - the heap object of the golden test allocated in a second
 * source file. The array is filled after malloc returns, so the call is not a tail call
 * and its return address stays in golden_alloc_c. */
#include <stdlib.h>

#include "golden.h"

double *golden_alloc_c(size_t n, double v)
{
	double *p = malloc(n * sizeof(*p)); /* SITE:heap_c */

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = v;
	return p;
}
