/* post/report/aggregate.h - the counting behind `memphis-report report`.
 *
 * Attributed samples go in as (variable id, line id, node index of the sampling CPU, node
 * index of the page's home); out come cells (one per distinct such tuple, with its sample
 * count), per-variable totals (remote/local/unknown split, a node x node matrix, sampled
 * pages by home node, first touches) and the per-node tables the report prints. Pure
 * counting: no I/O, no attribution; variables and lines are ids, their names reach the
 * ordering of ties through a callback.
 *
 * Node indexes: 0 .. nnodes - 1 are nodes, nnodes means "unknown". Any node count the run
 * directory format allows works. Variable and line ids above MR_AGG_ID_MAX count as 0
 * (<unknown>).
 */
#ifndef MR_AGGREGATE_H
#define MR_AGGREGATE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

#define MR_AGG_ID_MAX ((1u << 24) - 1)
#define MR_AGG_PENDING_BITS 8
#define MR_AGG_PENDING (1u << MR_AGG_PENDING_BITS)

/* Where a sample's page was, seen from its CPU: the classes the tables, the
 * exports' time series and --by member count by (far: on a node without CPUs, the far tier). */
enum mr_xclass { MR_X_REMOTE, MR_X_LOCAL, MR_X_UNKNOWN, MR_X_FAR, MR_X_NCLASS };

/* The class of node indexes cpu_node and page_node of nnodes nodes (nnodes: unknown); far
 * (NULL: none) marks the nodes of the far tier (report.h's r->far). */
static inline enum mr_xclass mr_xclass_of(uint32_t cpu_node, uint32_t page_node, uint32_t nnodes,
					  const unsigned char *far)
{
	if (cpu_node >= nnodes || page_node >= nnodes)
		return MR_X_UNKNOWN;
	if (far && far[page_node])
		return MR_X_FAR;
	return cpu_node != page_node ? MR_X_REMOTE : MR_X_LOCAL;
}

/* Which samples the tables count. */
enum mr_agg_mode {
	MR_AGG_REMOTE, /* CPU node and page node known and different, the page's node not far */
	MR_AGG_LOCAL,  /* CPU node known and equal to the page node */
	MR_AGG_ALL,
	MR_AGG_FAR,    /* CPU node known, the page on a far node (mr_agg.far) */
};

/* The samples of one (variable, line, CPU node, page node). */
struct mr_agg_cell {
	uint32_t var, line;
	uint32_t cpu_node, page_node; /* node indexes */
	uint64_t n;
};

/* Everything counted for one variable. Arrays are indexed by node index (nnodes + 1
 * entries, the last one "unknown"); NULL for a variable without samples. remote, local and
 * far split the samples of known CPU and page nodes: far those of a page on a far node
 * (mr_agg.far), remote those of a page on another node, local the rest. */
struct mr_agg_var {
	uint64_t total, remote, local, far, unknown_page;
	uint64_t *matrix;         /* [cpu node * (nnodes + 1) + page node] */
	uint64_t *pages_node;     /* distinct sampled pages by home node */
	uint64_t pages;
	uint64_t *ft_node;        /* first-touched pages by home node */
	uint64_t ft_pages;        /* first touches, in base pages: a page mapped, freed and
				   * mapped again (each call mmaps its work array) counts each time */
	uint64_t ft_refaults;     /* pages first-touched again in a later mapping of them
				   * (another allocation or mmap at the same address: the
				   * kernel faulted in and zeroed a new page) */
	uint64_t ft_distinct;     /* distinct pages first-touched (ft_pages counts a page again
				   * for each fault: a read, then a write; a new mapping) */
	uint32_t ft_tid, ft_line; /* the thread and line that first-touched the most pages */
	uint64_t ft_tid_pages, ft_line_pages;
	int ft_tid_node;          /* node of that thread's CPU at the touch, -1 unknown */
	int shown;                /* set by mr_agg_mark_shown */
};

