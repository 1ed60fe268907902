/* post/report/report_text.c - the text report: header, per-node tables (under each, for hardware
 * runs, the data sources of its variables' samples: report_hw_text.c), pages and first
 * touch, node x node matrices. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "report_impl.h"

/* "3", or "?" for the unknown node index, into buf. */
static const char *node_name(const struct report *r, uint32_t idx, char *buf, size_t len)
{
	if (idx == r->nnodes)
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%u", idx);
	return buf;
}

/* What the printed tables showed that a legend after them explains: the objects whose code
 * appeared as OBJ+0xOFF (no symbol or line there; attrib_describe_code), the first few. */
#define RAW_OBJS 4
struct text_notes {
	const char *raw_obj[RAW_OBJS]; /* each the start of a printed name, raw_len[i] long */
	size_t raw_len[RAW_OBJS];
	size_t nraw, raw_more;   /* objects kept; objects seen beyond RAW_OBJS */
};

/* Note code name `name` if it is OBJ+0xHEX (an offset in an object without a symbol or
 * line for it): OBJ non-empty without a space, HEX digits to the end. The same object
 * once. */
static void note_code(struct text_notes *tn, const char *name)
{
	const char *plus = NULL, *p, *h;
	size_t len;

	for (p = strstr(name, "+0x"); p; p = strstr(p + 1, "+0x"))
		plus = p;
	if (!plus || plus == name || !plus[3])
		return;
	for (h = plus + 3; *h; h++)
		if (!strchr("0123456789abcdef", *h))
			return;
	len = (size_t)(plus - name);
	if (memchr(name, ' ', len))
		return;
	for (size_t i = 0; i < tn->nraw; i++)
		if (tn->raw_len[i] == len && !memcmp(tn->raw_obj[i], name, len))
			return;
	if (tn->nraw == RAW_OBJS) {
		tn->raw_more++;
		return;
	}
	tn->raw_obj[tn->nraw] = name;
	tn->raw_len[tn->nraw++] = len;
}

/* The legend of OBJ+0xOFF names, when the report showed any: what they are, which
 * runtime each object is (binary/runtime.h), and how to get names instead (the report
 * reads separate debug files by build-id under /usr/lib/debug: binary/debuginfo_debugfile.c). */
