/* common/u64map.c - the growing half of the uint64 -> uint64 map (see u64map.h). */
#include "u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Allocate the slot arrays for `cap` slots (a power of two), all empty. */
static int alloc_slots(struct mph_u64map *m, size_t cap)
{
	m->keys = malloc(cap * sizeof(*m->keys));
	m->vals = malloc(cap * sizeof(*m->vals));
	if (!m->keys || !m->vals) {
		free(m->keys);
		free(m->vals);
		m->keys = m->vals = NULL;
		return -ENOMEM;
	}
	memset(m->keys, 0xff, cap * sizeof(*m->keys));
	m->mask = cap - 1;
	m->count = 0;
	m->shift = 64;
	while (cap > 1) {
		cap >>= 1;
		m->shift--;
	}
	return 0;
}

int mph_u64map_init(struct mph_u64map *m, size_t hint)
{
	size_t cap = 16;

	while (cap < hint * 2)
		cap *= 2;
	return alloc_slots(m, cap);
}

void mph_u64map_free(struct mph_u64map *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	m->keys = m->vals = NULL;
	m->count = 0;
}

/* Double the capacity and reinsert every key. Returns 0 or -ENOMEM (map unchanged). */
static int grow(struct mph_u64map *m)
{
	struct mph_u64map n;
	size_t old = m->mask + 1;

	if (alloc_slots(&n, old * 2))
		return -ENOMEM;
	for (size_t i = 0; i < old; i++) {
		if (m->keys[i] == MPH_U64MAP_EMPTY)
			continue;
		size_t j = mph_u64map_slot(&n, m->keys[i]);
		while (n.keys[j] != MPH_U64MAP_EMPTY)
			j = (j + 1) & n.mask;
		n.keys[j] = m->keys[i];
		n.vals[j] = m->vals[i];
	}
	n.count = m->count;
	mph_u64map_free(m);
	*m = n;
	return 0;
}

uint64_t *mph_u64map_insert(struct mph_u64map *m, uint64_t key, uint64_t init)
{
	size_t i;

	if ((m->count + 1) * 4 > (m->mask + 1) * 3 && grow(m))
		return NULL;
	i = mph_u64map_slot(m, key);
	for (;;) {
		uint64_t k = m->keys[i];
		if (k == key)
			return &m->vals[i];
		if (k == MPH_U64MAP_EMPTY) {
			m->keys[i] = key;
			m->vals[i] = init;
			m->count++;
			return &m->vals[i];
		}
		i = (i + 1) & m->mask;
	}
}
