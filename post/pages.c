/* post/pages.c - page -> home node map (see pages.h). */
#include "pages.h"

#include <errno.h>
#include <stdlib.h>

#define ANY_REGION 0xffffu
#define FROM0 (1ull << 32)
#define NEWPAGE (UINT64_MAX - 1)
#define OVERRIDE MR_PAGEMAP_OVERRIDE
#define PAGE_KEY MR_PAGEMAP_KEY

int mr_pagemap_build(struct mr_pagemap *pm, const struct mr_run *run)
{
	pm->page_size = mr_run_get_u64(run, "page_size", 4096);
	if (pm->page_size == 0 || (pm->page_size & (pm->page_size - 1)))
		pm->page_size = 4096;
	pm->entries = pm->region0 = 0;
	pm->nregion = 1;
	for (size_t i = 0; i < run->npages; i++)
		if (run->pages[i].hdr.region < ANY_REGION && run->pages[i].hdr.region >= pm->nregion)
			pm->nregion = run->pages[i].hdr.region + 1;
	pm->has_region = calloc(pm->nregion, 1);
	if (!pm->has_region || mph_u64map_init(&pm->map, 1024) || mph_u64map_init(&pm->dflt, 1024))
		return -ENOMEM;
	/* region 0 first so that it wins in dflt; then the others in file order */
	for (int want0 = 1; want0 >= 0; want0--) {
		for (size_t i = 0; i < run->npages; i++) {
			const struct mr_pages *pg = &run->pages[i];
			uint32_t region = pg->hdr.region;

			if ((region == 0) != want0 || region >= ANY_REGION)
				continue;
			for (uint32_t k = 0; k < pg->hdr.count; k++) {
				uint64_t page = pg->page[k].page & ~(pm->page_size - 1);
				uint64_t node = (uint64_t)(int64_t)pg->page[k].node;
				uint64_t *v;

				if (pg->page[k].node < 0 || page >= (1ull << 48))
					continue;
				if (region) {
					if (!(v = mph_u64map_put(&pm->map, PAGE_KEY(region, page), node)))
						return -ENOMEM;
					*v = node;
					pm->has_region[region] = 1;
				}
				/* dflt values: node in the low 32 bits, bit 32 set when from region 0 */
				if (!(v = mph_u64map_put(&pm->dflt, page, NEWPAGE)))
					return -ENOMEM;
				if (region == 0 || *v == NEWPAGE || !(*v & FROM0))
					*v = (node & 0xffffffffu) | (region == 0 ? FROM0 : 0);
				pm->entries++;
				pm->region0 += region == 0;
			}
		}
	}
	/* a region's own answer matters only where it differs from the default one */
	for (size_t i = 0; i <= pm->map.mask; i++) {
		uint64_t k = pm->map.keys[i], *d;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		d = mph_u64map_get(&pm->dflt, k & ((1ull << 48) - 1));
		if (d && (uint32_t)*d != (uint32_t)pm->map.vals[i])
			*d |= OVERRIDE;
	}
	return 0;
}

void mr_pagemap_free(struct mr_pagemap *pm)
{
	mph_u64map_free(&pm->map);
	mph_u64map_free(&pm->dflt);
	free(pm->has_region);
	pm->has_region = NULL;
}
