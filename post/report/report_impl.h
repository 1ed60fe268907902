/* post/report/report_impl.h - the internals of `memphis-report report`, shared by its files:
^ *   report.c          report_run: open, stream and attribute the samples, count, print
 *   report_options.c  --help, the options, --region selection
 *   report_pass.c     the sample pass: files read by several threads, merged
 *   aggregate.c       the counting (aggregate.h)
 *   report_text.c     the text report
 *   report_hw_text.c  its data-source tables of hardware runs
 *   report_names.c    the names of variables, lines and nodes (every form's)
 *   report_json.c     the JSON report (schema memphis-report/1, docs/report-schema.md)
 *   report_counters.c the counters of each region (report_counters.h), text and JSON
 *   report_runtime.c  the runtimes apart: their data after the program's variables, the
 *                     header's runtime wait (runtime.h) and the program's own waits
 *   report_threads.c  the threads' CPU time beside their samples, short threads' share
 *   pattern.c         --pattern: the shown variables' thread x block and time x block use
 *   advice.c          --advice: the placement advice from a pattern
 *   members.c         --by member: the shown variables' samples by member, shared lines
 *   report_members.c  their rows, section and JSON
 *   report_nodes.c    the nodes' kinds and memory tiers (CPU-less nodes)
 *   report_tiers.c    the tier advice: the densest variables in the fast tier, placed
 *   report_touch.c    a first-touch record attributed (the tables' and the trace's)
 *   xcells.c          the exports' counts, taken in the sample pass (xcells.h)
 *   pollwait.c        the program's own waits, taken in the sample pass (pollwait.h)
 *   kerneltime.c      the kernel's samples by entry and function, taken in the pass
 *   report_kernel.c   the kernel's time: kallsyms, the header's lines, a section, JSON
 *   report_pprof.c    --format pprof: pprof's profile.proto, gzip'd (docs/export.md)
 *   report_trace.c    --format trace: the Chrome trace event JSON (docs/export.md)
 */
#ifndef MR_REPORT_IMPL_H
#define MR_REPORT_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"
#include "attrib/attrib.h"
#include "binary/runtime.h"
#include "hwsrc.h"
#include "members.h"
#include "pattern.h"
#include "pollwait.h"
#include "kerneltime.h"
#include "binary/kallsyms.h"
#include "report.h"
#include "run/rundir.h"
#include "xcells.h"

/* Sample counts of the selected regions. */
struct report_stats {
	uint64_t total, exact, approx, noaddr, nonmem, noflag, kernel;
	uint64_t fences;          /* of nonmem: fences written as a locked no-op on the stack
				   * (binary/pollloop.h), which the backend counted as exact */
	uint64_t used;            /* samples attributed with their data address */
	uint64_t self;            /* samples with a usable data address set aside: libmemphis's
				   * own (its code or data), in no other count below and no table */
	uint64_t remote, local, unknown_page, unknown_cpu;
	uint64_t far;             /* of the known: a page on a far node (r->far), not remote */
	uint64_t lost, throttled, dropped, recorded;
	uint64_t other_regions;   /* samples of regions not selected */
	uint64_t wait[MR_RT_COUNT]; /* samples in a runtime's wait loop, by runtime ([0]: none) */
	uint64_t unwritten_ms;    /* run ended without the library's shutdown: up to this many
				   * ms of samples before its end may be missing; 0 if it did not */
	const char *write_error;  /* the library stopped writing the run: its note, else NULL */
};

struct report {
	struct report_opts o;
	struct mr_run *run;
	struct mr_attrib *a;
	struct mr_touch_cache touch_cache; /* get_touch's (report.c) */
	struct report_stats st;
	uint32_t nnodes;          /* node indexes 0 .. nnodes - 1; nnodes means unknown */
	struct mr_agg agg;
	struct mr_agg_tables tables;
	struct mr_agg_tables far_tables; /* remote tables and far nodes: the far tier's */
	uint32_t *cpu_node;       /* node index of each CPU of the topology */
	unsigned char *far;       /* [nnodes]: the node has no CPU (a far tier: CXL, HBM, a
				   * GPU's memory); its pages' accesses are far, not remote */
	uint32_t nfar;            /* how many; 0: the report is as before tiers */
	unsigned char *region_sel;/* by region seq, when --region was given */
	uint32_t region_sel_n;
	enum mr_agg_mode table_mode; /* what the tables count */
	int no_remote;            /* remote asked for, none found: the tables show all */
	/* hardware runs: data sources and latencies (hwsrc.h) */
	struct mr_hwsrc hw;       /* by CPU node index, variable, line */
	int hw_shown;             /* a hardware run: the report shows them */
	int hw_lat;               /* the weights are latencies (RUN weight is not "count") */
	struct mr_hw_order hw_by_node; /* hw by node, then variable (line with --by line) */
	struct mr_hw_order hw_by_var;  /* hw by variable, then line */
	struct mr_pattern_set pat;     /* --pattern: the shown variables' patterns */
	struct mr_members mem;         /* --by member: the shown variables' members */
	struct mr_xcells x;       /* --format pprof or trace: their counts (xcells.h) */
	struct mr_pollwait pw;    /* the program's own waits (pollwait.h) */
	struct mr_ktime kt;       /* the kernel's samples (kerneltime.h) */
	struct mr_kallsyms ksyms; /* kernel functions (report_kernel_load) */
	const char *ksyms_why;    /* why kernel functions are not named, NULL when they are */
	pthread_t ksyms_th;       /* loads ksyms and ksyms_why while ksyms_loading */
	int ksyms_loading;
	int want_x;               /* counted: the format wants them */
};

