/* post/report/hwsrc.h - where the data of hardware samples came from, and how long it took: per
 * (CPU node, variable, line), counts by data source (enum memphis_hw_src, from the sample's
 * perf_mem_data_src: one convention for IBS and PEBS, include/memphis/hwdecode.h), loads
 * and stores apart, the access latency (the sample's weight in cycles: mean, and p90 from
 * a log-bucket histogram) and how often the hardware's remote flag disagrees with the
 * page-home judgement. Pure counting, no I/O. Soft samples (data_src 0, no MPH_S_HWADDR)
 * are not counted: the caller checks mr_hw_sample. Orders (mr_hw_order) give the sums the
 * report prints: per node x variable (or line), per variable, per variable x line.
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

/* The counts of one (CPU node, variable, line), or of any merge of them. */
struct mr_hw_stat {
	uint64_t n;                          /* hardware samples */
	uint64_t src[2][MEMPHIS_SRC_COUNT];  /* [0] loads (and ops of unknown kind), [1] stores */
	uint64_t loads, stores;
	uint64_t hitm;                       /* snoop hit modified */
	uint64_t lat_n, lat_sum;             /* samples with a latency (weight > 0), their sum */
	uint64_t hw_remote;                  /* the hardware says another node (mem_remote
	                                      * without hops 0, memphis_mem_src_decode) */
	uint64_t page_remote;                /* the page's home is not the CPU's node */
	uint64_t disagree;                   /* hardware remote flag != page-home remote,
	                                      * both known */
	uint32_t hist[MR_HW_BUCKETS];        /* latencies */
};

/* The fields of a key. Ids above MR_HW_ID_MAX count as 0, node indexes above
 * MR_HW_NODE_MAX as MR_HW_NODE_MAX. */
enum mr_hw_field { MR_HW_NODE, MR_HW_VAR, MR_HW_LINE };
#define MR_HW_ID_MAX ((1u << 24) - 1)
#define MR_HW_NODE_MAX 0xfffeu
#define MR_HW_ANY UINT32_MAX /* mr_hwsrc_range: any value of the second field */

struct mr_hwsrc {
	struct mr_hw_stat *st;  /* [n] */
	uint32_t *key[3];       /* [field][n]: the key of st[i] (enum mr_hw_field) */
	size_t n, cap;
	struct mph_u64map ids;  /* node << 48 | line << 24 | var -> index + 1 */
	uint64_t total;         /* hardware samples counted */
};

/* The entries of an mr_hwsrc sorted by two of its key fields (then the third): for
 * ranges of equal first (and second) fields. */
struct mr_hw_order {
	uint64_t *key;          /* [n] ascending: the fields packed in the order's sequence */
	uint32_t *idx;          /* [n]: the entry of key[i] */
	size_t n;
	enum mr_hw_field a, b, c;
};

/* Is this a sample of a hardware backend (a data source or a hardware address)? */
static inline int mr_hw_sample(const struct memphis_rec_sample *s)
{
	return s->data_src != 0 || (s->flags & MPH_S_HWADDR);
}

/* Start empty. Returns 0 or -ENOMEM; free with mr_hwsrc_free in every case. */
int mr_hwsrc_init(struct mr_hwsrc *h);
void mr_hwsrc_free(struct mr_hwsrc *h);

/* Count hardware sample s of (var, line) taken on a CPU of node index node; page_remote:
 * 1 remote, 0 local, -1 unknown (the page-home judgement). Returns 0 or -ENOMEM (the
 * sample is lost, h stays usable). */
int mr_hwsrc_add(struct mr_hwsrc *h, uint32_t node, uint32_t var, uint32_t line,
		 const struct memphis_rec_sample *s, int page_remote);

/* Add the counts of src into dst, src's variable and line ids renamed through var_map and
 * line_map (indexed by src's ids; NULL: kept). Returns 0 or -ENOMEM. */
