/* post/hwsrc.h - where the data of hardware samples came from, and how long it took: per
 * (variable, line), counts by data source (enum memphis_hw_src, from the sample's
 * perf_mem_data_src: one convention for IBS and PEBS, include/memphis/hwdecode.h), loads
 * and stores apart, the access latency (the sample's weight in cycles: mean, and p90 from
 * a log-bucket histogram) and how often the hardware's remote flag disagrees with the
 * page-home judgement. Pure counting, no I/O. Soft samples (data_src 0, no MPH_S_HWADDR)
 * are not counted.
 *
 * p90 error: weights below 16 are exact; above, a bucket spans 1/8 of its power of two and
 * is reported by its middle, so the reported p90 lies within 1/16 (6.25 %) of the weight
 * of the sample of that rank.
 */
#ifndef MR_HWSRC_H
#define MR_HWSRC_H

#include <stddef.h>
#include <stdint.h>

#include <memphis/format.h>
#include <memphis/hwdecode.h>

#include "u64map.h"

#define MR_HW_BUCKETS (16 + 28 * 8) /* exact below 16, then 8 per power of two to 2^32 */

/* The counts of one (variable, line), or of a variable (lines merged). */
struct mr_hw_stat {
	uint64_t n;                          /* hardware samples */
	uint64_t src[2][MEMPHIS_SRC_COUNT];  /* [0] loads (and ops of unknown kind), [1] stores */
	uint64_t loads, stores;
	uint64_t hitm;                       /* snoop hit modified */
	uint64_t lat_n, lat_sum;             /* samples with a latency (weight > 0), their sum */
	uint64_t hw_remote;                  /* the hardware says remote */
	uint64_t disagree;                   /* hardware remote flag != page-home remote,
	                                      * both known */
	uint32_t hist[MR_HW_BUCKETS];        /* latencies */
};

struct mr_hwsrc {
	struct mr_hw_stat *st;  /* [n] */
	uint32_t *var, *line;   /* [n]: the key of st[i] */
	size_t n, cap;
	struct mph_u64map ids;  /* var << 32 | line -> index + 1 */
	uint64_t total;         /* hardware samples counted */
};

/* Is this a sample of a hardware backend (a data source or a hardware address)? */
static inline int mr_hw_sample(const struct memphis_rec_sample *s)
{
	return s->data_src != 0 || (s->flags & MPH_S_HWADDR);
}

/* Start empty. Returns 0 or -ENOMEM; free with mr_hwsrc_free in every case. */
int mr_hwsrc_init(struct mr_hwsrc *h);
void mr_hwsrc_free(struct mr_hwsrc *h);

/* Count hardware sample s of (var, line); page_remote: 1 remote, 0 local, -1 unknown (the
 * page-home judgement). Returns 0 or -ENOMEM. */
int mr_hwsrc_add(struct mr_hwsrc *h, uint32_t var, uint32_t line,
		 const struct memphis_rec_sample *s, int page_remote);

/* The counts of (var, line), or NULL. */
const struct mr_hw_stat *mr_hwsrc_get(const struct mr_hwsrc *h, uint32_t var, uint32_t line);

/* Add b into a. */
void mr_hw_stat_merge(struct mr_hw_stat *a, const struct mr_hw_stat *b);

/* The latency bucket of weight w, and the value a bucket stands for (its middle). */
unsigned mr_hw_bucket(uint32_t w);
double mr_hw_bucket_value(unsigned b);

/* Mean latency (cycles; 0 when none) and the p-th percentile (0 < p <= 100) from the
 * histogram (within 6.25 %, see above; 0 when none). */
double mr_hw_lat_mean(const struct mr_hw_stat *s);
double mr_hw_lat_pct(const struct mr_hw_stat *s, double p);

/* Short column name of a source ("L1", "LFB", "L2", "L3", "near$", "far$", "lDRAM",
 * "rDRAM", "PMEM", "CXL", "IO", "UC", "n/a") and its JSON key. */
const char *mr_hw_src_name(unsigned src);
const char *mr_hw_src_key(unsigned src);

#endif /* MR_HWSRC_H */