/* Mark the regions --region names in r->region_sel. Returns true, or false after printing
 * the error (a name no region has: usage; out of memory) with the exit status in
 * *exit_code. */
bool report_select_regions(struct report *r, int *exit_code);

/* Whether --jobs or MEMPHIS_REPORT_JOBS chose report_jobs' answer. */
bool report_jobs_given(const struct report_opts *o);

/* Stream every sample once, with r->o.jobs threads (0: MEMPHIS_REPORT_JOBS, else the
 * online CPUs), count and aggregate into r->st, r->agg and r->hw; damage and warnings
 * into r->run in file order. The same result for every number of threads. Returns true,
 * or false after printing the error (exit status 2). */
bool report_sample_pass(struct report *r);

/* The selected regions' time, [*t0, *t1) (CLOCK_MONOTONIC ns, regions with a span only);
 * false when none has one. */
bool report_time_span(const struct report *r, uint64_t *t0, uint64_t *t1);

/* Node index of a node id: the id, or r->nnodes (unknown) for -1 and ids out of range. */
static inline uint32_t report_node_index(const struct report *r, int node)
{
	return node >= 0 && (uint32_t)node < r->nnodes ? (uint32_t)node : r->nnodes;
}

/* Is region seq counted (no --region, or selected)? Inline: asked for every sample. */
static inline bool report_region_selected(const struct report *r, uint32_t seq)
{
	return !r->region_sel || (seq < r->region_sel_n && r->region_sel[seq]);
}

/* The hardware events' coverage over the selected regions (the library's "hw coverage"
 * NOTEs: hwsrc.h), the hybrid PMUs' pairs merged: up to max entries into out, how many. */
size_t report_hw_coverage(const struct report *r, struct mr_hw_cov *out, size_t max);

/* The run's weighting (RUN key weight) in words. */
const char *report_weighting(const char *weight);

/* "Node3" / "Node?" (with " (local)" when the tables fell back to all samples) into buf. */
void report_node_label(const struct report *r, uint32_t node, char *buf, size_t len);

/* "thread N" (N the thread index) for tid, or "tid T" when THREADS does not know it. */
void report_thread_text(const struct report *r, uint32_t tid, char *buf, size_t len);

/* Name of a variable (is_var) or line id; the mr_agg_name_fn of the report (arg: r). */
const char *report_key_name(const void *r, int is_var, uint32_t id);

/* report_hw_text.c: under a node's table tb (its first ngroups groups shown), the data
 * sources of its hardware samples; after the tables, those of the nodes without a table,
 * then the legend. Hardware runs only (r->hw_shown). */
void report_hw_table_text(const struct report *r, const struct mr_agg_table *tb, size_t ngroups,
			  FILE *f);
void report_hw_rest_text(const struct report *r, FILE *f);

/* The text report of variables ids[0 .. nids) (the shown ones) on f. */
void report_print_text(const struct report *r, const uint32_t *ids, size_t nids, FILE *f);

/* The text report's last line on f: what to run next on this run directory (the page,
 * the options not given: report_next_line). After everything else the text prints. */
void report_next_text(const struct report *r, FILE *f);

/* The JSON report (one object) of variables ids[0 .. nids) on f. */
void report_print_json(const struct report *r, const uint32_t *ids, size_t nids, FILE *f);

/* report_place.c: a run under `memphis apply --profile`: the placement of each planned
 * variable and its sampled pages' homes, header lines and JSON run.placement (absent in
 * other runs). */
struct mr_json;
void report_place_text(const struct report *r, FILE *f);
void report_place_json(struct mr_json *j, const struct report *r);

