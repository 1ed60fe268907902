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
};

/* Initialise an empty map with room for about `hint` keys. Returns 0 or -ENOMEM. */
int mr_hmap_init(struct mr_hmap *m, size_t hint);
void mr_hmap_free(struct mr_hmap *m);

/* Pointer to the value of key, or NULL if absent. Valid until the next insertion. */
uint64_t *mr_hmap_get(const struct mr_hmap *m, uint64_t key);

/* Pointer to the value of key, inserted with value `init` if absent; NULL when out of
 * memory. Valid until the next insertion. */
uint64_t *mr_hmap_put(struct mr_hmap *m, uint64_t key, uint64_t init);

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
