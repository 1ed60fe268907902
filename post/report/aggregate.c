/* post/report/aggregate.c - counting attributed samples into cells, variables and tables (see
 * aggregate.h). */
#include "aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Cell keys. Up to 255 node indexes (254 nodes and unknown) a cell is one 64-bit key:
 * var (24 bits) | line (24) | CPU node (8) | page node (8); it cannot be the map's empty
 * key because node index 255 does not occur. With more nodes ("wide") each distinct
 * (var, line) gets a dense index vl first and the key is vl * w^2 + cpu * w + page, w the
 * number of node indexes (w^2 < 2^32, and there are far fewer than 2^32 pairs). */
#define NARROW_MAX_NODES 254u
#define WIDE_MAX_NODES 65534u

int mr_agg_init(struct mr_agg *g, uint32_t nnodes)
{
	memset(g, 0, sizeof(*g));
	g->nnodes = nnodes;
	g->wide = nnodes > NARROW_MAX_NODES;
	for (unsigned i = 0; i < MR_AGG_PENDING; i++)
		g->pend[i].key = MPH_U64MAP_EMPTY;
	if (nnodes > WIDE_MAX_NODES)
		return -E2BIG;
	if (mph_u64map_init(&g->counts, 4096) || mph_u64map_init(&g->seen_pages, 4096) ||
	    (g->wide && mph_u64map_init(&g->vl_ids, 4096)))
		return -ENOMEM;
	return 0;
}

void mr_agg_free(struct mr_agg *g)
{
	if (!g)
		return;
	if (g->vars)
		for (size_t i = 0; i < g->nvars; i++) {
			free(g->vars[i].matrix);
			free(g->vars[i].pages_node);
			free(g->vars[i].ft_node);
		}
	free(g->vars);
	free(g->cells);
	free(g->vl);
	mph_u64map_free(&g->counts);
	mph_u64map_free(&g->seen_pages);
	mph_u64map_free(&g->vl_ids);
	g->vars = NULL;
	g->cells = NULL;
	g->vl = NULL;
	g->nvars = g->ncells = g->nvl = 0;
}

/* The key of cell (var, line, cpu, page) into *key. 0 or -ENOMEM (wide: a new vl). */
static int cell_key(struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu, uint32_t page,
		    uint64_t *key)
{
	uint64_t w = (uint64_t)g->nnodes + 1, vl_key, *vl;

	if (!g->wide) {
		*key = mr_agg_narrow_key(var, line, cpu, page);
		return 0;
	}
	vl_key = (uint64_t)var | (uint64_t)line << 24;
	vl = mph_u64map_put(&g->vl_ids, vl_key, g->nvl);
	if (!vl)
		return -ENOMEM;
	if (*vl == g->nvl) { /* new */
		if (g->nvl == g->capvl) {
			size_t ncap = g->capvl ? g->capvl * 2 : 1024;
			uint64_t *p = realloc(g->vl, ncap * sizeof(*p));

			if (!p)
				return -ENOMEM; /* the map keeps an index with no entry: unused */
			g->vl = p;
			g->capvl = ncap;
		}
		g->vl[g->nvl++] = vl_key;
	}
	*key = *vl * w * w + cpu * w + page;
	return 0;
}

/* The cell of key into *ce (n not set). */
static void cell_unpack(const struct mr_agg *g, uint64_t key, struct mr_agg_cell *ce)
{
	uint64_t w = (uint64_t)g->nnodes + 1, nodes;

	if (!g->wide) {
		ce->var = (uint32_t)(key & 0xffffff);
		ce->line = (uint32_t)(key >> 24 & 0xffffff);
		ce->cpu_node = (uint32_t)(key >> 48 & 0xff);
		ce->page_node = (uint32_t)(key >> 56);
		return;
	}
	nodes = key % (w * w);
	key = g->vl[key / (w * w)];
	ce->var = (uint32_t)(key & 0xffffff);
	ce->line = (uint32_t)(key >> 24 & 0xffffff);
	ce->cpu_node = (uint32_t)(nodes / w);
	ce->page_node = (uint32_t)(nodes % w);
}

