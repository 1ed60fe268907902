/* tests/unit/unit_aggregate.c - post/aggregate: synthetic attributed samples in, counts out:
 * per-node, per-variable and per-line counts, the remote/local/unknown split, the node x
 * node matrix, sampled pages, first touches, table ordering and the --top cut, and a run
 * with more than 254 nodes (the old key packing's limit). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "tap.h"

/* Variables 0..5 and lines 0..5 with names that order differently from their ids. */
static const char *name_of(const void *arg, int is_var, uint32_t id)
{
	static const char *const vars[] = { "<unknown>", "zeta", "alpha", "mid", "beta", "gamma" };
	static const char *const lines[] = { "?", "b.c:9", "a.c:1", "a.c:2", "c.c:3", "c.c:4" };

	(void)arg;
	if (id > 5)
		return "x";
	return is_var ? vars[id] : lines[id];
}

/* Add `n` samples of (var, line, cpu node, page node). */
static int add_n(struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu, uint32_t page,
		 unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (mr_agg_add(g, var, line, cpu, page))
			return -1;
	return 0;
}

static uint64_t cell_count(const struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu,
			   uint32_t page)
{
	for (size_t i = 0; i < g->ncells; i++) {
		const struct mr_agg_cell *c = &g->cells[i];
		if (c->var == var && c->line == line && c->cpu_node == cpu && c->page_node == page)
			return c->n;
	}
	return 0;
}

static const struct mr_agg_touch touches[] = {
	/* var tid line page_node tid_node pages runtime_line page epoch. Var 1's page 16:
	 * touched twice in epoch 1 (a read fault, then a write: one mapping), then again in
	 * epoch 2 (unmapped and mapped anew: one re-fault); var 2 touches page 16 too (another
	 * variable's: not var 1's) */
	{ 1, 100, 2, 0, 0, 1, 0, 16, 1 }, { 1, 100, 2, 0, 0, 1, 0, 16, 1 },
	{ 1, 101, 3, 1, 1, 512, 0, 512, 1 }, { 1, 100, 2, 0, 0, 1, 0, 16, 2 },
	{ 2, 102, 1, 1, 1, 1, 0, 16, 1 }, { 2, 101, 1, 1, 1, 1, 0, 17, 1 },
	{ 0, 100, 1, 0, 0, 1, 0, 16, 1 },  /* <unknown>: skipped */
	{ 5, 100, 1, 0, 0, 1, 0, 16, 1 },  /* a variable with no samples: skipped */
	/* "mid": most pages at a runtime's own line (a worker's memset after a tail call),
	 * fewer at the user's line; var 4: only a runtime's own line */
	{ 3, 101, 5, 0, 0, 300, 1, 1024, 0 }, { 3, 100, 2, 0, 0, 100, 0, 2048, 0 },
	{ 3, 102, 5, 0, 0, 300, 1, 4096, 0 }, { 4, 100, 5, 0, 0, 7, 1, 8192, 0 },
};

static void get_touch(void *arg, size_t i, struct mr_agg_touch *t)
{
	(void)arg;
	*t = touches[i];
}

