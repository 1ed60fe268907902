/* post/report_text.c - the text report: header, per-node tables, pages and first touch,
 * node x node matrices. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

const char *report_key_name(const void *arg, int is_var, uint32_t id)
{
	const struct report *r = arg;

	return is_var ? mr_attrib_var(r->a, id)->name : mr_attrib_line(r->a, id);
}

void report_node_label(const struct report *r, uint32_t node, char *buf, size_t len)
{
	const char *suffix = r->no_remote ? " (local)" : "";

	if (node == r->nnodes)
		snprintf(buf, len, "Node?%s", suffix);
	else
		snprintf(buf, len, "Node%u%s", node, suffix);
}

/* "3", or "?" for the unknown node index, into buf. */
static const char *node_name(const struct report *r, uint32_t idx, char *buf, size_t len)
{
	if (idx == r->nnodes)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%u", idx);
	return buf;
}

/* a as a percentage of b (0 when b is 0). */
static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Print "100 % of 1,952 pages on node 0" or "62 % of 1,952 pages on node 0, 38 % on node
 * 1": the nodes holding pages in descending share, the unknown home last among equals. */
static void pages_text(const struct report *r, const uint64_t *by_node, uint64_t total, FILE *f)
{
	uint32_t n = r->nnodes + 1;
	uint32_t *order = malloc(n * sizeof(*order));
	char a[32], nb[16];
	int first = 1;

	for (uint32_t i = 0; i < n && order; i++)
		order[i] = i;
	for (uint32_t i = 1; i < n && order; i++) /* insertion sort: a handful of nodes */
		for (uint32_t k = i; k > 0 && by_node[order[k]] > by_node[order[k - 1]]; k--) {
			uint32_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nd = order ? order[i] : i; /* out of memory: node order */
		const char *where = nd == r->nnodes ? "of unknown home" : "on node ";
		const char *which = nd == r->nnodes ? "" : node_name(r, nd, nb, sizeof(nb));

		if (!by_node[nd])
			continue;
		if (first)
			fprintf(f, "%.0f %% of %s page%s %s%s", pct(by_node[nd], total),
				mr_fmt_count(a, total), total == 1 ? "" : "s", where, which);
		else
			fprintf(f, ", %.0f %% %s%s", pct(by_node[nd], total), where, which);
		first = 0;
	}
	if (first)
		fprintf(f, "no pages");
	free(order);
}

void report_thread_text(const struct report *r, uint32_t tid, char *buf, size_t len)
{
	int idx = mr_attrib_thread_index(r->a, tid);

	if (idx >= 0)
		snprintf(buf, len, "thread %d", idx);
	else
		snprintf(buf, len, "tid %" PRIu32, tid);
}

