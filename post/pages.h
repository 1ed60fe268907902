/* post/pages.h - page -> home node, from the PAGES blocks of a run. */
#ifndef MR_PAGES_H
#define MR_PAGES_H

#include <stdint.h>

#include "u64map.h"
#include "rundir.h"

struct mr_pagemap {
	struct mph_u64map map;  /* key: page | region << 48, for regions with PAGES blocks */
	struct mph_u64map dflt; /* page -> node from region 0 (first touches), else any region */
	unsigned char *has_region; /* [nregion]: region seq has PAGES blocks of its own */
	uint32_t nregion;
	uint64_t page_size;
	uint64_t entries;    /* PAGES records with a node */
	uint64_t region0;    /* of them from first touches (region 0) */
};

/* Build the map from every PAGES block of run; base page size from RUN key page_size
 * (default 4096). Later blocks win for the same page. Returns 0 or -ENOMEM. */
int mr_pagemap_build(struct mr_pagemap *pm, const struct mr_run *run);
void mr_pagemap_free(struct mr_pagemap *pm);

/* Home node of the page of addr: from region's PAGES, else region 0's (first touches),
 * else any region's; -1 when unknown. */
int mr_pagemap_node(const struct mr_pagemap *pm, uint32_t region, uint64_t addr);

#endif /* MR_PAGES_H */
