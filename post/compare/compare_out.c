/* post/compare/compare_out.c - the outputs of compare: text (default), --markdown (a pull-request
 * comment), --json (schema memphis-compare/1, docs/compare.md) and --junit FILE (one
 * testcase per node and per tracked variable, regressions as failures). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "compare.h"

static const char *const mode_word[] = { "remote", "local", "all" };

/* What a cell's share is, in words, for node c of nn ("share of node 1's accesses"). */
static void node_name(uint32_t c, uint32_t nn, char *buf, size_t len)
{
	if (c == nn)
		snprintf(buf, len, "all nodes");
	else
		snprintf(buf, len, "node %u", c);
}

/* Is c a node without CPUs on both sides (no sample is taken there: the text and markdown
 * leave out its rows)? */
static bool cpu_less(const struct cmp_side *a, const struct cmp_side *b,
		     const struct cmp_result *r, uint32_t c)
{
	return r->far && c < r->nnodes && a->farnode[c] && b->farnode[c];
}

/* "+1.2 pts, 95 % CI +0.3…+2.0" into buf. */
static void change_text(const struct cmp_cell *c, char *buf, size_t len)
{
	if (c->v == CMP_NODATA)
		snprintf(buf, len, "no samples in %s", c->na ? "B" : "A");
	else
		snprintf(buf, len, "%+.1f pts, 95 %% CI %+.1f…%+.1f", 100 * c->delta,
			 100 * c->ci.lo, 100 * c->ci.hi);
}

/* The overall verdict: regressed, else improved, else unchanged. */
static const char *overall(const struct cmp_result *r)
{
	return r->regressions ? "regressed" : r->improvements ? "improved" : "unchanged";
}

/* Item name of a pair: B's, "A's → B's" when a heap site moved. */
static void pair_name(const struct cmp_pair *p, char *buf, size_t len)
{
	if (p->a && p->b && strcmp(p->a->name, p->b->name))
		snprintf(buf, len, "%s (was %s)", p->b->name, p->a->name);
	else
		snprintf(buf, len, "%s", p->b ? p->b->name : p->a->name);
}

/* Order of pairs in a node's list: larger share (A or B) first, then name. */
struct order {
	const struct cmp_result *r;
	uint32_t c;
};

static int by_share(const void *x, const void *y, void *arg)
{
	const struct order *o = arg;
	const struct cmp_pair *a = &o->r->pairs[*(const size_t *)x], *b = &o->r->pairs[*(const size_t *)y];
	double sa = a->cells[o->c].pa > a->cells[o->c].pb ? a->cells[o->c].pa : a->cells[o->c].pb;
	double sb = b->cells[o->c].pa > b->cells[o->c].pb ? b->cells[o->c].pa : b->cells[o->c].pb;

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(a->b ? a->b->name : a->a->name, b->b ? b->b->name : b->a->name);
}

/* The tracked pairs with samples on node c, in list order, at most top of them plus
 * every one judged on c (0: all); *n gets the count. NULL when out of memory. */
static size_t *node_list(const struct cmp_result *r, uint32_t c, size_t top, size_t *n)
{
	size_t *ix = malloc((r->npairs + 1) * sizeof(*ix)), k = 0, m = 0;
	struct order o = { r, c };

	if (!ix)
		return NULL;
	for (size_t i = 0; i < r->npairs; i++)
		if (r->pairs[i].tracked && (r->pairs[i].cells[c].xa || r->pairs[i].cells[c].xb))
			ix[k++] = i;
	qsort_r(ix, k, sizeof(*ix), by_share, &o);
	for (size_t i = 0; i < k; i++) {
		enum cmp_verdict v = r->pairs[ix[i]].cells[c].v;
		if (!top || i < top || (v != CMP_UNCHANGED && v != CMP_NODATA))
			ix[m++] = ix[i];
	}
	*n = m;
	return ix;
}

