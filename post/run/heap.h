/* post/run/heap.h - heap objects over time: which allocation was live at address A at time T.
 *
 * Built from the ALLOCS and FREES records as they stream by, one record at a time, never
 * holding the records themselves: an entry of 40 bytes per allocation is all it keeps
 * (issue 38: a run of 5 M allocations took 1.36 GB to report, the records copied twice,
 * sorted through index arrays as large, and a tree of 16 to 32 bytes per object). Entries
 * are sorted in place by (address, allocation time, record); each free then ends the
 * object live at its address just before it. A max tree over the highest end of each run
 * of MR_HEAP_FANOUT entries finds, below any index, the nearest entry that reaches past
 * an address, so a lookup is a binary search plus one tree step per object start that
 * covers the address at some time (not per object below it: one freed big object under a
 * million small ones costs one step, not a million). An address reused after free() is
 * resolved by the allocation and free times: an address is named by the latest record
 * that covers it, none when that one was freed by then (the site map's runs, issue 41: a
 * small block's bytes belong to the chain of the latest record over them, whatever block
 * it recorded, lib/heapmap.h). O(n log n) build, O(log n) lookup (O(1)
 * plus a search among the objects starting in the address's 4 KiB block, when some do, and
 * no search when they lie evenly spaced, as in an array of equal objects);
 * 40 bytes per object, 2 per object for the tree and the first level, and 21 to 43 per
 * 4 KiB block where objects start for the blocks' map.
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
	uint32_t tag;        /* the caller's value given with the allocation (the attribution:
			      * the object's variable; mr_heap_build: the record's index) */
	uint32_t group;      /* index of the first entry with the same addr, | MR_HEAP_FREED
			      * when t1 is its free (else where a later record overlapping
			      * it starts: it keeps the bytes no later record covers) */
};
#define MR_HEAP_FREED (1u << 31)

struct mr_heap {
	struct mr_heap_obj *obj; /* sorted by (addr, t0, order added) */
	uint64_t *top;           /* obj[i * MR_HEAP_FANOUT].addr: a cache-resident first level */
	size_t ntop;
	uint64_t *maxend;        /* max tree over the runs of MR_HEAP_FANOUT entries: [leaves +
				  * k] = the highest end of run k, [k] = max of [2k], [2k + 1] */
	size_t leaves;           /* a power of two >= ntop */
	struct mph_u64map starts; /* addr >> 12 -> first entry starting in that 4 KiB block | the
				   * number of them << 32: a sample among many small objects finds
				   * its few candidates in one lookup, not a dozen misses of the
				   * binary search */
	size_t n;
	size_t cap;              /* entries allocated (building) */
	size_t unmatched_frees;  /* FREES records with no allocation live at that address */
	uint64_t keep_below;     /* a free does not end an object of fewer bytes (set after
				  * mr_heap_begin): the run's site map named such blocks by their
				  * latest record whether or not freed (lib/heapmap.h) */
};

/* Building, in this order: mr_heap_begin, mr_heap_add for each allocation, mr_heap_sort,
 * mr_heap_add_free for each free, mr_heap_finish. On any error the heap is freed (and
 * empty); the calls after it then do nothing and fail again.
 * mr_heap_begin: room for nallocs allocations (the most mr_heap_add takes); 0 or -ENOMEM.
 * mr_heap_add: the allocation of size bytes (0: one) at addr at time t0, with the caller's
 * tag; an allocation at address 0 is left out. 0, or -ENOSPC past nallocs.
 * mr_heap_sort: entries ordered by (addr, t0, order added); 0 or -ENOMEM.
 * mr_heap_add_free: the free of addr at time t ends the object at addr allocated last
 * before t (at t itself when none was before), if it has no earlier free; else it is
 * counted in unmatched_frees.
 * mr_heap_finish: an object ends where a later one overlapping it starts (a reuse without a
 * recorded free: the same address, or another within its bytes, or one whose bytes hold
 * its start), the last one never; the lookup tables. 0 or -ENOMEM. */
int mr_heap_begin(struct mr_heap *h, size_t nallocs);
int mr_heap_add(struct mr_heap *h, uint64_t addr, uint64_t size, uint64_t t0, uint32_t tag);
int mr_heap_sort(struct mr_heap *h);
void mr_heap_add_free(struct mr_heap *h, uint64_t addr, uint64_t t);
int mr_heap_finish(struct mr_heap *h);

/* The index of records in arrays, each allocation's tag its index in allocs. Returns 0 or
 * -ENOMEM. */
int mr_heap_build(struct mr_heap *h, const struct memphis_rec_alloc *allocs, size_t nallocs,
		  const struct memphis_rec_free *frees, size_t nfrees);
void mr_heap_free(struct mr_heap *h);

/* The latest object allocated by time t that contains addr (looking back over at most
 * MR_HEAP_LOOKBACK records at one address), or NULL when none or it was freed by t. */
#define MR_HEAP_LOOKBACK 8
const struct mr_heap_obj *mr_heap_find(const struct mr_heap *h, uint64_t addr, uint64_t t);
/* The widest [*lo, *hi) around addr that no object overlaps at any time: 1, or 0 when some
 * object holds addr at some time (then nothing to cache about addr's neighbourhood). */
int mr_heap_gap(const struct mr_heap *h, uint64_t addr, uint64_t *lo, uint64_t *hi);
/* mr_heap_find that also adds to *steps the object starts it looked at (for tests). */
const struct mr_heap_obj *mr_heap_find_steps(const struct mr_heap *h, uint64_t addr, uint64_t t,
					     size_t *steps);

#endif /* MR_HEAP_H */
