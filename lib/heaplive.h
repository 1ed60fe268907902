/* lib/heaplive.h - the live set: the addresses of the sampled small blocks the heap records
 * (lib/heap.c), so that their frees are recorded and no other free is. Lock-free; below it:
 * self (raw mappings). */
#ifndef MEMPHIS_HEAPLIVE_H
#define MEMPHIS_HEAPLIVE_H

#include <stdint.h>

#define MEMPHIS__LIVE_HINT_BITS 14u
/* Per hash bucket, how many addresses the set holds (or is about to). */
extern uint32_t memphis__live_hint[1u << MEMPHIS__LIVE_HINT_BITS];

/* Remember p as recorded; 0, or -ENOSPC when no level has room for it. */
int memphis__live_add(uintptr_t p);
/* memphis__live_take's search, the count of p's bucket hint not 0. */
int memphis__live_find_take(uintptr_t p, uint32_t *hint);

/* p's bucket of memphis__live_hint. */
static inline uint32_t *memphis__live_bucket(uintptr_t p)
{
	return &memphis__live_hint[((uint64_t)p * 0xc2b2ae3d27d4eb4full) >>
				   (64 - MEMPHIS__LIVE_HINT_BITS)];
}

/* Forget p; 1 if it was recorded (its free must be too), else 0: one load for the blocks
 * never recorded. */
static inline int memphis__live_take(uintptr_t p)
{
	uint32_t *hint = memphis__live_bucket(p);

	return __atomic_load_n(hint, __ATOMIC_RELAXED) ? memphis__live_find_take(p, hint) : 0;
}

#endif /* MEMPHIS_HEAPLIVE_H */