/* Run, backend, sample counts, nodes and regions. */
static void print_header(const struct report *r, FILE *f)
{
	const struct mr_run *run = r->run;
	const char *backend = mr_run_get(run, "backend");
	uint64_t period = mr_run_get_u64(run, "period_ns", 0);
	char a[32], b[32], d[32], e[32], g[32], h[32], k[32];

	fprintf(f, "memphis-report: %s\n", run->dir);
	fprintf(f, "program: %s (pid %" PRIu32 ")%s%s\n", mr_attrib_exe(r->a), run->meta_file.pid,
		mr_run_get(run, "cmdline") ? ", command line: " : "",
		mr_run_get(run, "cmdline") ? mr_run_get(run, "cmdline") : "");
	fprintf(f, "backend: %s", backend && *backend ? backend : "unknown");
	if (period)
		fprintf(f, ", period %s ns (%.3g ms)", mr_fmt_count(a, period), (double)period / 1e6);
	fprintf(f, "; weighting: %s\n", report_weighting(mr_run_get(run, "weight")));
	if (mr_run_get_u64(run, "heap_sample_every", 1) > 1)
		fprintf(f, "heap: allocations under %s bytes recorded 1 in %s on average "
			"(MEMPHIS_HEAP_SAMPLE=1 records all); larger ones always\n",
			mr_fmt_count(a, mr_run_get_u64(run, "heap_sample_below", 0)),
			mr_fmt_count(b, mr_run_get_u64(run, "heap_sample_every", 1)));
	if (mr_run_get(run, "sampling_error") && *mr_run_get(run, "sampling_error"))
		fprintf(f, "sampling error: %s\n", mr_run_get(run, "sampling_error"));
	fprintf(f, "samples: %s total: %s exact, %s approximate%s, %s no address, %s non-memory",
		mr_fmt_count(a, r->st.total), mr_fmt_count(b, r->st.exact),
		mr_fmt_count(d, r->st.approx),
		r->o.approx ? " (included)" : r->st.approx ? " (not attributed; --approx includes them)" : "",
		mr_fmt_count(e, r->st.noaddr), mr_fmt_count(g, r->st.nonmem));
	if (r->st.noflag)
		fprintf(f, ", %s unclassified", mr_fmt_count(a, r->st.noflag));
	fprintf(f, "; lost %s, throttled %s", mr_fmt_count(h, r->st.lost),
		mr_fmt_count(k, r->st.throttled));
	if (r->st.dropped)
		fprintf(f, ", dropped %s", mr_fmt_count(a, r->st.dropped));
	fprintf(f, "\n");
	if (r->st.unwritten_ms)
		fprintf(f, "unfinished run: the program ended without the library's shutdown (_exit, "
			"abort, a fatal signal or a kill): up to %s ms of samples before its end may "
			"be missing, and are not counted as lost\n",
			mr_fmt_count(a, r->st.unwritten_ms));
	if (r->st.write_error)
		fprintf(f, "run cut short: %s; samples after it are missing and not counted as "
			"lost\n", r->st.write_error);
	fprintf(f, "attributed: %s samples with a data address: %s remote, %s local, %s with no "
		"known page home\n", mr_fmt_count(a, r->st.used), mr_fmt_count(b, r->st.remote),
		mr_fmt_count(d, r->st.local), mr_fmt_count(e, r->st.unknown_page));
	if (r->st.self)
		fprintf(f, "set aside: %s samples in libmemphis itself (its code, or its own data), "
			"in no table\n", mr_fmt_count(a, r->st.self));
	fprintf(f, "nodes: %u; regions:", r->nnodes);
	{
		int any = 0;
		for (size_t i = 0; i < run->nregions; i++) {
			int dup = 0, cnt = 0;
			if (!report_region_selected(r, run->regions[i].seq))
				continue;
			for (size_t j = 0; j < i; j++)
				dup |= !strcmp(run->regions[j].name, run->regions[i].name);
			if (dup)
				continue;
			for (size_t j = i; j < run->nregions; j++)
				cnt += !strcmp(run->regions[j].name, run->regions[i].name);
			fprintf(f, "%s %s (x%d)", any ? "," : "", run->regions[i].name, cnt);
			any = 1;
		}
		if (!any)
			fprintf(f, " none recorded");
		if (r->o.nregions)
			fprintf(f, " [selected with --region; %s samples of other regions left out]",
				mr_fmt_count(a, r->st.other_regions));
	}
	fprintf(f, "\n");
}

/* The per-node tables: groups (variables, or lines with --by line) with their items. */
static void print_tables(const struct report *r, FILE *f)
{
	const struct mr_agg_row *rows = r->tables.rows;
	const struct mr_agg_table *tab = r->tables.tab;
	size_t ntab = r->tables.ntab;
	char lbl[32];
	int is_var = !r->o.by_line;

	if (r->no_remote)
		fprintf(f, "\nNo remote samples: every attributed access was to a page on the "
			"sampling CPU's own node%s. All samples:\n",
			r->nnodes <= 1 ? " (this machine has one NUMA node)" : "");
	else
		fprintf(f, "\n%s samples per node of the sampling CPU%s:\n",
			r->table_mode == MR_AGG_REMOTE ? "Remote" :
			r->table_mode == MR_AGG_LOCAL ? "Local" : "All",
			is_var ? "" : ", by source line");
	if (!ntab)
		fprintf(f, "(none)\n");
	for (size_t t = 0; t < ntab; t++) {
		const struct mr_agg_table *tb = &tab[t];
		size_t ngroups = r->o.top && tb->ngroups > r->o.top ? r->o.top : tb->ngroups;
		uint64_t rest = 0;

		report_node_label(r, tb->node, lbl, sizeof(lbl));
		fprintf(f, "\n%s: total %" PRIu64 "\n", lbl, tb->total);
		for (size_t i = 0; i < ngroups; i++) {
			const struct mr_agg_group *g = &tb->groups[i];
			size_t nitems = r->o.top && g->count > r->o.top ? r->o.top : g->count;
			uint64_t irest = 0;

			fprintf(f, "(%zu) %s %" PRIu64 "\n", i + 1, report_key_name(r, is_var, g->key), g->total);
			for (size_t k = 0; k < nitems; k++)
				fprintf(f, "    %s %" PRIu64 "\n", report_key_name(r, !is_var, rows[g->first + k].item),
					rows[g->first + k].n);
			for (size_t k = nitems; k < g->count; k++)
				irest += rows[g->first + k].n;
			if (nitems < g->count)
				fprintf(f, "    ... %zu more %s %" PRIu64 "\n", g->count - nitems,
					is_var ? "lines" : "variables", irest);
		}
		for (size_t i = ngroups; i < tb->ngroups; i++)
			rest += tb->groups[i].total;
		if (ngroups < tb->ngroups)
			fprintf(f, "... %zu more %s %" PRIu64 "\n", tb->ngroups - ngroups,
				is_var ? "variables" : "lines", rest);
	}
}



