/* post/report/hwsrc.c - data sources and latencies of hardware samples (hwsrc.h). */
#include "hwsrc.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mr_hwsrc_init(struct mr_hwsrc *h)
{
	memset(h, 0, sizeof(*h));
	return mph_u64map_init(&h->ids, 64);
}

void mr_hwsrc_free(struct mr_hwsrc *h)
{
	free(h->st);
	for (int f = 0; f < 3; f++)
		free(h->key[f]);
	mph_u64map_free(&h->ids);
	memset(h, 0, sizeof(*h));
}

unsigned mr_hw_bucket(uint32_t w)
{
	unsigned e;

	if (w < 16)
		return w;
	e = 31u - (unsigned)__builtin_clz(w); /* 4 .. 31 */
	return 16u + (e - 4u) * 8u + ((w >> (e - 3u)) & 7u);
}

double mr_hw_bucket_value(unsigned b)
{
	unsigned e, sub;
	double lo, width;

	if (b < 16)
		return b;
	e = 4u + (b - 16u) / 8u;
	sub = (b - 16u) % 8u;
	width = (double)(1ull << (e - 3u));
	lo = (double)(1ull << e) + sub * width;
	return lo + (width - 1) / 2;
}

static uint64_t pack(uint32_t node, uint32_t var, uint32_t line)
{
	return (uint64_t)node << 48 | (uint64_t)line << 24 | var;
}

/* The stat of (node, var, line), created when new; NULL when out of memory. */
static struct mr_hw_stat *stat_of(struct mr_hwsrc *h, uint32_t node, uint32_t var, uint32_t line)
{
	uint64_t *v = mph_u64map_put(&h->ids, pack(node, var, line), 0);

	if (!v)
		return NULL;
	if (*v)
		return &h->st[*v - 1];
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		struct mr_hw_stat *ns = realloc(h->st, nc * sizeof(*ns));

		if (!ns)
			return NULL; /* the map keeps key -> 0: the next add tries again */
		h->st = ns;
		for (int f = 0; f < 3; f++) {
			uint32_t *nk = realloc(h->key[f], nc * sizeof(*nk));

			if (!nk)
				return NULL;
			h->key[f] = nk;
		}
		h->cap = nc;
	}
	memset(&h->st[h->n], 0, sizeof(h->st[h->n]));
	h->key[MR_HW_NODE][h->n] = node;
	h->key[MR_HW_VAR][h->n] = var;
	h->key[MR_HW_LINE][h->n] = line;
	*v = ++h->n;
	return &h->st[h->n - 1];
}

int mr_hwsrc_add(struct mr_hwsrc *h, uint32_t node, uint32_t var, uint32_t line,
		 const struct memphis_rec_sample *s, int page_remote)
{
	struct mr_hw_stat *st;
	struct memphis_hw_access a = { 0 };
	int store, hw_remote;

	st = stat_of(h, node > MR_HW_NODE_MAX ? MR_HW_NODE_MAX : node,
		     var > MR_HW_ID_MAX ? 0 : var, line > MR_HW_ID_MAX ? 0 : line);
	if (!st)
		return -ENOMEM;
	memphis_mem_src_decode(s->data_src, &a);
	/* the direction: the data source's, else the sample's flags */
	store = a.has_src ? a.is_store && !a.is_load : (s->flags & MPH_S_STORE) != 0;
	hw_remote = a.has_src ? a.remote : (s->flags & MPH_S_REMOTE_HW) != 0;
	h->total++;
	st->n++;
	st->src[store][a.src]++;
	st->loads += !store && (a.is_load || (s->flags & MPH_S_LOAD));
	st->stores += store;
	st->hitm += a.hitm;
	if (s->weight) {
		st->lat_n++;
		st->lat_sum += s->weight;
		st->hist[mr_hw_bucket(s->weight)]++;
	}
	st->hw_remote += hw_remote;
	st->page_remote += page_remote == 1;
	st->disagree += page_remote >= 0 && hw_remote != page_remote;
	return 0;
}

int mr_hwsrc_merge(struct mr_hwsrc *dst, const struct mr_hwsrc *src, const uint32_t *var_map,
		   const uint32_t *line_map)
{
	for (size_t i = 0; i < src->n; i++) {
		uint32_t var = src->key[MR_HW_VAR][i], line = src->key[MR_HW_LINE][i];
		struct mr_hw_stat *st = stat_of(dst, src->key[MR_HW_NODE][i],
						var_map ? var_map[var] : var,
						line_map ? line_map[line] : line);

		if (!st)
			return -ENOMEM;
		mr_hw_stat_merge(st, &src->st[i]);
	}
	dst->total += src->total;
	return 0;
}

const struct mr_hw_stat *mr_hwsrc_get(const struct mr_hwsrc *h, uint32_t node, uint32_t var,
				      uint32_t line)
{
	uint64_t *v;

	if (!h->n || node > MR_HW_NODE_MAX || var > MR_HW_ID_MAX || line > MR_HW_ID_MAX)
		return NULL;
	v = mph_u64map_get(&h->ids, pack(node, var, line));
	return v ? &h->st[*v - 1] : NULL;
}