static void print_code_legend(const struct text_notes *tn, FILE *f)
{
	char obj[256];

	if (!tn->nraw)
		return;
	fprintf(f, "\nOBJ+0xOFF: code at offset OFF of the shared object OBJ, which has no symbol or "
		"line for it (");
	for (size_t i = 0; i < tn->nraw; i++) {
		enum mr_runtime rt;

		snprintf(obj, sizeof(obj), "%.*s", (int)tn->raw_len[i], tn->raw_obj[i]);
		rt = mr_runtime_of_object(obj);
		fprintf(f, "%s%s%s%s", i ? "; " : "", mr_esc(obj), rt ? ": " : "",
			rt ? mr_runtime_title(rt) : "");
	}
	if (tn->raw_more)
		fprintf(f, "; %zu more", tn->raw_more);
	fprintf(f, "); its debug symbols name it (Debian: the object's -dbgsym or -dbg "
		"package, read from /usr/lib/debug)\n");
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

/* qsort_r orders of region indices: by name then file order; by file order. */
static int cmp_region_name(const void *a, const void *b, void *arg)
{
	const struct mr_run *run = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(run->regions[x].name, run->regions[y].name);

	return c ? c : (x < y ? -1 : x > y);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The header's region list: each name of a selected region once, in the order of its
 * first region, with how many regions had it (n log n: a run can hold a region per loop
 * iteration). Returns whether any was printed. */
static int region_names(const struct report *r, FILE *f)
{
	const struct mr_run *run = r->run;
	uint32_t *idx = malloc((run->nregions + 1) * sizeof(*idx));
	uint32_t *cnt = calloc(run->nregions + 1, sizeof(*cnt));
	size_t nfirst = 0;
	int any = 0;

	if (!idx || !cnt) {
		free(idx);
		free(cnt);
		return 0;
	}
	for (size_t i = 0; i < run->nregions; i++)
		idx[i] = (uint32_t)i;
	qsort_r(idx, run->nregions, sizeof(*idx), cmp_region_name, (void *)run);
	/* each name's first region, its count kept at that index */
	for (size_t i = 0; i < run->nregions; i++) {
		if (i && !strcmp(run->regions[idx[i]].name, run->regions[idx[nfirst - 1]].name)) {
			cnt[idx[nfirst - 1]]++;
			continue;
		}
		idx[nfirst++] = idx[i];
		cnt[idx[i]] = 1;
	}
	qsort(idx, nfirst, sizeof(*idx), cmp_u32);
	for (size_t i = 0; i < nfirst; i++) {
		const struct memphis_rec_region *reg = &run->regions[idx[i]];

		if (!report_region_selected(r, reg->seq))
			continue;
		fprintf(f, "%s %s (x%u)", any ? "," : "", mr_esc(reg->name), cnt[idx[i]]);
		any = 1;
	}
	free(idx);
	free(cnt);
	return any;
}

size_t report_hw_coverage(const struct report *r, struct mr_hw_cov *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->run->nnotes; i++) {
		struct mr_hw_cov c;
		uint32_t region;

		if (mr_hw_cov_parse(r->run->notes[i].text, &region, &c) &&
		    report_region_selected(r, region))
			mr_hw_cov_add(out, &n, max, &c);
	}
	mr_hw_cov_merge_hybrid(out, &n);
	return n;
}

/* The share of its enabled time each hardware event sampled (review W6, M3): "sampled
 * time: NAME X %, ... of the time enabled", and below 99.5 % who took the rest: another
 * IBS user, or the other events of the core PMU's counters. Nothing without coverage
 * notes (soft runs, older runs). */
static void print_hw_coverage(const struct report *r, FILE *f)
{
	struct mr_hw_cov c[16];
	size_t n = report_hw_coverage(r, c, 16);
	double least = 100;
	int ibs = 0;

	for (size_t i = 0; i < n; i++) {
		double pct = 100.0 * (double)c[i].running_ns / (double)c[i].enabled_ns;

		if (pct < least)
			least = pct;
		ibs |= !strcmp(c[i].event, "ibs_op");
	}
	if (!n)
		return;
	if (ibs && least < 99.5) {
		fprintf(f, "sampled time: IBS shared with another user (perf, numatop, another "
			"memphis): %.1f %% of the time sampled\n", least);
		return;
	}
	fprintf(f, "sampled time:");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s %s %.1f %%", i ? "," : "", c[i].event,
			100.0 * (double)c[i].running_ns / (double)c[i].enabled_ns);
	fprintf(f, " of the time %s enabled%s\n", n > 1 ? "they were" : "it was",
		least < 99.5 ? "; the PMU's counters were shared (PAPI events, the NMI watchdog, "
			       "another tool) and the kernel multiplexed them" : "");
}

/* Under the samples line, the counts a newcomer cannot guess, each only when it is not 0:
 * non-memory (the decoder found no memory operand in the sampled instruction:
 * MPH_S_NONMEM), lost (the kernel's or the module's buffer was full: PERF_RECORD_LOST,
 * the module's lost count) and throttled (the kernel's throttle events). */
static void samples_legend(const struct report *r, FILE *f)
{
	const char *sep = "  ";
	char a[32];

	if (!r->st.nonmem && !r->st.lost && !r->st.throttled)
		return;
	if (r->st.nonmem) {
		fprintf(f, "%snon-memory: samples whose instruction does not access memory, "
			"counted in no table", sep);
		if (r->st.fences)
			fprintf(f, " (%s of them fences: a locked no-op on the stack top, as "
				"__sync_synchronize and OpenMP flush compile)", mr_fmt_count(a, r->st.fences));
		sep = "; ";
	}
	if (r->st.lost) {
		const char *scope = mr_run_get(r->run, "scope"), *be = mr_run_get(r->run, "backend");

		fprintf(f, "%slost: samples the kernel could not hand over (its buffer was full)",
			sep);
		/* the soft sampler's events of a CPU sample every process there (the module
		 * keeps only this one's) */
		if (scope && !strcmp(scope, "cpu") && be && !strcmp(be, "soft"))
			fprintf(f, ", counted in the CPUs' buffers, which hold every process's "
				"samples: this program lost at most as many");
		sep = "; ";
	}
	if (r->st.throttled)
		fprintf(f, "%sthrottled: times the kernel stopped sampling a while (interrupts too "
			"frequent)", sep);
	fprintf(f, "\n");
}

