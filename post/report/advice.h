/* post/report/advice.h - placement advice from a variable's pattern (issue 18, docs/advice.md).
 *
 * The shape of the threads' use comes from the pattern alone (pattern.h): one thread takes
 * most samples (move), each thread its own contiguous block range (partitioned), read-mostly
 * and small (replicate), else shared (interleave). The advice is that shape when enough of
 * the variable's accesses are remote; below MR_ADVICE_REMOTE it is "local", below
 * MR_ADVICE_MIN_SAMPLES "too_few"; a shared variable whose pages are spread over its
 * users' nodes already is "spread" (interleaving it would only trade one node's remote
 * accesses for another's). Pure: no I/O, no names; the report words it. */
#ifndef MR_ADVICE_H
#define MR_ADVICE_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"

/* The thresholds, each explained in docs/advice.md. */
#define MR_ADVICE_MIN_SAMPLES 50      /* fewer samples on the variable: no advice */
#define MR_ADVICE_REMOTE 0.10         /* a lower remote share is "local" */
#define MR_ADVICE_ACTIVE 0.02         /* a thread with a lower share of the use is ignored */
#define MR_ADVICE_MOVE 0.80           /* one thread's share of the use that makes it "move" */
#define MR_ADVICE_RANGE_CUT 0.10      /* a thread's range: its samples' blocks from this
				       * quantile to 1 - this */
#define MR_ADVICE_OVERLAP 0.10        /* ranges overlapping more than this share of the
				       * shorter (and more than one block) are not disjoint */
#define MR_ADVICE_WRITES 0.05         /* a lower share of stores is "read-mostly" */
#define MR_ADVICE_SMALL (16ull << 20) /* bytes up to which replicating is advised */
#define MR_ADVICE_SPREAD_MIN 0.5      /* a shared variable whose blocks' homes give each
				       * node of its users this part of an even share at
				       * least is "spread" */

enum mr_advice_kind {
	MR_ADVICE_NONE,          /* no pattern (no layout) */
	MR_ADVICE_TOO_FEW,
	MR_ADVICE_LOCAL,
	MR_ADVICE_PARTITIONED,
	MR_ADVICE_MOVE_IT,
	MR_ADVICE_REPLICATE,
	MR_ADVICE_INTERLEAVE,
	MR_ADVICE_SPREAD,        /* shared (shape interleave), its pages already spread over
				  * its users' nodes: nothing to place */
};

struct mr_advice {
	enum mr_advice_kind kind;   /* the advice */
	enum mr_advice_kind shape;  /* the shape of the use whatever the remote share (TOO_FEW
				     * or NONE when there is no advice) */
	uint64_t samples;           /* samples placed in the pattern */
	double remote;              /* remote share of the samples with both nodes known, -1
				     * when none has */
	size_t active;              /* threads with at least MR_ADVICE_ACTIVE of the use */
	size_t top;                 /* position (pattern threads) of the main user */
	double top_share;           /* its share of the use: a thread's use is its samples on
				     * the variable over all its samples (threads[].all) */
	double own;                 /* share of the samples, each block's counted for the
				     * thread with most samples in it (1: no block shared) */
	double max_overlap;         /* largest overlap of two ranges, as a share of the shorter */
	double writes;              /* share of stores, -1 when unknown */
	uint64_t block_bytes;       /* partitioned: the bytes from the first to the last
				     * block with samples / active threads */
	int spread;                 /* shape interleave, and the blocks' homes spread over the
				     * active threads' nodes already (kind SPREAD unless local) */
};

/* Classify pattern p of a variable with `remote` and `local` samples (both nodes known).
 * p may be NULL or without layout: kind NONE. */
void mr_advice_classify(const struct mr_pattern *p, uint64_t remote, uint64_t local,
			struct mr_advice *out);

/* The parts of a partitioned placement of pattern p (docs/apply.md, "ranges"): into out,
 * room for p->npages, [byte offset, node index] pairs, offsets ascending from 0, each the
 * start of a part of that node, past 0 a page boundary of the variable's first object; their count, 0 without sampled pages or memory.
 * The parts segment the sampled pages into runs of one node that leave fewest samples on a
 * page of another node's part, each change of node costing as many samples as
 * MR_ADVICE_SWITCH of the samples (3 at least): a few samples of one thread among
 * another's (a halo, noise) make no part of their own. Pages, not blocks: a block may be
 * coarse (a static array sized for the largest input and used in part) and a cut inside it
 * would be a guess. A cut falls half way between the last sampled page of one part and the
 * first of the next. page: the page size (0: 4096). */
#define MR_ADVICE_SWITCH 0.02
size_t mr_advice_ranges(const struct mr_pattern *p, uint64_t page, uint64_t (*out)[2]);
/* "partitioned", "interleave", "replicate", "move", "local", "too_few", "spread"; NULL for
 * NONE. */
const char *mr_advice_name(enum mr_advice_kind k);

#endif /* MR_ADVICE_H */
