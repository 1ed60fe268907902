/* post/heap.h - heap objects over time: which allocation was live at address A at time T.
 *
 * Built once from the ALLOCS and FREES records. Entries are sorted by (address, allocation
 * time); a max tree over their end addresses finds, below any index, the nearest entry
 * that reaches past an address, so a lookup is a binary search plus one tree step per
 * object start that covers the address at some time (not per object below it: one freed
 * big object under a million small ones costs one step, not a million). An address
 * reused after free() is resolved by the allocation and free times. Scales to millions of
 * allocations: O(n log n) build, O(log n) lookup (O(1) plus a search among the objects
 * starting in the address's 4 KiB block, when some do), 40 bytes per object plus 8 to 24
 * for the tree and 8 for the search array, and 21 to 43 per 4 KiB block where objects
 * start for the blocks' map.
 */
#ifndef MR_HEAP_H
#define MR_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include <memphis/format.h>

#include "u64map.h"

#define MR_HEAP_FANOUT 32

struct mr_heap_obj {
	uint64_t addr, end;  /* [addr, end) */
	uint64_t t0, t1;     /* live in [t0, t1); t1 = UINT64_MAX if never freed */
	uint32_t tag;        /* index of the ALLOCS record when built; the caller may put its
			      * own value there (the attribution: the object's variable, read
			      * with the entry instead of a lookup by record) */
	uint32_t group;      /* index of the first entry with the same addr */
};

struct mr_heap {
	struct mr_heap_obj *obj; /* sorted by (addr, t0) */
	uint64_t *addr;          /* obj[i].addr, compact for the binary search */
	uint64_t *top;           /* addr[i * MR_HEAP_FANOUT]: a cache-resident first level */
	size_t ntop;
	uint64_t *maxend;        /* max tree: [leaves + i] = obj[i].end, [k] = max of [2k], [2k+1] */
	size_t leaves;           /* a power of two >= n */
	struct mph_u64map starts; /* addr >> 12 -> first entry starting in that 4 KiB block | the
				   * number of them << 32: a sample among many small objects finds
				   * its few candidates in one lookup, not a dozen misses of the
				   * binary search */
	size_t n;
	size_t unmatched_frees;  /* FREES records with no allocation live at that address */
};

/* Build the index. Returns 0 or -ENOMEM. */
int mr_heap_build(struct mr_heap *h, const struct memphis_rec_alloc *allocs, size_t nallocs,
		  const struct memphis_rec_free *frees, size_t nfrees);
void mr_heap_free(struct mr_heap *h);

/* The object live at time t that contains addr, or NULL. */
const struct mr_heap_obj *mr_heap_find(const struct mr_heap *h, uint64_t addr, uint64_t t);
/* The widest [*lo, *hi) around addr that no object overlaps at any time: 1, or 0 when some
 * object holds addr at some time (then nothing to cache about addr's neighbourhood). */
int mr_heap_gap(const struct mr_heap *h, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* mr_heap_find that also adds to *steps the object starts it looked at (for tests). */
const struct mr_heap_obj *mr_heap_find_steps(const struct mr_heap *h, uint64_t addr, uint64_t t,
					     size_t *steps);

#endif /* MR_HEAP_H */
