/* post/report.c - `memphis-report report`: per NUMA node, the variables whose accesses
 * were remote, each with its file:line breakdown (the paper's Figure 5), a first-touch
 * section, node x node matrices, as text or JSON (docs/report-schema.md). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attrib.h"
#include "cli.h"
#include "u64map.h"
#include "json.h"

enum mode { MODE_REMOTE, MODE_LOCAL, MODE_ALL };
static const char *const mode_name[] = { "remote", "local", "all" };

struct ropts {
	const char *dir, *exe;
	int force, json, approx, matrix, by_line, mode;
	size_t top;
	const char **regions;
	size_t nregions;
};

struct stats {
	uint64_t total, exact, approx, noaddr, nonmem, noflag, kernel;
	uint64_t used;            /* samples attributed with their data address */
	uint64_t remote, local, unknown_page, unknown_cpu;
	uint64_t lost, throttled, dropped, recorded;
	uint64_t other_regions;   /* samples of regions not selected */
};

/* Per variable: totals, matrix, pages and first touches. */
struct varstat {
	uint64_t total, remote, local, unknown_page;
	uint64_t *matrix;         /* [(nn + 1) * (nn + 1)], index nn = unknown node */
	uint64_t *pages_node;     /* distinct sampled pages by home node [nn + 1] */
	uint64_t pages;
	uint64_t *ft_node;        /* first-touched pages by home node [nn + 1] */
	uint64_t ft_pages;
	uint32_t ft_tid, ft_line;
	uint64_t ft_tid_pages, ft_line_pages;
	int ft_tid_node;
	int shown;
};

/* One aggregated cell: samples of (var, line) taken on CPU node si of a page on node pi. */
struct cell {
	uint32_t var, line;
	uint32_t si, pi;
	uint64_t n;
};

/* One row of a table: key1 (the group: variable or line), key2 (the item). */
struct row {
	uint32_t node, k1, k2;
	uint64_t n;
};

struct group {
	uint32_t k1;
	uint64_t total;
	size_t first, count;      /* rows[first .. first+count) are its items */
};

struct ctx {
	struct ropts o;
	struct mr_run *run;
	struct mr_attrib *a;
	struct stats st;
	uint32_t nn;              /* number of nodes; index nn means unknown */
	struct mph_u64map agg;       /* key -> samples */
	struct mph_u64map seen_pages;/* (var << 36 | page >> 12) -> node index */
	struct cell *cells;
	size_t ncells;
	struct varstat *vs;
	size_t nvars;
	uint32_t *cpu_idx;        /* node index of each CPU of the topology */
	unsigned char *region_sel;/* by seq, when --region was given */
	uint32_t region_sel_n;
	int table_mode;           /* mode used for the tables */
	int no_remote;
};

void mr_help_report(FILE *f)
{
	fprintf(f,
		"usage: memphis-report [report] RUNDIR [OPTIONS]\n\n"
		"Per NUMA node (the node of the CPU that took the sample), the program variables\n"
		"whose accesses were remote (page home node != CPU node), in descending order, each\n"
		"with its source lines; then where the variables' pages live and who touched them\n"
		"first.\n\n"
		"Options:\n"
		"  --region NAME  only regions called NAME (repeatable; same names accumulate)\n"
		"  --top N        at most N variables per node and N lines per variable (default 10,\n"
		"                 0 = all)\n"
		"  --local        local samples only (page on the sampling CPU's node)\n"
		"  --all          local and remote samples\n"
		"  --by line      code-centric: lines first, variables under them (--by variable is\n"
		"                 the default)\n"
		"  --approx       also use approximate (proxy) data addresses; by default only exact\n"
		"                 addresses are attributed\n"
		"  --matrix       print the node x node matrix of each variable shown\n"
		"  --json         JSON output (schema memphis-report/1, docs/report-schema.md)\n"
		"  --exe PATH     the executable that ran, when it is no longer at the recorded path\n"
		"  --force        accept an executable whose build-id differs from the run's\n"
		"  -h, --help     this text\n\n"
		"Exit status: 0 ok, 1 bad usage, 2 damaged or unreadable input (after printing what\n"
		"was readable), missing executable or build-id mismatch.\n");
}

static const char *weighting(const char *w)
{
	if (!w || !*w)
		return "samples (weighting not recorded)";
	if (!strcmp(w, "stall"))
		return "stall-weighted samples (latency-exposed time, not access counts)";
	if (!strcmp(w, "latency"))
		return "hardware samples (counted; each also carries its load latency, see dump)";
	if (!strcmp(w, "count"))
		return "access-count samples";
	return w;
}

/* Parse options into c->o. Returns -1 when ok, else the exit code. */
static int parse(struct ctx *c, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "region", required_argument, NULL, 'r' }, { "top", required_argument, NULL, 't' },
		{ "local", no_argument, NULL, 'l' },        { "all", no_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' },     { "approx", no_argument, NULL, 'x' },
		{ "matrix", no_argument, NULL, 'm' },       { "json", no_argument, NULL, 'j' },
		{ "exe", required_argument, NULL, 'e' },    { "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
	};
	int ch;
	char *end;

	c->o.top = 10;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			mr_cli_json = c->o.json = 1;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'r': {
			const char **nr = realloc(c->o.regions, (c->o.nregions + 1) * sizeof(*nr));
			if (!nr)
				return mr_error(MR_EXIT_DATA, "out of memory");
			c->o.regions = nr;
			nr[c->o.nregions++] = optarg;
			break;
		}
		case 't':
			errno = 0;
			c->o.top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return mr_usage("report", "--top wants a number, not '%s'", optarg);
			break;
		case 'l': c->o.mode = MODE_LOCAL; break;
		case 'a': c->o.mode = MODE_ALL; break;
		case 'b':
			if (!strcmp(optarg, "line"))
				c->o.by_line = 1;
			else if (!strcmp(optarg, "variable") || !strcmp(optarg, "var"))
				c->o.by_line = 0;
			else
				return mr_usage("report", "--by wants 'line' or 'variable', not '%s'", optarg);
			break;
		case 'x': c->o.approx = 1; break;
		case 'm': c->o.matrix = 1; break;
		case 'j': break;
		case 'e': c->o.exe = optarg; break;
		case 'f': c->o.force = 1; break;
		case 'h': mr_help_report(stdout); return MR_EXIT_OK;
		case ':':
			return mr_usage("report", "%s needs an argument", argv[optind - 1]);
		default:
			if (optopt && lo[0].name) {
				for (size_t i = 0; lo[i].name; i++)
					if (lo[i].val == optopt && lo[i].has_arg)
						return mr_usage("report", "%s needs an argument",
								argv[optind - 1]);
			}
			return mr_usage("report", "unknown option %s", argv[optind - 1]);
		}
	}
	if (optind == argc)
		return mr_usage("report", "missing RUNDIR");
	if (optind + 1 != argc)
		return mr_usage("report", "one RUNDIR expected, got '%s' and '%s'", argv[optind],
				argv[optind + 1]);
	c->o.dir = argv[optind];
	return -1;
}

