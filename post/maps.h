/* post/maps.h - one parsed /proc/self/maps snapshot (MPH_BLK_MAPS). */
#ifndef MR_MAPS_H
#define MR_MAPS_H

#include <stddef.h>
#include <stdint.h>

struct mr_mapping {
	uint64_t start, end;  /* [start, end) */
	uint64_t offset;      /* file offset mapped at start */
	char perms[5];        /* "r-xp" */
	const char *path;     /* points into the snapshot's text; "" for anonymous memory */
};

struct mr_maps {
	uint64_t time;
	struct mr_mapping *map; /* sorted by start */
	size_t n;
	char *text;             /* owned copy the paths point into */
};

/* Parse the text of a maps file. Lines that do not parse are skipped. Returns 0 or
 * -ENOMEM. */
int mr_maps_parse(const char *text, uint64_t time, struct mr_maps *out);
void mr_maps_free(struct mr_maps *m);

/* The mapping that contains addr, or NULL. */
const struct mr_mapping *mr_maps_find(const struct mr_maps *m, uint64_t addr);

#endif /* MR_MAPS_H */
