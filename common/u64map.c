/* common/u64map.c - the growing half of the uint64 -> uint64 map (see u64map.h). */
#include "u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"

/* Allocate the slot arrays for `cap` slots (a power of two), all empty. */
static int alloc_slots(struct mph_u64map *m, size_t cap)
{
	m->slot = mph_big_alloc(cap * sizeof(*m->slot));
	if (!m->slot)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		m->slot[i].key = MPH_U64MAP_EMPTY;
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
	free(m->slot);
	m->slot = NULL;
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
		if (m->slot[i].key == MPH_U64MAP_EMPTY)
			continue;
		size_t j = mph_u64map_slot(&n, m->slot[i].key);
		while (n.slot[j].key != MPH_U64MAP_EMPTY)
			j = (j + 1) & n.mask;
		n.slot[j] = m->slot[i];
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
		uint64_t k = m->slot[i].key;
		if (k == key)
			return &m->slot[i].val;
		if (k == MPH_U64MAP_EMPTY) {
			m->slot[i].key = key;
			m->slot[i].val = init;
			m->count++;
			return &m->slot[i].val;
		}
		i = (i + 1) & m->mask;
	}
}