/* Mark the selected regions; returns -1 when ok, else an exit code. */
static int select_regions(struct ctx *c)
{
	uint32_t maxseq = 0;

	if (!c->o.nregions)
		return -1;
	for (size_t i = 0; i < c->run->nregions; i++)
		if (c->run->regions[i].seq > maxseq)
			maxseq = c->run->regions[i].seq;
	c->region_sel = calloc((size_t)maxseq + 1, 1);
	if (!c->region_sel)
		return mr_error(MR_EXIT_DATA, "out of memory");
	c->region_sel_n = maxseq + 1;
	for (size_t k = 0; k < c->o.nregions; k++) {
		int found = 0;
		for (size_t i = 0; i < c->run->nregions; i++)
			if (!strcmp(c->run->regions[i].name, c->o.regions[k])) {
				c->region_sel[c->run->regions[i].seq] = 1;
				found = 1;
			}
		if (!found) {
			char names[512] = "";
			size_t o = 0;
			for (size_t i = 0; i < c->run->nregions && o < sizeof(names) - 70; i++) {
				int dup = 0;
				for (size_t j = 0; j < i; j++)
					dup |= !strcmp(c->run->regions[j].name, c->run->regions[i].name);
				if (!dup)
					o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s",
							      o ? ", " : "", c->run->regions[i].name);
			}
			return mr_usage("report", "no region named '%s' in %s (regions: %s)",
					c->o.regions[k], c->o.dir, o ? names : "none");
		}
	}
	return -1;
}

static int region_selected(const struct ctx *c, uint32_t seq)
{
	if (!c->region_sel)
		return 1;
	return seq < c->region_sel_n && c->region_sel[seq];
}

static uint32_t node_index(const struct ctx *c, int node)
{
	return node >= 0 && (uint32_t)node < c->nn ? (uint32_t)node : c->nn;
}

#define KEY(var, line, si, pi) \
	((uint64_t)(var) | (uint64_t)(line) << 24 | (uint64_t)(si) << 48 | (uint64_t)(pi) << 56)

/* Stream every sample once and aggregate. Returns -1 when ok, else an exit code. */
static int pass(struct ctx *c)
{
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	size_t n;
	uint64_t last_key = MPH_U64MAP_EMPTY, last_n = 0;
	uint16_t addr_ok = MPH_S_EXACT | (c->o.approx ? MPH_S_APPROX : 0);

	c->cpu_idx = calloc(c->run->ncpus + 1, sizeof(*c->cpu_idx));
	if (!c->cpu_idx || mr_samples_begin(c->run, &it))
		return mr_error(MR_EXIT_DATA, "out of memory");
	for (uint32_t i = 0; i < c->run->ncpus; i++)
		c->cpu_idx[i] = node_index(c, mr_run_cpu_node(c->run, i));
	while ((n = mr_samples_next(it, &s)) > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct memphis_rec_sample *sm = &s[i];
			struct mr_resolved r;
			uint32_t si, pi, var, line;
			uint64_t key;

			if (!region_selected(c, sm->region)) {
				c->st.other_regions++;
				continue;
			}
			c->st.total++;
			c->st.exact += !!(sm->flags & MPH_S_EXACT);
			c->st.approx += !!(sm->flags & MPH_S_APPROX);
			c->st.noaddr += !!(sm->flags & MPH_S_NOADDR);
			c->st.nonmem += !!(sm->flags & MPH_S_NONMEM);
			c->st.noflag += !(sm->flags & (MPH_S_EXACT | MPH_S_APPROX | MPH_S_NOADDR |
						       MPH_S_NONMEM));
			c->st.kernel += !!(sm->flags & MPH_S_KERNEL);
			if (!(sm->flags & addr_ok) || !sm->addr)
				continue;
			mr_attrib_sample(c->a, sm, 1, &r);
			c->st.used++;
			si = sm->cpu < c->run->ncpus ? c->cpu_idx[sm->cpu] : c->nn;
			pi = node_index(c, r.page_node);
			if (si == c->nn)
				c->st.unknown_cpu++;
			if (pi == c->nn)
				c->st.unknown_page++;
			else if (si != c->nn && si != pi)
				c->st.remote++;
			else if (si != c->nn)
				c->st.local++;
			var = r.var < (1u << 24) ? r.var : 0;
			line = r.line < (1u << 24) ? r.line : 0;
			key = KEY(var, line, si, pi);
			if (key != last_key) {
				if (last_key != MPH_U64MAP_EMPTY) {
					uint64_t *v = mph_u64map_put(&c->agg, last_key, 0);
					if (!v)
						goto oom;
					*v += last_n;
				}
				last_key = key;
				last_n = 0;
			}
			last_n++;
			if (!r.same_page) {
				uint64_t pk = (uint64_t)var << 36 | (sm->addr >> 12);
				if (!mph_u64map_put(&c->seen_pages, pk, pi))
					goto oom;
			}
		}
	}
	if (last_key != MPH_U64MAP_EMPTY) {
		uint64_t *v = mph_u64map_put(&c->agg, last_key, 0);
		if (!v)
			goto oom;
		*v += last_n;
	}
	mr_samples_end(it);
	return -1;