/* Per variable: the home nodes of its pages and who touched them first. */
static void print_first_touch(const struct report *r, const uint32_t *ids, size_t n, FILE *f)
{
	char a[32], who[48];

	fprintf(f, "\nPages and first touch (home node of the pages; who touched them first):\n");
	if (!n)
		fprintf(f, "(no variables)\n");
	for (size_t i = 0; i < n; i++) {
		const struct mr_agg_var *v = &r->agg.vars[ids[i]];
		const struct mr_varinfo *vi = mr_attrib_var(r->a, ids[i]);

		fprintf(f, "%s: ", vi->name);
		if (v->ft_pages) {
			pages_text(r, v->ft_node, v->ft_pages, f);
			report_thread_text(r, v->ft_tid, who, sizeof(who));
			fprintf(f, ", first touched by %s (node %d)", who, v->ft_tid_node);
			if (v->ft_tid_pages != v->ft_pages)
				fprintf(f, " for %.0f %%", pct(v->ft_tid_pages, v->ft_pages));
			fprintf(f, " at %s", mr_attrib_line(r->a, v->ft_line));
			if (v->ft_line_pages != v->ft_pages)
				fprintf(f, " (%.0f %%)", pct(v->ft_line_pages, v->ft_pages));
			fprintf(f, "\n");
		} else if (ids[i] == 0) {
			fprintf(f, "%s distinct pages sampled\n", mr_fmt_count(a, v->pages));
		} else {
			fprintf(f, "sampled pages: ");
			pages_text(r, v->pages_node, v->pages, f);
			fprintf(f, "; no first-touch record%s\n",
				mr_run_get_u64(r->run, "first_touch", 1) ? "" : " (first-touch tracking was off)");
		}
	}
}

/* Per variable: samples by node of the CPU x home node of the page. */
static void print_matrix(const struct report *r, const uint32_t *ids, size_t n, FILE *f)
{
	uint32_t w = r->nnodes + 1;
	char nb[16];

	fprintf(f, "\nNode x node matrix (rows: node of the sampling CPU, columns: home node of "
		"the page, ?: unknown):\n");
	for (size_t i = 0; i < n; i++) {
		const struct mr_agg_var *v = &r->agg.vars[ids[i]];

		fprintf(f, "%s\n  %-10s", mr_attrib_var(r->a, ids[i])->name, "cpu\\page");
		for (uint32_t p = 0; p < w; p++)
			fprintf(f, " %10s", node_name(r, p, nb, sizeof(nb)));
		fprintf(f, "\n");
		for (uint32_t s = 0; s < w; s++) {
			uint64_t row = 0;
			for (uint32_t p = 0; p < w; p++)
				row += v->matrix[s * w + p];
			if (s == r->nnodes && !row)
				continue;
			fprintf(f, "  node %-5s", node_name(r, s, nb, sizeof(nb)));
			for (uint32_t p = 0; p < w; p++)
				fprintf(f, " %10" PRIu64, v->matrix[s * w + p]);
			fprintf(f, "\n");
		}
	}
}

void report_print_text(const struct report *r, const uint32_t *ids, size_t nids, FILE *f)
{
	print_header(r, f);
	print_tables(r, f);
	print_first_touch(r, ids, nids, f);
	if (r->o.matrix)
		print_matrix(r, ids, nids, f);
}
