/* post/report/report_json.c - the JSON report: one object of schema memphis-report/1
 * (docs/report-schema.md), written in the order of that document. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"
#include "report_counters.h"

static const char *const mode_name[] = { "remote", "local", "all", "far" };

#define U(k, v) do { mr_json_key(j, k); mr_json_u64(j, v); } while (0)

/* A node index: the number, or null for the unknown node. */
static void json_node(struct mr_json *j, const struct report *r, uint32_t idx)
{
	if (idx == r->nnodes)
		mr_json_null(j);
	else
		mr_json_u64(j, idx);
}

/* Threads the run saw start (THREADS records of kind start, the main thread's included). */
static uint64_t threads_started(const struct mr_run *run)
{
	uint64_t n = 0;

	for (size_t i = 0; i < run->nthreads; i++)
		n += run->threads[i].event == MPH_THREAD_START;
	return n;
}

/* The hardware sampling of a run whose RUN block has hw_period (members only added; none
 * for time-based runs): the period in its unit, the events as encoded, the notes on them,
 * precise_ip, the load-latency threshold and the module's kind, each when the run names
 * it. */
static void json_hw_sampling(struct mr_json *j, const struct report *r)
{
	const struct mr_run *run = r->run;
	struct mr_hw_cov c[16];
	size_t n = report_hw_coverage(r, c, 16);

	static const char *const strs[] = { "hw_period_unit", "hw_events", "hw_notes", "kmod_kind" };
	static const char *const nums[] = { "precise_ip", "ldlat" };

	mr_json_key(j, "hw_period");
	mr_json_u64(j, mr_run_get_u64(run, "hw_period", 0));
	for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
		if (mr_run_get(run, strs[i])) {
			mr_json_key(j, strs[i]);
			mr_json_str(j, mr_run_get(run, strs[i]));
		}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++)
		if (mr_run_get(run, nums[i])) {
			mr_json_key(j, nums[i]);
			mr_json_u64(j, mr_run_get_u64(run, nums[i], 0));
		}
	if (!n)
		return;
	mr_json_key(j, "hw_coverage");
	mr_json_arr(j);
	for (size_t i = 0; i < n; i++) {
		mr_json_obj(j);
		mr_json_key(j, "event");
		mr_json_str(j, c[i].event);
		mr_json_key(j, "enabled_ns");
		mr_json_u64(j, c[i].enabled_ns);
		mr_json_key(j, "running_ns");
		mr_json_u64(j, c[i].running_ns);
		mr_json_key(j, "share");
		mr_json_dbl(j, (double)c[i].running_ns / (double)c[i].enabled_ns);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
}

/* "mpi" of a rank of an MPI job (RUN key mpi_rank; docs/format.md): its RUN keys, and the
 * topology as "NCPUS:node,node,..." (the node of each CPU) that the job report groups
 * ranks by. */
static void json_mpi(struct mr_json *j, const struct mr_run *run)
{
	static const char *const num[] = { "mpi_rank", "mpi_size", "mpi_local_rank",
					   "mpi_local_size" };
	char *topo = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&topo, &len);

	mr_json_key(j, "mpi");
	mr_json_obj(j);
	for (size_t i = 0; i < sizeof(num) / sizeof(num[0]); i++)
		if (mr_run_get(run, num[i])) {
			mr_json_key(j, num[i] + 4);
			mr_json_u64(j, mr_run_get_u64(run, num[i], 0));
		}
	mr_json_key(j, "job_id");
	mr_json_str(j, mr_run_get(run, "job_id"));
	mr_json_key(j, "launcher");
	mr_json_str(j, mr_run_get(run, "launcher"));
	if (f) {
		fprintf(f, "%u:", run->have_topology ? run->ncpus : 0);
		for (uint32_t c = 0; run->have_topology && c < run->ncpus; c++)
			fprintf(f, "%s%d", c ? "," : "", run->cpu_node[c]);
		if (fclose(f))
			topo = NULL;
	}
	mr_json_key(j, "topology");
	mr_json_str(j, topo);
	free(topo);
	mr_json_obj_end(j);
}