oom:
	mr_samples_end(it);
	return mr_error(MR_EXIT_DATA, "out of memory aggregating samples");
}

/* Loss figures of the selected regions: the REGION record, or the LOSS records summed
 * when they say more. */
static void losses(struct ctx *c)
{
	for (size_t i = 0; i < c->run->nregions; i++) {
		const struct memphis_rec_region *r = &c->run->regions[i];
		uint64_t lost = 0, thr = 0;

		if (!region_selected(c, r->seq))
			continue;
		for (size_t k = 0; k < c->run->nlosses; k++)
			if (c->run->losses[k].region == r->seq) {
				lost += c->run->losses[k].lost;
				thr += c->run->losses[k].throttled;
			}
		c->st.lost += r->lost > lost ? r->lost : lost;
		c->st.throttled += r->throttled > thr ? r->throttled : thr;
		c->st.dropped += r->dropped;
		c->st.recorded += r->samples;
	}
	/* LOSS records of regions that never got a REGION record */
	for (size_t k = 0; k < c->run->nlosses; k++)
		if (!mr_run_region(c->run, c->run->losses[k].region) && !c->region_sel) {
			c->st.lost += c->run->losses[k].lost;
			c->st.throttled += c->run->losses[k].throttled;
		}
}

/* Turn the aggregate into cells and per-variable statistics. Returns 0 or -ENOMEM. */
static int build_vars(struct ctx *c)
{
	uint32_t w = c->nn + 1;

	c->nvars = mr_attrib_nvars(c->a);
	c->vs = calloc(c->nvars + 1, sizeof(*c->vs));
	c->cells = calloc(c->agg.count + 1, sizeof(*c->cells));
	if (!c->vs || !c->cells)
		return -ENOMEM;
	for (size_t i = 0; i <= c->agg.mask; i++) {
		uint64_t k = c->agg.keys[i];
		struct cell *ce;
		struct varstat *v;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		ce = &c->cells[c->ncells++];
		ce->var = (uint32_t)(k & 0xffffff);
		ce->line = (uint32_t)(k >> 24 & 0xffffff);
		ce->si = (uint32_t)(k >> 48 & 0xff);
		ce->pi = (uint32_t)(k >> 56);
		ce->n = c->agg.vals[i];
		if (ce->var >= c->nvars)
			ce->var = 0;
		v = &c->vs[ce->var];
		if (!v->matrix) {
			v->matrix = calloc((size_t)w * w, sizeof(*v->matrix));
			v->pages_node = calloc(w, sizeof(*v->pages_node));
			v->ft_node = calloc(w, sizeof(*v->ft_node));
			if (!v->matrix || !v->pages_node || !v->ft_node)
				return -ENOMEM;
		}
		v->total += ce->n;
		v->matrix[ce->si * w + ce->pi] += ce->n;
		if (ce->pi == c->nn)
			v->unknown_page += ce->n;
		else if (ce->si != c->nn && ce->si != ce->pi)
			v->remote += ce->n;
		else if (ce->si != c->nn)
			v->local += ce->n;
	}
	for (size_t i = 0; i <= c->seen_pages.mask; i++) {
		uint64_t k = c->seen_pages.keys[i];
		uint32_t var;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		var = (uint32_t)(k >> 36);
		if (var < c->nvars && c->vs[var].pages_node) {
			c->vs[var].pages_node[c->seen_pages.vals[i] <= c->nn ? c->seen_pages.vals[i] : c->nn]++;
			c->vs[var].pages++;
		}
	}
	return 0;
}

/* Attribute the FIRST_TOUCH records to the variables that have samples. */
static int first_touches(struct ctx *c)
{
	struct mph_u64map by_tid, by_line, tid_node;
	uint64_t ps = mr_attrib_page_size(c->a);
	int rc = -ENOMEM;

	if (mph_u64map_init(&by_tid, 64) || mph_u64map_init(&by_line, 64) || mph_u64map_init(&tid_node, 64))
		goto out;
	for (size_t i = 0; i < c->run->ntouches; i++) {
		const struct memphis_rec_touch *t = &c->run->touches[i];
		uint32_t var = mr_attrib_data(c->a, t->addr, t->time, t->tid);
		uint64_t pages = 1, *v;
		uint32_t line;
		struct varstat *vs;

		if (var == 0 || var >= c->nvars || !c->vs[var].matrix)
			continue;
		vs = &c->vs[var];
		if ((t->flags & MPH_TOUCH_HUGE) && t->page_shift > 12 && t->page_shift < 40 &&
		    (1ull << t->page_shift) > ps)
			pages = (1ull << t->page_shift) / ps;
		vs->ft_pages += pages;
		vs->ft_node[node_index(c, mr_attrib_page_node(c->a, 0, t->addr))] += pages;
		line = mr_attrib_code(c->a, t->ip, t->time);
		if (!(v = mph_u64map_put(&by_tid, (uint64_t)var << 32 | t->tid, 0)))
			goto out;
		*v += pages;
		if (!(v = mph_u64map_put(&tid_node, (uint64_t)var << 32 | t->tid, 0)))
			goto out;
		*v = (uint64_t)(mr_run_cpu_node(c->run, t->cpu) + 1);
		if (!(v = mph_u64map_put(&by_line, (uint64_t)var << 32 | line, 0)))
			goto out;
		*v += pages;
	}
	for (size_t i = 0; i <= by_tid.mask; i++) {
		uint64_t k = by_tid.keys[i];
		struct varstat *vs;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		vs = &c->vs[k >> 32];
		if (by_tid.vals[i] > vs->ft_tid_pages ||
		    (by_tid.vals[i] == vs->ft_tid_pages && (uint32_t)k < vs->ft_tid)) {
			vs->ft_tid_pages = by_tid.vals[i];
			vs->ft_tid = (uint32_t)k;
			vs->ft_tid_node = (int)*mph_u64map_get(&tid_node, k) - 1;
		}
	}
	for (size_t i = 0; i <= by_line.mask; i++) {
		uint64_t k = by_line.keys[i];
		struct varstat *vs;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		vs = &c->vs[k >> 32];
		if (by_line.vals[i] > vs->ft_line_pages ||
		    (by_line.vals[i] == vs->ft_line_pages && (uint32_t)k < vs->ft_line)) {
			vs->ft_line_pages = by_line.vals[i];
			vs->ft_line = (uint32_t)k;
		}
	}
	rc = 0;
out:
	mph_u64map_free(&by_tid);
	mph_u64map_free(&by_line);
	mph_u64map_free(&tid_node);
	return rc;
}