/* Pages by home node as "50/50 %" (unknown left out) into buf. */
static void pages_text(const struct cmp_item *it, uint32_t nn, char *buf, size_t len)
{
	uint64_t t = 0;
	size_t o = 0;

	for (uint32_t i = 0; i < nn; i++)
		t += it->pages[i];
	buf[0] = '\0';
	for (uint32_t i = 0; i < nn && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%.0f", i ? "/" : "",
				      t ? 100.0 * (double)it->pages[i] / (double)t : 0.0);
	if (o < len)
		snprintf(buf + o, len - o, " %%");
}

/* The details of a tracked, judged variable: pages by node and first touch, when either
 * changed. */
static void text_details(const struct cmp_pair *p, uint32_t nn, FILE *f)
{
	char pa[128], pb[128];

	if (!p->a || !p->b || !strcmp(p->a->kind, "line"))
		return;
	pages_text(p->a, nn, pa, sizeof(pa));
	pages_text(p->b, nn, pb, sizeof(pb));
	if (strcmp(pa, pb))
		fprintf(f, "      sampled pages by home node %s → %s\n", pa, pb);
	if (p->a->has_ft && p->b->has_ft &&
	    (strcmp(p->a->ft_thread, p->b->ft_thread) || strcmp(p->a->ft_line, p->b->ft_line)))
		fprintf(f, "      first touch: %s at %s → %s at %s\n", p->a->ft_thread,
			p->a->ft_line, p->b->ft_thread, p->b->ft_line);
}

/* A far-tier cell's line: "WHAT: share 80.0 % → 2.0 % (...)   improved". */
static void text_far(const struct cmp_cell *c, const char *what, FILE *f)
{
	char ch[96];

	change_text(c, ch, sizeof(ch));
	fprintf(f, "%s (pages on nodes without CPUs): %llu → %llu, share %.1f %% → %.1f %%  "
		"(%s)   %s\n", what, (unsigned long long)c->xa, (unsigned long long)c->xb,
		100 * c->pa, 100 * c->pb, ch, cmp_verdict_name(c->v));
}

static void print_text(const struct cmp_side *a, const struct cmp_side *b,
		       const struct cmp_result *r, size_t top, FILE *f)
{
	const char *mw = mode_word[r->mode];
	char nm[64], ch[96], name[1024];

	fprintf(f, "A: %s (%s, build id %s)\n", mr_esc(a->path), mr_esc(a->exe),
		*a->build_id ? mr_esc(a->build_id) : "unknown");
	fprintf(f, "B: %s (%s, build id %s)\n", mr_esc(b->path), mr_esc(b->exe),
		*b->build_id ? mr_esc(b->build_id) : "unknown");
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "warning: %s\n", mr_esc(r->notes[i]));
	if (r->far)
		mw = "remote or far-tier";
	for (uint32_t c = 0; c <= r->nnodes; c++) {
		const struct cmp_cell *ce = &r->nodes[c];
		size_t n, *ix;
		if (cpu_less(a, b, r, c))
			continue;
		node_name(c, r->nnodes, nm, sizeof(nm));
		change_text(ce, ch, sizeof(ch));
		fprintf(f, "%s: %s share %.1f %% → %.1f %%  (%s)   %s\n", nm,
			r->mode == 2 ? "accesses" : mw, 100 * ce->pa, 100 * ce->pb, ch,
			cmp_verdict_name(ce->v));
		if (r->far)
			text_far(&r->far[c], "  of which far tier", f);
		if (ce->v != CMP_NODATA && a->seconds > 0 && b->seconds > 0)
			fprintf(f, "  %s samples per second of region time %.0f → %.0f\n", mw,
				ce->rate_a, ce->rate_b);
		ix = node_list(r, c, top, &n);
		for (size_t k = 0; ix && k < n; k++) {
			const struct cmp_pair *p = &r->pairs[ix[k]];
			const struct cmp_cell *pc = &p->cells[c];
			pair_name(p, name, sizeof(name));
			change_text(pc, ch, sizeof(ch));
			fprintf(f, "  %-24s %s %llu → %llu   share of %s%s accesses %.1f %% → %.1f %%"
				"  (%s)   %s\n", mr_esc(name), mw, (unsigned long long)pc->xa,
				(unsigned long long)pc->xb, c == r->nnodes ? "all" : nm,
				c == r->nnodes ? "" : "'s", 100 * pc->pa, 100 * pc->pb, ch,
				cmp_verdict_name(p->a && p->b ? pc->v : p->v));
			if (c == r->nnodes && r->far && (p->far.xa || p->far.xb))
				text_far(&p->far, "      of which far tier", f);
			if (c == r->nnodes && p->v != CMP_UNCHANGED)
				text_details(p, r->nnodes, f);
		}
		free(ix);
	}
	for (size_t i = 0; i < r->npairs; i++) {
		const struct cmp_pair *p = &r->pairs[i];
		if ((p->v == CMP_NEW || p->v == CMP_GONE) && !p->tracked)
			fprintf(f, "%s: %s (%s)\n", cmp_verdict_name(p->v),
				mr_esc(p->b ? p->b->name : p->a->name),
				mr_esc(p->b ? p->b->kind : p->a->kind));
	}
	fprintf(f, "verdict: %s (%zu regression%s, %zu improvement%s, %zu new, %zu gone at "
		"--max-regress %g pts); exit %d\n", overall(r), r->regressions,
		r->regressions == 1 ? "" : "s", r->improvements, r->improvements == 1 ? "" : "s",
		r->news, r->gones, 100 * r->max_regress, r->regressions ? 1 : 0);
}