/* "run": the RUN keys and what was read. */
static void json_run(struct mr_json *j, const struct report *r)
{
	const struct mr_run *run = r->run;
	static const char *const keys[] = { "exe", "build_id", "cmdline", "hostname", "backend",
					    "backend_why", "weight", "memphis_version",
					    "sampling_error" };

	mr_json_key(j, "run");
	mr_json_obj(j);
	mr_json_key(j, "pid");
	mr_json_u64(j, run->meta_file.pid);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		mr_json_key(j, keys[i]);
		mr_json_str(j, mr_run_get(run, keys[i]));
	}
	mr_json_key(j, "exe_read");
	mr_json_str(j, mr_attrib_exe(r->a));
	mr_json_key(j, "exe_build_id");
	mr_json_str(j, mr_attrib_exe_build_id(r->a));
	mr_json_key(j, "period_ns");
	mr_json_u64(j, mr_run_get_u64(run, "period_ns", 0));
	mr_json_key(j, "weighting");
	mr_json_str(j, report_weighting(mr_run_get(run, "weight")));
	if (mr_run_get_u64(run, "hw_period", 0))
		json_hw_sampling(j, r);
	if (mr_run_get(run, "scope")) { /* soft runs since MEMPHIS_SCOPE, kmod since its scope */
		mr_json_key(j, "scope");
		mr_json_str(j, mr_run_get(run, "scope"));
	}
	mr_json_key(j, "page_size");
	mr_json_u64(j, mr_attrib_page_size(r->a));
	mr_json_key(j, "threads");
	mr_json_u64(j, threads_started(run));
	if (mr_run_get_u64(run, "heap_sample_every", 1) > 1) {
		mr_json_key(j, "heap_sample_below");
		mr_json_u64(j, mr_run_get_u64(run, "heap_sample_below", 0));
		mr_json_key(j, "heap_sample_every");
		mr_json_u64(j, mr_run_get_u64(run, "heap_sample_every", 1));
		mr_json_key(j, "heap_map");
		mr_json_bool(j, mr_run_get_u64(run, "heap_map", 0) != 0);
	}
	if (mr_run_get(run, "mpi_rank"))
		json_mpi(j, run);
	report_place_json(j, r);
	report_nodes_json(j, r);
	mr_json_obj_end(j);
}

/* "via": the runtime function of a caller's line ("cg.c:391 (in memmove)"), if name is one. */
static void json_via(struct mr_json *j, const char *name)
{
	char via[256];

	if (mr_attrib_line_via(name, via, sizeof(via))) {
		mr_json_key(j, "via");
		mr_json_str(j, via);
	}
}

/* "options": the report's options as given. */
static void json_options(struct mr_json *j, const struct report *r)
{
	int is_var = !r->o.by_line;

	mr_json_key(j, "options");
	mr_json_obj(j);
	mr_json_key(j, "mode");
	mr_json_str(j, mode_name[r->o.mode]);
	mr_json_key(j, "by");
	mr_json_str(j, is_var ? "variable" : "line");
	mr_json_key(j, "approx");
	mr_json_bool(j, r->o.approx);
	mr_json_key(j, "top");
	mr_json_u64(j, r->o.top);
	mr_json_key(j, "regions");
	mr_json_arr(j);
	for (size_t i = 0; i < r->o.nregions; i++)
		mr_json_str(j, r->o.regions[i]);
	mr_json_arr_end(j);
	mr_json_obj_end(j);
}