struct mr_agg {
	uint32_t nnodes;
	/* set before mr_agg_finish, or NULL: far[i] for the node indexes i < nnodes of the far
	 * tier (nodes without CPUs: CXL, HBM, a GPU's memory), whose pages are neither remote
	 * nor local; the caller's, kept until mr_agg_free */
	const unsigned char *far;
	/* after mr_agg_finish: */
	struct mr_agg_cell *cells;
	size_t ncells;
	struct mr_agg_var *vars;  /* [nvars] */
	size_t nvars;
	/* private: */
	int wide;                 /* more than 256 node indexes: cells keyed through vl_ids */
	struct mph_u64map counts; /* cell key -> samples */
	struct mph_u64map seen_pages; /* var << 36 | page number -> page node index */
	struct mph_u64map vl_ids; /* wide only: var | line << 24 -> index into vl */
	uint64_t *vl;
	size_t nvl, capvl;
	/* cells not yet added to counts, direct-mapped by key (empty: MPH_U64MAP_EMPTY): a
	 * run sees a few hundred distinct cells, so most samples end here without a hash
	 * lookup or a call */
	struct mr_agg_pending {
		uint64_t key, n;
	} pend[MR_AGG_PENDING];
};

/* Start an empty aggregate for nnodes nodes (index nnodes = unknown). Returns 0 or
 * -ENOMEM. Free with mr_agg_free() in every case. */
int mr_agg_init(struct mr_agg *g, uint32_t nnodes);

/* Free everything g holds; g may be zeroed or already freed. */
void mr_agg_free(struct mr_agg *g);

/* A cell's key up to 254 nodes (aggregate.c), of ids and node indexes in range. */
static inline uint64_t mr_agg_narrow_key(uint32_t var, uint32_t line, uint32_t cpu_node,
					 uint32_t page_node)
{
	return (uint64_t)var | (uint64_t)line << 24 | (uint64_t)cpu_node << 48 |
	       (uint64_t)page_node << 56;
}

/* mr_agg_add's other path: more than NARROW_MAX_NODES nodes, or key not pending. */
int mr_agg_add_slow(struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu_node,
		    uint32_t page_node);

/* Count one sample of (var, line) taken on a CPU of node index cpu_node of a page of node
 * index page_node (indexes above nnodes count as unknown). Inline: the report calls it for
 * every sample, and a pending cell costs no hash lookup. Returns 0 or -ENOMEM (the sample
 * is lost, the aggregate stays usable). */
static inline int mr_agg_add(struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu_node,
			     uint32_t page_node)
{
	struct mr_agg_pending *p;
	uint64_t key;

	if (g->wide)
		return mr_agg_add_slow(g, var, line, cpu_node, page_node);
	key = mr_agg_narrow_key(var <= MR_AGG_ID_MAX ? var : 0, line <= MR_AGG_ID_MAX ? line : 0,
				cpu_node < g->nnodes ? cpu_node : g->nnodes,
				page_node < g->nnodes ? page_node : g->nnodes);
	p = &g->pend[mph_fib_slot(key, MR_AGG_PENDING_BITS)];
	if (p->key != key)
		return mr_agg_add_slow(g, var, line, cpu_node, page_node);
	p->n++;
	return 0;
}

/* Note that variable var was sampled in the page holding addr, homed on node index
 * page_node (the first call for a page of a variable counts). Inline as mr_agg_add.
 * Returns 0 or -ENOMEM. */
static inline int mr_agg_add_page(struct mr_agg *g, uint32_t var, uint64_t addr,
				  uint32_t page_node)
{
	uint64_t key = (uint64_t)(var <= MR_AGG_ID_MAX ? var : 0) << 36 | (addr >> 12);

	return mph_u64map_put(&g->seen_pages, key, page_node) ? 0 : -ENOMEM;
}

/* id renamed through map[0 .. n) ([old] = new; NULL, or an id beyond: kept): how every
 * merge of the sample pass takes mr_attrib_pass_end's maps. */
static inline uint32_t mr_agg_rename(const uint32_t *map, size_t n, uint32_t id)
{
	return map && id < n ? map[id] : id;
}

/* Add what src counted into dst, as if src's samples had followed dst's: cells summed,
 * a page of a variable keeps dst's node when both saw it. src's variable and line ids are
 * renamed through var_map[0 .. nvar_map) and line_map[0 .. nline_map) (NULL: kept). Both
 * before mr_agg_finish, with the same nnodes; src stays to be freed. Returns 0 or -ENOMEM. */
int mr_agg_merge(struct mr_agg *dst, struct mr_agg *src, const uint32_t *var_map, size_t nvar_map,
		 const uint32_t *line_map, size_t nline_map);

/* End the sample stream: build g->cells (unordered) and g->vars[0 .. nvars) for variable
 * ids below nvars (other ids count as 0). Call once. Returns 0 or -ENOMEM. */
int mr_agg_finish(struct mr_agg *g, size_t nvars);