/* Add pending cell p to the counts and empty it. 0 or -ENOMEM (p stays). */
static int flush_one(struct mr_agg *g, struct mr_agg_pending *p)
{
	uint64_t *v;

	if (p->key == MPH_U64MAP_EMPTY)
		return 0;
	v = mph_u64map_put(&g->counts, p->key, 0);
	if (!v)
		return -ENOMEM;
	*v += p->n;
	p->key = MPH_U64MAP_EMPTY;
	p->n = 0;
	return 0;
}

/* Add every pending cell to the counts. 0 or -ENOMEM. */
static int flush_run(struct mr_agg *g)
{
	for (unsigned i = 0; i < MR_AGG_PENDING; i++)
		if (flush_one(g, &g->pend[i]))
			return -ENOMEM;
	return 0;
}

int mr_agg_add_slow(struct mr_agg *g, uint32_t var, uint32_t line, uint32_t cpu_node,
		    uint32_t page_node)
{
	struct mr_agg_pending *p;
	uint64_t key, *v;
	int rc;

	var = var <= MR_AGG_ID_MAX ? var : 0;
	line = line <= MR_AGG_ID_MAX ? line : 0;
	cpu_node = cpu_node < g->nnodes ? cpu_node : g->nnodes;
	page_node = page_node < g->nnodes ? page_node : g->nnodes;
	rc = cell_key(g, var, line, cpu_node, page_node, &key);
	if (rc)
		return rc;
	if (g->wide) {
		v = mph_u64map_put(&g->counts, key, 0);
		if (!v)
			return -ENOMEM;
		*v += 1;
		return 0;
	}
	p = &g->pend[mph_fib_slot(key, MR_AGG_PENDING_BITS)];
	if (p->key != key) {
		rc = flush_one(g, p);
		if (rc)
			return rc;
		p->key = key;
	}
	p->n++;
	return 0;
}

/* id through map (NULL: kept); ids the map does not cover stay (they count as 0 later). */
int mr_agg_merge(struct mr_agg *dst, struct mr_agg *src, const uint32_t *var_map, size_t nvar_map,
		 const uint32_t *line_map, size_t nline_map)
{
	if (flush_run(src) || flush_run(dst))
		return -ENOMEM;
	for (size_t i = 0; i <= src->counts.mask; i++) {
		uint64_t k = src->counts.slot[i].key, key, *v;
		struct mr_agg_cell ce;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		cell_unpack(src, k, &ce);
		ce.var = mr_agg_rename(var_map, nvar_map, ce.var);
		ce.line = mr_agg_rename(line_map, nline_map, ce.line);
		if (cell_key(dst, ce.var, ce.line, ce.cpu_node, ce.page_node, &key) ||
		    !(v = mph_u64map_put(&dst->counts, key, 0)))
			return -ENOMEM;
		*v += src->counts.slot[i].val;
	}
	for (size_t i = 0; i <= src->seen_pages.mask; i++) {
		uint64_t k = src->seen_pages.slot[i].key;
		uint32_t var;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		/* the key as mr_agg_add_page made it, with the variable renamed (a key that holds
		 * no known id, an address above 2^48, stays as it is) */
		var = mr_agg_rename(var_map, nvar_map, (uint32_t)(k >> 36));
		k = (uint64_t)var << 36 | (k & ((1ull << 36) - 1));
		/* an existing entry stays: dst holds the earlier samples */
		if (!mph_u64map_put(&dst->seen_pages, k, src->seen_pages.slot[i].val))
			return -ENOMEM;
	}
	return 0;
}

