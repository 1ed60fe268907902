/* post/report/report_hw_text.c - the text report's data-source tables of hardware runs:
 * under each node's table, the sources, HITM, latencies and the two remote counts of its
 * shown groups; after the tables, the nodes without a table and the legend. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "report_impl.h"

#define HW_COLS (4 + MEMPHIS_SRC_COUNT + 6) /* label, counts, sources, HITM, lat, remote */
#define HW_CELL 28

/* A data-source table being built: cells of rows x columns, then printed aligned. */
struct hw_grid {
	char (*cell)[HW_COLS][HW_CELL];
	size_t rows, cap;
	int ncols;
	int src[MEMPHIS_SRC_COUNT]; /* the source columns, in mr_hw_src_order */
	int nsrc, hitm, lat;
};

static void share_cell(char *c, uint64_t part, uint64_t n)
{
	if (!part || !n)
		snprintf(c, HW_CELL, "-");
	else
		snprintf(c, HW_CELL, "%.1f", 100.0 * (double)part / (double)n);
}

/* Append the cells of row label / stat st to g (g->cap rows at most). */
static void hw_row(struct hw_grid *g, const char *label, const struct mr_hw_stat *st)
{
	char (*c)[HW_CELL] = g->cell[g->rows++];
	int k = 0;

	snprintf(c[k++], HW_CELL, "%s", label);
	mr_fmt_count(c[k++], st->n);
	mr_fmt_count(c[k++], st->loads);
	mr_fmt_count(c[k++], st->stores);
	for (int i = 0; i < g->nsrc; i++)
		share_cell(c[k++], st->src[0][g->src[i]] + st->src[1][g->src[i]], st->n);
	if (g->hitm)
		share_cell(c[k++], st->hitm, st->n);
	if (g->lat) {
		if (st->lat_n) {
			snprintf(c[k++], HW_CELL, "%.0f", mr_hw_lat_mean(st));
			snprintf(c[k++], HW_CELL, "%.0f", mr_hw_lat_pct(st, 90));
		} else {
			snprintf(c[k++], HW_CELL, "-");
			snprintf(c[k++], HW_CELL, "-");
		}
	}
	mr_fmt_count(c[k++], st->page_remote);
	mr_fmt_count(c[k++], st->hw_remote);
	mr_fmt_count(c[k++], st->disagree);
	g->ncols = k;
}

/* Under a node's table: the data sources of the hardware samples of the shown groups
 * (variables, or lines with --by line) taken on CPUs of that node, remote and local, and
 * of all the node's ("all"). Columns: counts, then the share of each source that occurs
 * (near to far), HITM, latency mean and p90, the remote judgements. */
