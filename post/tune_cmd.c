/* post/tune_cmd.c - `memphis-report tune DIR`: the judgement of a `memphis tune` directory
 * (cmd/tune.c wrote it: before/ and after/ run directories, advice.json, before.json,
 * after.json, compare.json, status, times). Each placed variable is judged by what its
 * advice promised: move and partitioned fewer remote accesses (its remote share, before
 * and after, Newcombe's 95 % interval of the change); interleave its pages and its accesses
 * spread evenly over the nodes (each node's share of its sampled pages and of the accesses
 * to it by page node, Wilson intervals), where a node's remote share may rise on purpose: a
 * node that compare judges regressed is an expected trade when, without the interleaved
 * variables' accesses on both sides, it would not be. Then the wall-time ratio of the
 * unprofiled runs (Hodges-Lehmann, Mann-Whitney interval). Exit: compare's, the expected
 * trades not counted; 2 when the runs cannot be judged. docs/apply.md. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/infile.h"
#include "base/json.h"
#include "cmd.h"
#include "compare/compare.h"

#define MAX_NODES 64
#define EVEN_BAND 0.10 /* interleave kept: each node within this of an even share */

enum fmt { TEXT, JSON, MARKDOWN };

struct measure {
	const char *name, *policy;
	int nodes[MAX_NODES], nnodes;
	/* move, partitioned: remote and known accesses before (0) and after (1) */
	uint64_t remote[2], known[2];
	struct cmp_ci ci;
	/* interleave: sampled pages and accesses by page node, before and after */
	uint64_t pages[2][MAX_NODES], pages_all[2], acc[2][MAX_NODES], acc_all[2];
	int kept;            /* 1 kept, 0 not, -1 no change seen */
};

struct node {
	int node, regressed, trade;
	double a, b, delta;
	struct cmp_ci ci;
	uint64_t xa, na, xb, nb;   /* without the interleaved variables */
	struct cmp_ci ci_wo;
};

struct tune {
	const char *dir;
	json_object *advice, *before, *after, *compare;
	char status[2][32];
	struct measure *m;
	size_t nm;
	struct node nodes[MAX_NODES];
	int nn;
	double thr;               /* compare's --max-regress, as a share */
	double plain[1000], applied[1000], est, ratio_lo, ratio_hi;
	size_t np, na;
	int have_ci, bad_status, regressions, trades;
};

void mr_help_tune(FILE *f)
{
	fprintf(f,
		"usage: memphis-report tune DIR [--json | --markdown]\n\n"
		"Judges a `memphis tune` directory: for each variable placed by its advice, the\n"
		"measure the advice promised (move, partitioned: the remote share of its accesses;\n"
		"interleave: its pages and accesses spread over the nodes), before and after, with\n"
		"95 %% intervals; compare's per-node verdicts, a node whose remote share rose because\n"
		"of an interleave shown as that trade; the wall-time ratio of the unprofiled runs.\n\n"
		"Options:\n"
		"  --json      JSON (schema memphis-tune/1, docs/apply.md)\n"
		"  --markdown  a Markdown report\n"
		"  -h, --help  this text\n\n"
		"Exit status: 0 no regression, 1 a regression (an interleave's trade is none), 2\n"
		"cannot judge (bad usage, a file missing or damaged, the program's exit status\n"
		"changed under the placement).\n");
}

