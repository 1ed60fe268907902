/* post/compare/compare.h - `memphis-report compare A B`: the model and the steps the command
 * (post/compare_cmd.c: options, --help, provenance, exit status) takes, one file each:
 *   compare_load.c   one side's model from a saved --json report or from a run directory
 *                    (the same JSON, produced in memory and parsed: one loading path)
 *   compare_parse.c  the JSON report into the model (json-c)
 *   compare_stats.c  Wilson intervals and Newcombe's interval for a difference of two
 *                    proportions, the --max-regress threshold
 *   compare_match.c  pairing variables (heap objects by allocation site across rebuilds),
 *                    the deltas and verdicts
 *   compare_out.c    text, --markdown, --json (memphis-compare/1), --junit
 * The method is explained in docs/compare.md.
 */
#ifndef MR_COMPARE_H
#define MR_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MR_COMPARE_SCHEMA "memphis-compare/1"

/* ---- statistics (compare_stats.c) ---- */

/* A two-sided 95 % interval. */
struct cmp_ci {
	double lo, hi;
};

/* Wilson's score interval for the proportion x / n at z (1.959964 for 95 %), without
 * continuity correction. n == 0 gives [0, 1]. */
struct cmp_ci cmp_wilson(uint64_t x, uint64_t n, double z);

/* Newcombe's hybrid score interval (his method 10, Statistics in Medicine 17, 1998) for
 * the difference p1 - p2 of x1 / n1 and x2 / n2, from the two Wilson intervals at z. Either
 * n == 0 gives [-1, 1]. */
struct cmp_ci cmp_newcombe(uint64_t x1, uint64_t n1, uint64_t x2, uint64_t n2, double z);

#define CMP_Z95 1.959963984540054

/* The shift between two samples, b over a (memphis tune's wall times): the Hodges-Lehmann
 * estimate (the median of the nb x na differences b_j - a_i) and its distribution-free 95 %
 * interval from the Mann-Whitney statistic (exact null distribution up to 20 values a side,
 * its normal approximation beyond). *ok 0 when the samples are too small for an interval
 * (fewer than 4 a side): lo and hi are then the estimate. 0, or -ENOMEM. */
int cmp_shift(const double *a, size_t na, const double *b, size_t nb, double *est,
	      struct cmp_ci *ci, int *ok);

/* Parse a --max-regress value in percentage points: "2", "2pt", "2pts", "2%", "0.5pt"
 * (0 .. 100). Returns true and *pts, or false for anything else. */
bool cmp_parse_points(const char *s, double *pts);

/* ---- the model of one side ---- */

/* One variable (or one source line with --by line) of a side. Arrays by node index:
 * remote/local by node of the sampling CPU [nnodes], pages by home node [nnodes + 1]. */
struct cmp_item {
	char *name, *kind;        /* kind: "global", "heap", ..., "line" */
	/* heap objects: the allocation site ("KIND at FILE:LINE in FUNC"), for matching */
	char *site_alloc, *site_file, *site_func;
	char *site_callers;       /* the callers' functions, '\n'-separated ("" unknown) */
	unsigned site_line;       /* 0: no site read */
	/* variables with a declaration (globals, statics, TLS, ...), for matching: the name
	 * without its scope (the report's base_name; NULL when it gives none), where it is
	 * declared (decl "FILE:LINE"; NULL / 0 unknown) and its size (0 unknown) */
	char *base, *decl_file;
	unsigned decl_line;
	uint64_t size;
	uint64_t *remote, *local; /* remote: pages on any other node, far tier included */
	uint64_t remote_all, local_all;
	uint64_t *far;            /* of remote: pages on a far node (cmp_side.far) */
	uint64_t far_all;
	uint64_t *pages;          /* distinct sampled pages by home node (last: unknown) */
	uint64_t pages_total;
	int has_ft;               /* first touch known */
	char *ft_thread, *ft_line;
	uint64_t ft_pages;
};

struct cmp_side {
	char *path;               /* as given */
	int from_json;            /* a saved report (else a run directory) */
	char *exe, *build_id, *backend, *weighting;
	uint64_t period_ns;
	int64_t threads;          /* threads started, -1 when the report does not say */
	uint32_t nnodes;
	char **regions;           /* the --region selection it was made with */
	size_t nregions;
	int by_line, approx;
	uint64_t *remote, *local; /* per node of the sampling CPU [nnodes] */
	uint64_t *far;            /* of remote: pages on a far node [nnodes] */
	unsigned char *farnode;   /* [nnodes]: the node has no CPU (the report's run.nodes) */
	uint32_t nfar;            /* how many; 0: none or a report without run.nodes */
	double seconds;           /* time of the selected regions */
	struct cmp_item *items;
	size_t nitems;
	int scoped;               /* some variable's name has a scope (base_name): not a
				   * report from before issue 38, which names them all bare */
	char **warnings;          /* the run's warnings and damage, as the report gave them */
	size_t nwarnings;
};