/* A Markdown table cell: | and newlines would break the table. */
static void md_cell(const char *s, FILE *f)
{
	for (; *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){ *s, 0 }, f);
}

static void md_row(const char *what, const struct cmp_cell *c, enum cmp_verdict v, FILE *f)
{
	fputs("| ", f);
	md_cell(what, f);
	if (c->v == CMP_NODATA && v == CMP_NODATA)
		fprintf(f, " | %.1f %% | %.1f %% | | | no data |\n", 100 * c->pa, 100 * c->pb);
	else
		fprintf(f, " | %.1f %% | %.1f %% | %+.1f | %+.1f … %+.1f | %s%s%s |\n", 100 * c->pa,
			100 * c->pb, 100 * c->delta, 100 * c->ci.lo, 100 * c->ci.hi,
			v == CMP_REGRESSED ? "**" : "", cmp_verdict_name(v),
			v == CMP_REGRESSED ? "**" : "");
}

static void print_markdown(const struct cmp_side *a, const struct cmp_side *b,
			   const struct cmp_result *r, size_t top, FILE *f)
{
	char nm[64], name[1200];

	fprintf(f, "### memphis compare: %s\n\n", overall(r));
	fprintf(f, "%zu regression%s, %zu improvement%s, %zu new, %zu gone at --max-regress %g "
		"pts (%s share of each node's accesses; 95 %% intervals, Newcombe).\n\n",
		r->regressions, r->regressions == 1 ? "" : "s", r->improvements,
		r->improvements == 1 ? "" : "s", r->news, r->gones, 100 * r->max_regress,
		r->far ? "remote or far-tier" : mode_word[r->mode]);
	fprintf(f, "A: `%s` (build id `%s`), B: `%s` (build id `%s`)\n\n", a->path, a->build_id,
		b->path, b->build_id);
	for (size_t i = 0; i < r->nnotes; i++)
		fprintf(f, "> warning: %s\n\n", r->notes[i]);
	fprintf(f, "| node / variable | A | B | Δ pts | 95 %% CI | verdict |\n"
		   "|---|---:|---:|---:|---|---|\n");
	for (uint32_t c = 0; c <= r->nnodes; c++) {
		size_t n, *ix;
		if (cpu_less(a, b, r, c))
			continue;
		ix = node_list(r, c, top, &n);
		node_name(c, r->nnodes, nm, sizeof(nm));
		md_row(nm, &r->nodes[c], r->nodes[c].v, f);
		if (r->far) {
			snprintf(name, sizeof(name), "%s, far tier", nm);
			md_row(name, &r->far[c], r->far[c].v, f);
		}
		for (size_t k = 0; ix && k < n; k++) {
			const struct cmp_pair *p = &r->pairs[ix[k]];
			char nb[1024];
			pair_name(p, nb, sizeof(nb));
			snprintf(name, sizeof(name), "%s: %s", nm, nb);
			md_row(name, &p->cells[c], p->a && p->b ? p->cells[c].v : p->v, f);
			if (c == r->nnodes && r->far && (p->far.xa || p->far.xb)) {
				snprintf(name, sizeof(name), "%s: %s, far tier", nm, nb);
				md_row(name, &p->far, p->far.v, f);
			}
		}
		free(ix);
	}
}