static int cell_in_mode(const struct ctx *c, const struct cell *ce)
{
	switch (c->table_mode) {
	case MODE_REMOTE: return ce->si != c->nn && ce->pi != c->nn && ce->si != ce->pi;
	case MODE_LOCAL: return ce->si != c->nn && ce->si == ce->pi;
	default: return 1;
	}
}

static int cmp_row(const void *x, const void *y)
{
	const struct row *a = x, *b = y;

	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	if (a->k1 != b->k1)
		return a->k1 < b->k1 ? -1 : 1;
	return (a->k2 > b->k2) - (a->k2 < b->k2);
}

/* Name of a key: a variable for by-variable group keys and by-line item keys. */
static const char *key_name(const struct ctx *c, int is_var, uint32_t k)
{
	return is_var ? mr_attrib_var(c->a, k)->name : mr_attrib_line(c->a, k);
}

/* Groups by total descending, then by name (qsort_r with the context). */
static int cmp_group(const void *x, const void *y, void *arg)
{
	const struct group *a = x, *b = y;
	const struct ctx *c = arg;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(key_name(c, !c->o.by_line, a->k1), key_name(c, !c->o.by_line, b->k1));
}

/* Items by count descending, then by name. */
static int cmp_item(const void *x, const void *y, void *arg)
{
	const struct row *a = x, *b = y;
	const struct ctx *c = arg;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(key_name(c, c->o.by_line, a->k2), key_name(c, c->o.by_line, b->k2));
}

/* The table of one node: groups sorted by total, items of each sorted by count. */
struct table {
	uint32_t node;
	uint64_t total;
	struct group *g;
	size_t ng;
};

/* Build the tables of every node from the cells. rows/tables owned by the caller. */
static int build_tables(struct ctx *c, struct row **rows_out, struct table **tab_out,
			size_t *ntab_out)
{
	struct row *rows = calloc(c->ncells + 1, sizeof(*rows));
	struct table *tab = calloc(c->nn + 1, sizeof(*tab));
	size_t nr = 0, m = 0;

	*rows_out = rows;
	*tab_out = tab;
	*ntab_out = 0;
	if (!rows || !tab)
		return -ENOMEM;
	for (size_t i = 0; i < c->ncells; i++) {
		const struct cell *ce = &c->cells[i];
		if (!cell_in_mode(c, ce))
			continue;
		rows[nr++] = (struct row){ ce->si, c->o.by_line ? ce->line : ce->var,
					   c->o.by_line ? ce->var : ce->line, ce->n };
	}
	qsort(rows, nr, sizeof(*rows), cmp_row);
	/* merge rows with equal (node, k1, k2): cells differ by page node */
	for (size_t i = 0; i < nr; i++) {
		if (m && rows[m - 1].node == rows[i].node && rows[m - 1].k1 == rows[i].k1 &&
		    rows[m - 1].k2 == rows[i].k2)
			rows[m - 1].n += rows[i].n;
		else
			rows[m++] = rows[i];
	}
	for (size_t i = 0; i < m;) {
		struct table *t = &tab[*ntab_out];
		size_t j = i;

		t->node = rows[i].node;
		while (j < m && rows[j].node == t->node)
			j++;
		t->g = calloc(j - i, sizeof(*t->g));
		if (!t->g)
			return -ENOMEM;
		for (size_t k = i; k < j;) {
			struct group *g = &t->g[t->ng++];
			g->k1 = rows[k].k1;
			g->first = k;
			while (k < j && rows[k].k1 == g->k1)
				g->total += rows[k++].n;
			g->count = k - g->first;
			t->total += g->total;
			qsort_r(&rows[g->first], g->count, sizeof(*rows), cmp_item, c);
		}
		qsort_r(t->g, t->ng, sizeof(*t->g), cmp_group, c);
		(*ntab_out)++;
		i = j;
	}
	return 0;
}

static void node_label(const struct ctx *c, uint32_t node, char *buf, size_t len)
{
	const char *suffix = c->no_remote ? " (local)" : "";

	if (node == c->nn)
		snprintf(buf, len, "Node?%s", suffix);
	else
		snprintf(buf, len, "Node%u%s", node, suffix);
}

