/* common/u64set.c - a growing set of 64-bit keys (open addressing, Fibonacci hashing on
 * the top bits, so page-aligned keys spread too). Contracts in u64set.h. */
#include <errno.h>
#include <stdlib.h>

#include "hash.h"
#include "u64set.h"

static size_t slot_of(uint64_t stored, size_t cap)
{
	return mph_fib_slot(stored, (unsigned)__builtin_ctzll(cap));
}

/* Put `stored` (non-zero) into a table of `cap` slots known to have room. */
static int place(uint64_t *slot, size_t cap, uint64_t stored)
{
	size_t j = slot_of(stored, cap);

	while (slot[j]) {
		if (slot[j] == stored)
			return 0;
		j = (j + 1) & (cap - 1);
	}
	slot[j] = stored;
	return 1;
}

int mph_u64set_add(struct mph_u64set *s, uint64_t key)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 4096;
		uint64_t *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				place(n, ncap, s->slot[i]);
		free(s->slot);
		s->slot = n;
		s->cap = ncap;
	}
	if (!place(s->slot, s->cap, key + 1)) /* key + 1: 0 marks a free slot */
		return 0;
	s->n++;
	return 1;
}

uint64_t *mph_u64set_take(struct mph_u64set *s, size_t *n)
{
	uint64_t *out = malloc((s->n ? s->n : 1) * sizeof(*out));
	size_t k = 0;

	for (size_t i = 0; out && i < s->cap; i++)
		if (s->slot[i])
			out[k++] = s->slot[i] - 1;
	free(s->slot);
	s->slot = NULL;
	s->cap = s->n = 0;
	*n = k;
	return out;
}
