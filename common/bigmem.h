/* common/bigmem.h - memory for large arrays that are filled soon after they are allocated. */
#ifndef MPH_BIGMEM_H
#define MPH_BIGMEM_H

#include <stddef.h>

/* malloc for an array of `bytes` that will be written through: from 2 MiB up, its 2 MiB
 * pages are advised as transparent huge pages (MADV_HUGEPAGE; ignored where the kernel has
 * none), so that filling it costs a page fault per 2 MiB, not one per 4 KiB (a fault costs
 * 13-16 us in some VMs: a report's 3,000 of them were a third of its fixed cost). The
 * array is rounded up to whole huge pages (at most 2 MiB more, and only those touched
 * become resident). Released by free(). */
void *mph_big_alloc(size_t bytes);
/* mph_big_alloc for an array that a thread fills while another may fork a child (the
 * report's DWARF reader): from 2 MiB up, the child does not get it (MADV_DONTFORK), since
 * after a fork each page of it the parent writes costs a fault again, 512 for a huge page
 * the child shared. The child must not touch it. Grown by mph_big_realloc_nofork and
 * released by mph_big_free_nofork only, each given the bytes it was allocated with: the
 * advice is undone before malloc may hand the memory out again. */
void *mph_big_alloc_nofork(size_t bytes);
void *mph_big_realloc_nofork(void *p, size_t old_bytes, size_t bytes);
void mph_big_free_nofork(void *p, size_t bytes);

#endif /* MPH_BIGMEM_H */