static void test_small(void)
{
	struct mr_agg g;
	struct mr_agg_tables t;
	const struct mr_agg_var *v1, *v2;
	uint32_t *ids;
	size_t n;
	int ok = mr_agg_init(&g, 2) == 0;

	/* node indexes: 0, 1; 2 = unknown. var 1 "zeta": 5 remote (cpu 0, page 1) at line 1,
	 * 3 local at line 2, 2 with unknown page; var 2 "alpha": 5 remote (cpu 1, page 0) at
	 * line 3, split into runs; var 3 "mid": 5 remote at line 2 on node 0 (ties zeta's 5 on
	 * node 0: ordered by name); var 4: 1 sample with an unknown CPU node. */
	ok = ok && !add_n(&g, 1, 1, 0, 1, 5) && !add_n(&g, 1, 2, 0, 0, 3) &&
	     !add_n(&g, 1, 2, 0, 7, 2) && !add_n(&g, 2, 3, 1, 0, 2) && !add_n(&g, 3, 2, 0, 1, 5) &&
	     !add_n(&g, 2, 3, 1, 0, 3) && !add_n(&g, 4, 4, 9, 1, 1);
	ok = ok && !mr_agg_add_page(&g, 1, 0x1000, 1) && !mr_agg_add_page(&g, 1, 0x1fff, 0) &&
	     !mr_agg_add_page(&g, 1, 0x2000, 0) && !mr_agg_add_page(&g, 2, 0x1000, 2);
	ok = ok && mr_agg_finish(&g, 6) == 0;
	tap(ok, __LINE__, "init, add, add_page, finish");
	if (!ok)
		return;
	tap(g.ncells == 6, __LINE__, "6 distinct cells (runs of one cell merged; got %zu)", g.ncells);
	tap(cell_count(&g, 2, 3, 1, 0) == 5, __LINE__, "a cell added in two runs counts 5");
	tap(cell_count(&g, 1, 2, 0, 2) == 2, __LINE__, "page node 7 of 2 nodes counts as unknown");
	tap(cell_count(&g, 4, 4, 2, 1) == 1, __LINE__, "CPU node 9 of 2 nodes counts as unknown");
	v1 = &g.vars[1];
	v2 = &g.vars[2];
	tap(v1->total == 10 && v1->remote == 5 && v1->local == 3 && v1->unknown_page == 2, __LINE__,
	    "per variable: total 10 = 5 remote + 3 local + 2 unknown page");
	tap(v2->total == 5 && v2->remote == 5 && v2->local == 0, __LINE__, "alpha: 5 remote");
	tap(g.vars[4].total == 1 && g.vars[4].remote == 0 && g.vars[4].local == 0 &&
	    g.vars[4].unknown_page == 0, __LINE__, "an unknown CPU node is neither remote nor local");
	tap(v1->matrix[0 * 3 + 1] == 5 && v1->matrix[0 * 3 + 0] == 3 && v1->matrix[0 * 3 + 2] == 2 &&
	    v2->matrix[1 * 3 + 0] == 5, __LINE__, "node x node matrix [cpu][page]");
	tap(v1->pages == 2 && v1->pages_node[1] == 1 && v1->pages_node[0] == 1 && v2->pages == 1 &&
	    v2->pages_node[2] == 1, __LINE__,
	    "sampled pages: distinct 4 KiB pages, the first home seen counts");
	tap(g.vars[5].matrix == NULL && g.vars[0].matrix == NULL, __LINE__,
	    "variables without samples have no counts");

	tap(mr_agg_first_touches(&g, sizeof(touches) / sizeof(touches[0]), get_touch, NULL) == 0,
	    __LINE__, "first touches");
	tap(v1->ft_pages == 515 && v1->ft_node[0] == 3 && v1->ft_node[1] == 512 &&
	    v1->ft_tid == 101 && v1->ft_tid_pages == 512 && v1->ft_tid_node == 1 &&
	    v1->ft_line == 3 && v1->ft_line_pages == 512, __LINE__,
	    "first touch: pages by node, the thread and line with the most pages");
	tap(v2->ft_pages == 2 && v2->ft_tid == 101 && v2->ft_tid_pages == 1 && v2->ft_line == 1,
	    __LINE__, "first touch ties: the lowest tid wins");
	tap(v1->ft_refaults == 1 && v2->ft_refaults == 0 && g.vars[3].ft_refaults == 0 &&
	    v1->ft_distinct == 513 && v2->ft_distinct == 2, __LINE__,
	    "re-faults: a page touched in a second epoch counts once, twice in one epoch not, "
	    "another variable's touch of the same page not (got %llu, %llu)",
	    (unsigned long long)v1->ft_refaults, (unsigned long long)v2->ft_refaults);
	tap(g.vars[5].ft_pages == 0, __LINE__, "touches of variables without samples are skipped");
	tap(g.vars[3].ft_pages == 700 && g.vars[3].ft_line == 2 && g.vars[3].ft_line_pages == 100,
	    __LINE__, "first touch: the user's line before a runtime's own with more pages (got line %u, %llu pages)",
	    g.vars[3].ft_line, (unsigned long long)g.vars[3].ft_line_pages);
	tap(g.vars[4].ft_line == 5 && g.vars[4].ft_line_pages == 7, __LINE__,
	    "first touch: a runtime's own line when it is the only one");

	/* remote tables by variable: node 0: zeta 5 (line 1), mid 5 (line 2); node 1: alpha 5 */
	tap(mr_agg_tables(&g, MR_AGG_REMOTE, 0, name_of, NULL, &t) == 0 && t.ntab == 2, __LINE__,
	    "remote tables: two nodes");
	if (t.ntab == 2) {
		const struct mr_agg_table *t0 = &t.tab[0], *t1 = &t.tab[1];

		tap(t0->node == 0 && t0->total == 10 && t0->ngroups == 2 &&
		    t0->groups[0].key == 3 && t0->groups[1].key == 1, __LINE__,
		    "node 0: total 10, equal groups ordered by name (mid before zeta)");
		tap(t1->node == 1 && t1->total == 5 && t1->ngroups == 1 && t1->groups[0].key == 2 &&
		    t.rows[t1->groups[0].first].item == 3, __LINE__, "node 1: alpha at line 3");
	}
	mr_agg_tables_free(&t);

	/* all samples by line, node 0: lines 2 (3 + 2 + 5 = 10) then 1 (5) */
	tap(mr_agg_tables(&g, MR_AGG_ALL, 1, name_of, NULL, &t) == 0 && t.ntab == 3, __LINE__,
	    "all tables by line: nodes 0, 1 and unknown");
	if (t.ntab == 3) {
		const struct mr_agg_table *t0 = &t.tab[0];
		const struct mr_agg_group *l2 = &t0->groups[0];

		tap(t0->total == 15 && t0->ngroups == 2 && l2->key == 2 && l2->total == 10 &&
		    l2->count == 2 && t.rows[l2->first].item == 3 && t.rows[l2->first].n == 5 &&
		    t.rows[l2->first + 1].item == 1 && t.rows[l2->first + 1].n == 5, __LINE__,
		    "line 2: zeta merged over page nodes (3 + 2), equal counts by name (mid, zeta)");
		tap(t.tab[2].node == 2 && t.tab[2].total == 1, __LINE__, "unknown CPU node last");
		mr_agg_mark_shown(&g, &t, 1, 1);
		tap(!g.vars[1].shown && g.vars[3].shown && g.vars[2].shown && g.vars[4].shown,
		    __LINE__, "--top 1 by line shows the first item of the first group per node");
	}
	mr_agg_tables_free(&t);

	tap(mr_agg_tables(&g, MR_AGG_LOCAL, 0, name_of, NULL, &t) == 0 && t.ntab == 1 &&
	    t.tab[0].total == 3 && t.tab[0].groups[0].key == 1, __LINE__, "local table: zeta 3");
	mr_agg_tables_free(&t);

	ids = mr_agg_var_order(&g, 1, name_of, NULL, &n);
	tap(ids && n == 4 && ids[0] == 1 && ids[1] == 2 && ids[2] == 3 && ids[3] == 4, __LINE__,
	    "all variables by total, then name (zeta 10; alpha 5, mid 5; beta 1)");
	free(ids);
	mr_agg_free(&g);
	mr_agg_free(&g);
}