/* What a side is made with (the command's options). */
struct cmp_opts {
	const char *exe_a, *exe_b;/* --exe-a / --exe-b: executables for run directories */
	int mode;                 /* enum mr_agg_mode: 0 remote, 1 local, 2 all */
	int by_line, approx, force;
	const char **regions;
	size_t nregions;
};

/* Load side s from path: a directory is a run directory (reported with o, exe for --exe),
 * anything else a saved memphis-report/1 JSON report. Returns 0, or -EINVAL/-ENOMEM/
 * -errno with one line (naming path) in err. An error of the report itself (unreadable
 * run, missing executable) has been printed by the report already when *printed is set. */
int cmp_load(struct cmp_side *s, const char *path, const char *exe, const struct cmp_opts *o,
	     char *err, size_t errlen, int *printed);

/* Parse the memphis-report/1 JSON text buf[0 .. n) into s (s->path, malloc'd, set by the
 * caller: messages name it; the rest zeroed). Returns 0, -ENOMEM, or -EINVAL with one
 * line in err (not JSON, truncated, another schema, a member missing or of the wrong
 * type). Free s with cmp_side_free in every case. */
int cmp_parse(struct cmp_side *s, const char *buf, size_t n, char *err, size_t errlen);

/* Free what a side holds; s may be zeroed. */
void cmp_side_free(struct cmp_side *s);

/* ---- comparison (compare_match.c) ---- */

enum cmp_verdict {
	CMP_UNCHANGED,
	CMP_IMPROVED,
	CMP_REGRESSED,
	CMP_NEW,        /* only in B */
	CMP_GONE,       /* only in A */
	CMP_UP,         /* --all: the share rose (no judgement) */
	CMP_DOWN,       /* --all: the share fell */
	CMP_NODATA,     /* no samples on the node in A or B */
};

/* Name of a verdict ("improved"). */
const char *cmp_verdict_name(enum cmp_verdict v);

/* One share compared: x of n samples in A and in B. */
struct cmp_cell {
	uint64_t xa, na, xb, nb;
	double pa, pb, delta;     /* shares 0..1, delta = pb - pa */
	struct cmp_ci ci;         /* of delta */
	double rate_a, rate_b;    /* x per second of region time (0 when unknown) */
	enum cmp_verdict v;
};

/* A variable (line) of A paired with one of B (either may be NULL: gone / new). cells
 * [nnodes + 1]: one per node of the sampling CPU, then all nodes. */
struct cmp_pair {
	const struct cmp_item *a, *b;
	struct cmp_cell *cells;
	enum cmp_verdict v;       /* the worst of its cells (regressed > improved > ...) */
	struct cmp_cell far;      /* cmp_result.far: its far-tier share of all nodes' accesses */
	int tracked;              /* in the outputs' tables and the JUnit testcases */
	int shift;                /* heap site matched at another line: line B - line A */
};

struct cmp_result {
	uint32_t nnodes;
	int mode;                 /* 0 remote, 1 local, 2 all */
	double max_regress;       /* points (0.02 = 2 points) */
	struct cmp_cell *nodes;   /* [nnodes + 1]: per node, then all nodes */
	/* where a side has far nodes (memory without CPUs) and the mode is remote: the remote
	 * cells count every access off the CPU's node, and these the far tier's alone
	 * [nnodes + 1], judged as remote ones; NULL otherwise */
	struct cmp_cell *far;
	struct cmp_pair *pairs;
	size_t npairs;
	size_t regressions, improvements, news, gones;
	char **notes;             /* provenance warnings */
	size_t nnotes;
};

/* Compare a with b (same nnodes) at threshold max_regress (a proportion): the node
 * cells, then every variable paired. Returns 0 or -ENOMEM. */
int cmp_compare(const struct cmp_side *a, const struct cmp_side *b, int mode,
		double max_regress, struct cmp_result *res);

/* Free what cmp_compare allocated; res may be zeroed. */
void cmp_result_free(struct cmp_result *res);

/* Add a provenance note to res. Returns 0 or -ENOMEM. */
int cmp_note(struct cmp_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- outputs (compare_out.c) ---- */

enum cmp_format { CMP_TEXT, CMP_MARKDOWN, CMP_JSON };

/* Print the comparison in format fmt on f. top: tracked variables shown per node in the
 * text and markdown (0 = all). */
void cmp_print(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_result *r,
	       enum cmp_format fmt, size_t top, FILE *f);

/* Write the JUnit XML of the comparison to path. Returns 0 or -errno. */
int cmp_write_junit(const struct cmp_side *a, const struct cmp_side *b,
		    const struct cmp_result *r, const char *path);

#endif /* MR_COMPARE_H */