/* Run, backend, sample counts, nodes and regions. */
static void print_header(const struct report *r, FILE *f)
{
	const struct mr_run *run = r->run;
	const char *backend = mr_run_get(run, "backend");
	uint64_t period = mr_run_get_u64(run, "period_ns", 0);
	/* hardware sampling counts events or ops, not time (RUN hw_period, docs/format.md) */
	uint64_t hw_period = mr_run_get_u64(run, "hw_period", 0);
	uint64_t ldlat = mr_run_get_u64(run, "ldlat", 0);
	const char *unit = mr_run_get(run, "hw_period_unit");
	const char *kmod_kind = mr_run_get(run, "kmod_kind");
	char a[32], b[32], d[32], e[32], g[32], h[32], k[32];

	fprintf(f, "memphis-report: %s\n", mr_esc(run->dir));
	fprintf(f, "program: %s (pid %" PRIu32 ")%s%s\n", mr_esc(mr_attrib_exe(r->a)),
		run->meta_file.pid, mr_run_get(run, "cmdline") ? ", command line: " : "",
		mr_run_get(run, "cmdline") ? mr_esc(mr_run_get(run, "cmdline")) : "");
	fprintf(f, "backend: %s", backend && *backend ? mr_esc(backend) : "unknown");
	if (kmod_kind && *kmod_kind)
		fprintf(f, " (%s)", mr_esc(kmod_kind));
	if (mr_run_get(run, "scope") && !strcmp(mr_run_get(run, "scope"), "cpu"))
		fprintf(f, " (events per CPU)");
	if (hw_period) {
		fprintf(f, ", one sample every %s %s", mr_fmt_count(a, hw_period),
			unit && *unit ? unit : "events");
		if (ldlat)
			fprintf(f, " (loads of %s+ cycles)", mr_fmt_count(b, ldlat));
	} else if (period) {
		fprintf(f, ", period %s ns (%.3g ms)", mr_fmt_count(a, period), (double)period / 1e6);
	}
	fprintf(f, "; weighting: %s\n", report_weighting(mr_run_get(run, "weight")));
	if (hw_period && mr_run_get(run, "hw_notes") && *mr_run_get(run, "hw_notes"))
		fprintf(f, "hardware events: %s\n", mr_esc(mr_run_get(run, "hw_notes")));
	print_hw_coverage(r, f);
	if (mr_run_get_u64(run, "heap_sample_every", 1) > 1 && mr_run_get_u64(run, "heap_map", 0))
		fprintf(f, "heap: allocations under %s bytes recorded 1 in %s with their frees, the "
			"others named by call chain (the site map: recorded where their bytes change "
			"chain); larger ones always\n",
			mr_fmt_count(a, mr_run_get_u64(run, "heap_sample_below", 0)),
			mr_fmt_count(b, mr_run_get_u64(run, "heap_sample_every", 1)));
	else if (mr_run_get_u64(run, "heap_sample_every", 1) > 1)
		fprintf(f, "heap: allocations under %s bytes recorded 1 in %s on average "
			"(MEMPHIS_HEAP_SAMPLE=1 records all); larger ones always\n",
			mr_fmt_count(a, mr_run_get_u64(run, "heap_sample_below", 0)),
			mr_fmt_count(b, mr_run_get_u64(run, "heap_sample_every", 1)));
	report_place_text(r, f);
	if (mr_run_get(run, "sampling_error") && *mr_run_get(run, "sampling_error"))
		fprintf(f, "sampling error: %s\n", mr_esc(mr_run_get(run, "sampling_error")));
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
	samples_legend(r, f);
	if (r->st.unwritten_ms)
		fprintf(f, "unfinished run: the program ended without the library's shutdown (_exit, "
			"abort, a fatal signal or a kill): up to %s ms of samples before its end may "
			"be missing, and are not counted as lost\n",
			mr_fmt_count(a, r->st.unwritten_ms));
	if (r->st.write_error)
		fprintf(f, "run cut short: %s; samples after it are missing and not counted as "
			"lost\n", mr_esc(r->st.write_error));
	fprintf(f, "attributed: %s samples with a data address: %s remote, %s local, ",
		mr_fmt_count(a, r->st.used), mr_fmt_count(b, r->st.remote),
		mr_fmt_count(d, r->st.local));
	if (r->nfar)
		fprintf(f, "%s far tier (pages on nodes without CPUs), ",
			mr_fmt_count(a, r->st.far));
	fprintf(f, "%s with no known page home\n", mr_fmt_count(e, r->st.unknown_page));
	if (r->st.self)
		fprintf(f, "set aside: %s samples in libmemphis itself (its code, or its own data), "
			"in no table\n", mr_fmt_count(a, r->st.self));
	report_kernel_text(r, f);
	report_runtime_text(r, f);
	report_threads_text(r, f);
	report_nodes_text(r, f);
	fprintf(f, "nodes: %u; regions:", r->nnodes);
	{
		int any = region_names(r, f);

		if (!any)
			fprintf(f, " none recorded");
		if (r->o.nregions)
			fprintf(f, " [selected with --region; %s samples of other regions left out]",
				mr_fmt_count(a, r->st.other_regions));
	}
	fprintf(f, "\n");
}

