/* post/run/pages.c - page -> home node map (see pages.h). */
#include "pages.h"

#include <errno.h>
#include <stdlib.h>

#define ANY_REGION 0xffffu
#define FROM0 (1ull << 32)
#define OVERRIDE MR_PAGEMAP_OVERRIDE
#define SET MR_PAGEMAP_SET
#define PAGE_KEY MR_PAGEMAP_KEY
#define CHUNK_PAGES (1u << MR_PAGEMAP_CHUNK_BITS)

/* Each PAGES record with a node: fn(pm, region, page, node) in file order; stops at the
 * first nonzero return. */
static int each_record(struct mr_pagemap *pm, const struct mr_run *run,
		       int (*fn)(struct mr_pagemap *, uint32_t, uint64_t, uint64_t))
{
	for (size_t i = 0; i < run->npages; i++) {
		const struct mr_pages *pg = &run->pages[i];
		uint32_t region = pg->hdr.region;

		if (region >= ANY_REGION)
			continue;
		for (uint32_t k = 0; k < pg->hdr.count; k++) {
			struct memphis_rec_page rec = mr_pages_at(pg, k);
			uint64_t page = rec.page & ~(pm->page_size - 1);
			int rc;

			if (rec.node < 0 || page >= (1ull << 48))
				continue;
			rc = fn(pm, region, page, (uint64_t)(int64_t)rec.node);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The dflt value of page (below 2^48), 0 (no record) when new, its chunk made (in the far
 * map past chunk_max chunks); NULL when out of memory. A block's records are mostly in
 * one chunk: the last one is kept. */
static uint64_t *dflt_slot(struct mr_pagemap *pm, uint64_t page)
{
	uint64_t pn = page >> pm->page_shift, id = pn >> MR_PAGEMAP_CHUNK_BITS;

	if (!pm->last || pm->last_id != id) {
		uint64_t *c = mph_chunks_get(&pm->chunks, id, NULL);

		if (!c)
			return pm->chunks.n == pm->chunks.max ? mph_u64map_put(&pm->far, page, 0)
							      : NULL;
		pm->last_id = id;
		pm->last = c;
	}
	return &pm->last[pn & (CHUNK_PAGES - 1)];
}

/* The default answer (dflt values: node in the low 32 bits, FROM0 when from region 0):
 * the last record of region 0, else the last of any region. Counts the records, and sets
 * pm->override when some page has records of two nodes. */
static int put_default(struct mr_pagemap *pm, uint32_t region, uint64_t page, uint64_t node)
{
	uint64_t *v = dflt_slot(pm, page);

	if (!v)
		return -ENOMEM;
	if (*v && (uint32_t)*v != (uint32_t)node)
		pm->override = 1;
	if (region == 0 || !*v || !(*v & FROM0))
		*v = SET | (node & 0xffffffffu) | (region == 0 ? FROM0 : 0);
	pm->entries++;
	pm->region0 += region == 0;
	if (region)
		pm->has_region[region] = 1;
	return 0;
}

/* A region's own answer, kept only where it differs from the default one (its last record
 * of the page wins, also when that one agrees with the default). */
static int put_region(struct mr_pagemap *pm, uint32_t region, uint64_t page, uint64_t node)
{
	uint64_t *d, *v;

	if (!region)
		return 0;
	d = dflt_slot(pm, page); /* made by put_default */
	if ((uint32_t)*d == (uint32_t)node) {
		if ((*d & OVERRIDE) && (v = mph_u64map_get(&pm->map, PAGE_KEY(region, page))))
			*v = node;
		return 0;
	}
	if (!(v = mph_u64map_put(&pm->map, PAGE_KEY(region, page), node)))
		return -ENOMEM;
	*v = node;
	*d |= OVERRIDE;
	return 0;
}

int mr_pagemap_build(struct mr_pagemap *pm, const struct mr_run *run)
{
	pm->page_size = mr_run_get_u64(run, "page_size", 4096);
	if (pm->page_size == 0 || (pm->page_size & (pm->page_size - 1)))
		pm->page_size = 4096;
	pm->page_shift = (unsigned)__builtin_ctzll(pm->page_size);
	pm->last = NULL;
	if (!pm->chunk_max)
		pm->chunk_max = MR_PAGEMAP_CHUNK_MAX;
	pm->entries = pm->region0 = 0;
	pm->override = 0;
	pm->nregion = 1;
	for (size_t i = 0; i < run->npages; i++)
		if (run->pages[i].hdr.region < ANY_REGION && run->pages[i].hdr.region >= pm->nregion)
			pm->nregion = run->pages[i].hdr.region + 1;
	pm->has_region = calloc(pm->nregion, 1);
	if (!pm->has_region || mph_u64map_init(&pm->map, 1024) ||
	    mph_chunks_init(&pm->chunks, CHUNK_PAGES * sizeof(uint64_t), pm->chunk_max) ||
	    mph_u64map_init(&pm->far, 16))
		return -ENOMEM;
	if (each_record(pm, run, put_default))
		return -ENOMEM;
	/* one node per page (one node, or no page moved): the defaults are every answer */
	if (pm->override && each_record(pm, run, put_region))
		return -ENOMEM;
	return 0;
}

void mr_pagemap_free(struct mr_pagemap *pm)
{
	mph_u64map_free(&pm->map);
	mph_chunks_free(&pm->chunks);
	mph_u64map_free(&pm->far);
	free(pm->has_region);
	pm->has_region = NULL;
}