void report_hw_table_text(const struct report *r, const struct mr_agg_table *tb,
			   size_t ngroups, FILE *f)
{
	int is_var = !r->o.by_line;
	struct hw_grid g = { 0 };
	struct mr_hw_stat all, *st = malloc((ngroups + 1) * sizeof(*st));
	const char **names = malloc((ngroups + 2) * sizeof(*names));
	size_t width[HW_COLS] = { 0 };
	char lbl[32];

	report_node_label(r, tb->node, lbl, sizeof(lbl));
	mr_hwsrc_sum(&r->hw, &r->hw_by_node, tb->node, MR_HW_ANY, &all);
	if (!all.n) {
		fprintf(f, "  Data sources on %s: no hardware samples\n", lbl);
		goto out;
	}
	g.cap = ngroups + 2;
	g.cell = calloc(g.cap, sizeof(*g.cell));
	if (!st || !names || !g.cell) {
		fprintf(f, "  Data sources on %s: out of memory\n", lbl);
		goto out;
	}
	for (int i = 0; i < MEMPHIS_SRC_COUNT; i++)
		if (all.src[0][mr_hw_src_order[i]] + all.src[1][mr_hw_src_order[i]])
			g.src[g.nsrc++] = mr_hw_src_order[i];
	g.hitm = all.hitm > 0;
	g.lat = r->hw_lat && all.lat_n > 0;
	/* the header row */
	{
		char (*c)[HW_CELL] = g.cell[g.rows++];
		int k = 0;
		static const char *const tail[] = { "page-rem", "hw-rem", "disagree" };

		snprintf(c[k++], HW_CELL, "%s", "");
		snprintf(c[k++], HW_CELL, "samples");
		snprintf(c[k++], HW_CELL, "loads");
		snprintf(c[k++], HW_CELL, "stores");
		for (int i = 0; i < g.nsrc; i++)
			snprintf(c[k++], HW_CELL, "%s", mr_hw_src_name(g.src[i]));
		if (g.hitm)
			snprintf(c[k++], HW_CELL, "HITM");
		if (g.lat) {
			snprintf(c[k++], HW_CELL, "lat");
			snprintf(c[k++], HW_CELL, "p90");
		}
		for (int i = 0; i < 3; i++)
			snprintf(c[k++], HW_CELL, "%s", tail[i]);
		names[0] = is_var ? "variable" : "line";
	}
	hw_row(&g, "all", &all);
	names[1] = "";
	for (size_t i = 0; i < ngroups; i++) {
		char rank[24];

		mr_hwsrc_sum(&r->hw, &r->hw_by_node, tb->node, tb->groups[i].key, &st[i]);
		snprintf(rank, sizeof(rank), "(%zu)", i + 1);
		hw_row(&g, rank, &st[i]);
		names[i + 2] = report_key_name(r, is_var, tb->groups[i].key);
	}
	for (size_t row = 0; row < g.rows; row++)
		for (int k = 0; k < g.ncols; k++)
			if (strlen(g.cell[row][k]) > width[k])
				width[k] = strlen(g.cell[row][k]);
	fprintf(f, "  Data sources on %s (%% of each row's hardware samples, remote and local; "
		"latency in cycles):\n", lbl);
	for (size_t row = 0; row < g.rows; row++) {
		fprintf(f, "  %-*s", (int)width[0], g.cell[row][0]);
		for (int k = 1; k < g.ncols; k++)
			fprintf(f, " %*s", (int)width[k], g.cell[row][k]);
		fprintf(f, "%s%s\n", *names[row] ? "  " : "", mr_esc(names[row]));
	}
out:
	free(g.cell);
	free(st);
	free(names);
}

/* After the tables: the data sources of the nodes with hardware samples but no table
 * (none of the kind the tables count), then the legend. */
void report_hw_rest_text(const struct report *r, FILE *f)
{
	struct mr_agg_table none = { 0 };
	struct mr_hw_stat all;
	size_t t = 0;
	char lbl[32];

	for (uint32_t nd = 0; nd <= r->nnodes; nd++) {
		while (t < r->tables.ntab && r->tables.tab[t].node < nd)
			t++;
		if ((t < r->tables.ntab && r->tables.tab[t].node == nd) ||
		    !mr_hwsrc_sum(&r->hw, &r->hw_by_node, nd, MR_HW_ANY, &all))
			continue;
		report_node_label(r, nd, lbl, sizeof(lbl));
		fprintf(f, "\n%s: no %s samples\n", lbl,
			r->table_mode == MR_AGG_REMOTE ? "remote" : r->table_mode == MR_AGG_LOCAL ? "local" : "");
		none.node = nd;
		report_hw_table_text(r, &none, 0, f);
	}

	fprintf(f, "\nData sources: where the hardware says each sampled access found its data, near "
		"to far:\n  L1, LFB (fill buffer), L1miss (missed L1, served from where is not "
		"reported), L2, L3, near$\n  (another cache of the node), L3miss (missed L3, served "
		"from where is not reported), lDRAM\n  and rDRAM (local and remote DRAM), rem$ (a "
		"cache of another node), PMEM, CXL, IO, UC\n  (uncached), n/a (not reported); HITM: "
		"the line was modified in another cache.");
	if (r->hw_lat)
		fprintf(f, "\n  lat, p90: access latency in cycles, mean and 90th percentile "
			"(p90 within 6.25 %%).");
	fprintf(f, "\n  page-rem: the page's home is another node (what the tables count as remote); "
		"hw-rem: the\n  hardware says another node (another core of this node, such as "
		"AMD's other CCX, is near$);\n  disagree: the two differ.\n");
}

