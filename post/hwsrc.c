/* post/hwsrc.c - data sources and latencies of hardware samples (hwsrc.h). */
#include "hwsrc.h"

#include <errno.h>
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
	free(h->var);
	free(h->line);
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

/* The stat of (var, line), created when new; NULL when out of memory. */
static struct mr_hw_stat *stat_of(struct mr_hwsrc *h, uint32_t var, uint32_t line)
{
	uint64_t key = (uint64_t)var << 32 | line, *v = mph_u64map_put(&h->ids, key, 0);

	if (!v)
		return NULL;
	if (*v)
		return &h->st[*v - 1];
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 16;
		struct mr_hw_stat *ns = realloc(h->st, nc * sizeof(*ns));
		uint32_t *nv, *nl;

		if (!ns)
			return NULL;
		h->st = ns;
		nv = realloc(h->var, nc * sizeof(*nv));
		if (!nv)
			return NULL;
		h->var = nv;
		nl = realloc(h->line, nc * sizeof(*nl));
		if (!nl)
			return NULL;
		h->line = nl;
		h->cap = nc;
	}
	memset(&h->st[h->n], 0, sizeof(h->st[h->n]));
	h->var[h->n] = var;
	h->line[h->n] = line;
	*v = ++h->n;
	return &h->st[h->n - 1];
}

int mr_hwsrc_add(struct mr_hwsrc *h, uint32_t var, uint32_t line,
		 const struct memphis_rec_sample *s, int page_remote)
{
	struct mr_hw_stat *st = stat_of(h, var, line);
	struct memphis_hw_access a = { 0 };
	int store, hw_remote;

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
	st->disagree += page_remote >= 0 && hw_remote != page_remote;
	return 0;
}

const struct mr_hw_stat *mr_hwsrc_get(const struct mr_hwsrc *h, uint32_t var, uint32_t line)
{
	uint64_t *v;

	if (!h->n)
		return NULL;
	v = mph_u64map_get(&h->ids, (uint64_t)var << 32 | line);
	return v ? &h->st[*v - 1] : NULL;
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
};

const char *mr_hw_src_name(unsigned src)
{
	return src < MEMPHIS_SRC_COUNT ? names[src][0] : "?";
}

const char *mr_hw_src_key(unsigned src)
{
	return src < MEMPHIS_SRC_COUNT ? names[src][1] : "unknown";
}