/* ---- JSON ---- */

/* One side of a cell: "key": {"samples", "of", "share", "per_second"}. */
static void json_cell_side(struct mr_json *j, const char *key, uint64_t x, uint64_t n,
			   double share, double rate)
{
	mr_json_key(j, key);
	mr_json_obj(j);
	mr_json_key(j, "samples"), mr_json_u64(j, x);
	mr_json_key(j, "of"), mr_json_u64(j, n);
	mr_json_key(j, "share"), mr_json_dbl(j, share);
	mr_json_key(j, "per_second"), mr_json_dbl(j, rate);
	mr_json_obj_end(j);
}

static void json_cell(struct mr_json *j, const struct cmp_cell *c, uint32_t node, uint32_t nn)
{
	mr_json_obj(j);
	mr_json_key(j, "node");
	if (node == nn)
		mr_json_null(j);
	else
		mr_json_u64(j, node);
	json_cell_side(j, "a", c->xa, c->na, c->pa, c->rate_a);
	json_cell_side(j, "b", c->xb, c->nb, c->pb, c->rate_b);
	mr_json_key(j, "delta"), mr_json_dbl(j, c->delta);
	mr_json_key(j, "ci95"), mr_json_arr(j), mr_json_dbl(j, c->ci.lo), mr_json_dbl(j, c->ci.hi);
	mr_json_arr_end(j);
	mr_json_key(j, "verdict"), mr_json_str(j, cmp_verdict_name(c->v));
	mr_json_obj_end(j);
}

static void json_side(struct mr_json *j, const char *key, const struct cmp_side *s)
{
	mr_json_key(j, key);
	mr_json_obj(j);
	mr_json_key(j, "input"), mr_json_str(j, s->path);
	mr_json_key(j, "kind"), mr_json_str(j, s->from_json ? "report" : "rundir");
	mr_json_key(j, "exe"), mr_json_str(j, s->exe);
	mr_json_key(j, "build_id"), mr_json_str(j, s->build_id);
	mr_json_key(j, "backend"), mr_json_str(j, s->backend);
	mr_json_key(j, "period_ns"), mr_json_u64(j, s->period_ns);
	mr_json_key(j, "weighting"), mr_json_str(j, s->weighting);
	mr_json_key(j, "threads");
	if (s->threads >= 0)
		mr_json_u64(j, (uint64_t)s->threads);
	else
		mr_json_null(j);
	mr_json_key(j, "nodes"), mr_json_u64(j, s->nnodes);
	mr_json_key(j, "region_seconds"), mr_json_dbl(j, s->seconds);
	mr_json_obj_end(j);
}

/* An item's pages by node and first touch (null when the side lacks the item). */
static void json_item_side(struct mr_json *j, const char *key, const struct cmp_item *it,
			   uint32_t nn, int far)
{
	mr_json_key(j, key);
	if (!it) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	mr_json_key(j, "name"), mr_json_str(j, it->name);
	mr_json_key(j, "remote"), mr_json_u64(j, it->remote_all);
	mr_json_key(j, "local"), mr_json_u64(j, it->local_all);
	if (far)
		mr_json_key(j, "far"), mr_json_u64(j, it->far_all);
	mr_json_key(j, "sampled_pages_by_node");
	mr_json_u64_array(j, it->pages, strcmp(it->kind, "line") ? nn + 1 : 0);
	mr_json_key(j, "first_touch");
	if (!it->has_ft) {
		mr_json_null(j);
	} else {
		mr_json_obj(j);
		mr_json_key(j, "thread"), mr_json_str(j, it->ft_thread);
		mr_json_key(j, "line"), mr_json_str(j, it->ft_line);
		mr_json_key(j, "pages"), mr_json_u64(j, it->ft_pages);
		mr_json_obj_end(j);
	}
	mr_json_obj_end(j);
}

