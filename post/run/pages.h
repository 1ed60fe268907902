/* post/run/pages.h - page -> home node, from the PAGES blocks of a run. */
#ifndef MR_PAGES_H
#define MR_PAGES_H

#include <stdint.h>

#include "rundir.h"
#include "chunks.h"
#include "u64map.h"

/* dflt values: the node in the low 32 bits; bit 32 (pages.c) when from region 0, bit 33
 * when some region says another node for the page, bit 34 in every value (0: no record) */
#define MR_PAGEMAP_OVERRIDE (1ull << 33)
#define MR_PAGEMAP_SET (1ull << 34)
#define MR_PAGEMAP_KEY(region, page) ((page) | ((uint64_t)(region) << 48))
/* dflt holds the pages in chunks of 512 (2 MiB of 4 KiB pages), found by chunk number:
 * a run's pages lie in a few large arrays, and a map of pages (256 KiB for cg's 6,875)
 * cost a cache and TLB miss per PAGES record, 10 ns against 5. At most chunk_max chunks
 * (default MR_PAGEMAP_CHUNK_MAX, 32 MiB: pages spread over 16 GiB); the pages of the
 * chunks beyond go to a map, where a page costs 16 bytes and not up to 4 KiB. */
#define MR_PAGEMAP_CHUNK_BITS 9
#define MR_PAGEMAP_CHUNK_MAX 8192

struct mr_pagemap {
	struct mph_u64map map;  /* key: page | region << 48, for regions with PAGES blocks */
	/* page -> dflt value from region 0 (first touches), else any region: by page number
	 * >> MR_PAGEMAP_CHUNK_BITS, chunks of 1 << MR_PAGEMAP_CHUNK_BITS dflt values */
	struct mph_chunks chunks;
	uint64_t last_id, *last;    /* the chunk of the record before (building) */
	size_t chunk_max;           /* 0: MR_PAGEMAP_CHUNK_MAX (set before building) */
	struct mph_u64map far;      /* page -> dflt value, for the pages of no chunk */
	unsigned char *has_region; /* [nregion]: region seq has PAGES blocks of its own */
	uint32_t nregion;
	uint64_t page_size;
	unsigned page_shift; /* log2(page_size) */
	uint64_t entries;    /* PAGES records with a node */
	uint64_t region0;    /* of them from first touches (region 0) */
	int override;        /* some page has records of two nodes */
};

/* Build the map from every PAGES block of run; base page size from RUN key page_size
 * (default 4096). Later blocks win for the same page. Returns 0 or -ENOMEM. */
int mr_pagemap_build(struct mr_pagemap *pm, const struct mr_run *run);
void mr_pagemap_free(struct mr_pagemap *pm);

/* The dflt value of addr's page, NULL when no PAGES record has it. */
static inline const uint64_t *mr_pagemap_dflt(const struct mr_pagemap *pm, uint64_t addr)
{
	uint64_t pn = addr >> pm->page_shift;
	const uint64_t *c, *v;

	if (addr >= 1ull << 48)
		return NULL;
	if ((c = mph_chunks_find(&pm->chunks, pn >> MR_PAGEMAP_CHUNK_BITS)))
		v = &c[pn & ((1u << MR_PAGEMAP_CHUNK_BITS) - 1)];
	else if (!pm->far.count || !(v = mph_u64map_get(&pm->far, pn << pm->page_shift)))
		return NULL;
	return *v ? v : NULL;
}

/* Home node of the page of addr: from region's PAGES, else region 0's (first touches),
 * else any region's; -1 when unknown. Inline: the report asks it for nearly every sample. */
static inline int mr_pagemap_node(const struct mr_pagemap *pm, uint32_t region, uint64_t addr)
{
	const uint64_t *v = mr_pagemap_dflt(pm, addr);

	if (!v)
		return -1;
	if ((*v & MR_PAGEMAP_OVERRIDE) && region && region < pm->nregion && pm->has_region[region]) {
		uint64_t page = addr & ~(pm->page_size - 1);
		uint64_t *r = mph_u64map_get(&pm->map, MR_PAGEMAP_KEY(region, page));
		if (r)
			return (int)(int64_t)*r;
	}
	return (int)(int32_t)(uint32_t)*v;
}

/* What mr_pagemap_node says of addr's page in every region (a node, -1 unknown), or
 * MR_PAGEMAP_VARIES when some region's PAGES give another node: then ask it per region. */
#define MR_PAGEMAP_VARIES (-2)
static inline int mr_pagemap_home(const struct mr_pagemap *pm, uint64_t addr)
{
	const uint64_t *v = mr_pagemap_dflt(pm, addr);

	if (!v)
		return -1;
	return *v & MR_PAGEMAP_OVERRIDE ? MR_PAGEMAP_VARIES : (int)(int32_t)(uint32_t)*v;
}

#endif /* MR_PAGES_H */
