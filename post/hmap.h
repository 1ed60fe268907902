/* post/hmap.h - an open-addressing hash map from uint64 keys to uint64 values, for the
 * caches and counters of the report (ip -> line, page -> node, cell -> count). The key
 * UINT64_MAX is reserved (it marks empty slots). */
#ifndef MR_HMAP_H
#define MR_HMAP_H

#include <stddef.h>
#include <stdint.h>

#define MR_HMAP_EMPTY UINT64_MAX

struct mr_hmap {
	uint64_t *keys;
	uint64_t *vals;
	size_t mask;  /* capacity - 1, capacity a power of two */
	size_t count;
	unsigned shift; /* 64 - log2(capacity): slots come from the top bits of key * golden */
};

/* Initialise an empty map with room for about `hint` keys. Returns 0 or -ENOMEM. */
int mr_hmap_init(struct mr_hmap *m, size_t hint);
void mr_hmap_free(struct mr_hmap *m);

/* Home slot of key (Fibonacci hashing; the hot paths are inline). */
static inline size_t mr_hmap_slot(const struct mr_hmap *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> m->shift);
}

/* Pointer to the value of key, or NULL if absent. Valid until the next insertion. */
static inline uint64_t *mr_hmap_get(const struct mr_hmap *m, uint64_t key)
{
	size_t i = mr_hmap_slot(m, key);

	for (;;) {
		uint64_t k = m->keys[i];
		if (k == key)
			return &m->vals[i];
		if (k == MR_HMAP_EMPTY)
			return NULL;
		i = (i + 1) & m->mask;
	}
}

/* Slow path of mr_hmap_put: grow when needed and insert. */
uint64_t *mr_hmap_insert(struct mr_hmap *m, uint64_t key, uint64_t init);

/* Pointer to the value of key, inserted with value `init` if absent; NULL when out of
 * memory. Valid until the next insertion. */
static inline uint64_t *mr_hmap_put(struct mr_hmap *m, uint64_t key, uint64_t init)
{
	uint64_t *v = mr_hmap_get(m, key);

	return v ? v : mr_hmap_insert(m, key, init);
}

/* A well-mixed 64-bit hash (also used for strings via mr_hash_str). */
static inline uint64_t mr_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* FNV-1a of a string, never UINT64_MAX. */
uint64_t mr_hash_str(const char *s);

#endif /* MR_HMAP_H */