static void print_json(const struct cmp_side *a, const struct cmp_side *b,
		       const struct cmp_result *r, FILE *f)
{
	struct mr_json json, *j = &json;

	mr_json_init(j, f);
	mr_json_obj(j);
	mr_json_key(j, "schema"), mr_json_str(j, MR_COMPARE_SCHEMA);
	json_side(j, "a", a);
	json_side(j, "b", b);
	mr_json_key(j, "options"), mr_json_obj(j);
	mr_json_key(j, "mode"), mr_json_str(j, mode_word[r->mode]);
	mr_json_key(j, "by"), mr_json_str(j, a->by_line ? "line" : "variable");
	mr_json_key(j, "max_regress_pts"), mr_json_dbl(j, 100 * r->max_regress);
	mr_json_obj_end(j);
	mr_json_key(j, "warnings"), mr_json_arr(j);
	for (size_t i = 0; i < r->nnotes; i++)
		mr_json_str(j, r->notes[i]);
	mr_json_arr_end(j);
	mr_json_key(j, "nodes"), mr_json_arr(j);
	for (uint32_t c = 0; c <= r->nnodes; c++)
		json_cell(j, &r->nodes[c], c, r->nnodes);
	mr_json_arr_end(j);
	if (r->far) {
		mr_json_key(j, "far_tier"), mr_json_arr(j);
		for (uint32_t c = 0; c <= r->nnodes; c++)
			json_cell(j, &r->far[c], c, r->nnodes);
		mr_json_arr_end(j);
	}
	mr_json_key(j, "variables"), mr_json_arr(j);
	for (size_t i = 0; i < r->npairs; i++) {
		const struct cmp_pair *p = &r->pairs[i];
		mr_json_obj(j);
		mr_json_key(j, "name"), mr_json_str(j, p->b ? p->b->name : p->a->name);
		mr_json_key(j, "kind"), mr_json_str(j, p->b ? p->b->kind : p->a->kind);
		mr_json_key(j, "verdict"), mr_json_str(j, cmp_verdict_name(p->v));
		mr_json_key(j, "tracked"), mr_json_bool(j, p->tracked);
		mr_json_key(j, "line_shift"), mr_json_i64(j, p->shift);
		json_item_side(j, "in_a", p->a, r->nnodes, r->far != NULL);
		json_item_side(j, "in_b", p->b, r->nnodes, r->far != NULL);
		mr_json_key(j, "cells"), mr_json_arr(j);
		for (uint32_t c = 0; c <= r->nnodes; c++)
			json_cell(j, &p->cells[c], c, r->nnodes);
		mr_json_arr_end(j);
		if (r->far) {
			mr_json_key(j, "far_tier");
			json_cell(j, &p->far, r->nnodes, r->nnodes);
		}
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "summary"), mr_json_obj(j);
	mr_json_key(j, "verdict"), mr_json_str(j, overall(r));
	mr_json_key(j, "regressions"), mr_json_u64(j, r->regressions);
	mr_json_key(j, "improvements"), mr_json_u64(j, r->improvements);
	mr_json_key(j, "new"), mr_json_u64(j, r->news);
	mr_json_key(j, "gone"), mr_json_u64(j, r->gones);
	mr_json_key(j, "exit"), mr_json_u64(j, r->regressions ? 1 : 0);
	mr_json_obj_end(j);
	mr_json_obj_end(j);
	fputc('\n', f);
}

void cmp_print(const struct cmp_side *a, const struct cmp_side *b, const struct cmp_result *r,
	       enum cmp_format fmt, size_t top, FILE *f)
{
	if (fmt == CMP_JSON)
		print_json(a, b, r, f);
	else if (fmt == CMP_MARKDOWN)
		print_markdown(a, b, r, top, f);
	else
		print_text(a, b, r, top, f);
}

