/* post/report/kerneltime.c - the kernel's samples by entry and function (see kerneltime.h). */
#include "kerneltime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"

#define KEY(sc, id, f) ((uint64_t)!!(sc) << 63 | (uint64_t)((id) & 0x7fffffffu) << 32 | (f))

int mr_ktime_init(struct mr_ktime *k)
{
	memset(k, 0, sizeof(*k));
	if (mph_u64map_init(&k->cells, 16) || mph_u64map_init(&k->regions, 4)) {
		mr_ktime_free(k);
		return -ENOMEM;
	}
	return 0;
}

void mr_ktime_free(struct mr_ktime *k)
{
	mph_u64map_free(&k->cells);
	mph_u64map_free(&k->regions);
}

static int add_n(struct mr_ktime *k, uint64_t key, uint32_t region, uint64_t n)
{
	uint64_t *v = mph_u64map_put(&k->cells, key, 0);

	if (!v)
		return -ENOMEM;
	*v += n;
	k->total += n;
	k->syscalls += key >> 63 ? n : 0;
	if (region != UINT32_MAX) {
		if (!(v = mph_u64map_put(&k->regions, region, 0)))
			return -ENOMEM;
		*v += n;
	}
	return 0;
}

int mr_ktime_add(struct mr_ktime *k, int syscall, uint32_t id, uint32_t func, uint32_t region)
{
	return add_n(k, KEY(syscall, id, func), region, 1);
}

int mr_ktime_merge(struct mr_ktime *dst, const struct mr_ktime *src, const uint32_t *var_map,
		   size_t nvar, const uint32_t *line_map, size_t nline)
{
	for (size_t i = 0; src->cells.slot && i <= src->cells.mask; i++) {
		uint64_t key = src->cells.slot[i].key;
		int sc = (int)(key >> 63);
		uint32_t id = (uint32_t)(key >> 32) & 0x7fffffffu;

		if (key == MPH_U64MAP_EMPTY)
			continue;
		id = sc ? mr_agg_rename(line_map, nline, id) : mr_agg_rename(var_map, nvar, id);
		/* the regions are summed below: no region here */
		if (add_n(dst, KEY(sc, id, (uint32_t)key), UINT32_MAX, src->cells.slot[i].val))
			return -ENOMEM;
	}
	for (size_t i = 0; src->regions.slot && i <= src->regions.mask; i++) {
		uint64_t *v;

		if (src->regions.slot[i].key == MPH_U64MAP_EMPTY)
			continue;
		if (!(v = mph_u64map_put(&dst->regions, src->regions.slot[i].key, 0)))
			return -ENOMEM;
		*v += src->regions.slot[i].val;
	}
	return 0;
}

struct cell {
	uint64_t key, n;
};

static int by_key(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

static int by_samples(const void *x, const void *y)
{
	const struct mr_ktime_entry *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	if (a->syscall != b->syscall)
		return a->syscall - b->syscall;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Put function f with n samples into the top three of e (ties: the lower number first). */
static void top_func(uint32_t *func, uint64_t *func_n, uint32_t f, uint64_t n)
{
	size_t at = 0;

	while (at < 3 && func_n[at] >= n)
		at++;
	if (at == 3)
		return;
	memmove(&func[at + 1], &func[at], (2 - at) * sizeof(*func));
	memmove(&func_n[at + 1], &func_n[at], (2 - at) * sizeof(*func_n));
	func[at] = f;
	func_n[at] = n;
}

/* The cells of k sorted by key into a malloc'd array; *n their count. */
static struct cell *sorted_cells(const struct mr_ktime *k, size_t *n)
{
	struct cell *c = malloc((k->cells.count ? k->cells.count : 1) * sizeof(*c));

	*n = 0;
	if (!c)
		return NULL;
	for (size_t i = 0; k->cells.slot && i <= k->cells.mask; i++)
		if (k->cells.slot[i].key != MPH_U64MAP_EMPTY)
			c[(*n)++] = (struct cell){ k->cells.slot[i].key, k->cells.slot[i].val };
	qsort(c, *n, sizeof(*c), by_key);
	return c;
}

size_t mr_ktime_entries(const struct mr_ktime *k, struct mr_ktime_entry **out)
{
	size_t nc, ne = 0;
	struct cell *c = sorted_cells(k, &nc);
	struct mr_ktime_entry *e = c ? calloc(nc ? nc : 1, sizeof(*e)) : NULL;

	*out = NULL;
	if (!e) {
		free(c);
		return 0;
	}
	for (size_t i = 0; i < nc; i++) {
		uint64_t entry = c[i].key >> 32;
		struct mr_ktime_entry *x;

		if (!ne || ((uint64_t)e[ne - 1].syscall << 31 | e[ne - 1].id) != entry) {
			x = &e[ne++];
			x->syscall = (int)(entry >> 31);
			x->id = (uint32_t)entry & 0x7fffffffu;
			x->func[0] = x->func[1] = x->func[2] = MR_KTIME_NOFUNC;
		}
		x = &e[ne - 1];
		x->n += c[i].n;
		top_func(x->func, x->func_n, (uint32_t)c[i].key, c[i].n);
	}
	free(c);
	qsort(e, ne, sizeof(*e), by_samples);
	*out = e;
	return ne;
}

size_t mr_ktime_functions(const struct mr_ktime *k, uint32_t *out, uint64_t *n, size_t max)
{
	struct mph_u64map f;
	size_t got = 0;

	if (mph_u64map_init(&f, 64))
		return 0;
	for (size_t i = 0; k->cells.slot && i <= k->cells.mask; i++) {
		uint64_t *v;

		if (k->cells.slot[i].key == MPH_U64MAP_EMPTY)
			continue;
		if (!(v = mph_u64map_put(&f, (uint32_t)k->cells.slot[i].key, 0)))
			break;
		*v += k->cells.slot[i].val;
	}
	for (size_t i = 0; i < max; i++)
		n[i] = 0;
	for (size_t i = 0; i <= f.mask; i++) {
		size_t at = 0;

		if (f.slot[i].key == MPH_U64MAP_EMPTY)
			continue;
		while (at < got && (n[at] > f.slot[i].val ||
				    (n[at] == f.slot[i].val && out[at] < f.slot[i].key)))
			at++;
		if (at >= max)
			continue;
		got += got < max;
		memmove(&out[at + 1], &out[at], (got - 1 - at) * sizeof(*out));
		memmove(&n[at + 1], &n[at], (got - 1 - at) * sizeof(*n));
		out[at] = (uint32_t)f.slot[i].key;
		n[at] = f.slot[i].val;
	}
	mph_u64map_free(&f);
	return got;
}
