/* common/u64set.h - a growing set of 64-bit keys: the library's sampled pages of a region
 * and its judged 2 MiB ranges. It allocates with malloc/calloc/free: inside libmemphis,
 * callers bracket its calls with memphis__enter/leave so the allocator interposer does not
 * record them. */
#ifndef MPH_U64SET_H
#define MPH_U64SET_H

#include <stddef.h>
#include <stdint.h>

/* An empty set is all zeros. UINT64_MAX cannot be stored. */
struct mph_u64set {
	uint64_t *slot; /* key + 1 per used slot, 0 = free */
	size_t cap, n;
};

/* Add key: 1 if it was new, 0 if already there, -ENOMEM (the key is then not stored). */
int mph_u64set_add(struct mph_u64set *s, uint64_t key);

/* The keys as a malloc'ed array of *n, in no particular order, owned by the caller (NULL
 * on allocation failure); the set is emptied either way. */
uint64_t *mph_u64set_take(struct mph_u64set *s, size_t *n);

#endif /* MPH_U64SET_H */
