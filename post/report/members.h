/* post/report/members.h - a variable's samples by member of its type, and the cache lines that
 * threads of two nodes write (issue 43, `memphis-report --by member`).
 *
 * For each variable asked for that has a member layout (attrib.h mr_attrib_layout: a struct,
 * an array of them, a heap object received by a typed pointer), a second pass over the
 * samples splits its samples by leaf member (the offset in the object, modulo the element):
 * per member the samples, loads and stores, the node x node matrix, the stores by the
 * sampling CPU's node and the samples by thread. Stores are also counted per 64-byte line
 * and region instance by node: a line stored to from two nodes or more within one region
 * instance is shared, and reported with the members and source lines each side stored
 * from. Memory: per member and per sampled (line, node, region) of stores, never per
 * sample.
 */
#ifndef MR_MEMBERS_H
#define MR_MEMBERS_H

#include <stddef.h>
#include <stdint.h>

#include "pattern.h"

#define MR_MEMBERS_LINE 64        /* bytes of a cache line */
#define MR_MEMBERS_MIN_SIDE 5     /* a shared line is told when each of two nodes has this
				   * many store samples on it, at least */
#define MR_MEMBERS_MIN_USE 20     /* a member takes part in the advice with this many
				   * samples, at least */
#define MR_MEMBERS_USER 0.10      /* a node (thread) with this share of a member's samples
				   * is one of its users */

/* One leaf member of a variable with samples. Arrays by node index (nnodes + 1 entries, the
 * last unknown). */
struct mr_member {
	uint32_t leaf;            /* layout.h leaf index */
	uint64_t samples, loads, stores;
	uint64_t *matrix;         /* [cpu node * (nnodes + 1) + page node] */
	uint64_t *stores_by_node; /* by the sampling CPU's node */
	uint64_t *loads_by_node;
	uint32_t *tids;           /* the threads with samples on it, most first */
	uint64_t *tid_n;
	size_t ntids;
};

/* One side of a shared line: a node, its stores, the member and source line it stored
 * most from. */
struct mr_line_side {
	uint32_t node;
	uint64_t stores;
	int leaf;                 /* -1: padding, no member */
	uint32_t code;            /* line id */
};

/* A line of the variable stored to from two nodes or more within one region instance. */
struct mr_shared_line {
	int64_t off;              /* of its first byte from the object's first byte (negative:
				   * it starts before the object) */
	uint64_t samples;         /* the variable's samples on it, every access */
	uint32_t nnodes;          /* nodes that stored to it (in the instances where it was
				   * shared) */
	struct mr_line_side side[2]; /* the two nodes with most stores, most first */
};

struct mr_member_var {
	uint32_t var;
	const struct mr_layout *layout;
	struct mr_member *m;      /* members with samples, in offset order */
	size_t nm;
	uint64_t samples;         /* the variable's samples placed (on a member or padding) */
	uint64_t padding;         /* of them on no member */
	struct mr_shared_line *lines; /* shared lines, most store samples first */
	size_t nlines;
	uint64_t lines_under_min; /* shared lines told of no more: under MR_MEMBERS_MIN_SIDE */
};

struct mr_members {
	struct mr_member_var *v;  /* the variables with a layout, in the order given */
	size_t n;
	uint32_t nnodes;
	uint64_t page_size;
	void *priv;               /* the pass's tables */
};

/* Build s for vars[0 .. n) (those without a layout are left out) from the samples in. 0 or
 * -ENOMEM. */
int mr_members_build(struct mr_members *s, const struct mr_pattern_in *in,
		     const uint32_t *vars, size_t n);
void mr_members_free(struct mr_members *s);

/* The member advice of variable v (members.c): */
struct mr_member_advice {
	/* split: the members fall into groups of disjoint users (nodes, or threads where
	 * every user ran on one node): group[k] of member positions in v->m, their users */
	size_t ngroups;
	struct mr_member_group {
		size_t *members, n;
		uint64_t bytes;       /* per element */
		uint32_t user;        /* the group's main user: a node index (by_thread 0) or
				       * a tid */
		double share;         /* of the group's samples by that user */
	} group[8];
	int by_thread;            /* the users are threads (one node): no placement advised */
	/* read by all, written by one: member positions, and the writing node */
	size_t *rw_one, nrw_one;
	uint32_t *rw_writer;
};
/* The advice for v, of `elements` elements per object (a split needs two at least: one
 * struct is padded, not split; statistical: members of MR_MEMBERS_MIN_USE samples or more);
 * 0 or -ENOMEM. Free with mr_member_advice_free. */
int mr_member_advise(const struct mr_members *s, const struct mr_member_var *v,
		     uint64_t elements, struct mr_member_advice *out);
void mr_member_advice_free(struct mr_member_advice *a);

#endif /* MR_MEMBERS_H */