/* Under FEW_SAMPLES samples the tables' shares are too uncertain to read: a share p of n
 * samples has a standard error of sqrt(p (1 - p) / n), so its 95 % interval is up to
 * +-1/sqrt(n) wide (at p = 1/2): +-10 points at 100 samples, more below, where two
 * variables a few samples apart may well be in the other order. */
#define FEW_SAMPLES 100

/* "250us" (or "2ms", "150000ns") for ns into buf: a MEMPHIS_PERIOD value. */
static const char *period_text(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000 == 0)
		snprintf(buf, len, "%" PRIu64 "ms", ns / 1000000);
	else if (ns % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "us", ns / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
	return buf;
}

/* When the tables rest on fewer than FEW_SAMPLES samples (n): one line saying so, and how
 * to get more: a longer run or region, a shorter period (MEMPHIS_PERIOD, memphis run
 * --period: a quarter of this one, 100us at least, the library's shortest) or for hardware
 * sampling a smaller MEMPHIS_HW_PERIOD. Nothing for a run that did not sample (backend
 * none, or the header's "sampling error:" says why): more time would not help. A damaged
 * run is told so instead of the advice: its damage, not its length, may be the cause. */
static void print_few_samples(const struct report *r, uint64_t n, FILE *f)
{
	const char *backend = mr_run_get(r->run, "backend");
	const char *error = mr_run_get(r->run, "sampling_error");
	uint64_t period = mr_run_get_u64(r->run, "period_ns", 0);
	uint64_t hw_period = mr_run_get_u64(r->run, "hw_period", 0);
	const char *unit = mr_run_get(r->run, "hw_period_unit");
	char a[32], p[32];

	if (n >= FEW_SAMPLES || (backend && !strcmp(backend, "none")) || (error && *error))
		return;
	if (n)
		fprintf(f, "few samples: the tables rest on %s sample%s, so a share in them is "
			"uncertain by up to +-%.0f points (95 %%); for more, ",
			mr_fmt_count(a, n), n == 1 ? "" : "s", 100.0 / sqrt((double)n));
	else
		fprintf(f, "no samples for the tables; for more, ");
	if (r->run->ndamage) {
		fprintf(f, "see the damage below first (the report has what was readable)\n");
		return;
	}
	fprintf(f, "profile a longer run or region");
	if (hw_period)
		fprintf(f, ", or sample more often: a smaller MEMPHIS_HW_PERIOD (now %s %s)",
			mr_fmt_count(a, hw_period), unit && *unit ? unit : "events");
	else if (period > 100000) {
		period_text(period / 4 > 100000 ? period / 4 : 100000, p, sizeof(p));
		fprintf(f, ", or sample more often: memphis run --period %s, or MEMPHIS_PERIOD=%s "
			"(100us at least)", p, p);
	}
	fprintf(f, "\n");
}

/* The tables ts counted in mode m: per CPU node, groups (variables, or lines with --by
 * line) with their items; hardware figures for the report's main tables. */
static void print_table_set(const struct report *r, const struct mr_agg_tables *ts,
			    enum mr_agg_mode m, struct text_notes *notes, FILE *f)
{
	const struct mr_agg_row *rows = ts->rows;
	const struct mr_agg_table *tab = ts->tab;
	size_t ntab = ts->ntab;
	char lbl[32];
	int is_var = !r->o.by_line, hw = r->hw_shown && ts == &r->tables;

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
			const char *name = report_key_name(r, is_var, g->key);

