/* post/report/xcells.h - what the exports (--format pprof, --format trace) count beyond the
 * aggregate: the samples of each (variable, line, CPU node, page node, thread, region)
 * with their weights, and each variable's remote and local samples over time.
 *
 * Counted in the report's sample pass (report_pass.c) beside the aggregate, by each worker,
 * then merged with the ids renamed as the aggregate's are: the exports' totals are the
 * report's, sample for sample. Pure counting; memory is per distinct key, never per sample.
 */
#ifndef MR_XCELLS_H
#define MR_XCELLS_H

#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"
#include "u64map.h"

#define MR_XCELLS_MAX_BINS 500
#define MR_XCELLS_MIN_BIN_NS 1000000ull /* 1 ms: finer shows single samples, not a share */

/* The samples of one key; n == 0 marks an empty slot of the table. */
struct mr_xcell {
	uint32_t var, line;
	uint32_t cpu_node, page_node; /* node indexes, nnodes: unknown */
	uint32_t tid, region;         /* region seq */
	uint64_t n;
	uint64_t weight;              /* the samples' weights summed (soft: n; hardware: cycles) */
};

struct mr_xcells {
	struct mr_xcell *slot;    /* open addressing, linear probing */
	size_t mask, count;       /* capacity - 1 (0 and slot NULL before the first add) */
	/* time series: [t0 + k bin_ns, t0 + (k + 1) bin_ns), k < nbins; nbins 0: none */
	uint64_t t0, bin_ns;
	uint32_t nbins;
	struct mph_u64map bins;   /* var << 40 | bin << 8 | class -> samples */
};

/* An empty table whose time series cuts [t0, t1) into at most MR_XCELLS_MAX_BINS bins of
 * at least MR_XCELLS_MIN_BIN_NS (t1 <= t0: no time series). 0 or -ENOMEM; free with
 * mr_xcells_free in every case. */
int mr_xcells_init(struct mr_xcells *x, uint64_t t0, uint64_t t1);
/* An empty table with like's time series (a worker's, to be merged into like). */
int mr_xcells_init_as(struct mr_xcells *x, const struct mr_xcells *like);
void mr_xcells_free(struct mr_xcells *x);

/* Count one sample of key k (k->n and k->weight are ignored) with weight w, taken at time
 * t, its page of class c. A time outside the series counts in its first or last bin.
 * 0 or -ENOMEM (the sample is lost; the table stays usable). */
int mr_xcells_add(struct mr_xcells *x, const struct mr_xcell *k, uint64_t w, uint64_t t,
		  enum mr_xclass c);

/* Add src's counts into dst (made with the same times), src's variable and line ids renamed
 * through var_map[0 .. nvar) and line_map[0 .. nline) (NULL: kept). 0 or -ENOMEM. */
int mr_xcells_merge(struct mr_xcells *dst, const struct mr_xcells *src, const uint32_t *var_map,
		    size_t nvar, const uint32_t *line_map, size_t nline);

/* The samples of variable var in bin `bin` of class c. */
uint64_t mr_xcells_bin(const struct mr_xcells *x, uint32_t var, uint32_t bin, enum mr_xclass c);

#endif /* MR_XCELLS_H */
