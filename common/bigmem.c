/* common/bigmem.c - large arrays on transparent huge pages (see bigmem.h). */
#include "bigmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_BYTES ((size_t)2 << 20)

void *mph_big_alloc(size_t bytes)
{
	void *p;

	if (bytes < HUGE_BYTES)
		return malloc(bytes);
	/* whole huge pages: aligned, its size rounded up */
	bytes = (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
	if (!bytes || posix_memalign(&p, HUGE_BYTES, bytes))
		return NULL;
	(void)madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

void *mph_big_alloc_nofork(size_t bytes)
{
	void *p = mph_big_alloc(bytes);

	if (p && bytes >= HUGE_BYTES)
		(void)madvise(p, (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1), MADV_DONTFORK);
	return p;
}

void mph_big_free_nofork(void *p, size_t bytes)
{
	if (p && bytes >= HUGE_BYTES)
		(void)madvise(p, (bytes + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1), MADV_DOFORK);
	free(p);
}

void *mph_big_realloc_nofork(void *p, size_t old_bytes, size_t bytes)
{
	void *n = mph_big_alloc_nofork(bytes);

	if (!n)
		return NULL;
	if (p)
		memcpy(n, p, old_bytes < bytes ? old_bytes : bytes);
	mph_big_free_nofork(p, old_bytes);
	return n;
}
