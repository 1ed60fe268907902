/* lib/heaplive.c - the live set of the sampled small blocks (contract in heaplive.h).
 *
 * Levels of open-addressing tables (16 probes, no tombstones: a lookup scans all 16), level
 * k of LIVE_SLOTS << k slots, made (raw mmap) when an address finds no free slot in the
 * levels before it, so that a program keeping millions of small blocks live has its
 * sampled ones recorded (one fixed table of 65,536 slots recorded no more than about 65,000
 * at once: 1 in 64 of 4 M live blocks). A free first reads memphis__live_hint, a count of
 * the set's addresses per hash bucket (a counted address may not be in a table yet, never
 * the reverse): most frees are of blocks never recorded, and that one load in a 64 KiB
 * table tells them, where scanning 16 slots per level in a 512 KiB one took 200
 * instructions and a cache miss a free (issue 38).
 */
#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heaplive.h"
#include "self.h"

#define LIVE_SLOTS 65536u
#define LIVE_PROBES 16u
#define LIVE_LEVELS 12u /* the last of 128 Mi slots */
static uintptr_t live0[LIVE_SLOTS];
static uintptr_t *live[LIVE_LEVELS] = { live0 };
uint32_t memphis__live_hint[1u << MEMPHIS__LIVE_HINT_BITS];

/* Level k of the live set; made when absent and `make` (NULL: absent, or no memory). */
static uintptr_t *live_level(unsigned k, int make)
{
	uintptr_t *t = __atomic_load_n(&live[k], __ATOMIC_ACQUIRE), *none = NULL;
	size_t bytes = ((size_t)LIVE_SLOTS << k) * sizeof(*t);

	if (t || !make)
		return t;
	t = memphis__map_anon(bytes);
	if (t && !__atomic_compare_exchange_n(&live[k], &none, t, 0, __ATOMIC_ACQ_REL,
					      __ATOMIC_ACQUIRE)) {
		syscall(SYS_munmap, t, bytes); /* another thread made it first */
		t = none;
	}
	return t;
}

/* First slot of p's probe range in level k. */
static size_t live_slot(uintptr_t p, unsigned k)
{
	return (size_t)(((uint64_t)p * 0x9e3779b97f4a7c15ull) >> (48 - k));
}

/* Remember p as recorded; 0, or -ENOSPC when no level has room for it. */
int memphis__live_add(uintptr_t p)
{
	uint32_t *hint = memphis__live_bucket(p);

	/* counted first: a free of p (after this returns) never finds the count 0 */
	__atomic_add_fetch(hint, 1, __ATOMIC_RELAXED);
	for (unsigned k = 0; k < LIVE_LEVELS; k++) {
		uintptr_t *t = live_level(k, 1);
		size_t mask = ((size_t)LIVE_SLOTS << k) - 1, h = live_slot(p, k);

		if (!t)
			break;
		for (unsigned i = 0; i < LIVE_PROBES; i++) {
			uintptr_t zero = 0;
			if (__atomic_compare_exchange_n(&t[(h + i) & mask], &zero, p, 0,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return 0;
		}
	}
	__atomic_sub_fetch(hint, 1, __ATOMIC_RELAXED);
	return -ENOSPC;
}

/* memphis__live_take's search, its count of p's bucket not 0. */
int memphis__live_find_take(uintptr_t p, uint32_t *hint)
{
	for (unsigned k = 0; k < LIVE_LEVELS; k++) {
		uintptr_t *t = live_level(k, 0);
		size_t mask = ((size_t)LIVE_SLOTS << k) - 1, h = live_slot(p, k);

		if (!t)
			break;
		for (unsigned i = 0; i < LIVE_PROBES; i++) {
			uintptr_t *slot = &t[(h + i) & mask];
			uintptr_t want = p;
			if (__atomic_load_n(slot, __ATOMIC_RELAXED) == p &&
			    __atomic_compare_exchange_n(slot, &want, 0, 0, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				__atomic_sub_fetch(hint, 1, __ATOMIC_RELAXED);
				return 1;
			}
		}
	}
	return 0;
}