/* "samples" and "nodes". */
static void json_samples(struct mr_json *j, const struct report *r)
{
	mr_json_key(j, "samples");
	mr_json_obj(j);
	U("total", r->st.total);
	U("exact", r->st.exact);
	U("approximate", r->st.approx);
	U("no_address", r->st.noaddr);
	U("non_memory", r->st.nonmem);
	U("fences", r->st.fences);
	U("unclassified", r->st.noflag);
	U("kernel", r->st.kernel);
	U("lost", r->st.lost);
	U("throttled", r->st.throttled);
	U("dropped", r->st.dropped);
	if (r->st.unwritten_ms)
		U("unwritten_max_ms", r->st.unwritten_ms);
	if (r->st.write_error) {
		mr_json_key(j, "write_error");
		mr_json_str(j, r->st.write_error);
	}
	U("attributed", r->st.used);
	if (r->st.self)
		U("in_libmemphis", r->st.self);
	U("remote", r->st.remote);
	U("local", r->st.local);
	if (r->nfar)
		U("far", r->st.far);
	U("unknown_page_node", r->st.unknown_page);
	U("unknown_cpu_node", r->st.unknown_cpu);
	U("other_regions", r->st.other_regions);
	report_runtime_json(r, j);
	report_kernel_json(r, j);
	mr_json_obj_end(j);
	U("nodes", r->nnodes);
}