/* report_nodes.c: the nodes' kinds and tiers (RUN keys "node"): a header line and JSON
 * run.nodes, only where a node has no CPU or the nodes are of two tiers (worth). One
 * "node" key: NODE \t CPUS \t TIER \t READ_LAT \t WRITE_LAT \t READ_BW \t WRITE_BW \t
 * BYTES \t FREE, "-" or -1 for unknown. */
struct report_node_info {
	long long v[9];           /* in that order, -1 unknown */
};
/* The "node" keys of the run into *out (the caller frees), by node (a node's last key
 * wins); the node count when every node has one, else 0 (a run before them). */
size_t report_node_infos(const struct report *r, struct report_node_info **out);
bool report_nodes_worth(const struct report_node_info *ni, size_t n);
/* r->far, r->nfar and r->agg.far from the topology (after r->cpu_node): the nodes no CPU is
 * on, of a run of more than one node (a one-node run's node holds the CPUs that the
 * topology may not name). False when out of memory. */
bool report_far_nodes(struct report *r);
void report_nodes_text(const struct report *r, FILE *f);
void report_nodes_json(struct mr_json *j, const struct report *r);
/* report_tiers.c: with --advice the tier advice over the variables ids[0 .. n), each with
 * the placement `memphis apply` carries out: a section after the tables, and the JSON's
 * "tier_advice" (docs/advice.md). */
void report_tiers_text(const struct report *r, const uint32_t *ids, size_t n, FILE *f);
void report_tiers_json(struct mr_json *j, const struct report *r, const uint32_t *ids,
		       size_t n);

/* report_members.c: --by member (members.h). The member data of variable var (NULL: none,
 * or not --by member); under var's group in the table of CPU node `node`, its member rows
 * of mode `mode` (false: it has none, the caller prints its lines); the section after the tables; the
 * JSON "members" of var. */
const struct mr_member_var *report_members_of(const struct report *r, uint32_t var);
bool report_member_rows(const struct report *r, uint32_t var, uint32_t node,
			enum mr_agg_mode mode, FILE *f);
void report_members_text(const struct report *r, FILE *f);
void report_members_json(struct mr_json *j, const struct report *r, uint32_t var);

/* report_pattern.c: the "pattern" and "advice" members of shown variable id (only those
 * --pattern counted; advice with --advice), and the text's advice lines (--advice). */
struct mr_json;
void report_pattern_json(struct mr_json *j, const struct report *r, uint32_t id);
void report_advice_text(const struct report *r, uint32_t id, FILE *f);

/* report_runtime.c: the runtimes' own data after the program's variables in each table
 * (by variable) and in ids[0 .. n) (keeping the order otherwise); the header's line and
 * JSON member on runtime wait. */
void report_runtime_last(struct report *r, uint32_t *ids, size_t n);
void report_runtime_text(const struct report *r, FILE *f);
struct mr_json;
void report_runtime_json(const struct report *r, struct mr_json *j);

/* report_kernel.c: the kernel's samples (kerneltime.h): the kernel functions loaded when the
 * run asks (started once the run is open, by a thread of its own where one starts; waited
 * for before the pass and before r is freed), their number for a kernel address (through
 * a caller's cache), the header's lines, the section after the tables, the JSON member
 * samples.kernel_time. */
void report_kernel_load(struct report *r);
void report_kernel_wait(struct report *r);
uint32_t report_kernel_func(const struct report *r, struct mr_kallsyms_cache *c,
			    uint64_t kernel_ip);
void report_kernel_text(const struct report *r, FILE *f);
void report_kernel_section(const struct report *r, FILE *f);
void report_kernel_json(const struct report *r, struct mr_json *j);

/* report_threads.c: each thread's CPU time in the selected regions beside its samples
 * (the run's THREAD_CPU records): the header's line, the JSON member "thread_time", and
 * the run's warning when threads shorter than one period took 5 % or more of it (check,
 * before printing). Nothing for runs without those records. */
void report_threads_check(const struct report *r);
void report_threads_text(const struct report *r, FILE *f);
void report_threads_json(struct mr_json *j, const struct report *r);

/* The exports of ids[0 .. nids) (the variables by total; their shown flags set) into
 * r->o.output: report_pprof.c, report_trace.c (docs/export.md). Return the exit status
 * after printing any error. The trace attributes the first touches (report_touch, whose
 * cache is r's): its r is not const. */
int report_write_pprof(const struct report *r, const uint32_t *ids, size_t nids);
int report_write_trace(struct report *r, const uint32_t *ids, size_t nids);

/* The FIRST_TOUCH record i of the run, attributed (as the first-touch tables count it). */
void report_touch(struct report *r, size_t i, struct mr_agg_touch *out);

#endif /* MR_REPORT_IMPL_H */
