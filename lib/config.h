/* lib/config.h - settings from the environment, read once at library start by api.c, which
 * hands the pieces each part needs down as arguments. Never rewritten after the read. */
#ifndef MEMPHIS_CONFIG_H
#define MEMPHIS_CONFIG_H

#include <stdint.h>

#include "memphis/format.h"

struct memphis__config {
	char backend[16];        /* MEMPHIS_BACKEND: auto (default) or a name of backend/names.h */
	uint64_t period_ns;      /* MEMPHIS_PERIOD: 1ms default; "250us", "100000ns", "2ms" */
	int first_touch;         /* MEMPHIS_FIRST_TOUCH: 1 default */
	int callsite_depth;      /* MEMPHIS_CALLSITE_DEPTH: 1..MEMPHIS_MAX_FRAMES, default 4 */
	uint64_t heap_min;       /* MEMPHIS_HEAP_MIN: smallest allocation tracked, default 0 */
	unsigned heap_sample;    /* MEMPHIS_HEAP_SAMPLE: allocations under 4 KiB recorded 1 in
				  * this many, default 64; 1 records all */
	char output[4096];       /* MEMPHIS_OUTPUT: run directory path, "" = default name */
	char auto_region[MEMPHIS_NAME_MAX]; /* MEMPHIS_REGION: whole-run region (launcher) */
	int verbose;             /* MEMPHIS_VERBOSE: 0..3 (larger acts as 3), default 0 */
	int disabled;            /* MEMPHIS_DISABLE=1: load but do nothing */
};

/* Parse the environment into *c (defaults for absent or invalid values, each invalid
 * value logged) and set the logger's verbosity from MEMPHIS_VERBOSE first, so that those
 * messages obey it. Never fails. */
void memphis__config_read(struct memphis__config *c);
/* Parse a period such as "1ms", "250us", "100000" (ns) into ns; -EINVAL if malformed or
 * outside [10us, 10s]. */
int memphis__parse_period(const char *s, uint64_t *ns);

#endif /* MEMPHIS_CONFIG_H */