static const char *node_name(const struct ctx *c, uint32_t idx, char *buf, size_t len)
{
	if (idx == c->nn)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%u", idx);
	return buf;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* Print "100 % of 1,952 pages on node 0" or "62 % of 1,952 pages on node 0, 38 % on node
 * 1": the nodes holding pages in descending share, the unknown home last among equals. */
static void pages_text(const struct ctx *c, const uint64_t *by_node, uint64_t total, FILE *f)
{
	uint32_t order[256];
	uint32_t n = c->nn + 1 > 256 ? 256 : c->nn + 1;
	char a[32], nb[16];
	int first = 1;

	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = 1; i < n; i++) /* insertion sort: a handful of nodes */
		for (uint32_t k = i; k > 0 && by_node[order[k]] > by_node[order[k - 1]]; k--) {
			uint32_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t nd = order[i];
		const char *where = nd == c->nn ? "of unknown home" : "on node ";
		const char *which = nd == c->nn ? "" : node_name(c, nd, nb, sizeof(nb));

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
}

/* "thread N" (N the thread index) for tid, or "tid T" when THREADS does not know it. */
static void thread_text(const struct ctx *c, uint32_t tid, char *buf, size_t len)
{
	int idx = mr_attrib_thread_index(c->a, tid);

	if (idx >= 0)
		snprintf(buf, len, "thread %d", idx);
	else
		snprintf(buf, len, "tid %" PRIu32, tid);
}

static void print_header(const struct ctx *c, FILE *f)
{
	const struct mr_run *run = c->run;
	const char *backend = mr_run_get(run, "backend");
	uint64_t period = mr_run_get_u64(run, "period_ns", 0);
	char a[32], b[32], d[32], e[32], g[32], h[32], k[32];

	fprintf(f, "memphis-report: %s\n", run->dir);
	fprintf(f, "program: %s (pid %" PRIu32 ")%s%s\n", mr_attrib_exe(c->a), run->meta_file.pid,
		mr_run_get(run, "cmdline") ? ", command line: " : "",
		mr_run_get(run, "cmdline") ? mr_run_get(run, "cmdline") : "");
	fprintf(f, "backend: %s", backend && *backend ? backend : "unknown");
	if (period)
		fprintf(f, ", period %s ns (%.3g ms)", mr_fmt_count(a, period), (double)period / 1e6);
	fprintf(f, "; weighting: %s\n", weighting(mr_run_get(run, "weight")));
	if (mr_run_get(run, "sampling_error") && *mr_run_get(run, "sampling_error"))
		fprintf(f, "sampling error: %s\n", mr_run_get(run, "sampling_error"));
	fprintf(f, "samples: %s total: %s exact, %s approximate%s, %s no address, %s non-memory",
		mr_fmt_count(a, c->st.total), mr_fmt_count(b, c->st.exact),
		mr_fmt_count(d, c->st.approx),
		c->o.approx ? " (included)" : c->st.approx ? " (not attributed; --approx includes them)" : "",
		mr_fmt_count(e, c->st.noaddr), mr_fmt_count(g, c->st.nonmem));
	if (c->st.noflag)
		fprintf(f, ", %s unclassified", mr_fmt_count(a, c->st.noflag));
	fprintf(f, "; lost %s, throttled %s", mr_fmt_count(h, c->st.lost),
		mr_fmt_count(k, c->st.throttled));
	if (c->st.dropped)
		fprintf(f, ", dropped %s", mr_fmt_count(a, c->st.dropped));
	fprintf(f, "\n");
	fprintf(f, "attributed: %s samples with a data address: %s remote, %s local, %s with no "
		"known page home\n", mr_fmt_count(a, c->st.used), mr_fmt_count(b, c->st.remote),
		mr_fmt_count(d, c->st.local), mr_fmt_count(e, c->st.unknown_page));
	fprintf(f, "nodes: %u; regions:", c->nn);
	{
		int any = 0;
		for (size_t i = 0; i < run->nregions; i++) {
			int dup = 0, cnt = 0;
			if (!region_selected(c, run->regions[i].seq))
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
		if (c->o.nregions)
			fprintf(f, " [selected with --region; %s samples of other regions left out]",
				mr_fmt_count(a, c->st.other_regions));
	}
	fprintf(f, "\n");
}

static void print_tables(const struct ctx *c, const struct row *rows, const struct table *tab,
			 size_t ntab, FILE *f)
{
	char lbl[32];
	int is_var = !c->o.by_line;

	if (c->no_remote)
		fprintf(f, "\nNo remote samples: every attributed access was to a page on the "
			"sampling CPU's own node%s. All samples:\n",
			c->nn <= 1 ? " (this machine has one NUMA node)" : "");
	else
		fprintf(f, "\n%s samples per node of the sampling CPU%s:\n",
			c->table_mode == MODE_REMOTE ? "Remote" :
			c->table_mode == MODE_LOCAL ? "Local" : "All",
			is_var ? "" : ", by source line");
	if (!ntab)
		fprintf(f, "(none)\n");
	for (size_t t = 0; t < ntab; t++) {
		const struct table *tb = &tab[t];
		size_t ng = c->o.top && tb->ng > c->o.top ? c->o.top : tb->ng;
		uint64_t rest = 0;

		node_label(c, tb->node, lbl, sizeof(lbl));
		fprintf(f, "\n%s: total %" PRIu64 "\n", lbl, tb->total);
		for (size_t i = 0; i < ng; i++) {
			const struct group *g = &tb->g[i];
			size_t ni = c->o.top && g->count > c->o.top ? c->o.top : g->count;
			uint64_t irest = 0;

			fprintf(f, "(%zu) %s %" PRIu64 "\n", i + 1, key_name(c, is_var, g->k1), g->total);
			for (size_t k = 0; k < ni; k++)
				fprintf(f, "    %s %" PRIu64 "\n", key_name(c, !is_var, rows[g->first + k].k2),
					rows[g->first + k].n);
			for (size_t k = ni; k < g->count; k++)
				irest += rows[g->first + k].n;
			if (ni < g->count)
				fprintf(f, "    ... %zu more %s %" PRIu64 "\n", g->count - ni,
					is_var ? "lines" : "variables", irest);
		}
		for (size_t i = ng; i < tb->ng; i++)
			rest += tb->g[i].total;
		if (ng < tb->ng)
			fprintf(f, "... %zu more %s %" PRIu64 "\n", tb->ng - ng,
				is_var ? "variables" : "lines", rest);
	}
}

/* Mark the variables that appear in the printed tables. */
static void mark_shown(struct ctx *c, const struct row *rows, const struct table *tab, size_t ntab)
{
	for (size_t t = 0; t < ntab; t++) {
		size_t ng = c->o.top && tab[t].ng > c->o.top ? c->o.top : tab[t].ng;
		for (size_t i = 0; i < ng; i++) {
			const struct group *g = &tab[t].g[i];
			if (!c->o.by_line) {
				c->vs[g->k1].shown = 1;
				continue;
			}
			size_t ni = c->o.top && g->count > c->o.top ? c->o.top : g->count;
			for (size_t k = 0; k < ni; k++)
				c->vs[rows[g->first + k].k2].shown = 1;
		}
	}
}

/* Shown variables in order of total samples (then name). Caller frees. */
static uint32_t *shown_order(const struct ctx *c, size_t *n, int all)
{
	uint32_t *ids = calloc(c->nvars + 1, sizeof(*ids));
	size_t m = 0;

	*n = 0;
	if (!ids)
		return NULL;
	for (size_t i = 0; i < c->nvars; i++)
		if (c->vs[i].matrix && (all || c->vs[i].shown))
			ids[m++] = (uint32_t)i;
	for (size_t i = 1; i < m; i++) /* insertion sort: few variables */
		for (size_t k = i; k > 0; k--) {
			const struct varstat *x = &c->vs[ids[k - 1]], *y = &c->vs[ids[k]];
			if (x->total > y->total || (x->total == y->total &&
			     strcmp(mr_attrib_var(c->a, ids[k - 1])->name,
				    mr_attrib_var(c->a, ids[k])->name) <= 0))
				break;
			uint32_t t = ids[k];
			ids[k] = ids[k - 1];
			ids[k - 1] = t;
		}
	*n = m;
	return ids;
}

static void print_first_touch(const struct ctx *c, const uint32_t *ids, size_t n, FILE *f)
{
	char a[32], who[48];

	fprintf(f, "\nPages and first touch (home node of the pages; who touched them first):\n");
	if (!n)
		fprintf(f, "(no variables)\n");
	for (size_t i = 0; i < n; i++) {
		const struct varstat *v = &c->vs[ids[i]];
		const struct mr_varinfo *vi = mr_attrib_var(c->a, ids[i]);

		fprintf(f, "%s: ", vi->name);
		if (v->ft_pages) {
			pages_text(c, v->ft_node, v->ft_pages, f);
			thread_text(c, v->ft_tid, who, sizeof(who));
			fprintf(f, ", first touched by %s (node %d)", who, v->ft_tid_node);
			if (v->ft_tid_pages != v->ft_pages)
				fprintf(f, " for %.0f %%", pct(v->ft_tid_pages, v->ft_pages));
			fprintf(f, " at %s", mr_attrib_line(c->a, v->ft_line));
			if (v->ft_line_pages != v->ft_pages)
				fprintf(f, " (%.0f %%)", pct(v->ft_line_pages, v->ft_pages));
			fprintf(f, "\n");
		} else if (ids[i] == 0) {
			fprintf(f, "%s distinct pages sampled\n", mr_fmt_count(a, v->pages));
		} else {
			fprintf(f, "sampled pages: ");
			pages_text(c, v->pages_node, v->pages, f);
			fprintf(f, "; no first-touch record%s\n",
				mr_run_get_u64(c->run, "first_touch", 1) ? "" : " (first-touch tracking was off)");
		}
	}
}

static void print_matrix(const struct ctx *c, const uint32_t *ids, size_t n, FILE *f)
{
	uint32_t w = c->nn + 1;
	char nb[16];

	fprintf(f, "\nNode x node matrix (rows: node of the sampling CPU, columns: home node of "
		"the page, ?: unknown):\n");
	for (size_t i = 0; i < n; i++) {
		const struct varstat *v = &c->vs[ids[i]];

		fprintf(f, "%s\n  %-10s", mr_attrib_var(c->a, ids[i])->name, "cpu\\page");
		for (uint32_t p = 0; p < w; p++)
			fprintf(f, " %10s", node_name(c, p, nb, sizeof(nb)));
		fprintf(f, "\n");
		for (uint32_t s = 0; s < w; s++) {
			uint64_t row = 0;
			for (uint32_t p = 0; p < w; p++)
				row += v->matrix[s * w + p];
			if (s == c->nn && !row)
				continue;
			fprintf(f, "  node %-5s", node_name(c, s, nb, sizeof(nb)));
			for (uint32_t p = 0; p < w; p++)
				fprintf(f, " %10" PRIu64, v->matrix[s * w + p]);
			fprintf(f, "\n");
		}
	}
}

static void json_node(struct mr_json *j, const struct ctx *c, uint32_t idx)
{
	if (idx == c->nn)
		mr_json_null(j);
	else
		mr_json_u64(j, idx);
}

static void json_report(const struct ctx *c, const struct row *rows, const struct table *tab,
			size_t ntab, const uint32_t *ids, size_t nids, FILE *f)
{
	const struct mr_run *run = c->run;
	struct mr_json j;
	uint32_t w = c->nn + 1;
	char lbl[32];
	int is_var = !c->o.by_line;
	static const char *const keys[] = { "exe", "build_id", "cmdline", "hostname", "backend",
					    "backend_why", "weight", "memphis_version",
					    "sampling_error" };

	mr_json_init(&j, f);
	mr_json_obj(&j);
	mr_json_key(&j, "schema");
	mr_json_str(&j, MR_JSON_SCHEMA);
	mr_json_key(&j, "rundir");
	mr_json_str(&j, run->dir);
	mr_json_key(&j, "run");
	mr_json_obj(&j);
	mr_json_key(&j, "pid");
	mr_json_u64(&j, run->meta_file.pid);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		mr_json_key(&j, keys[i]);
		mr_json_str(&j, mr_run_get(run, keys[i]));
	}
	mr_json_key(&j, "exe_read");
	mr_json_str(&j, mr_attrib_exe(c->a));
	mr_json_key(&j, "exe_build_id");
	mr_json_str(&j, mr_attrib_exe_build_id(c->a));
	mr_json_key(&j, "period_ns");
	mr_json_u64(&j, mr_run_get_u64(run, "period_ns", 0));
	mr_json_key(&j, "weighting");
	mr_json_str(&j, weighting(mr_run_get(run, "weight")));
	mr_json_key(&j, "page_size");
	mr_json_u64(&j, mr_attrib_page_size(c->a));
	mr_json_obj_end(&j);

	mr_json_key(&j, "options");
	mr_json_obj(&j);
	mr_json_key(&j, "mode");
	mr_json_str(&j, mode_name[c->o.mode]);
	mr_json_key(&j, "by");
	mr_json_str(&j, is_var ? "variable" : "line");
	mr_json_key(&j, "approx");
	mr_json_bool(&j, c->o.approx);
	mr_json_key(&j, "top");
	mr_json_u64(&j, c->o.top);
	mr_json_key(&j, "regions");
	mr_json_arr(&j);
	for (size_t i = 0; i < c->o.nregions; i++)
		mr_json_str(&j, c->o.regions[i]);
	mr_json_arr_end(&j);
	mr_json_obj_end(&j);

	mr_json_key(&j, "samples");
	mr_json_obj(&j);
#define U(k, v) do { mr_json_key(&j, k); mr_json_u64(&j, v); } while (0)
	U("total", c->st.total);
	U("exact", c->st.exact);
	U("approximate", c->st.approx);
	U("no_address", c->st.noaddr);
	U("non_memory", c->st.nonmem);
	U("unclassified", c->st.noflag);
	U("kernel", c->st.kernel);
	U("lost", c->st.lost);
	U("throttled", c->st.throttled);
	U("dropped", c->st.dropped);
	U("attributed", c->st.used);
	U("remote", c->st.remote);
	U("local", c->st.local);
	U("unknown_page_node", c->st.unknown_page);
	U("unknown_cpu_node", c->st.unknown_cpu);
	U("other_regions", c->st.other_regions);
	mr_json_obj_end(&j);
	U("nodes", c->nn);

	mr_json_key(&j, "regions");
	mr_json_arr(&j);
	for (size_t i = 0; i < run->nregions; i++) {
		const struct memphis_rec_region *r = &run->regions[i];
		mr_json_obj(&j);
		U("seq", r->seq);
		mr_json_key(&j, "name");
		mr_json_str(&j, r->name);
		mr_json_key(&j, "selected");
		mr_json_bool(&j, region_selected(c, r->seq));
		U("t_start_ns", r->t_start);
		U("t_end_ns", r->t_end);
		U("samples", r->samples);
		U("lost", r->lost);
		U("throttled", r->throttled);
		U("dropped", r->dropped);
		mr_json_obj_end(&j);
	}
	mr_json_arr_end(&j);

	mr_json_key(&j, "no_remote");
	mr_json_bool(&j, c->no_remote);
	mr_json_key(&j, "table_mode");
	mr_json_str(&j, mode_name[c->table_mode]);
	mr_json_key(&j, "tables");
	mr_json_arr(&j);
	for (size_t t = 0; t < ntab; t++) {
		const struct table *tb = &tab[t];
		size_t ng = c->o.top && tb->ng > c->o.top ? c->o.top : tb->ng;
		uint64_t rest = 0;

		mr_json_obj(&j);
		mr_json_key(&j, "node");
		json_node(&j, c, tb->node);
		node_label(c, tb->node, lbl, sizeof(lbl));
		mr_json_key(&j, "label");
		mr_json_str(&j, lbl);
		U("total", tb->total);
		mr_json_key(&j, "entries");
		mr_json_arr(&j);
		for (size_t i = 0; i < ng; i++) {
			const struct group *g = &tb->g[i];
			size_t ni = c->o.top && g->count > c->o.top ? c->o.top : g->count;
			uint64_t irest = 0;

			mr_json_obj(&j);
			U("rank", i + 1);
			mr_json_key(&j, "name");
			mr_json_str(&j, key_name(c, is_var, g->k1));
			if (is_var) {
				mr_json_key(&j, "kind");
				mr_json_str(&j, mr_vkind_name(mr_attrib_var(c->a, g->k1)->kind));
			}
			U("count", g->total);
			mr_json_key(&j, "items");
			mr_json_arr(&j);
			for (size_t k = 0; k < ni; k++) {
				mr_json_obj(&j);
				mr_json_key(&j, "name");
				mr_json_str(&j, key_name(c, !is_var, rows[g->first + k].k2));
				U("count", rows[g->first + k].n);
				mr_json_obj_end(&j);
			}
			mr_json_arr_end(&j);
			for (size_t k = ni; k < g->count; k++)
				irest += rows[g->first + k].n;
			mr_json_key(&j, "more");
			mr_json_obj(&j);
			U("items", g->count - ni);
			U("count", irest);
			mr_json_obj_end(&j);
			mr_json_obj_end(&j);
		}
		mr_json_arr_end(&j);
		for (size_t i = ng; i < tb->ng; i++)
			rest += tb->g[i].total;
		mr_json_key(&j, "more");
		mr_json_obj(&j);
		U("entries", tb->ng - ng);
		U("count", rest);
		mr_json_obj_end(&j);
		mr_json_obj_end(&j);
	}
	mr_json_arr_end(&j);

	mr_json_key(&j, "variables");
	mr_json_arr(&j);
	for (size_t i = 0; i < nids; i++) {
		const struct varstat *v = &c->vs[ids[i]];
		const struct mr_varinfo *vi = mr_attrib_var(c->a, ids[i]);
		char who[48];

		mr_json_obj(&j);
		mr_json_key(&j, "name");
		mr_json_str(&j, vi->name);
		mr_json_key(&j, "kind");
		mr_json_str(&j, mr_vkind_name(vi->kind));
		mr_json_key(&j, "shown");
		mr_json_bool(&j, v->shown);
		mr_json_key(&j, "decl");
		mr_json_str(&j, vi->decl);
		mr_json_key(&j, "object");
		mr_json_str(&j, vi->object);
		if (vi->kind == MR_K_HEAP) {
			U("objects", vi->objects);
			U("bytes", vi->bytes);
		} else if (vi->kind != MR_K_UNKNOWN && vi->kind != MR_K_STACK) {
			U("size", vi->bytes);
		}
		U("samples", v->total);
		U("remote", v->remote);
		U("local", v->local);
		U("unknown_page_node", v->unknown_page);
		mr_json_key(&j, "matrix");
		mr_json_obj(&j);
		mr_json_key(&j, "rows");
		mr_json_str(&j, "node of the sampling CPU (last: unknown)");
		mr_json_key(&j, "columns");
		mr_json_str(&j, "home node of the page (last: unknown)");
		mr_json_key(&j, "counts");
		mr_json_arr(&j);
		for (uint32_t s = 0; s < w; s++) {
			mr_json_arr(&j);
			for (uint32_t p = 0; p < w; p++)
				mr_json_u64(&j, v->matrix[s * w + p]);
			mr_json_arr_end(&j);
		}
		mr_json_arr_end(&j);
		mr_json_obj_end(&j);
		mr_json_key(&j, "sampled_pages");
		mr_json_obj(&j);
		U("total", v->pages);
		mr_json_key(&j, "by_node");
		mr_json_arr(&j);
		for (uint32_t p = 0; p < w; p++)
			mr_json_u64(&j, v->pages_node[p]);
		mr_json_arr_end(&j);
		mr_json_obj_end(&j);
		mr_json_key(&j, "first_touch");
		if (!v->ft_pages) {
			mr_json_null(&j);
		} else {
			mr_json_obj(&j);
			U("pages", v->ft_pages);
			mr_json_key(&j, "by_node");
			mr_json_arr(&j);
			for (uint32_t p = 0; p < w; p++)
				mr_json_u64(&j, v->ft_node[p]);
			mr_json_arr_end(&j);
			thread_text(c, v->ft_tid, who, sizeof(who));
			mr_json_key(&j, "thread");
			mr_json_str(&j, who);
			mr_json_key(&j, "thread_index");
			if (mr_attrib_thread_index(c->a, v->ft_tid) >= 0)
				mr_json_i64(&j, mr_attrib_thread_index(c->a, v->ft_tid));
			else
				mr_json_null(&j);
			U("tid", v->ft_tid);
			mr_json_key(&j, "thread_node");
			mr_json_i64(&j, v->ft_tid_node);
			U("thread_pages", v->ft_tid_pages);
			mr_json_key(&j, "line");
			mr_json_str(&j, mr_attrib_line(c->a, v->ft_line));
			U("line_pages", v->ft_line_pages);
			mr_json_obj_end(&j);
		}
		mr_json_obj_end(&j);
	}
	mr_json_arr_end(&j);
#undef U
	mr_json_key(&j, "warnings");
	mr_json_arr(&j);
	for (size_t i = 0; i < run->nwarnings; i++)
		mr_json_str(&j, run->warnings[i]);
	mr_json_arr_end(&j);
	mr_json_key(&j, "damage");
	mr_json_arr(&j);
	for (size_t i = 0; i < run->ndamage; i++)
		mr_json_str(&j, run->damage[i]);
	mr_json_arr_end(&j);
	mr_json_obj_end(&j);
}

int mr_cmd_report(int argc, char **argv)
{
	struct ctx c;
	struct mr_attrib_opts ao = { 0 };
	struct row *rows = NULL;
	struct table *tab = NULL;
	size_t ntab = 0, nids = 0;
	uint32_t *ids = NULL;
	char err[1024];
	int rc;

	memset(&c, 0, sizeof(c));
	rc = parse(&c, argc, argv);
	if (rc >= 0)
		goto out;
	c.run = mr_open_run(c.o.dir);
	if (!c.run) {
		rc = MR_EXIT_DATA;
		goto out;
	}
	ao.exe = c.o.exe;
	ao.force = c.o.force;
	if (mr_attrib_open(c.run, &ao, &c.a, err, sizeof(err)) < 0) {
		rc = mr_error(MR_EXIT_DATA, "%s", err);
		goto out;
	}
	mr_run_drop_heap_records(c.run); /* indexed now: memory back for the sample pass */
	rc = select_regions(&c);
	if (rc >= 0)
		goto out;
	c.nn = c.run->have_topology && c.run->nnodes ? c.run->nnodes : 1;
	if (c.nn > 254)
		c.nn = 254;
	if (mph_u64map_init(&c.agg, 4096) || mph_u64map_init(&c.seen_pages, 4096)) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	rc = pass(&c);
	if (rc >= 0)
		goto out;
	losses(&c);
	if (build_vars(&c) || first_touches(&c)) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	c.table_mode = c.o.mode;
	if (c.o.mode == MODE_REMOTE && c.st.remote == 0) {
		c.no_remote = 1;
		c.table_mode = MODE_ALL;
	}
	if (build_tables(&c, &rows, &tab, &ntab)) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	mark_shown(&c, rows, tab, ntab);
	ids = shown_order(&c, &nids, c.o.json);
	if (!ids) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	if (c.o.json) {
		json_report(&c, rows, tab, ntab, ids, nids, stdout);
	} else {
		size_t nshown = 0;
		uint32_t *shown = shown_order(&c, &nshown, 0);

		print_header(&c, stdout);
		print_tables(&c, rows, tab, ntab, stdout);
		if (shown) {
			print_first_touch(&c, shown, nshown, stdout);
			if (c.o.matrix)
				print_matrix(&c, shown, nshown, stdout);
		}
		free(shown);
		if (c.run->nwarnings || c.run->ndamage) {
			printf("\n");
			mr_print_problems(c.run, stdout, "");
		}
	}
	fflush(stdout);
	if (!c.o.json)
		mr_print_problems(c.run, stderr, "memphis-report: ");
	rc = c.run->ndamage ? MR_EXIT_DATA : MR_EXIT_OK;
out:
	for (size_t t = 0; t < ntab; t++)
		free(tab[t].g);
	free(tab);
	free(rows);
	free(ids);
	if (c.vs)
		for (size_t i = 0; i < c.nvars; i++) {
			free(c.vs[i].matrix);
			free(c.vs[i].pages_node);
			free(c.vs[i].ft_node);
		}
	free(c.vs);
	free(c.cells);
	free(c.region_sel);
	free(c.cpu_idx);
	free(c.o.regions);
	mph_u64map_free(&c.agg);
	mph_u64map_free(&c.seen_pages);
	mr_attrib_close(c.a);
	mr_run_close(c.run);
	return rc;
}
