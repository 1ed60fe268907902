/* common/chunks.c - a sparse array of equal chunks (contracts in chunks.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "chunks.h"

int mph_chunks_init(struct mph_chunks *t, size_t bytes, size_t max)
{
	memset(t, 0, sizeof(*t));
	t->bytes = bytes;
	t->max = max;
	return mph_u64map_init(&t->of, 64);
}

void *mph_chunks_get(struct mph_chunks *t, uint64_t id, int *made)
{
	void *c = mph_chunks_find(t, id);

	if (made)
		*made = 0;
	if (c || t->n == t->max)
		return c;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		void **nc = reallocarray(t->chunk, cap, sizeof(*nc));

		if (!nc)
			return NULL;
		t->chunk = nc;
		t->cap = cap;
	}
	c = calloc(1, t->bytes);
	if (!c || !mph_u64map_insert(&t->of, id, t->n)) {
		free(c);
		return NULL;
	}
	t->chunk[t->n++] = c;
	if (made)
		*made = 1;
	return c;
}

void mph_chunks_free(struct mph_chunks *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->chunk[i]);
	free(t->chunk);
	mph_u64map_free(&t->of);
	t->chunk = NULL;
	t->n = t->cap = 0;
}
