/* post/report/pattern.h - how the threads use a variable's memory (issue 18), for the pattern
 * views and the placement advice (advice.h).
 *
 * For each variable asked for, its bytes are laid end to end (a heap call site's objects
 * in address order, each counted once per allocation) and cut into at most
 * MR_PATTERN_MAX_BLOCKS blocks of whole pages. Counted: per thread and block the samples,
 * per block the home node of most of its sampled pages and the thread that first touched
 * most of its pages (FIRST_TOUCH records), the samples over the selected regions' time
 * (at most MR_PATTERN_MAX_BINS bins) by block, loads and stores, and per sampled page the
 * samples by threads of each node (where a partitioned placement cuts, finer than blocks).
 *
 * It is a second pass over the samples, made only when asked (memphis-report --pattern),
 * after the first one told which variables are shown. Memory is per variable: blocks x
 * threads, bins x blocks x threads and the sampled pages (x threads), never per sample.
 */
#ifndef MR_PATTERN_H
#define MR_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "attrib/attrib.h"
#include "run/rundir.h"
#include "u64map.h"

#define MR_PATTERN_MAX_BLOCKS 256
#define MR_PATTERN_MAX_BINS 100

/* A thread with samples on the variable. */
struct mr_pattern_thread {
	uint32_t tid;
	int index;        /* thread index (0 = main), -1 unknown */
	uint32_t node;    /* node index of the CPU of most of its samples; nnodes: unknown */
	uint64_t samples;
	uint64_t all;     /* its attributed samples on any variable (0: not counted): what
			   * its samples on this one are a share of */
};

/* The samples of one (time bin, block), and the thread that took most of them. */
struct mr_pattern_cell {
	uint32_t bin, block;
	uint64_t n;
	uint32_t thread;  /* position in threads[] */
};

#define MR_PATTERN_FT_UNKNOWN (-2) /* first_touch: no first touch recorded in the block */
#define MR_PATTERN_FT_OTHER (-1)   /* first_touch: a thread without samples on the variable */

struct mr_pattern {
	uint32_t var;
	int laid;                 /* 0: no layout (stack, unknown, runtime, local, size 0):
				   * nothing below is set */
	uint64_t span, block;     /* bytes laid end to end; bytes per block (whole pages) */
	uint32_t nblocks;
	uint64_t samples;         /* samples placed in a block */
	uint64_t unplaced;        /* samples of the variable whose place was not found */
	struct mr_pattern_thread *threads; /* by thread index (unknown last), then tid */
	size_t nthreads;
	uint64_t *tb;             /* [thread position * nblocks + block]: samples */
	uint32_t *home;           /* [block]: node index of most sampled pages, nnodes unknown */
	uint32_t nnodes;          /* node indexes 0 .. nnodes - 1 (home's unknown) */
	int32_t *first_touch;     /* [block]: position in threads, or MR_PATTERN_FT_* */
	uint64_t reads, writes;   /* samples flagged load (not store), store */
	int rw_known;             /* some sample said load or store */
	struct mr_pattern_cell *cells; /* by bin, then block */
	size_t ncells;
	uint64_t align;           /* bytes from the page boundary below the first byte to it */
	uint64_t *page_no;        /* [npages] ascending: the sampled pages, counted from the
				   * one holding the first byte ((offset + align) / page size) */
	uint64_t *page_nodes;     /* [i * nnodes + node]: page_no[i]'s samples by threads of node */
	size_t npages;
	/* private: the pass's counts, and a heap site's objects (heap order, offset) */
	struct mph_u64map tb_map, node_map, page_map, touch_map, time_map, cut_map;
	size_t *heap_idx;
	uint64_t *heap_off;
	size_t nheap;
	struct mr_extent last;    /* the extent the last sample was found in */
	uint64_t last_off;        /* the offset of last.lo */
};

struct mr_pattern_set {
	struct mr_pattern *p;     /* [n], in the order the variables were given */
	size_t n;
	uint32_t nnodes;
	uint64_t page_size;
	uint64_t t0, bin_ns;      /* time bins of the selected regions: [t0 + k bin_ns, ...) */
	uint32_t nbins;           /* 0 when no selected region has a time span */
	struct mph_u64map by_var; /* var -> position in p */
	struct mph_u64map all;    /* tid -> attributed samples on any variable */
};

/* What the pass reads. */
struct mr_pattern_in {
	struct mr_run *run;
	struct mr_attrib *a;      /* after the report's sample pass (ids as it numbered them) */
	uint32_t nnodes;
	const uint32_t *cpu_node; /* [cpu]: node index (run->ncpus entries) */
	uint16_t addr_ok;         /* flags of a usable data address (MPH_S_EXACT, APPROX) */
	int (*selected)(const void *arg, uint32_t region); /* is the region counted */
	const void *arg;
};

/* The report's second passes (this one, members.h): every sample the tables count (a
 * selected region, a usable data address, not the kernel's, no fence, not libmemphis's
 * own), attributed as the first pass did, to fn(arg, in, sample, its resolution). 0,
 * -ENOMEM, or the first error fn returns (which ends the pass). */
struct mr_resolved;
typedef int mr_pattern_fn(void *arg, const struct mr_pattern_in *in,
			  const struct memphis_rec_sample *sm, const struct mr_resolved *res);
int mr_pattern_pass(const struct mr_pattern_in *in, mr_pattern_fn *fn, void *arg);

/* Count the patterns of variables vars[0 .. n) into *s. Returns 0 or -ENOMEM; free *s
 * with mr_pattern_free in every case. */
int mr_pattern_build(struct mr_pattern_set *s, const struct mr_pattern_in *in,
		     const uint32_t *vars, size_t n);
void mr_pattern_free(struct mr_pattern_set *s);

/* The pattern of variable var, NULL when it was not asked for. */
const struct mr_pattern *mr_pattern_of(const struct mr_pattern_set *s, uint32_t var);

#endif /* MR_PATTERN_H */