/* 300 nodes (indexes up to 300): every cell survives exactly, remote/local as above. */
static void test_many_nodes(void)
{
	struct mr_agg g;
	struct mr_agg_tables t;
	const uint32_t nn = 300;
	size_t bad = 0;
	int ok = mr_agg_init(&g, nn) == 0;

	for (uint32_t cpu = 0; cpu <= nn && ok; cpu += 5) /* nn itself: the unknown node */
		for (uint32_t page = 0; page <= nn && ok; page += 10)
			ok = !add_n(&g, 1 + (cpu + page) % 3, 1 + page % 5, cpu, page, 1 + (cpu + page) % 4);
	ok = ok && !add_n(&g, 1, 1, 299, 255, 7) && !add_n(&g, 1, 1, 255, 299, 3);
	ok = ok && mr_agg_finish(&g, 6) == 0;
	tap(ok, __LINE__, "%u nodes: init, add, finish", nn);
	if (!ok)
		return;
	for (uint32_t cpu = 0; cpu <= nn; cpu += 5)
		for (uint32_t page = 0; page <= nn; page += 10) {
			uint64_t want = 1 + (cpu + page) % 4;

			if ((cpu == 299 && page == 255) || (cpu == 255 && page == 299))
				continue;
			bad += cell_count(&g, 1 + (cpu + page) % 3, 1 + page % 5, cpu, page) != want;
		}
	tap(bad == 0, __LINE__, "every (var, line, cpu, page) cell counted exactly (%zu wrong)", bad);
	tap(cell_count(&g, 1, 1, 299, 255) == 7 && cell_count(&g, 1, 1, 255, 299) == 3, __LINE__,
	    "nodes 255 and 299 are distinct nodes, not unknown");
	tap(g.vars[1].matrix[299 * (nn + 1) + 255] == 7, __LINE__, "matrix of %u + 1 columns", nn);
	{
		uint64_t remote = 0, local = 0, unknown = 0, unknown_cpu = 0, total = 0;

		for (uint32_t v = 1; v <= 3; v++) {
			remote += g.vars[v].remote;
			local += g.vars[v].local;
			unknown += g.vars[v].unknown_page;
			total += g.vars[v].total;
			for (uint32_t page = 0; page < nn; page++)
				unknown_cpu += g.vars[v].matrix[nn * (nn + 1) + page];
		}
		tap(unknown > 0 && local > 0 && remote > 0 && unknown_cpu > 0 &&
		    remote + local + unknown + unknown_cpu == total, __LINE__,
		    "remote + local + unknown page + unknown CPU = total");
	}
	tap(mr_agg_tables(&g, MR_AGG_REMOTE, 0, name_of, NULL, &t) == 0 &&
	    t.tab[t.ntab - 1].node == 299, __LINE__, "a table for CPU node 299");
	mr_agg_tables_free(&t);
	mr_agg_free(&g);
	tap(mr_agg_init(&g, 70000) == -E2BIG, __LINE__, "more than 65534 nodes: -E2BIG");
	mr_agg_free(&g);
}

int main(void)
{
	test_small();
	test_many_nodes();
	return tap_done();
}
