/* post/compare/compare_match.c - what compare compares: the share of each node's accesses that
 * are remote (local with --local; the node's share of all with --all), overall and per
 * variable, each delta with Newcombe's 95 % interval and a verdict; and the pairing of
 * variables across two runs: by name, kind and declaration (size, declaring file, the
 * nearest line), heap objects by allocation site across rebuilds. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

/* A variable counts as tracked (tables, JUnit) when some share reaches this in A or B. */
#define TRACK_SHARE 0.01
/* A pass of pairing by nearest line looks at most this many candidate pairs. */
#define MAX_PAIRS 4000000u

const char *cmp_verdict_name(enum cmp_verdict v)
{
	static const char *const n[] = { "unchanged", "improved", "regressed", "new",
					 "gone", "up", "down", "no data" };

	return (unsigned)v < sizeof(n) / sizeof(n[0]) ? n[v] : "?";
}

int cmp_note(struct cmp_result *res, const char *fmt, ...)
{
	char **nn = realloc(res->notes, (res->nnotes + 1) * sizeof(*nn));
	va_list ap;
	int rc;

	if (!nn)
		return -ENOMEM;
	res->notes = nn;
	va_start(ap, fmt);
	rc = vasprintf(&nn[res->nnotes], fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	res->nnotes++;
	return 0;
}

/* Fill cell c from x of n in A and B (seconds: region time of each) and judge it:
 * a change is one whose interval excludes 0 and whose delta exceeds thr in absolute
 * value; its direction is good or bad by mode (remote: down is good; local: up is good;
 * all: no judgement, only up / down). */
static void judge(struct cmp_cell *c, uint64_t xa, uint64_t na, uint64_t xb, uint64_t nb,
		  double sa, double sb, int mode, double thr)
{
	memset(c, 0, sizeof(*c));
	c->xa = xa, c->na = na, c->xb = xb, c->nb = nb;
	c->pa = na ? (double)xa / (double)na : 0;
	c->pb = nb ? (double)xb / (double)nb : 0;
	c->delta = c->pb - c->pa;
	c->ci = cmp_newcombe(xb, nb, xa, na, CMP_Z95);
	c->rate_a = sa > 0 ? (double)xa / sa : 0;
	c->rate_b = sb > 0 ? (double)xb / sb : 0;
	if (!na || !nb) {
		c->v = CMP_NODATA;
		return;
	}
	/* beyond the threshold by more than rounding: 0.52 - 0.50 is 0.0200000000000000178 */
	if (!(c->ci.lo > 0 || c->ci.hi < 0) || !(fabs(c->delta) > thr + 1e-9)) {
		c->v = CMP_UNCHANGED;
		return;
	}
	if (mode == 2)
		c->v = c->delta > 0 ? CMP_UP : CMP_DOWN;
	else
		c->v = (c->delta > 0) == (mode == 0) ? CMP_REGRESSED : CMP_IMPROVED;
}

/* The samples of an item (NULL: none) on node c (c == nn: all nodes) that mode counts. */
static uint64_t item_x(const struct cmp_item *it, uint32_t c, uint32_t nn, int mode)
{
	if (!it)
		return 0;
	if (c == nn)
		return mode == 0 ? it->remote_all : mode == 1 ? it->local_all
							   : it->remote_all + it->local_all;
	return mode == 0 ? it->remote[c] : mode == 1 ? it->local[c] : it->remote[c] + it->local[c];
}

/* Known samples (page and CPU node known) of side s on node c, or of all nodes. */
static uint64_t node_n(const struct cmp_side *s, uint32_t c)
{
	uint64_t n = 0;

	if (c < s->nnodes)
		return s->remote[c] + s->local[c];
	for (uint32_t i = 0; i < s->nnodes; i++)
		n += s->remote[i] + s->local[i];
	return n;
}

/* A node's x in mode: remote, local, or (all) all its known samples, of all nodes'. */
static uint64_t node_x(const struct cmp_side *s, uint32_t c, int mode)
{
	uint64_t x = 0;

	for (uint32_t i = 0; i < s->nnodes; i++)
		if (c == s->nnodes || c == i)
			x += mode == 0 ? s->remote[i] : mode == 1 ? s->local[i]
								  : s->remote[i] + s->local[i];
	return x;
}

/* Far-tier samples of side s on node c, or of all nodes. */
static uint64_t node_far(const struct cmp_side *s, uint32_t c)
{
	uint64_t x = 0;

	for (uint32_t i = 0; i < s->nnodes; i++)
		if (c == s->nnodes || c == i)
			x += s->far[i];
	return x;
}

/* Verdict order: which of two verdicts describes a pair (the worse). */
static int rank(enum cmp_verdict v)
{
	static const int r[] = { [CMP_UNCHANGED] = 1, [CMP_IMPROVED] = 3, [CMP_REGRESSED] = 4,
				 [CMP_NEW] = 5, [CMP_GONE] = 5, [CMP_UP] = 2, [CMP_DOWN] = 2,
				 [CMP_NODATA] = 0 };
	return r[v];
}

/* Cells and verdict of pair p. */
static int judge_pair(struct cmp_pair *p, const struct cmp_side *a, const struct cmp_side *b,
		      int mode, double thr, int far)
{
	uint32_t nn = a->nnodes;

	p->cells = calloc(nn + 1, sizeof(*p->cells));
	if (!p->cells)
		return -ENOMEM;
	p->v = CMP_UNCHANGED;
	for (uint32_t c = 0; c <= nn; c++) {
		struct cmp_cell *ce = &p->cells[c];
		judge(ce, item_x(p->a, c, nn, mode), node_n(a, c), item_x(p->b, c, nn, mode),
		      node_n(b, c), a->seconds, b->seconds, mode, thr);
		if (ce->v != CMP_NODATA && rank(ce->v) > rank(p->v))
			p->v = ce->v;
		if (ce->pa >= TRACK_SHARE || ce->pb >= TRACK_SHARE)
			p->tracked = 1;
	}
	if (far) {
		judge(&p->far, p->a ? p->a->far_all : 0, node_n(a, nn), p->b ? p->b->far_all : 0,
		      node_n(b, nn), a->seconds, b->seconds, 0, thr);
		if (p->far.v != CMP_NODATA && rank(p->far.v) > rank(p->v))
			p->v = p->far.v;
		if (p->far.pa >= TRACK_SHARE || p->far.pb >= TRACK_SHARE)
			p->tracked = 1;
	}
	if (!p->a || !p->b)
		p->v = p->a ? CMP_GONE : CMP_NEW;
	if (p->v != CMP_UNCHANGED)
		p->tracked = 1;
	return 0;
}

/* ---- pairing ---- */

/* A candidate pair: A's item i, B's item j, other: they differ in something that ranks
 * them after every candidate that agrees (heap sites: their callers), d: the distance of
 * their lines (heap sites: the call's; variables: the declaration's). */
struct cand {
	size_t i, j;
	unsigned other, d;
};

/* Candidate pairs of one pass, at most MAX_PAIRS. */
struct cands {
	struct cand *c;
	size_t n, cap;
};

/* Add candidate (i, j, other, d) to cs. 0, 1 when cs is full (the pass stops looking), or
 * -ENOMEM. */
static int cand_add(struct cands *cs, size_t i, size_t j, unsigned other, unsigned d)
{
	if (cs->n == cs->cap) {
		struct cand *nc;

		if (cs->cap >= MAX_PAIRS)
			return 1;
		nc = realloc(cs->c, (cs->cap ? cs->cap * 2 : 64) * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		cs->c = nc;
		cs->cap = cs->cap ? cs->cap * 2 : 64;
	}
	cs->c[cs->n++] = (struct cand){ i, j, other, d };
	return 0;
}

/* Agreeing candidates first, then the nearest lines, then the order of the reports. */
static int by_distance(const void *x, const void *y)
{
	const struct cand *a = x, *b = y;

	if (a->other != b->other)
		return a->other < b->other ? -1 : 1;
	if (a->d != b->d)
		return a->d < b->d ? -1 : 1;
	return a->i != b->i ? (a->i < b->i ? -1 : 1) : (a->j > b->j) - (a->j < b->j);
}

/* Pair the candidates of cs, best first, among items still unpaired (ma[i] / mb[j] ==
 * SIZE_MAX); frees cs. */
static void cand_pair(struct cands *cs, size_t *ma, size_t *mb)
{
	if (cs->n) /* cs->c is NULL when no candidate was found */
		qsort(cs->c, cs->n, sizeof(*cs->c), by_distance);
	for (size_t k = 0; k < cs->n; k++)
		if (ma[cs->c[k].i] == SIZE_MAX && mb[cs->c[k].j] == SIZE_MAX) {
			ma[cs->c[k].i] = cs->c[k].j;
			mb[cs->c[k].j] = cs->c[k].i;
		}
	free(cs->c);
	memset(cs, 0, sizeof(*cs));
}

static unsigned distance(unsigned x, unsigned y)
{
	return x > y ? x - y : y - x;
}

/* Name, then kind, then place in the report (a total order: the pairing is the same
 * whatever qsort does with ties). */
static int by_name_kind(const void *x, const void *y)
{
	const struct cmp_item *const *a = x, *const *b = y;
	int c = strcmp((*a)->name, (*b)->name);

	if (!c)
		c = strcmp((*a)->kind, (*b)->kind);
	return c ? c : (*a > *b) - (*a < *b);
}

/* Can A's item a and B's item b be one variable, their names and kinds aside? Their
 * sizes and declaring files agree where both reports give them (a variable whose size or
 * file changed is another one; a declaration moved by some lines is the same). */
static bool same_decl(const struct cmp_item *a, const struct cmp_item *b)
{
	return (!a->size || !b->size || a->size == b->size) &&
	       (!a->decl_file || !b->decl_file || !strcmp(a->decl_file, b->decl_file));
}

/* Pair items of the same name and kind whose declarations agree (same_decl); among
 * several of one name (two files' statics of one base name in files of one base name,
 * symbols), the nearest declaration lines, then the reports' order. */
static int pair_names(const struct cmp_side *a, const struct cmp_side *b, size_t *ma, size_t *mb)
{
	const struct cmp_item **sb = malloc((b->nitems + 1) * sizeof(*sb));
	struct cands cs = { 0 };
	int rc = 0;

	if (!sb)
		return -ENOMEM;
	for (size_t j = 0; j < b->nitems; j++)
		sb[j] = &b->items[j];
	qsort(sb, b->nitems, sizeof(*sb), by_name_kind);
	for (size_t i = 0; i < a->nitems && !rc; i++) {
		const struct cmp_item *x = &a->items[i];
		size_t lo = 0, hi = b->nitems;

		while (lo < hi) { /* the first of B's items named and kinded as x */
			size_t mid = lo + (hi - lo) / 2;
			int c = strcmp(sb[mid]->name, x->name);

			if (!c)
				c = strcmp(sb[mid]->kind, x->kind);
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t k = lo; k < b->nitems && !rc && !strcmp(sb[k]->name, x->name) &&
				    !strcmp(sb[k]->kind, x->kind); k++)
			if (same_decl(x, sb[k]))
				rc = cand_add(&cs, i, (size_t)(sb[k] - b->items), 0,
					      distance(x->decl_line, sb[k]->decl_line));
	}
	free(sb);
	if (rc < 0) {
		free(cs.c);
		return rc;
	}
	cand_pair(&cs, ma, mb);
	return 0;
}

/* Same site but for the line: allocation kind, file and function. */
static bool same_site(const struct cmp_item *a, const struct cmp_item *b)
{
	return a->site_line && b->site_line && !strcmp(a->site_alloc, b->site_alloc) &&
	       !strcmp(a->site_file, b->site_file) && !strcmp(a->site_func, b->site_func);
}

/* Pair the heap sites left unpaired whose allocation kind, file and function agree: those
 * with the same callers first (a site's identity beyond its line), then the nearest
 * lines. */
static int pair_sites(const struct cmp_side *a, const struct cmp_side *b, size_t *ma, size_t *mb)
{
	struct cands cs = { 0 };
	int rc = 0;

	for (size_t i = 0; i < a->nitems && !rc; i++) {
		if (ma[i] != SIZE_MAX || !a->items[i].site_line)
			continue;
		for (size_t j = 0; j < b->nitems && !rc; j++)
			if (mb[j] == SIZE_MAX && same_site(&a->items[i], &b->items[j]))
				rc = cand_add(&cs, i, j,
					      !!strcmp(a->items[i].site_callers, b->items[j].site_callers),
					      distance(a->items[i].site_line, b->items[j].site_line));
	}
	if (rc < 0) {
		free(cs.c);
		return rc;
	}
	cand_pair(&cs, ma, mb);
	return 0;
}

/* A report from before issue 38 (a side that is not scoped) names a static "work" where
 * today's says "a.c:work": pair its variables left unpaired with the other side's whose
 * name without scope (base_name) is theirs, of the same kind and declaration
 * (same_decl), nearest declaration lines first. */
static int pair_unscoped(const struct cmp_side *a, const struct cmp_side *b, size_t *ma,
			 size_t *mb)
{
	struct cands cs = { 0 };
	int rc = 0;

	if (a->scoped == b->scoped)
		return 0;
	for (size_t i = 0; i < a->nitems && !rc; i++) {
		const struct cmp_item *x = &a->items[i];

		for (size_t j = 0; j < b->nitems && !rc && ma[i] == SIZE_MAX; j++) {
			const struct cmp_item *y = &b->items[j];
			const struct cmp_item *old = a->scoped ? y : x, *new = a->scoped ? x : y;

			if (mb[j] == SIZE_MAX && new->base && !strcmp(old->name, new->base) &&
			    !strcmp(x->kind, y->kind) && same_decl(x, y))
				rc = cand_add(&cs, i, j, 0, distance(x->decl_line, y->decl_line));
		}
	}
	if (rc < 0) {
		free(cs.c);
		return rc;
	}
	cand_pair(&cs, ma, mb);
	return 0;
}

/* Pair items: by name, kind and declaration, then heap sites by nearest line, then the
 * bare names of a report from before scopes; ma[i]: B's index of A's item i, mb[j] A's
 * of B's item j, SIZE_MAX for none. */
static int pair_items(const struct cmp_side *a, const struct cmp_side *b, size_t *ma, size_t *mb)
{
	int rc;

	for (size_t i = 0; i < a->nitems; i++)
		ma[i] = SIZE_MAX;
	for (size_t j = 0; j < b->nitems; j++)
		mb[j] = SIZE_MAX;
	if ((rc = pair_names(a, b, ma, mb)) || (rc = pair_sites(a, b, ma, mb)))
		return rc;
	return pair_unscoped(a, b, ma, mb);
}

int cmp_compare(const struct cmp_side *a, const struct cmp_side *b, int mode,
		double max_regress, struct cmp_result *res)
{
	uint32_t nn = a->nnodes;
	size_t *ma = malloc((a->nitems + 1) * sizeof(*ma)), *mb = malloc((b->nitems + 1) * sizeof(*mb));
	int rc = -ENOMEM;

	res->nnodes = nn;
	res->mode = mode;
	res->max_regress = max_regress;
	res->nodes = calloc(nn + 1, sizeof(*res->nodes));
	res->pairs = calloc(a->nitems + b->nitems + 1, sizeof(*res->pairs));
	if (!ma || !mb || !res->nodes || !res->pairs || (rc = pair_items(a, b, ma, mb)))
		goto out;
	for (uint32_t c = 0; c <= nn; c++) {
		struct cmp_cell *ce = &res->nodes[c];
		/* --all: a node's share of all nodes' samples; the all-nodes cell is then 1 */
		judge(ce, node_x(a, c, mode), mode == 2 ? node_n(a, nn) : node_n(a, c),
		      node_x(b, c, mode), mode == 2 ? node_n(b, nn) : node_n(b, c), a->seconds,
		      b->seconds, mode, max_regress);
		res->regressions += ce->v == CMP_REGRESSED;
		res->improvements += ce->v == CMP_IMPROVED;
	}
	if (mode == 0 && (a->nfar || b->nfar)) {
		if (!(res->far = calloc(nn + 1, sizeof(*res->far))) ||
		    (memcmp(a->farnode, b->farnode, nn) &&
		     cmp_note(res, "A and B differ in which nodes have no CPU (the far tier): the "
			      "far-tier shares count different nodes")))
			goto out;
		for (uint32_t c = 0; c <= nn; c++) {
			struct cmp_cell *ce = &res->far[c];

			judge(ce, node_far(a, c), node_n(a, c), node_far(b, c), node_n(b, c),
			      a->seconds, b->seconds, 0, max_regress);
			res->regressions += ce->v == CMP_REGRESSED;
			res->improvements += ce->v == CMP_IMPROVED;
		}
	}
	for (size_t i = 0; i < a->nitems; i++) {
		struct cmp_pair *p = &res->pairs[res->npairs++];
		p->a = &a->items[i];
		p->b = ma[i] == SIZE_MAX ? NULL : &b->items[ma[i]];
		if (p->b && p->a->site_line && p->b->site_line)
			p->shift = (int)p->b->site_line - (int)p->a->site_line;
	}
	for (size_t j = 0; j < b->nitems; j++)
		if (mb[j] == SIZE_MAX)
			res->pairs[res->npairs++].b = &b->items[j];
	for (size_t k = 0; k < res->npairs; k++) {
		struct cmp_pair *p = &res->pairs[k];
		if ((rc = judge_pair(p, a, b, mode, max_regress, res->far != NULL)))
			goto out;
		res->regressions += p->v == CMP_REGRESSED;
		res->improvements += p->v == CMP_IMPROVED;
		res->news += p->v == CMP_NEW;
		res->gones += p->v == CMP_GONE;
	}
	rc = 0;
out:
	free(ma);
	free(mb);
	return rc;
}

void cmp_result_free(struct cmp_result *res)
{
	for (size_t k = 0; res->pairs && k < res->npairs; k++)
		free(res->pairs[k].cells);
	for (size_t i = 0; i < res->nnotes; i++)
		free(res->notes[i]);
	free(res->notes);
	free(res->pairs);
	free(res->nodes);
	free(res->far);
	memset(res, 0, sizeof(*res));
}