int mr_agg_finish(struct mr_agg *g, size_t nvars)
{
	uint32_t w = g->nnodes + 1;

	if (flush_run(g))
		return -ENOMEM;
	g->nvars = nvars;
	g->vars = calloc(nvars + 1, sizeof(*g->vars));
	g->cells = calloc(g->counts.count + 1, sizeof(*g->cells));
	if (!g->vars || !g->cells)
		return -ENOMEM;
	for (size_t i = 0; i <= g->counts.mask; i++) {
		uint64_t k = g->counts.slot[i].key;
		struct mr_agg_cell *ce;
		struct mr_agg_var *v;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		ce = &g->cells[g->ncells++];
		cell_unpack(g, k, ce);
		ce->n = g->counts.slot[i].val;
		if (ce->var >= nvars)
			ce->var = 0;
		v = &g->vars[ce->var];
		if (!v->matrix) {
			v->matrix = calloc((size_t)w * w, sizeof(*v->matrix));
			v->pages_node = calloc(w, sizeof(*v->pages_node));
			v->ft_node = calloc(w, sizeof(*v->ft_node));
			if (!v->matrix || !v->pages_node || !v->ft_node)
				return -ENOMEM;
		}
		v->total += ce->n;
		v->matrix[(size_t)ce->cpu_node * w + ce->page_node] += ce->n;
		if (ce->page_node == g->nnodes) {
			v->unknown_page += ce->n;
			continue;
		}
		switch (mr_xclass_of(ce->cpu_node, ce->page_node, g->nnodes, g->far)) {
		case MR_X_REMOTE: v->remote += ce->n; break;
		case MR_X_LOCAL: v->local += ce->n; break;
		case MR_X_FAR: v->far += ce->n; break;
		default: break; /* the CPU's node unknown */
		}
	}
	for (size_t i = 0; i <= g->seen_pages.mask; i++) {
		uint64_t k = g->seen_pages.slot[i].key, node = g->seen_pages.slot[i].val;
		uint32_t var;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		var = (uint32_t)(k >> 36);
		if (var < nvars && g->vars[var].pages_node) {
			g->vars[var].pages_node[node <= g->nnodes ? node : g->nnodes]++;
			g->vars[var].pages++;
		}
	}
	return 0;
}

/* Does (count, key) beat (best_count, best_key): more pages, or as many and a lower key? */
static int better(uint64_t count, uint32_t key, uint64_t best_count, uint32_t best_key)
{
	return count > best_count || (count == best_count && key < best_key);
}

/* by_line's values: pages, and this bit when the line is a runtime's own (mr_agg_touch) */
#define RUNTIME_LINE (1ull << 63)

/* Is line `key` (value v in by_line) of variable `var` a better first-touch line than vs's
 * current one: any other line before a runtime's own, then more pages, then the lower id. */
static int better_line(const struct mph_u64map *by_line, uint64_t v, uint64_t var, uint32_t key,
		       const struct mr_agg_var *vs)
{
	const uint64_t *cur = vs->ft_line_pages ? mph_u64map_get(by_line,
								 var << 32 | vs->ft_line) : NULL;

	if (!cur)
		return 1;
	if ((v & RUNTIME_LINE) != (*cur & RUNTIME_LINE))
		return !(v & RUNTIME_LINE);
	return better(v & ~RUNTIME_LINE, key, *cur & ~RUNTIME_LINE, vs->ft_line);
}