/* "regions": every region of the run, selected or not. */
static void json_regions(struct mr_json *j, const struct report *r)
{
	const struct mr_run *run = r->run;

	mr_json_key(j, "regions");
	mr_json_arr(j);
	for (size_t i = 0; i < run->nregions; i++) {
		const struct memphis_rec_region *reg = &run->regions[i];
		mr_json_obj(j);
		U("seq", reg->seq);
		mr_json_key(j, "name");
		mr_json_str(j, reg->name);
		mr_json_key(j, "selected");
		mr_json_bool(j, report_region_selected(r, reg->seq));
		U("t_start_ns", reg->t_start);
		U("t_end_ns", reg->t_end);
		U("samples", reg->samples);
		U("lost", reg->lost);
		U("throttled", reg->throttled);
		U("dropped", reg->dropped);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
}

/* The members of a hardware stat (into the open object). */
static void json_hw_members(struct mr_json *j, const struct report *r, const struct mr_hw_stat *st)
{
	U("samples", st->n);
	U("loads", st->loads);
	U("stores", st->stores);
	mr_json_key(j, "sources");
	mr_json_obj(j);
	for (int i = 0; i < MEMPHIS_SRC_COUNT; i++)
		U(mr_hw_src_key(mr_hw_src_order[i]),
		  st->src[0][mr_hw_src_order[i]] + st->src[1][mr_hw_src_order[i]]);
	mr_json_obj_end(j);
	mr_json_key(j, "store_sources");
	mr_json_obj(j);
	for (int i = 0; i < MEMPHIS_SRC_COUNT; i++)
		U(mr_hw_src_key(mr_hw_src_order[i]), st->src[1][mr_hw_src_order[i]]);
	mr_json_obj_end(j);
	U("hitm", st->hitm);
	mr_json_key(j, "latency");
	if (!r->hw_lat) {
		mr_json_null(j);
	} else {
		mr_json_obj(j);
		U("samples", st->lat_n);
		mr_json_key(j, "mean");
		mr_json_dbl(j, mr_hw_lat_mean(st));
		mr_json_key(j, "p90");
		mr_json_dbl(j, mr_hw_lat_pct(st, 90));
		mr_json_obj_end(j);
	}
	U("page_remote", st->page_remote);
	U("hw_remote", st->hw_remote);
	U("hw_remote_disagree", st->disagree);
}

/* "hardware": the data sources of every node's hardware samples (hardware runs only). */
static void json_hardware(struct mr_json *j, const struct report *r)
{
	struct mr_hw_stat st;
	char lbl[32];

	mr_json_key(j, "hardware");
	mr_json_obj(j);
	mr_json_key(j, "latency_is_weight");
	mr_json_bool(j, r->hw_lat);
	mr_json_key(j, "nodes");
	mr_json_arr(j);
	for (uint32_t nd = 0; nd <= r->nnodes; nd++) {
		if (!mr_hwsrc_sum(&r->hw, &r->hw_by_node, nd, MR_HW_ANY, &st))
			continue;
		mr_json_obj(j);
		mr_json_key(j, "node");
		json_node(j, r, nd);
		report_node_label(r, nd, lbl, sizeof(lbl));
		mr_json_key(j, "label");
		mr_json_str(j, lbl);
		json_hw_members(j, r, &st);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
}

/* A line of a variable's hardware samples, merged over nodes. */
struct hw_line {
	const char *name;
	uint32_t line;
	struct mr_hw_stat st;
};

static int hw_line_cmp(const void *x, const void *y)
{
	const struct hw_line *a = x, *b = y;

	if (a->st.n != b->st.n)
		return a->st.n > b->st.n ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* "hardware" of variable id: its data sources over all nodes, and by line (samples
 * descending, then name). */
static void json_var_hardware(struct mr_json *j, const struct report *r, uint32_t id)
{
	struct mr_hw_stat st;
	size_t first, n = mr_hw_order_range(&r->hw_by_var, id, MR_HW_ANY, &first), nl = 0;
	struct hw_line *ls = calloc(n ? n : 1, sizeof(*ls));

	mr_hwsrc_sum(&r->hw, &r->hw_by_var, id, MR_HW_ANY, &st);
	mr_json_key(j, "hardware");
	mr_json_obj(j);
	json_hw_members(j, r, &st);
	for (size_t i = first; i < first + n && ls; i++) {
		uint32_t e = r->hw_by_var.idx[i], line = mr_hwsrc_field(&r->hw, e, MR_HW_LINE);

		if (!nl || ls[nl - 1].line != line) {
			ls[nl].line = line;
			ls[nl++].name = report_key_name(r, 0, line);
		}
		mr_hw_stat_merge(&ls[nl - 1].st, &r->hw.st[e]);
	}
	if (ls)
		qsort(ls, nl, sizeof(*ls), hw_line_cmp);
	mr_json_key(j, "lines");
	mr_json_arr(j);
	for (size_t i = 0; i < nl; i++) {
		mr_json_obj(j);
		mr_json_key(j, "name");
		mr_json_str(j, ls[i].name);
		json_hw_members(j, r, &ls[i].st);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
	free(ls);
}

/* The per-node tables of ts with the --top cut, as an array (hardware figures for the main
 * tables). */
static void json_table_set(struct mr_json *j, const struct report *r,
			   const struct mr_agg_tables *ts)
{
	const struct mr_agg_row *rows = ts->rows;
	const struct mr_agg_table *tab = ts->tab;
	size_t ntab = ts->ntab;
	char lbl[32];
	int is_var = !r->o.by_line, hw = r->hw_shown && ts == &r->tables;

	mr_json_arr(j);
	for (size_t t = 0; t < ntab; t++) {
		const struct mr_agg_table *tb = &tab[t];
		size_t ngroups = r->o.top && tb->ngroups > r->o.top ? r->o.top : tb->ngroups;
		uint64_t rest = 0;

		mr_json_obj(j);
		mr_json_key(j, "node");
		json_node(j, r, tb->node);
		report_node_label(r, tb->node, lbl, sizeof(lbl));
		mr_json_key(j, "label");
		mr_json_str(j, lbl);
		U("total", tb->total);
		mr_json_key(j, "entries");
		mr_json_arr(j);
		for (size_t i = 0; i < ngroups; i++) {
			const struct mr_agg_group *g = &tb->groups[i];
			size_t nitems = r->o.top && g->count > r->o.top ? r->o.top : g->count;
			uint64_t irest = 0;

			mr_json_obj(j);
			U("rank", i + 1);
			mr_json_key(j, "name");
			mr_json_str(j, report_key_name(r, is_var, g->key));
			if (!is_var)
				json_via(j, report_key_name(r, is_var, g->key));
			if (is_var) {
				mr_json_key(j, "kind");
				mr_json_str(j, mr_var_kind_name(mr_attrib_var(r->a, g->key)->kind));
			}
			U("count", g->total);
			if (hw) {
				struct mr_hw_stat st;

				mr_hwsrc_sum(&r->hw, &r->hw_by_node, tb->node, g->key, &st);
				mr_json_key(j, "hardware");
				mr_json_obj(j);
				json_hw_members(j, r, &st);
				mr_json_obj_end(j);
			}
			mr_json_key(j, "items");
			mr_json_arr(j);
			for (size_t k = 0; k < nitems; k++) {
				mr_json_obj(j);
				mr_json_key(j, "name");
				mr_json_str(j, report_key_name(r, !is_var, rows[g->first + k].item));
				if (is_var)
					json_via(j, report_key_name(r, 0, rows[g->first + k].item));
				U("count", rows[g->first + k].n);
				mr_json_obj_end(j);
			}
			mr_json_arr_end(j);
			for (size_t k = nitems; k < g->count; k++)
				irest += rows[g->first + k].n;
			mr_json_key(j, "more");
			mr_json_obj(j);
			U("items", g->count - nitems);
			U("count", irest);
			mr_json_obj_end(j);
			mr_json_obj_end(j);
		}
		mr_json_arr_end(j);
		for (size_t i = ngroups; i < tb->ngroups; i++)
			rest += tb->groups[i].total;
		mr_json_key(j, "more");
		mr_json_obj(j);
		U("entries", tb->ngroups - ngroups);
		U("count", rest);
		mr_json_obj_end(j);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
}

/* "no_remote", "table_mode" and "tables"; after remote tables of a run with far nodes, the
 * far tier's as "far_tables". */
static void json_tables(struct mr_json *j, const struct report *r)
{
	mr_json_key(j, "no_remote");
	mr_json_bool(j, r->no_remote);
	mr_json_key(j, "table_mode");
	mr_json_str(j, mode_name[r->table_mode]);
	mr_json_key(j, "tables");
	json_table_set(j, r, &r->tables);
	if (r->nfar && r->table_mode == MR_AGG_REMOTE) {
		mr_json_key(j, "far_tables");
		json_table_set(j, r, &r->far_tables);
	}
}

/* An array of the entries of the '\n'-separated list c (NULL: empty). */
static void json_list(struct mr_json *j, const char *c)
{
	mr_json_arr(j);
	while (c && *c) {
		const char *nl = strchr(c, '\n');
		size_t len = nl ? (size_t)(nl - c) : strlen(c);
		char *one = strndup(c, len);
		mr_json_str(j, one ? one : "??");
		free(one);
		c += len + (nl != NULL);
	}
	mr_json_arr_end(j);
}

/* "site" of a heap variable: its call site in parts and the callers' functions. */
static void json_site(struct mr_json *j, const struct mr_varinfo *vi)
{
	mr_json_key(j, "site");
	mr_json_obj(j);
	mr_json_key(j, "file");
	mr_json_str(j, vi->site_file);
	U("line", vi->site_line);
	mr_json_key(j, "function");
	mr_json_str(j, vi->site_func);
	mr_json_key(j, "callers");
	json_list(j, vi->site_callers);
	mr_json_key(j, "chain");
	mr_json_str(j, vi->site_chain);
	mr_json_obj_end(j);
}

/* "receiver" of a heap variable named by the variable its pointer is stored in. */
static void json_receiver(struct mr_json *j, const struct mr_varinfo *vi)
{
	mr_json_key(j, "receiver");
	mr_json_obj(j);
	mr_json_key(j, "variable");
	mr_json_str(j, vi->recv_name);
	mr_json_key(j, "how");
	mr_json_str(j, vi->recv_how);
	mr_json_key(j, "via");
	json_list(j, vi->recv_via);
	mr_json_key(j, "from");
	mr_json_str(j, vi->recv_from);
	mr_json_obj_end(j);
}

/* One entry of "variables": what it is, its counts, matrix, pages and first touch. */
static void json_variable(struct mr_json *j, const struct report *r, uint32_t id)
{
	uint32_t w = r->nnodes + 1;

	const struct mr_agg_var *v = &r->agg.vars[id];
	const struct mr_varinfo *vi = mr_attrib_var(r->a, id);
	char who[48];

	mr_json_obj(j);
	mr_json_key(j, "name");
	mr_json_str(j, vi->name);
	if (vi->scope) { /* issue 38: the name's parts, only for a name with a scope */
		mr_json_key(j, "scope");
		mr_json_str(j, vi->scope);
		mr_json_key(j, "base_name");
		mr_json_str(j, vi->base_name);
	}
	mr_json_key(j, "kind");
	mr_json_str(j, mr_var_kind_name(vi->kind));
	mr_json_key(j, "shown");
	mr_json_bool(j, v->shown);
	mr_json_key(j, "decl");
	mr_json_str(j, vi->decl);
	mr_json_key(j, "object");
	mr_json_str(j, vi->object);
	if (vi->kind == MR_VAR_HEAP || vi->kind == MR_VAR_RUNTIME) {
		U("objects", vi->objects);
		U("bytes", vi->bytes);
		if (vi->site_file)
			json_site(j, vi);
		if (vi->recv_name)
			json_receiver(j, vi);
	} else if (vi->kind != MR_VAR_UNKNOWN && vi->kind != MR_VAR_STACK) {
		U("size", vi->bytes);
	}
	U("samples", v->total);
	U("remote", v->remote);
	U("local", v->local);
	if (r->nfar)
		U("far", v->far);
	U("unknown_page_node", v->unknown_page);
	mr_json_key(j, "matrix");
	mr_json_obj(j);
	mr_json_key(j, "rows");
	mr_json_str(j, "node of the sampling CPU (last: unknown)");
	mr_json_key(j, "columns");
	mr_json_str(j, "home node of the page (last: unknown)");
	mr_json_key(j, "counts");
	mr_json_arr(j);
	for (uint32_t s = 0; s < w; s++)
		mr_json_u64_array(j, &v->matrix[s * w], w);
	mr_json_arr_end(j);
	mr_json_obj_end(j);
	mr_json_key(j, "sampled_pages");
	mr_json_obj(j);
	U("total", v->pages);
	mr_json_key(j, "by_node");
	mr_json_u64_array(j, v->pages_node, w);
	mr_json_obj_end(j);
	mr_json_key(j, "first_touch");
	if (!v->ft_pages) {
		mr_json_null(j);
	} else {
		mr_json_obj(j);
		U("pages", v->ft_pages);
		U("distinct_pages", v->ft_distinct);
		U("refaults", v->ft_refaults);
		mr_json_key(j, "by_node");
		mr_json_u64_array(j, v->ft_node, w);
		report_thread_text(r, v->ft_tid, who, sizeof(who));
		mr_json_key(j, "thread");
		mr_json_str(j, who);
		mr_json_key(j, "thread_index");
		if (mr_attrib_thread_index(r->a, v->ft_tid) >= 0)
			mr_json_i64(j, mr_attrib_thread_index(r->a, v->ft_tid));
		else
			mr_json_null(j);
		U("tid", v->ft_tid);
		mr_json_key(j, "thread_node");
		mr_json_i64(j, v->ft_tid_node);
		U("thread_pages", v->ft_tid_pages);
		mr_json_key(j, "line");
		mr_json_str(j, mr_attrib_line(r->a, v->ft_line));
		json_via(j, mr_attrib_line(r->a, v->ft_line));
		U("line_pages", v->ft_line_pages);
		mr_json_obj_end(j);
	}
	if (r->hw_shown)
		json_var_hardware(j, r, id);
	if (r->o.pattern)
		report_pattern_json(j, r, id);
	report_members_json(j, r, id);
	mr_json_obj_end(j);
}

/* One line of "lines": its samples and matrix, counted from cells c[0 .. n) (all of that
 * line); m is scratch of (nnodes + 1)^2 entries. */
static void json_line(struct mr_json *j, const struct report *r, const struct mr_agg_cell *c,
		      size_t n, uint64_t *m)
{
	uint32_t w = r->nnodes + 1;
	uint64_t total = 0;

	memset(m, 0, (size_t)w * w * sizeof(*m));
	for (size_t i = 0; i < n; i++) {
		m[c[i].cpu_node * w + c[i].page_node] += c[i].n;
		total += c[i].n;
	}
	mr_json_obj(j);
	mr_json_key(j, "name");
	mr_json_str(j, report_key_name(r, 0, c[0].line));
	json_via(j, report_key_name(r, 0, c[0].line));
	U("samples", total);
	mr_json_key(j, "counts");
	mr_json_arr(j);
	for (uint32_t s = 0; s < w; s++)
		mr_json_u64_array(j, &m[s * w], w);
	mr_json_arr_end(j);
	mr_json_obj_end(j);
}

/* Cells by line id, then anything (qsort). */
static int cell_by_line(const void *x, const void *y)
{
	const struct mr_agg_cell *a = x, *b = y;

	return (a->line > b->line) - (a->line < b->line);
}

/* Lines (runs of cells: first cell index, count, samples) by samples descending, then name. */
struct line_run {
	size_t first, n;
	uint64_t total;
	uint32_t line;
};

static int run_order(const void *x, const void *y, void *rep)
{
	const struct line_run *a = x, *b = y;
	const struct report *r = rep;

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	return strcmp(report_key_name(r, 0, a->line), report_key_name(r, 0, b->line));
}

/* "lines" (--by line only): every source line with attributed samples, by samples
 * descending, each with its node x node matrix as a variable has (what compare --by line
 * reads). Out of memory: the member is written empty. */
static void json_lines(struct mr_json *j, const struct report *r)
{
	uint32_t w = r->nnodes + 1;
	size_t n = r->agg.ncells, nruns = 0;
	struct mr_agg_cell *c = n ? malloc(n * sizeof(*c)) : NULL;
	struct line_run *runs = n ? malloc(n * sizeof(*runs)) : NULL;
	uint64_t *m = calloc((size_t)w * w, sizeof(*m));

	mr_json_key(j, "lines");
	mr_json_arr(j);
	if (n && c && runs && m) {
		memcpy(c, r->agg.cells, n * sizeof(*c));
		qsort(c, n, sizeof(*c), cell_by_line);
		for (size_t i = 0; i < n; i++) {
			if (!nruns || runs[nruns - 1].line != c[i].line)
				runs[nruns++] = (struct line_run){ i, 0, 0, c[i].line };
			runs[nruns - 1].n++;
			runs[nruns - 1].total += c[i].n;
		}
		qsort_r(runs, nruns, sizeof(*runs), run_order, (void *)r);
		for (size_t i = 0; i < nruns; i++)
			json_line(j, r, c + runs[i].first, runs[i].n, m);
	}
	mr_json_arr_end(j);
	free(c);
	free(runs);
	free(m);
}

/* "warnings" and "damage" of the run. */
static void json_problems(struct mr_json *j, const struct report *r)
{
	const struct mr_run *run = r->run;

	mr_json_key(j, "warnings");
	mr_json_arr(j);
	for (size_t i = 0; i < run->nwarnings; i++)
		mr_json_str(j, run->warnings[i]);
	mr_json_arr_end(j);
	mr_json_key(j, "damage");
	mr_json_arr(j);
	for (size_t i = 0; i < run->ndamage; i++)
		mr_json_str(j, run->damage[i]);
	mr_json_arr_end(j);
}

void report_print_json(const struct report *r, const uint32_t *ids, size_t nids, FILE *f)
{
	struct mr_json json, *j = &json;

	mr_json_init(j, f);
	mr_json_obj(j);
	mr_json_key(j, "schema");
	mr_json_str(j, MR_JSON_SCHEMA);
	mr_json_key(j, "rundir");
	mr_json_str(j, r->run->dir);
	json_run(j, r);
	json_options(j, r);
	json_samples(j, r);
	json_regions(j, r);
	json_tables(j, r);
	if (r->hw_shown)
		json_hardware(j, r);
	mr_json_key(j, "variables");
	mr_json_arr(j);
	for (size_t i = 0; i < nids; i++)
		json_variable(j, r, ids[i]);
	mr_json_arr_end(j);
	report_tiers_json(j, r, ids, nids);
	if (r->o.by_line)
		json_lines(j, r);
	report_counters_json(j, r);
	report_threads_json(j, r);
	json_problems(j, r);
	mr_json_obj_end(j);
}
