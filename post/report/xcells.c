/* post/report/xcells.c - the exports' counts (xcells.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "hash.h"
#include "xcells.h"

int mr_xcells_init(struct mr_xcells *x, uint64_t t0, uint64_t t1)
{
	memset(x, 0, sizeof(*x));
	if (t1 > t0) {
		uint64_t span = t1 - t0;

		x->t0 = t0;
		x->bin_ns = (span + MR_XCELLS_MAX_BINS - 1) / MR_XCELLS_MAX_BINS;
		if (x->bin_ns < MR_XCELLS_MIN_BIN_NS)
			x->bin_ns = MR_XCELLS_MIN_BIN_NS;
		x->nbins = (uint32_t)((span + x->bin_ns - 1) / x->bin_ns);
	}
	return mph_u64map_init(&x->bins, 64);
}

int mr_xcells_init_as(struct mr_xcells *x, const struct mr_xcells *like)
{
	int rc = mr_xcells_init(x, 0, 0);

	x->t0 = like->t0;
	x->bin_ns = like->bin_ns;
	x->nbins = like->nbins;
	return rc;
}

void mr_xcells_free(struct mr_xcells *x)
{
	free(x->slot);
	mph_u64map_free(&x->bins);
	memset(x, 0, sizeof(*x));
}

static uint64_t key_hash(const struct mr_xcell *k)
{
	return mph_hash64(((uint64_t)k->var << 32 | k->line) ^
			  mph_hash64((uint64_t)k->tid << 32 | k->region) ^
			  ((uint64_t)k->cpu_node << 32 | k->page_node) * MPH_GOLDEN64);
}

static int same_key(const struct mr_xcell *a, const struct mr_xcell *b)
{
	return a->var == b->var && a->line == b->line && a->cpu_node == b->cpu_node &&
	       a->page_node == b->page_node && a->tid == b->tid && a->region == b->region;
}

/* The slot of key k: its cell, or the empty slot where it goes. */
static struct mr_xcell *find(const struct mr_xcells *x, const struct mr_xcell *k)
{
	size_t i = (size_t)key_hash(k) & x->mask;

	while (x->slot[i].n && !same_key(&x->slot[i], k))
		i = (i + 1) & x->mask;
	return &x->slot[i];
}

/* Double the table (or make the first one). 0 or -ENOMEM (the table is unchanged). */
static int grow(struct mr_xcells *x)
{
	size_t cap = x->slot ? (x->mask + 1) * 2 : 256;
	struct mr_xcells old = *x;

	x->slot = calloc(cap, sizeof(*x->slot));
	if (!x->slot) {
		x->slot = old.slot;
		return -ENOMEM;
	}
	x->mask = cap - 1;
	for (size_t i = 0; old.slot && i <= old.mask; i++)
		if (old.slot[i].n)
			*find(x, &old.slot[i]) = old.slot[i];
	free(old.slot);
	return 0;
}

/* Add n samples of weight w to key k. */
static int add_cell(struct mr_xcells *x, const struct mr_xcell *k, uint64_t n, uint64_t w)
{
	struct mr_xcell *c;

	if ((!x->slot || (x->count + 1) * 4 > (x->mask + 1) * 3) && grow(x))
		return -ENOMEM;
	c = find(x, k);
	if (!c->n) {
		*c = *k;
		c->n = c->weight = 0;
		x->count++;
	}
	c->n += n;
	c->weight += w;
	return 0;
}

static uint64_t bin_key(uint32_t var, uint32_t bin, enum mr_xclass c)
{
	return (uint64_t)var << 40 | (uint64_t)bin << 8 | (uint64_t)c;
}

static int add_bin(struct mr_xcells *x, uint64_t key, uint64_t n)
{
	uint64_t *v = mph_u64map_put(&x->bins, key, 0);

	if (!v)
		return -ENOMEM;
	*v += n;
	return 0;
}

int mr_xcells_add(struct mr_xcells *x, const struct mr_xcell *k, uint64_t w, uint64_t t,
		  enum mr_xclass c)
{
	uint64_t bin;

	if (add_cell(x, k, 1, w))
		return -ENOMEM;
	if (!x->nbins)
		return 0;
	bin = t > x->t0 ? (t - x->t0) / x->bin_ns : 0;
	if (bin >= x->nbins)
		bin = x->nbins - 1;
	return add_bin(x, bin_key(k->var & 0xffffff, (uint32_t)bin, c), 1);
}

int mr_xcells_merge(struct mr_xcells *dst, const struct mr_xcells *src, const uint32_t *var_map,
		    size_t nvar, const uint32_t *line_map, size_t nline)
{
	for (size_t i = 0; src->slot && i <= src->mask; i++) {
		struct mr_xcell k = src->slot[i];

		if (!k.n)
			continue;
		k.var = mr_agg_rename(var_map, nvar, k.var);
		k.line = mr_agg_rename(line_map, nline, k.line);
		if (add_cell(dst, &k, k.n, k.weight))
			return -ENOMEM;
	}
	for (size_t i = 0; i <= src->bins.mask; i++) {
		uint64_t key = src->bins.slot[i].key;
		uint32_t var;

		if (key == MPH_U64MAP_EMPTY)
			continue;
		var = mr_agg_rename(var_map, nvar, (uint32_t)(key >> 40)) & 0xffffff;
		if (add_bin(dst, (uint64_t)var << 40 | (key & ((1ull << 40) - 1)),
			    src->bins.slot[i].val))
			return -ENOMEM;
	}
	return 0;
}

uint64_t mr_xcells_bin(const struct mr_xcells *x, uint32_t var, uint32_t bin, enum mr_xclass c)
{
	const uint64_t *v = mph_u64map_get(&x->bins, bin_key(var & 0xffffff, bin, c));

	return v ? *v : 0;
}