			if (!is_var)
				note_code(notes, name);
			fprintf(f, "(%zu) %s %" PRIu64 "\n", i + 1, mr_esc(name), g->total);
			if (is_var && report_member_rows(r, g->key, tb->node, m, f))
				nitems = 0; /* its members instead of its lines */
			for (size_t k = 0; k < nitems; k++) {
				name = report_key_name(r, !is_var, rows[g->first + k].item);
				if (is_var)
					note_code(notes, name);
				fprintf(f, "    %s %" PRIu64 "\n", mr_esc(name), rows[g->first + k].n);
			}
			for (size_t k = nitems; k < g->count; k++)
				irest += rows[g->first + k].n;
			if (nitems && nitems < g->count)
				fprintf(f, "    ... %zu more %s %" PRIu64 "\n", g->count - nitems,
					is_var ? "lines" : "variables", irest);
			if (is_var && r->o.advice)
				report_advice_text(r, g->key, f);
		}
		for (size_t i = ngroups; i < tb->ngroups; i++)
			rest += tb->groups[i].total;
		if (ngroups < tb->ngroups)
			fprintf(f, "... %zu more %s %" PRIu64 "\n", tb->ngroups - ngroups,
				is_var ? "variables" : "lines", rest);
		if (hw)
			report_hw_table_text(r, tb, ngroups, f);
	}
}

/* The far nodes, "node 2" or "nodes 2, 3", into buf. */
static const char *far_list(const struct report *r, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "node%s", r->nfar > 1 ? "s" : "");

	for (uint32_t n = 0, k = 0; n < r->nnodes && used < len; n++)
		if (r->far[n])
			used += (size_t)snprintf(buf + used, len - used, "%s %u", k++ ? "," : "", n);
	return buf;
}

/* The per-node tables in the report's mode; after remote tables of a run with far nodes,
 * the far tier's. */
static void print_tables(const struct report *r, struct text_notes *notes, FILE *f)
{
	int is_var = !r->o.by_line;
	uint64_t n = 0;
	char fl[256];

	if (r->no_remote)
		fprintf(f, "\nNo remote samples: every attributed access was to a page on the "
			"sampling CPU's own node%s. All samples:\n",
			r->nnodes <= 1 ? " (this machine has one NUMA node)" : "");
	else
		fprintf(f, "\n%s samples per node of the sampling CPU%s%s:\n",
			r->table_mode == MR_AGG_REMOTE ? "Remote" :
			r->table_mode == MR_AGG_LOCAL ? "Local" : "All",
			r->nfar && r->table_mode == MR_AGG_REMOTE ? " (pages on another node with "
								      "CPUs)" : "",
			is_var ? "" : ", by source line");
	for (size_t t = 0; t < r->tables.ntab; t++)
		n += r->tables.tab[t].total;
	for (size_t t = 0; t < r->far_tables.ntab; t++)
		n += r->far_tables.tab[t].total;
	print_few_samples(r, n, f);
	print_table_set(r, &r->tables, r->table_mode, notes, f);
	if (r->nfar && r->table_mode == MR_AGG_REMOTE) {
		fprintf(f, "\nFar-tier samples per node of the sampling CPU (pages on %s, memory "
			"without CPUs)%s:\n", far_list(r, fl, sizeof(fl)),
			is_var ? "" : ", by source line");
		print_table_set(r, &r->far_tables, MR_AGG_FAR, notes, f);
	}
	if (r->hw_shown)
		report_hw_rest_text(r, f);
}



/* After a variable's first-touch line: its pages were first-touched again, each time the
 * program mapped them anew (a work array allocated and freed on each call: the kernel
 * zeroes a new page every time); when such re-faults are most of its first touches (more
 * than its pages), the fix. */
static void print_refaults(const struct mr_agg_var *v, FILE *f)
{
	char a[32], b[32];

	if (!v->ft_refaults || !v->ft_distinct)
		return;
	fprintf(f, "; re-faulted: its %s distinct pages were mapped anew %s times (%.1f each), "
		"the kernel zeroing a new page every time", mr_fmt_count(a, v->ft_distinct),
		mr_fmt_count(b, v->ft_refaults), (double)v->ft_refaults / (double)v->ft_distinct);
	if (v->ft_refaults > v->ft_distinct)
		fprintf(f, "; allocate it once, outside the loop, and reuse it");
}