static json_object *get(json_object *o, const char *key, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* The number at key of o (JSON writes a share of 1 as the integer 1), 0 when none. */
static double num(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return 0;
	return json_object_get_double(v);
}

static uint64_t u64_at(json_object *a, size_t i)
{
	json_object *v = json_object_array_get_idx(a, i);

	return v && json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0
		       ? (uint64_t)json_object_get_int64(v) : 0;
}

/* DIR/name parsed; NULL with the error printed. */
static json_object *load(const char *dir, const char *name)
{
	char path[4096], *buf = NULL;
	size_t n = 0;
	json_object *o;
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((rc = mr_in_read(path, MR_IN_MAX_JSON, &buf, &n))) {
		mr_error(MR_EXIT_DATA, "%s: %s", path, mr_in_strerror(rc, MR_IN_MAX_JSON));
		return NULL;
	}
	o = json_tokener_parse(buf);
	free(buf);
	if (!o || !json_object_is_type(o, json_type_object)) {
		mr_error(MR_EXIT_DATA, "%s: not a JSON object (the step that wrote it failed: see "
			 "its .err file)", path);
		json_object_put(o);
		return NULL;
	}
	if (get(o, "error", json_type_object)) {
		mr_error(MR_EXIT_DATA, "%s: %s", path, json_object_get_string(get(
				   get(o, "error", json_type_object), "message", json_type_string)));
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* The report's variable named name, NULL when it has no samples there. */
static json_object *var_named(json_object *report, const char *name)
{
	json_object *vars = get(report, "variables", json_type_array);

	for (size_t i = 0; vars && i < json_object_array_length(vars); i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		const char *n = json_object_get_string(get(v, "name", json_type_string));

		if (n && !strcmp(n, name))
			return v;
	}
	return NULL;
}

/* Counts of variable v of report side s into m: remote / known accesses, accesses and
 * sampled pages by the page's node. */
static void count(struct measure *m, int s, json_object *v)
{
	json_object *rows = get(get(v, "matrix", json_type_object), "counts", json_type_array);
	json_object *pages = get(get(v, "sampled_pages", json_type_object), "by_node",
				 json_type_array);
	size_t nr = rows ? json_object_array_length(rows) : 0;

	for (size_t i = 0; i + 1 < nr; i++) { /* the last row and column: unknown node */
		json_object *row = json_object_array_get_idx(rows, i);
		size_t nc = json_object_array_length(row);

		for (size_t j = 0; j + 1 < nc; j++) {
			uint64_t c = u64_at(row, j);

			m->known[s] += c;
			m->remote[s] += i != j ? c : 0;
			m->acc_all[s] += c;
			if (j < MAX_NODES)
				m->acc[s][j] += c;
		}
	}
	for (size_t j = 0; pages && j + 1 < json_object_array_length(pages) && j < MAX_NODES; j++) {
		m->pages[s][j] = u64_at(pages, j);
		m->pages_all[s] += m->pages[s][j];
	}
}

/* Is x of n within the band around an even share of k nodes, given its Wilson interval? */
static int even(uint64_t x, uint64_t n, int k)
{
	struct cmp_ci w = cmp_wilson(x, n, CMP_Z95);
	double lo = 1.0 / k - EVEN_BAND, hi = 1.0 / k + EVEN_BAND;

	return n && w.hi >= lo && w.lo <= hi;
}

static void judge(struct measure *m)
{
	if (strcmp(m->policy, "interleave")) {
		m->ci = cmp_newcombe(m->remote[1], m->known[1], m->remote[0], m->known[0], CMP_Z95);
		m->kept = !m->known[0] || !m->known[1] ? -1 : m->ci.hi < 0 ? 1 : m->ci.lo > 0 ? 0 : -1;
		return;
	}
	m->kept = m->pages_all[1] > 0;
	for (int k = 0; k < m->nnodes; k++)
		m->kept &= even(m->pages[1][m->nodes[k]], m->pages_all[1], m->nnodes);
}

/* The placed variables of the advice, each measured. */
static int measures(struct tune *t)
{
	json_object *vars = get(t->advice, "variables", json_type_array);
	size_t n = vars ? json_object_array_length(vars) : 0;

	t->m = calloc(n + 1, sizeof(*t->m));
	if (!t->m)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		json_object *pl = get(get(v, "advice", json_type_object), "placement", json_type_object);
		json_object *nodes = get(pl, "nodes", json_type_array);
		json_object *bn = get(pl, "block_nodes", json_type_array);
		struct measure *m = &t->m[t->nm];

		if (!pl || !(m->policy = json_object_get_string(get(pl, "policy", json_type_string))))
			continue;
		m->name = json_object_get_string(get(v, "name", json_type_string));
		for (size_t k = 0; !bn && nodes && k < json_object_array_length(nodes) && k < MAX_NODES; k++)
			m->nodes[m->nnodes++] = (int)u64_at(nodes, k) % MAX_NODES;
		for (size_t k = 0; bn && k < json_object_array_length(bn); k++) {
			int node = (int)u64_at(bn, k) % MAX_NODES, seen = 0;

			for (int j = 0; j < m->nnodes; j++)
				seen |= m->nodes[j] == node;
			if (!seen && m->nnodes < MAX_NODES)
				m->nodes[m->nnodes++] = node;
		}
		if (!m->name || !m->nnodes)
			continue;
		count(m, 0, var_named(t->before, m->name));
		count(m, 1, var_named(t->after, m->name));
		judge(m);
		t->nm++;
	}
	return 0;
}

/* Node n's remote and known accesses in report r without the interleaved variables. */
static void node_without(const struct tune *t, json_object *r, int n, uint64_t *x, uint64_t *all)
{
	json_object *vars = get(r, "variables", json_type_array);

	*x = *all = 0;
	for (size_t i = 0; vars && i < json_object_array_length(vars); i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		json_object *rows = get(get(v, "matrix", json_type_object), "counts", json_type_array);
		const char *name = json_object_get_string(get(v, "name", json_type_string));
		json_object *row = rows ? json_object_array_get_idx(rows, (size_t)n) : NULL;
		int skip = 0;

		for (size_t k = 0; k < t->nm && name; k++)
			skip |= !strcmp(t->m[k].policy, "interleave") && !strcmp(t->m[k].name, name);
		for (size_t j = 0; !skip && row && j + 1 < json_object_array_length(row); j++) {
			*all += u64_at(row, j);
			*x += (int)j != n ? u64_at(row, j) : 0;
		}
	}
}

/* compare's nodes, a regressed one checked for an interleave's trade; the regressions. */
static void nodes(struct tune *t)
{
	json_object *ns = get(t->compare, "nodes", json_type_array);
	json_object *vars = get(t->compare, "variables", json_type_array);
	int interleaved = 0;

	for (size_t k = 0; k < t->nm; k++)
		interleaved |= !strcmp(t->m[k].policy, "interleave");
	for (size_t i = 0; ns && i < json_object_array_length(ns) && t->nn < MAX_NODES; i++) {
		json_object *o = json_object_array_get_idx(ns, i), *ci = get(o, "ci95", json_type_array);
		struct node *nd = &t->nodes[t->nn];

		if (!get(o, "node", json_type_int)) /* all nodes */
			continue;
		nd->node = (int)json_object_get_int(get(o, "node", json_type_int));
		nd->a = num(get(o, "a", json_type_object), "share");
		nd->b = num(get(o, "b", json_type_object), "share");
		nd->delta = num(o, "delta");
		nd->ci.lo = ci ? json_object_get_double(json_object_array_get_idx(ci, 0)) : 0;
		nd->ci.hi = ci ? json_object_get_double(json_object_array_get_idx(ci, 1)) : 0;
		nd->regressed = !strcmp(json_object_get_string(get(o, "verdict", json_type_string)) ?: "",
					"regressed");
		if (nd->regressed && interleaved) {
			node_without(t, t->before, nd->node, &nd->xa, &nd->na);
			node_without(t, t->after, nd->node, &nd->xb, &nd->nb);
			nd->ci_wo = cmp_newcombe(nd->xb, nd->nb, nd->xa, nd->na, CMP_Z95);
			nd->trade = nd->na && nd->nb &&
				    !(nd->ci_wo.lo > 0 &&
				      (double)nd->xb / nd->nb - (double)nd->xa / nd->na > t->thr);
		}
		t->regressions += nd->regressed && !nd->trade;
		t->trades += nd->trade;
		t->nn++;
	}
	/* a variable compare judges regressed: a regression unless it was interleaved */
	for (size_t i = 0; vars && i < json_object_array_length(vars); i++) {
		json_object *v = json_object_array_get_idx(vars, i);
		const char *name = json_object_get_string(get(v, "name", json_type_string));
		int ok = 0;

		if (strcmp(json_object_get_string(get(v, "verdict", json_type_string)) ?: "", "regressed"))
			continue;
		for (size_t k = 0; k < t->nm && name; k++)
			ok |= !strcmp(t->m[k].policy, "interleave") && !strcmp(t->m[k].name, name);
		t->regressions += !ok;
		t->trades += ok;
	}
}

/* DIR/times ("plain|applied SECONDS STATUS" lines) and DIR/status. */
static void times(struct tune *t)
{
	char path[4096], kind[16], st[32];
	double s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/status", t->dir);
	if ((f = fopen(path, "r"))) {
		if (fscanf(f, "before %31[^\n] after %31[^\n]", t->status[0], t->status[1]) != 2)
			t->status[0][0] = t->status[1][0] = 0;
		fclose(f);
	}
	t->bad_status = strcmp(t->status[0], t->status[1]) != 0;
	snprintf(path, sizeof(path), "%s/times", t->dir);
	if (!(f = fopen(path, "r")))
		return;
	while (fscanf(f, "%15s %lf %31[^\n]", kind, &s, st) == 3 && s > 0) {
		t->bad_status |= strcmp(st, t->status[0]) != 0;
		if (!strcmp(kind, "plain") && t->np < 1000)
			t->plain[t->np++] = log(s);
		else if (!strcmp(kind, "applied") && t->na < 1000)
			t->applied[t->na++] = log(s);
	}
	fclose(f);
	if (t->np && t->na) {
		struct cmp_ci ci;

		if (cmp_shift(t->plain, t->np, t->applied, t->na, &t->est, &ci, &t->have_ci) == 0) {
			t->ratio_lo = exp(ci.lo);
			t->ratio_hi = exp(ci.hi);
		}
	}
}

/* The median of the n logs v, as seconds. */
static double median_s(const double *v, size_t n)
{
	double c[1000];

	memcpy(c, v, n * sizeof(*v));
	for (size_t i = 1; i < n; i++) /* insertion sort: n is small */
		for (size_t j = i; j > 0 && c[j] < c[j - 1]; j--) {
			double x = c[j];
			c[j] = c[j - 1];
			c[j - 1] = x;
		}
	return exp(n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2);
}

static const char *kept_text(const struct measure *m)
{
	if (!strcmp(m->policy, "interleave"))
		return m->kept ? "kept: spread evenly" : "not kept: not spread evenly";
	return m->kept == 1 ? "kept: fewer remote accesses" : m->kept == 0 ? "not kept: more remote accesses"
									       : "no change told apart";
}

static void spread_text(FILE *f, const struct measure *m, const uint64_t v[2][MAX_NODES],
			const uint64_t all[2])
{
	for (int s = 0; s < 2; s++) {
		for (int k = 0; k < m->nnodes; k++)
			fprintf(f, "%s%.0f", k ? "/" : "",
				all[s] ? 100.0 * (double)v[s][m->nodes[k]] / (double)all[s] : 0.0);
		fprintf(f, s ? " %%" : " %% -> ");
	}
}

static void print_text(const struct tune *t, FILE *f, int md)
{
	const char *b = md ? "| " : "  ", *sep = md ? " | " : "   ";

	fprintf(f, "%smemphis tune: %s\n", md ? "### " : "", mr_esc(t->dir));
	if (md)
		fprintf(f, "\n| variable | placement | measure | before -> after | verdict |\n|---|---|---|---|---|\n");
	else
		fprintf(f, "placed variables, each by what its advice promised:\n");
	for (size_t i = 0; i < t->nm; i++) {
		const struct measure *m = &t->m[i];

		fprintf(f, "%s%s%s%s over node%s ", b, mr_esc(m->name), sep, m->policy,
			m->nnodes > 1 ? "s" : "");
		for (int k = 0; k < m->nnodes; k++)
			fprintf(f, "%s%d", k ? "," : "", m->nodes[k]);
		if (strcmp(m->policy, "interleave")) {
			fprintf(f, "%sremote share%s%.1f %% -> %.1f %% (%+.1f pts, 95 %% CI %+.1f…%+.1f)",
				sep, md ? " | " : " ",
				m->known[0] ? 100.0 * m->remote[0] / m->known[0] : 0.0,
				m->known[1] ? 100.0 * m->remote[1] / m->known[1] : 0.0,
				100 * (m->known[0] && m->known[1]
					       ? (double)m->remote[1] / m->known[1] - (double)m->remote[0] / m->known[0]
					       : 0),
				100 * m->ci.lo, 100 * m->ci.hi);
		} else {
			fprintf(f, "%ssampled pages by node%s", sep, md ? " | " : " ");
			spread_text(f, m, m->pages, m->pages_all);
			fprintf(f, "; accesses by page node ");
			spread_text(f, m, m->acc, m->acc_all);
		}
		fprintf(f, "%s%s%s\n", sep, kept_text(m), md ? " |" : "");
	}
	if (!t->nm)
		fprintf(f, "%s(the advice placed nothing: every variable local, too_few, spread or "
			"replicate)\n", b);
	fprintf(f, "%snodes (remote share of each node's accesses, as compare judges them):\n",
		md ? "\n" : "");
	for (int i = 0; i < t->nn; i++) {
		const struct node *nd = &t->nodes[i];

		fprintf(f, "%snode %d: %.1f %% -> %.1f %% (%+.1f pts, 95 %% CI %+.1f…%+.1f)", md ? "- " : "  ",
			nd->node, 100 * nd->a, 100 * nd->b, 100 * nd->delta, 100 * nd->ci.lo,
			100 * nd->ci.hi);
		if (nd->trade)
			fprintf(f, ": rose, the expected trade of the interleave (without the "
				"interleaved variables %.1f %% -> %.1f %%)", 100.0 * nd->xa / nd->na,
				100.0 * nd->xb / nd->nb);
		else if (nd->regressed)
			fprintf(f, ": regressed");
		fprintf(f, "\n");
	}
	if (t->np && t->na) {
		fprintf(f, "%swall time, %zu unprofiled runs of each placement, interleaved: plain "
			"%.3f s, applied %.3f s (medians); applied / plain %.3f", md ? "\n" : "",
			t->np < t->na ? t->np : t->na, median_s(t->plain, t->np),
			median_s(t->applied, t->na), exp(t->est));
		if (!t->have_ci)
			fprintf(f, " (too few runs for an interval: --repeat 4 or more)\n");
		else if (t->ratio_lo <= 1 && t->ratio_hi >= 1)
			fprintf(f, " (95 %% CI %.3f…%.3f): the two placements' times cannot be told "
				"apart\n", t->ratio_lo, t->ratio_hi);
		else
			fprintf(f, " (95 %% CI %.3f…%.3f): applied %s\n", t->ratio_lo, t->ratio_hi,
				t->ratio_hi < 1 ? "faster" : "slower");
	}
	if (t->bad_status)
		fprintf(f, "%sthe program's exit status changed: %s before, %s placed (or in a timed "
			"run: DIR/times): cannot judge\n", md ? "\n" : "", t->status[0], t->status[1]);
	fprintf(f, "%sverdict: %d regression%s, %d expected trade%s of an interleave; exit %d\n",
		md ? "\n" : "", t->regressions, t->regressions == 1 ? "" : "s", t->trades,
		t->trades == 1 ? "" : "s", t->bad_status ? 2 : t->regressions > 0);
}

static void json_counts(struct mr_json *j, const struct measure *m, const char *key,
			const uint64_t v[2][MAX_NODES])
{
	mr_json_key(j, key);
	mr_json_obj(j);
	for (int s = 0; s < 2; s++) {
		mr_json_key(j, s ? "after" : "before");
		mr_json_arr(j);
		for (int k = 0; k < m->nnodes; k++)
			mr_json_u64(j, v[s][m->nodes[k]]);
		mr_json_arr_end(j);
	}
	mr_json_obj_end(j);
}

static void print_json(const struct tune *t, FILE *f)
{
	struct mr_json js, *j = &js;

	mr_json_init(j, f);
	mr_json_obj(j);
	mr_json_key(j, "schema");
	mr_json_str(j, "memphis-tune/1");
	mr_json_key(j, "dir");
	mr_json_str(j, t->dir);
	mr_json_key(j, "status");
	mr_json_obj(j);
	mr_json_key(j, "before");
	mr_json_str(j, t->status[0]);
	mr_json_key(j, "after");
	mr_json_str(j, t->status[1]);
	mr_json_key(j, "changed");
	mr_json_bool(j, t->bad_status);
	mr_json_obj_end(j);
	mr_json_key(j, "variables");
	mr_json_arr(j);
	for (size_t i = 0; i < t->nm; i++) {
		const struct measure *m = &t->m[i];

		mr_json_obj(j);
		mr_json_key(j, "name");
		mr_json_str(j, m->name);
		mr_json_key(j, "policy");
		mr_json_str(j, m->policy);
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		for (int k = 0; k < m->nnodes; k++)
			mr_json_u64(j, (uint64_t)m->nodes[k]);
		mr_json_arr_end(j);
		mr_json_key(j, "measure");
		mr_json_str(j, strcmp(m->policy, "interleave") ? "remote_share" : "spread");
		if (strcmp(m->policy, "interleave")) {
			mr_json_key(j, "remote");
			mr_json_obj(j);
			mr_json_key(j, "before");
			mr_json_u64_array(j, (uint64_t[]){ m->remote[0], m->known[0] }, 2);
			mr_json_key(j, "after");
			mr_json_u64_array(j, (uint64_t[]){ m->remote[1], m->known[1] }, 2);
			mr_json_key(j, "ci95");
			mr_json_arr(j);
			mr_json_dbl(j, m->ci.lo);
			mr_json_dbl(j, m->ci.hi);
			mr_json_arr_end(j);
			mr_json_obj_end(j);
		} else {
			json_counts(j, m, "sampled_pages_by_node", m->pages);
			json_counts(j, m, "accesses_by_page_node", m->acc);
		}
		mr_json_key(j, "kept");
		m->kept < 0 ? mr_json_null(j) : mr_json_bool(j, m->kept);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "nodes");
	mr_json_arr(j);
	for (int i = 0; i < t->nn; i++) {
		mr_json_obj(j);
		mr_json_key(j, "node");
		mr_json_u64(j, (uint64_t)t->nodes[i].node);
		mr_json_key(j, "before");
		mr_json_dbl(j, t->nodes[i].a);
		mr_json_key(j, "after");
		mr_json_dbl(j, t->nodes[i].b);
		mr_json_key(j, "ci95");
		mr_json_arr(j);
		mr_json_dbl(j, t->nodes[i].ci.lo);
		mr_json_dbl(j, t->nodes[i].ci.hi);
		mr_json_arr_end(j);
		mr_json_key(j, "verdict");
		mr_json_str(j, t->nodes[i].trade ? "expected_trade" : t->nodes[i].regressed ? "regressed" : "other");
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "time");
	if (t->np && t->na) {
		mr_json_obj(j);
		mr_json_key(j, "plain_s");
		mr_json_dbl(j, median_s(t->plain, t->np));
		mr_json_key(j, "applied_s");
		mr_json_dbl(j, median_s(t->applied, t->na));
		mr_json_key(j, "runs");
		mr_json_u64(j, t->np < t->na ? t->np : t->na);
		mr_json_key(j, "ratio");
		mr_json_dbl(j, exp(t->est));
		mr_json_key(j, "ci95");
		if (t->have_ci) {
			mr_json_arr(j);
			mr_json_dbl(j, t->ratio_lo);
			mr_json_dbl(j, t->ratio_hi);
			mr_json_arr_end(j);
		} else {
			mr_json_null(j);
		}
		mr_json_key(j, "told_apart");
		mr_json_bool(j, t->have_ci && (t->ratio_lo > 1 || t->ratio_hi < 1));
		mr_json_obj_end(j);
	} else {
		mr_json_null(j);
	}
	mr_json_key(j, "compare");
	mr_json_str(j, "compare.json");
	mr_json_key(j, "summary");
	mr_json_obj(j);
	mr_json_key(j, "regressions");
	mr_json_u64(j, (uint64_t)t->regressions);
	mr_json_key(j, "expected_trades");
	mr_json_u64(j, (uint64_t)t->trades);
	mr_json_key(j, "exit");
	mr_json_u64(j, t->bad_status ? 2 : t->regressions > 0);
	mr_json_obj_end(j);
	mr_json_obj_end(j);
	fputc('\n', f);
}

int mr_cmd_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, 0, 'j' }, { "markdown", no_argument, 0, 'm' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
	};
	struct tune t;
	enum fmt fmt = TEXT;
	int c, rc = MR_EXIT_DATA;

	memset(&t, 0, sizeof(t));
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': fmt = JSON; mr_err_json = 1; break;
		case 'm': fmt = MARKDOWN; break;
		case 'h': mr_help_tune(stdout); return MR_EXIT_OK;
		default: return mr_usage("tune", "unknown option");
		}
	}
	if (optind != argc - 1)
		return mr_usage("tune", "give one DIR, written by memphis tune");
	t.dir = argv[optind];
	if (!(t.advice = load(t.dir, "advice.json")) || !(t.before = load(t.dir, "before.json")) ||
	    !(t.after = load(t.dir, "after.json")) || !(t.compare = load(t.dir, "compare.json")))
		goto out;
	t.thr = num(get(t.compare, "options", json_type_object), "max_regress_pts") / 100;
	if (measures(&t)) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	nodes(&t);
	times(&t);
	if (fmt == JSON)
		print_json(&t, stdout);
	else
		print_text(&t, stdout, fmt == MARKDOWN);
	rc = t.bad_status ? MR_EXIT_DATA : t.regressions > 0 ? 1 : MR_EXIT_OK;
out:
	json_object_put(t.advice);
	json_object_put(t.before);
	json_object_put(t.after);
	json_object_put(t.compare);
	free(t.m);
	return rc;
}