/* Packed order keys: the fields in the order's sequence, each in its width. */
static const unsigned width[3] = { [MR_HW_NODE] = 16, [MR_HW_VAR] = 24, [MR_HW_LINE] = 24 };

static uint64_t order_key(const struct mr_hw_order *o, uint32_t va, uint32_t vb, uint32_t vc)
{
	return (uint64_t)va << (width[o->b] + width[o->c]) | (uint64_t)vb << width[o->c] | vc;
}

static int cmp_pair(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

int mr_hw_order_init(struct mr_hw_order *o, const struct mr_hwsrc *h, enum mr_hw_field a,
		     enum mr_hw_field b)
{
	uint64_t *pairs;

	memset(o, 0, sizeof(*o));
	o->a = a;
	o->b = b;
	o->c = (enum mr_hw_field)(3 - a - b);
	pairs = malloc((h->n ? h->n : 1) * 2 * sizeof(*pairs));
	o->key = malloc((h->n ? h->n : 1) * sizeof(*o->key));
	o->idx = malloc((h->n ? h->n : 1) * sizeof(*o->idx));
	if (!pairs || !o->key || !o->idx) {
		free(pairs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n; i++) {
		pairs[2 * i] = order_key(o, h->key[a][i], h->key[b][i], h->key[o->c][i]);
		pairs[2 * i + 1] = i;
	}
	qsort(pairs, h->n, 2 * sizeof(*pairs), cmp_pair);
	for (size_t i = 0; i < h->n; i++) {
		o->key[i] = pairs[2 * i];
		o->idx[i] = (uint32_t)pairs[2 * i + 1];
	}
	o->n = h->n;
	free(pairs);
	return 0;
}

void mr_hw_order_free(struct mr_hw_order *o)
{
	free(o->key);
	free(o->idx);
	memset(o, 0, sizeof(*o));
}

/* The first position whose key is >= k. */
static size_t lower_bound(const struct mr_hw_order *o, uint64_t k)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->key[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

size_t mr_hw_order_range(const struct mr_hw_order *o, uint32_t va, uint32_t vb, size_t *first)
{
	uint32_t max_b = (uint32_t)((1ull << width[o->b]) - 1), max_c = (uint32_t)((1ull << width[o->c]) - 1);
	uint64_t lo, hi;

	if (va >= (1ull << width[o->a]) || (vb != MR_HW_ANY && vb > max_b)) {
		*first = 0;
		return 0;
	}
	lo = order_key(o, va, vb == MR_HW_ANY ? 0 : vb, 0);
	hi = order_key(o, va, vb == MR_HW_ANY ? max_b : vb, max_c);
	*first = lower_bound(o, lo);
	return hi == UINT64_MAX ? o->n - *first : lower_bound(o, hi + 1) - *first;
}

size_t mr_hwsrc_sum(const struct mr_hwsrc *h, const struct mr_hw_order *o, uint32_t va,
		    uint32_t vb, struct mr_hw_stat *out)
{
	size_t first, n = mr_hw_order_range(o, va, vb, &first);

	memset(out, 0, sizeof(*out));
	for (size_t i = first; i < first + n; i++)
		mr_hw_stat_merge(out, &h->st[o->idx[i]]);
	return n;
}

void mr_hw_stat_merge(struct mr_hw_stat *a, const struct mr_hw_stat *b)
{
	a->n += b->n;
	for (int d = 0; d < 2; d++)
		for (int i = 0; i < MEMPHIS_SRC_COUNT; i++)
			a->src[d][i] += b->src[d][i];
	a->loads += b->loads;
	a->stores += b->stores;
	a->hitm += b->hitm;
	a->lat_n += b->lat_n;
	a->lat_sum += b->lat_sum;
	a->hw_remote += b->hw_remote;
	a->page_remote += b->page_remote;
	a->disagree += b->disagree;
	for (int i = 0; i < MR_HW_BUCKETS; i++)
		a->hist[i] += b->hist[i];
}

double mr_hw_lat_mean(const struct mr_hw_stat *s)
{
	return s->lat_n ? (double)s->lat_sum / (double)s->lat_n : 0;
}

double mr_hw_lat_pct(const struct mr_hw_stat *s, double p)
{
	uint64_t rank, seen = 0;

	if (!s->lat_n)
		return 0;
	/* nearest rank: the smallest value with at least p % of the samples at or below it */
	rank = (uint64_t)((p / 100.0) * (double)s->lat_n + 0.999999);
	if (rank < 1)
		rank = 1;
	for (unsigned b = 0; b < MR_HW_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= rank)
			return mr_hw_bucket_value(b);
	}
	return 0;
}

static const char *const names[MEMPHIS_SRC_COUNT][2] = {
	[MEMPHIS_SRC_NA] = { "n/a", "na" },
	[MEMPHIS_SRC_L1] = { "L1", "l1" },
	[MEMPHIS_SRC_LFB] = { "LFB", "lfb" },
	[MEMPHIS_SRC_L2] = { "L2", "l2" },
	[MEMPHIS_SRC_L3] = { "L3", "l3" },
	[MEMPHIS_SRC_NEAR_CACHE] = { "near$", "near_cache" },
	[MEMPHIS_SRC_FAR_CACHE] = { "rem$", "remote_cache" },
	[MEMPHIS_SRC_LOCAL_RAM] = { "lDRAM", "local_dram" },
	[MEMPHIS_SRC_REMOTE_RAM] = { "rDRAM", "remote_dram" },
	[MEMPHIS_SRC_PMEM] = { "PMEM", "pmem" },
	[MEMPHIS_SRC_CXL] = { "CXL", "cxl" },
	[MEMPHIS_SRC_IO] = { "IO", "io" },
	[MEMPHIS_SRC_UNCACHED] = { "UC", "uncached" },
	[MEMPHIS_SRC_L1_MISS] = { "L1miss", "l1_miss" },
	[MEMPHIS_SRC_L3_MISS] = { "L3miss", "l3_miss" },
};

/* Near to far; a miss whose serving level is unknown right after the level it missed. */
const unsigned char mr_hw_src_order[MEMPHIS_SRC_COUNT] = {
	MEMPHIS_SRC_L1, MEMPHIS_SRC_LFB, MEMPHIS_SRC_L1_MISS, MEMPHIS_SRC_L2, MEMPHIS_SRC_L3,
	MEMPHIS_SRC_NEAR_CACHE, MEMPHIS_SRC_L3_MISS, MEMPHIS_SRC_LOCAL_RAM, MEMPHIS_SRC_REMOTE_RAM,
	MEMPHIS_SRC_FAR_CACHE, MEMPHIS_SRC_PMEM, MEMPHIS_SRC_CXL, MEMPHIS_SRC_IO,
	MEMPHIS_SRC_UNCACHED, MEMPHIS_SRC_NA,
};

const char *mr_hw_src_name(unsigned src)
{
	return src < MEMPHIS_SRC_COUNT ? names[src][0] : "?";
}

const char *mr_hw_src_key(unsigned src)
{
	return src < MEMPHIS_SRC_COUNT ? names[src][1] : "unknown";
}

int mr_hw_cov_parse(const char *text, uint32_t *region, struct mr_hw_cov *c)
{
	static const char key[] = "hw coverage: ";
	unsigned long r;
	uint64_t en, run;
	int at = 0;

	if (strncmp(text, key, sizeof(key) - 1))
		return 0;
	if (sscanf(text + sizeof(key) - 1, "region=%lu enabled_ns=%" SCNu64 " running_ns=%" SCNu64
		   " event=%n", &r, &en, &run, &at) != 3 || !at || !text[sizeof(key) - 1 + (size_t)at] ||
	    r > UINT32_MAX || run > en)
		return 0;
	*region = (uint32_t)r;
	snprintf(c->event, sizeof(c->event), "%s", text + sizeof(key) - 1 + at);
	c->enabled_ns = en;
	c->running_ns = run;
	return 1;
}

void mr_hw_cov_add(struct mr_hw_cov *sums, size_t *n, size_t max, const struct mr_hw_cov *c)
{
	size_t i;

	for (i = 0; i < *n && strcmp(sums[i].event, c->event); i++)
		;
	if (i == *n) {
		if (*n == max)
			return;
		sums[i] = *c;
		sums[i].enabled_ns = sums[i].running_ns = 0;
		(*n)++;
	}
	sums[i].enabled_ns += c->enabled_ns;
	sums[i].running_ns += c->running_ns;
}

void mr_hw_cov_merge_hybrid(struct mr_hw_cov *sums, size_t *n)
{
	static const char core[] = "cpu_core/", atom[] = "cpu_atom/";
	int merged = 1;

	while (merged) { /* one pair at a time: a merge moves the last entry */
		merged = 0;
		for (size_t i = 0; i < *n && !merged; i++) {
			const char *name = sums[i].event + sizeof(core) - 1;

			if (strncmp(sums[i].event, core, sizeof(core) - 1))
				continue;
			for (size_t j = 0; j < *n && !merged; j++) {
				if (strncmp(sums[j].event, atom, sizeof(atom) - 1) ||
				    strcmp(sums[j].event + sizeof(atom) - 1, name))
					continue;
				if (sums[j].enabled_ns > sums[i].enabled_ns)
					sums[i].enabled_ns = sums[j].enabled_ns;
				sums[i].running_ns += sums[j].running_ns;
				if (sums[i].running_ns > sums[i].enabled_ns)
					sums[i].running_ns = sums[i].enabled_ns;
				memmove(sums[i].event, name, strlen(name) + 1);
				sums[j] = sums[--*n];
				merged = 1;
			}
		}
	}
}