/* ---- JUnit ---- */

/* s as XML character data or attribute value: the five entities escaped, control
 * characters XML 1.0 forbids written as '?'. */
static void xml(const char *s, FILE *f)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '&')
			fputs("&amp;", f);
		else if (c == '<')
			fputs("&lt;", f);
		else if (c == '>')
			fputs("&gt;", f);
		else if (c == '"')
			fputs("&quot;", f);
		else if (c == '\'')
			fputs("&apos;", f);
		else if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
			fputc('?', f);
		else
			fputc(c, f);
	}
}

/* One testcase: name, its cell, verdict v. A regression is a failure. */
static void junit_case(FILE *f, const char *cls, const char *name, const struct cmp_cell *c,
		       enum cmp_verdict v)
{
	char ch[96];

	change_text(c, ch, sizeof(ch));
	fprintf(f, "    <testcase classname=\"%s\" name=\"", cls);
	xml(name, f);
	fprintf(f, "\" time=\"0\">\n      <system-out>share %.2f %% -&gt; %.2f %% (", 100 * c->pa,
		100 * c->pb);
	xml(ch, f);
	fprintf(f, "): %s</system-out>\n", cmp_verdict_name(v));
	if (v == CMP_REGRESSED) {
		fprintf(f, "      <failure message=\"");
		xml(name, f);
		fprintf(f, " regressed: %.1f %% -&gt; %.1f %% (", 100 * c->pa, 100 * c->pb);
		xml(ch, f);
		fprintf(f, ")\" type=\"regression\"/>\n");
	}
	fprintf(f, "    </testcase>\n");
}

int cmp_write_junit(const struct cmp_side *a, const struct cmp_side *b,
		    const struct cmp_result *r, const char *path)
{
	FILE *f = fopen(path, "w");
	size_t tests = r->nnodes + 1, fails = 0;
	char nm[64];

	if (!f)
		return -errno;
	for (uint32_t c = 0; c <= r->nnodes; c++) {
		fails += r->nodes[c].v == CMP_REGRESSED;
		fails += r->far && r->far[c].v == CMP_REGRESSED;
		tests += r->far != NULL;
	}
	for (size_t i = 0; i < r->npairs; i++) {
		tests += r->pairs[i].tracked;
		fails += r->pairs[i].tracked && r->pairs[i].v == CMP_REGRESSED;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<testsuites name=\"memphis-report compare\" tests=\"%zu\" failures=\"%zu\">\n"
		   "  <testsuite name=\"", tests, fails);
	xml(a->path, f);
	fputs(" vs ", f);
	xml(b->path, f);
	fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n", tests, fails);
	for (uint32_t c = 0; c <= r->nnodes; c++) {
		node_name(c, r->nnodes, nm, sizeof(nm));
		junit_case(f, "memphis.compare.node", nm, &r->nodes[c], r->nodes[c].v);
		if (r->far) {
			char fn[96];

			snprintf(fn, sizeof(fn), "%s, far tier", nm);
			junit_case(f, "memphis.compare.node", fn, &r->far[c], r->far[c].v);
		}
	}
	for (size_t i = 0; i < r->npairs; i++) {
		const struct cmp_pair *p = &r->pairs[i];
		const struct cmp_cell *worst = &p->cells[r->nnodes];
		char name[1200];
		if (!p->tracked)
			continue;
		/* the cell that decided the verdict: a regressed node's, else all nodes' */
		for (uint32_t c = 0; c < r->nnodes; c++)
			if (p->cells[c].v == CMP_REGRESSED && worst->v != CMP_REGRESSED)
				worst = &p->cells[c];
		if (r->far && p->far.v == CMP_REGRESSED && worst->v != CMP_REGRESSED)
			worst = &p->far;
		pair_name(p, name, sizeof(name));
		junit_case(f, "memphis.compare.variable", name, worst, p->v);
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
	return fclose(f) ? -errno : 0;
}