/* Per variable: the home nodes of its pages and who touched them first. */
static void print_first_touch(const struct report *r, const uint32_t *ids, size_t n,
			      struct text_notes *notes, FILE *f)
{
	char a[32], who[48];

	fprintf(f, "\nPages and first touch (home node of the pages; who touched them first: the "
		"thread with the most, the line with the most (the program's before a "
		"runtime's), each with its share when not all):\n");
	if (!n)
		fprintf(f, "(no variables)\n");
	for (size_t i = 0; i < n; i++) {
		const struct mr_agg_var *v = &r->agg.vars[ids[i]];
		const struct mr_varinfo *vi = mr_attrib_var(r->a, ids[i]);

		fprintf(f, "%s: ", mr_esc(vi->name));
		if (v->ft_pages) {
			/* both shares are of the variable's first-touched pages (ft_pages): the
			 * thread's and the line's are counted apart, so neither is a share of
			 * the other */
			int tid_part = v->ft_tid_pages != v->ft_pages;
			const char *ft_line = mr_attrib_line(r->a, v->ft_line);

			note_code(notes, ft_line);
			pages_text(r, v->ft_node, v->ft_pages, f);
			report_thread_text(r, v->ft_tid, who, sizeof(who));
			fprintf(f, ", first touched by %s (node %d)", who, v->ft_tid_node);
			if (tid_part)
				fprintf(f, " for %.0f %% of these pages,",
					pct(v->ft_tid_pages, v->ft_pages));
			fprintf(f, " at %s", mr_esc(ft_line));
			if (v->ft_line_pages != v->ft_pages)
				fprintf(f, " for %.0f %% of these pages",
					pct(v->ft_line_pages, v->ft_pages));
			else if (tid_part)
				fprintf(f, " for all of them");
			print_refaults(v, f);
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

		fprintf(f, "%s\n  %-10s", mr_esc(mr_attrib_var(r->a, ids[i])->name), "cpu\\page");
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
	struct text_notes notes = { 0 };

	print_header(r, f);
	print_tables(r, &notes, f);
	report_members_text(r, f);
	report_tiers_text(r, ids, nids, f);
	report_kernel_section(r, f);
	print_first_touch(r, ids, nids, &notes, f);
	if (r->o.matrix)
		print_matrix(r, ids, nids, f);
	print_code_legend(&notes, f);
}

/* dir as one shell word on f: as it is when it holds only characters no shell treats
 * specially, else in single quotes ('\'' for a quote); control characters escaped as the
 * report writes names (mr_esc). */
static void shell_word(const char *dir, FILE *f)
{
	if (*dir && strspn(dir, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789_+-./:,@%=") == strlen(dir)) {
		fprintf(f, "%s", dir);
		return;
	}
	fputc('\'', f);
	for (const char *p = dir; *p; p++) {
		char c[2] = { *p, '\0' };

		fputs(*p == '\'' ? "'\\''" : mr_esc(c), f);
	}
	fputc('\'', f);
}

void report_next_line(FILE *f, const char *dir, const char *more)
{
	const char *end = dir ? dir + strlen(dir) : NULL, *name = end;
	char page[300];

	/* the page's name as `--html RUNDIR` would choose it (report_options.c) */
	while (dir && end > dir + 1 && end[-1] == '/')
		end--;
	for (name = end; dir && name > dir && name[-1] != '/'; name--)
		;
	snprintf(page, sizeof(page), "%.*s.html", dir ? (int)(end - name) : 3, dir ? name : "job");
	fprintf(f, "\nNext: memphis-report report --html ");
	shell_word(page, f);
	fputc(' ', f);
	if (dir)
		shell_word(dir, f);
	else
		fprintf(f, "RUNDIR...");
	fprintf(f, " writes a page with views and placement advice; more here: %s (all options: "
		"--help)\n", more);
}

void report_next_text(const struct report *r, FILE *f)
{
	char more[64];

	snprintf(more, sizeof(more), "%s%s%s--json", r->o.advice ? "" : "--advice, ",
		 r->o.by_line ? "" : "--by line, ", r->o.matrix ? "" : "--matrix, ");
	report_next_line(f, r->o.dir, more);
}