int mr_hwsrc_merge(struct mr_hwsrc *dst, const struct mr_hwsrc *src, const uint32_t *var_map,
		   const uint32_t *line_map);

/* The counts of (node, var, line), or NULL. */
const struct mr_hw_stat *mr_hwsrc_get(const struct mr_hwsrc *h, uint32_t node, uint32_t var,
				      uint32_t line);

/* Order the entries of h by fields a then b (distinct), then the third, into *o (free it
 * with mr_hw_order_free, also after a failure). After the last mr_hwsrc_add. Returns 0 or
 * -ENOMEM. */
int mr_hw_order_init(struct mr_hw_order *o, const struct mr_hwsrc *h, enum mr_hw_field a,
		     enum mr_hw_field b);
void mr_hw_order_free(struct mr_hw_order *o);

/* The entries whose first field is va and, unless vb is MR_HW_ANY, whose second is vb:
 * o->idx[*first .. *first + return value). */
size_t mr_hw_order_range(const struct mr_hw_order *o, uint32_t va, uint32_t vb, size_t *first);

/* The value of field f of entry i of h. */
static inline uint32_t mr_hwsrc_field(const struct mr_hwsrc *h, size_t i, enum mr_hw_field f)
{
	return h->key[f][i];
}

/* The sum of the entries of mr_hw_order_range(o, va, vb) into *out (zeroed first).
 * Returns their number. */
size_t mr_hwsrc_sum(const struct mr_hwsrc *h, const struct mr_hw_order *o, uint32_t va,
		    uint32_t vb, struct mr_hw_stat *out);

/* Add b into a. */
void mr_hw_stat_merge(struct mr_hw_stat *a, const struct mr_hw_stat *b);

/* The latency bucket of weight w, and the value a bucket stands for (its middle). */
unsigned mr_hw_bucket(uint32_t w);
double mr_hw_bucket_value(unsigned b);

/* Mean latency (cycles; 0 when none) and the p-th percentile (0 < p <= 100) from the
 * histogram (within 6.25 %, see above; 0 when none). */
double mr_hw_lat_mean(const struct mr_hw_stat *s);
double mr_hw_lat_pct(const struct mr_hw_stat *s, double p);

/* Short column name of a source ("L1", "LFB", "L1miss", "L2", "L3", "near$", "L3miss",
 * "rem$", "lDRAM", "rDRAM", "PMEM", "CXL", "IO", "UC", "n/a") and its JSON key. */
const char *mr_hw_src_name(unsigned src);
const char *mr_hw_src_key(unsigned src);

/* The sources in report order, near to far: L1, LFB, missed L1, L2, L3, another cache of
 * the node, missed L3, local DRAM, remote DRAM, a cache of another node, PMEM, CXL, IO,
 * uncached, n/a. */
extern const unsigned char mr_hw_src_order[MEMPHIS_SRC_COUNT];

/* ---- coverage: the share of its enabled time a hardware event sampled ---- */

/* One event's times over a set of regions. */
struct mr_hw_cov {
	char event[96];
	uint64_t enabled_ns, running_ns;
};

/* The library's NOTE "hw coverage: region=R enabled_ns=N running_ns=M event=NAME"
 * (docs/format.md): 1 with *region and *c filled, else 0 (another note, or a malformed
 * one). */
int mr_hw_cov_parse(const char *text, uint32_t *region, struct mr_hw_cov *c);
/* Add c into sums[0 .. *n) (by event name; a new entry while *n < max). */
void mr_hw_cov_add(struct mr_hw_cov *sums, size_t *n, size_t max, const struct mr_hw_cov *c);
/* Hybrid CPUs: the same event on cpu_core and cpu_atom ("cpu_core/NAME", "cpu_atom/NAME")
 * made one entry "NAME": a thread's event runs only while it is on that core type, so
 * the two running times add up and the enabled time is either's (the longer). */
void mr_hw_cov_merge_hybrid(struct mr_hw_cov *sums, size_t *n);

#endif /* MR_HWSRC_H */