int mr_agg_first_touches(struct mr_agg *g, size_t n,
			 void (*get)(void *arg, size_t i, struct mr_agg_touch *t), void *arg)
{
	struct mph_u64map by_tid, by_line, tid_node, pages, epochs;
	int rc = -ENOMEM;

	memset(&pages, 0, sizeof(pages));
	memset(&epochs, 0, sizeof(epochs));
	if (mph_u64map_init(&by_tid, 64) || mph_u64map_init(&by_line, 64) ||
	    mph_u64map_init(&tid_node, 64) || mph_u64map_init(&pages, n < 4096 ? n : 4096) ||
	    mph_u64map_init(&epochs, n < 4096 ? n : 4096))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct mr_agg_touch t;
		struct mr_agg_var *vs;
		uint64_t *v, page, pe;

		get(arg, i, &t);
		if (t.var == 0 || t.var >= g->nvars || !g->vars[t.var].matrix)
			continue;
		vs = &g->vars[t.var];
		vs->ft_pages += t.pages;
		/* a page of the variable touched in an epoch not seen for it yet, when another
		 * epoch touched it too: the epochs beyond the first of each page, in any
		 * order (the records are not in time order) */
		page = (uint64_t)t.var << 36 | (t.page & ((1ull << 36) - 1));
		pe = mph_hash64(page) ^ mph_hash64(t.epoch + MPH_GOLDEN64);
		if (!(v = mph_u64map_put(&epochs, pe == MPH_U64MAP_EMPTY ? 0 : pe, 0)))
			goto out;
		if (!*v) {
			*v = 1;
			if (!(v = mph_u64map_put(&pages, page, 0)))
				goto out;
			if ((*v)++)
				vs->ft_refaults += t.pages;
			else
				vs->ft_distinct += t.pages;
		}
		vs->ft_node[t.page_node < g->nnodes ? t.page_node : g->nnodes] += t.pages;
		if (!(v = mph_u64map_put(&by_tid, (uint64_t)t.var << 32 | t.tid, 0)))
			goto out;
		*v += t.pages;
		if (!(v = mph_u64map_put(&tid_node, (uint64_t)t.var << 32 | t.tid, 0)))
			goto out;
		*v = (uint64_t)(t.tid_node + 1);
		if (!(v = mph_u64map_put(&by_line, (uint64_t)t.var << 32 | t.line, 0)))
			goto out;
		*v += t.pages;
		if (t.runtime_line)
			*v |= RUNTIME_LINE;
	}
	for (size_t i = 0; i <= by_tid.mask; i++) {
		uint64_t k = by_tid.slot[i].key;
		struct mr_agg_var *vs;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		vs = &g->vars[k >> 32];
		if (better(by_tid.slot[i].val, (uint32_t)k, vs->ft_tid_pages, vs->ft_tid)) {
			vs->ft_tid_pages = by_tid.slot[i].val;
			vs->ft_tid = (uint32_t)k;
			vs->ft_tid_node = (int)*mph_u64map_get(&tid_node, k) - 1;
		}
	}
	for (size_t i = 0; i <= by_line.mask; i++) {
		uint64_t k = by_line.slot[i].key;
		struct mr_agg_var *vs;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		vs = &g->vars[k >> 32];
		if (better_line(&by_line, by_line.slot[i].val, k >> 32, (uint32_t)k, vs)) {
			vs->ft_line_pages = by_line.slot[i].val & ~RUNTIME_LINE;
			vs->ft_line = (uint32_t)k;
		}
	}
	rc = 0;
out:
	mph_u64map_free(&by_tid);
	mph_u64map_free(&by_line);
	mph_u64map_free(&pages);
	mph_u64map_free(&epochs);
	mph_u64map_free(&tid_node);
	return rc;
}

static int cmp_row(const void *x, const void *y)
{
	const struct mr_agg_row *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->item > b->item) - (a->item < b->item);
}

/* What the qsort_r comparators need to name keys. */
struct namer {
	mr_agg_name_fn *name;
	const void *arg;
	int by_line;
};

/* Groups by total descending, then by name. */
static int cmp_group(const void *x, const void *y, void *arg)
{
	const struct mr_agg_group *a = x, *b = y;
	const struct namer *nm = arg;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(nm->name(nm->arg, !nm->by_line, a->key),
		      nm->name(nm->arg, !nm->by_line, b->key));
}

/* Items by count descending, then by name. */
static int cmp_item(const void *x, const void *y, void *arg)
{
	const struct mr_agg_row *a = x, *b = y;
	const struct namer *nm = arg;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(nm->name(nm->arg, nm->by_line, a->item),
		      nm->name(nm->arg, nm->by_line, b->item));
}

/* The table t of the sorted, merged rows[first .. end) of one node: its groups, ordered. */
static int node_table(struct mr_agg_row *rows, size_t first, size_t end, struct namer *nm,
		      struct mr_agg_table *t)
{
	t->node = rows[first].node;
	t->groups = calloc(end - first, sizeof(*t->groups));
	if (!t->groups)
		return -ENOMEM;
	for (size_t k = first; k < end;) {
		struct mr_agg_group *gr = &t->groups[t->ngroups++];

		gr->key = rows[k].group;
		gr->first = k;
		while (k < end && rows[k].group == gr->key)
			gr->total += rows[k++].n;
		gr->count = k - gr->first;
		t->total += gr->total;
		qsort_r(&rows[gr->first], gr->count, sizeof(*rows), cmp_item, nm);
	}
	qsort_r(t->groups, t->ngroups, sizeof(*t->groups), cmp_group, nm);
	return 0;
}

