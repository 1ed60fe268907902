/* common/chunks.h - a sparse array of equal chunks found by their number, each made on
 * first use: the report's per-page tables (post/run/pages.c's page homes, the attribution's
 * page slots), whose pages lie in a few large arrays, so that a page costs a small map's
 * lookup and an index where a map of pages cost a cache and TLB miss. Not thread-safe. */
#ifndef MPH_CHUNKS_H
#define MPH_CHUNKS_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

struct mph_chunks {
	struct mph_u64map of; /* chunk number -> index in chunk */
	void **chunk;         /* [n] of `bytes` each */
	size_t n, cap;
	size_t bytes;         /* of a chunk */
	size_t max;           /* chunks made at most */
};

/* *t empty, for chunks of `bytes` bytes, at most max of them. 0 or -ENOMEM. An all-zero
 * *t (never initialised) may be freed. */
int mph_chunks_init(struct mph_chunks *t, size_t bytes, size_t max);

/* Chunk id: found, or made zero-filled (*made 1 when made is not NULL) while fewer than
 * max are; NULL at max chunks or out of memory. */
void *mph_chunks_get(struct mph_chunks *t, uint64_t id, int *made);

/* Chunk id when made, else NULL; *t initialised. */
static inline void *mph_chunks_find(const struct mph_chunks *t, uint64_t id)
{
	const uint64_t *k = mph_u64map_get(&t->of, id);

	return k ? t->chunk[*k] : NULL;
}

void mph_chunks_free(struct mph_chunks *t);

#endif /* MPH_CHUNKS_H */
