/* post/pages.c - page -> home node map (see pages.h). */
#include "pages.h"

#include <errno.h>

#define ANY_REGION 0xffffu
#define PAGE_KEY(region, page) ((page) | ((uint64_t)(region) << 48))

int mr_pagemap_build(struct mr_pagemap *pm, const struct mr_run *run)
{
	pm->page_size = mr_run_get_u64(run, "page_size", 4096);
	if (pm->page_size == 0 || (pm->page_size & (pm->page_size - 1)))
		pm->page_size = 4096;
	pm->entries = pm->region0 = 0;
	if (mr_hmap_init(&pm->map, 1024))
		return -ENOMEM;
	for (size_t i = 0; i < run->npages; i++) {
		const struct mr_pages *pg = &run->pages[i];
		uint32_t region = pg->hdr.region >= ANY_REGION ? ANY_REGION - 1 : pg->hdr.region;

		for (uint32_t k = 0; k < pg->hdr.count; k++) {
			uint64_t page = pg->page[k].page & ~(pm->page_size - 1);
			uint64_t node = (uint64_t)(int64_t)pg->page[k].node;
			uint64_t *v;

			if (pg->page[k].node < 0 || page >= (1ull << 48))
				continue;
			if (!(v = mr_hmap_put(&pm->map, PAGE_KEY(region, page), node)))
				return -ENOMEM;
			*v = node;
			if (!(v = mr_hmap_put(&pm->map, PAGE_KEY(ANY_REGION, page), node)))
				return -ENOMEM;
			*v = node;
			pm->entries++;
			pm->region0 += region == 0;
		}
	}
	return 0;
}

void mr_pagemap_free(struct mr_pagemap *pm)
{
	mr_hmap_free(&pm->map);
}

int mr_pagemap_node(const struct mr_pagemap *pm, uint32_t region, uint64_t addr)
{
	uint64_t page = addr & ~(pm->page_size - 1);
	uint64_t *v;

	if (page >= (1ull << 48))
		return -1;
	if (region >= ANY_REGION)
		region = ANY_REGION - 1;
	if ((v = mr_hmap_get(&pm->map, PAGE_KEY(region, page))) ||
	    (v = mr_hmap_get(&pm->map, PAGE_KEY(0, page))) ||
	    (v = mr_hmap_get(&pm->map, PAGE_KEY(ANY_REGION, page))))
		return (int)(int64_t)*v;
	return -1;
}
