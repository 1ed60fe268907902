/* common/u64map.h - an open-addressing hash map from uint64 keys to uint64 values with
 * linear probing (caches and counters: ip -> line, page -> node, cell -> count). The key
 * MPH_U64MAP_EMPTY (UINT64_MAX) is reserved: it marks empty slots. Lookups and the hit
 * path of mph_u64map_put are inline. Not thread-safe. */
#ifndef MPH_U64MAP_H
#define MPH_U64MAP_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define MPH_U64MAP_EMPTY UINT64_MAX

/* A key and its value side by side: a lookup that misses the cache costs one line, not
 * two. */
struct mph_u64slot {
	uint64_t key;
	uint64_t val;
};

struct mph_u64map {
	struct mph_u64slot *slot;
	size_t mask;    /* capacity - 1, capacity a power of two */
	size_t count;
	unsigned shift; /* 64 - log2(capacity): slots come from the top bits of key * golden */
};

/* Initialise *m as an empty map with room for about `hint` keys before it grows.
 * Returns 0 or -ENOMEM (then *m holds no memory). Free with mph_u64map_free(). */
int mph_u64map_init(struct mph_u64map *m, size_t hint);

/* Free the slots of *m (NULL or an already freed map: nothing); *m is empty afterwards. */
void mph_u64map_free(struct mph_u64map *m);

/* Home slot of key (Fibonacci hashing). */
static inline size_t mph_u64map_slot(const struct mph_u64map *m, uint64_t key)
{
	return (size_t)((key * MPH_GOLDEN64) >> m->shift);
}

/* Pointer to the value of key, or NULL if absent. Valid until the next insertion. */
static inline uint64_t *mph_u64map_get(const struct mph_u64map *m, uint64_t key)
{
	size_t i = mph_u64map_slot(m, key);

	for (;;) {
		uint64_t k = m->slot[i].key;
		if (k == key)
			return &m->slot[i].val;
		if (k == MPH_U64MAP_EMPTY)
			return NULL;
		i = (i + 1) & m->mask;
	}
}

/* Slow path of mph_u64map_put: grow when 3/4 full, then find or insert key (with value
 * init). Returns the value's address, or NULL when growing ran out of memory (the map is
 * unchanged then). Valid until the next insertion. */
uint64_t *mph_u64map_insert(struct mph_u64map *m, uint64_t key, uint64_t init);

/* Pointer to the value of key, inserted with value `init` if absent; NULL when out of
 * memory. key must not be MPH_U64MAP_EMPTY. Valid until the next insertion. */
static inline uint64_t *mph_u64map_put(struct mph_u64map *m, uint64_t key, uint64_t init)
{
	uint64_t *v = mph_u64map_get(m, key);

	return v ? v : mph_u64map_insert(m, key, init);
}

#endif /* MPH_U64MAP_H */