int mr_agg_tables(const struct mr_agg *g, enum mr_agg_mode m, int by_line, mr_agg_name_fn *name,
		  const void *arg, struct mr_agg_tables *out)
{
	struct namer nm = { name, arg, by_line };
	struct mr_agg_row *rows = calloc(g->ncells + 1, sizeof(*rows));
	size_t nrows = 0, merged = 0;

	memset(out, 0, sizeof(*out));
	out->rows = rows;
	out->tab = calloc((size_t)g->nnodes + 2, sizeof(*out->tab)); /* + 1: see _free */
	if (!rows || !out->tab)
		return -ENOMEM;
	for (size_t i = 0; i < g->ncells; i++) {
		const struct mr_agg_cell *ce = &g->cells[i];

		if (!mr_agg_cell_in_mode(g, ce, m))
			continue;
		rows[nrows++] = (struct mr_agg_row){ ce->cpu_node, by_line ? ce->line : ce->var,
						     by_line ? ce->var : ce->line, ce->n };
	}
	qsort(rows, nrows, sizeof(*rows), cmp_row);
	/* merge rows with equal (node, group, item): their cells differ by page node */
	for (size_t i = 0; i < nrows; i++) {
		if (merged && rows[merged - 1].node == rows[i].node &&
		    rows[merged - 1].group == rows[i].group && rows[merged - 1].item == rows[i].item)
			rows[merged - 1].n += rows[i].n;
		else
			rows[merged++] = rows[i];
	}
	for (size_t i = 0; i < merged;) {
		size_t end = i;

		while (end < merged && rows[end].node == rows[i].node)
			end++;
		if (node_table(rows, i, end, &nm, &out->tab[out->ntab]))
			return -ENOMEM;
		out->ntab++;
		i = end;
	}
	return 0;
}

void mr_agg_tables_free(struct mr_agg_tables *t)
{
	if (!t)
		return;
	if (t->tab)
		for (size_t i = 0; i <= t->ntab; i++)
			free(t->tab[i].groups); /* ntab: a table that failed half-way */
	free(t->tab);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void mr_agg_mark_shown(struct mr_agg *g, const struct mr_agg_tables *t, int by_line, size_t top)
{
	for (size_t n = 0; n < t->ntab; n++) {
		const struct mr_agg_table *tb = &t->tab[n];
		size_t ngroups = top && tb->ngroups > top ? top : tb->ngroups;

		for (size_t i = 0; i < ngroups; i++) {
			const struct mr_agg_group *gr = &tb->groups[i];
			size_t nitems = top && gr->count > top ? top : gr->count;

			if (!by_line) {
				g->vars[gr->key].shown = 1;
				continue;
			}
			for (size_t k = 0; k < nitems; k++)
				g->vars[t->rows[gr->first + k].item].shown = 1;
		}
	}
}

uint32_t *mr_agg_var_order(const struct mr_agg *g, int all, mr_agg_name_fn *name,
			   const void *arg, size_t *n)
{
	uint32_t *ids = calloc(g->nvars + 1, sizeof(*ids));
	size_t m = 0;

	*n = 0;
	if (!ids)
		return NULL;
	for (size_t i = 0; i < g->nvars; i++)
		if (g->vars[i].matrix && (all || g->vars[i].shown))
			ids[m++] = (uint32_t)i;
	for (size_t i = 1; i < m; i++) /* insertion sort (stable): few variables */
		for (size_t k = i; k > 0; k--) {
			const struct mr_agg_var *x = &g->vars[ids[k - 1]], *y = &g->vars[ids[k]];
			uint32_t t;

			if (x->total > y->total ||
			    (x->total == y->total &&
			     strcmp(name(arg, 1, ids[k - 1]), name(arg, 1, ids[k])) <= 0))
				break;
			t = ids[k];
			ids[k] = ids[k - 1];
			ids[k - 1] = t;
		}
	*n = m;
	return ids;
}