/* One first-touch record, attributed: var 0 or a variable without samples is skipped. */
struct mr_agg_touch {
	uint32_t var, tid, line;
	uint32_t page_node; /* node index of the page's home */
	int tid_node;       /* node of the touching CPU, -1 unknown */
	uint64_t pages;     /* base pages the touch covers (a huge page: several) */
	int runtime_line;   /* line is runtime code's own: its caller with source was not
			     * found (mr_attrib_caller) */
	uint64_t page;      /* the touched page's number (address / base page size) */
	uint64_t epoch;     /* when the memory holding it was mapped or allocated (the heap
			     * object's allocation time; 0 for memory mapped throughout): a
			     * page touched in two epochs was unmapped and faulted in again,
			     * touched twice in one it was not (a read of calloc's zero page,
			     * then a write: two faults, one allocation) */
};

/* Count n first touches, touch i read through get(arg, i, &t); for each variable with
 * samples: pages by home node, the re-faults (a page touched in more than one epoch of the
 * memory holding it: each epoch but the first), and the thread and line that touched the
 * most pages (the
 * lowest tid / line id among equals; a runtime's own line only when no other line touched
 * the variable: the user's line is the one to change, its share says how much it covers).
 * After mr_agg_finish. Returns 0 or -ENOMEM. */
int mr_agg_first_touches(struct mr_agg *g, size_t n,
			 void (*get)(void *arg, size_t i, struct mr_agg_touch *t), void *arg);

/* Are the samples taken on a CPU of node index cpu_node of a page of node index page_node
 * counted in mode m? */
static inline int mr_agg_in_mode(const struct mr_agg *g, uint32_t cpu_node, uint32_t page_node,
				 enum mr_agg_mode m)
{
	static const enum mr_xclass want[] = { [MR_AGG_REMOTE] = MR_X_REMOTE,
					       [MR_AGG_LOCAL] = MR_X_LOCAL, [MR_AGG_FAR] = MR_X_FAR };

	return m == MR_AGG_ALL || mr_xclass_of(cpu_node, page_node, g->nnodes, g->far) == want[m];
}

/* Is cell ce counted in mode m? */
static inline int mr_agg_cell_in_mode(const struct mr_agg *g, const struct mr_agg_cell *ce,
				      enum mr_agg_mode m)
{
	return mr_agg_in_mode(g, ce->cpu_node, ce->page_node, m);
}

/* Name of a variable (is_var) or line id, for ordering ties; never NULL. */
typedef const char *mr_agg_name_fn(const void *arg, int is_var, uint32_t id);

/* One row of a table: the samples of (node, group key, item key), where the group is the
 * variable and the item the line (by variable), or the other way round (by line). */
struct mr_agg_row {
	uint32_t node, group, item;
	uint64_t n;
};

struct mr_agg_group {
	uint32_t key;
	uint64_t total;
	size_t first, count;      /* rows[first .. first + count) are its items */
};

/* The table of one CPU node: groups by total descending (then name), items of each by
 * count descending (then name). */
struct mr_agg_table {
	uint32_t node;
	uint64_t total;
	struct mr_agg_group *groups;
	size_t ngroups;
};

struct mr_agg_tables {
	struct mr_agg_row *rows;
	struct mr_agg_table *tab; /* by node index ascending; only nodes with rows */
	size_t ntab;
};

/* Build the tables of the cells counted in mode m, grouped by variable or (by_line) by
 * line. name(arg, ...) orders equal counts. *out owns its memory (mr_agg_tables_free,
 * also after a failure). Returns 0 or -ENOMEM. */
int mr_agg_tables(const struct mr_agg *g, enum mr_agg_mode m, int by_line, mr_agg_name_fn *name,
		  const void *arg, struct mr_agg_tables *out);

/* Free what mr_agg_tables allocated (also after its failure); t may be NULL. */
void mr_agg_tables_free(struct mr_agg_tables *t);

/* Set vars[].shown for the variables the tables show with at most top groups per table
 * and top items per group (0: all). */
void mr_agg_mark_shown(struct mr_agg *g, const struct mr_agg_tables *t, int by_line, size_t top);

/* The ids of the variables with samples (all) or of the shown ones, by total descending,
 * then name. *n receives the count. Returns a malloc'd array (the caller frees) or NULL
 * when out of memory. */
uint32_t *mr_agg_var_order(const struct mr_agg *g, int all, mr_agg_name_fn *name,
			   const void *arg, size_t *n);

#endif /* MR_AGGREGATE_H */
