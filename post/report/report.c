/* post/report/report.c - `memphis-report report`: per NUMA node, the variables whose accesses
 * were remote, each with its file:line breakdown (the paper's Figure 5), a first-touch
 * section, node x node matrices, as text or JSON (docs/report-schema.md).
 *
 * This file runs the command: open the run and its attribution, stream every sample once
 * through the attribution into the aggregate (report_pass.c, aggregate.c), then print
 * (report_text.c, report_json.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "report_impl.h"
#include "report_counters.h"

/* Loss figures of the selected regions: the REGION record, or the LOSS records summed
 * when they say more. */
static void losses(struct report *r)
{
	const struct mr_run *run = r->run;
	/* a region's LOSS records summed, lost and throttled, by index (NULL when out of
	 * memory: the REGION records' counts alone) */
	uint64_t *sum = calloc(2 * run->nregions + 1, sizeof(*sum));

	for (size_t k = 0; k < run->nlosses; k++) {
		const struct memphis_rec_region *reg = mr_run_region(run, run->losses[k].region);

		if (reg && sum) {
			sum[2 * (size_t)(reg - run->regions)] += run->losses[k].lost;
			sum[2 * (size_t)(reg - run->regions) + 1] += run->losses[k].throttled;
		} else if (!reg && !r->region_sel) {
			/* LOSS records of regions that never got a REGION record */
			r->st.lost += run->losses[k].lost;
			r->st.throttled += run->losses[k].throttled;
		}
	}
	for (size_t i = 0; i < run->nregions; i++) {
		const struct memphis_rec_region *reg = &run->regions[i];
		uint64_t l = sum ? sum[2 * i] : 0, t = sum ? sum[2 * i + 1] : 0;

		if (!report_region_selected(r, reg->seq))
			continue;
		r->st.lost += reg->lost > l ? reg->lost : l;
		r->st.throttled += reg->throttled > t ? reg->throttled : t;
		r->st.dropped += reg->dropped;
		r->st.recorded += reg->samples;
	}
	free(sum);
	/* No END in meta.mph: the library stopped writing after a write error (it leaves a
	 * note when it can), or the process ended without the library's shutdown (_exit,
	 * abort, a fatal signal, a kill), so what it still buffered was never written. */
	r->st.write_error = mr_run_write_error(run);
	if (!run->meta_clean_end && !r->st.write_error)
		r->st.unwritten_ms = (mr_run_get_u64(run, "unwritten_max_ns", 1100000000ull) +
				      999999) / 1000000;
}

/* mr_agg_first_touches' reader. */
static void get_touch(void *arg, size_t i, struct mr_agg_touch *out)
{
	report_touch(arg, i, out);
}

/* After the sample pass: is this a hardware run (a hardware sample attributed, or RUN
 * weight=latency)? Then the orders its tables read. Returns false when out of memory. */
static bool hw_prepare(struct report *r)
{
	const char *w = mr_run_get(r->run, "weight");

	r->hw_shown = r->hw.total > 0 || (w && !strcmp(w, "latency"));
	r->hw_lat = !w || strcmp(w, "count") != 0;
	if (!r->hw_shown)
		return true;
	return !mr_hw_order_init(&r->hw_by_node, &r->hw, MR_HW_NODE,
				 r->o.by_line ? MR_HW_LINE : MR_HW_VAR) &&
	       !mr_hw_order_init(&r->hw_by_var, &r->hw, MR_HW_VAR, MR_HW_LINE);
}

/* mr_pattern_in's region test. */
static int region_selected(const void *arg, uint32_t seq)
{
	return report_region_selected(arg, seq);
}

/* The second passes over the shown variables among ids[0 .. n): --pattern's patterns into
 * r->pat, --by member's members into r->mem. Returns false when out of memory. */
static bool second_passes(struct report *r, const uint32_t *ids, size_t n)
{
	struct mr_pattern_in in = { r->run, r->a, r->nnodes, r->cpu_node,
				    MPH_S_EXACT | (r->o.approx ? MPH_S_APPROX : 0),
				    region_selected, r };
	uint32_t *shown = malloc((n ? n : 1) * sizeof(*shown));
	size_t k = 0;
	int rc = 0;

	if (!shown)
		return false;
	for (size_t i = 0; i < n; i++)
		if (r->agg.vars[ids[i]].shown)
			shown[k++] = ids[i];
	if (r->o.pattern)
		rc = mr_pattern_build(&r->pat, &in, shown, k);
	if (!rc && r->o.by_member)
		rc = mr_members_build(&r->mem, &in, shown, k);
	free(shown);
	return rc == 0;
}

/* Are a and b the same open file (a terminal both, or 2>&1 into one file)? */
static bool same_file(FILE *a, FILE *b)
{
	struct stat sa, sb;
	int fa = fileno(a), fb = fileno(b);

	return fa >= 0 && fb >= 0 && fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Everything after the options: open, count, print on out. Returns the exit status. */
static int run_report(struct report *r, FILE *out)
{
	struct mr_attrib_opts ao = { .exe = r->o.exe, .force = r->o.force };
	uint32_t *ids;
	size_t nids = 0;
	char err[1024];
	int rc;

	if (r->o.open_lock)
		pthread_mutex_lock(r->o.open_lock);
	r->run = mr_open_run(r->o.dir);
	if (r->run)
		report_kernel_load(r);
	rc = !r->run ? -ENOENT : mr_attrib_open(r->run, &ao, &r->a, err, sizeof(err));
	if (r->o.open_lock)
		pthread_mutex_unlock(r->o.open_lock);
	if (!r->run)
		return MR_EXIT_DATA;
	if (rc < 0)
		return mr_error(MR_EXIT_DATA, "%s", err);
	mr_run_drop_heap_records(r->run); /* indexed now: memory back for the sample pass */
	if (!report_select_regions(r, &rc))
		return rc;
	r->nnodes = r->run->have_topology && r->run->nnodes ? r->run->nnodes : 1;
	rc = mr_agg_init(&r->agg, r->nnodes);
	if (!rc && (mr_pollwait_init(&r->pw) || mr_ktime_init(&r->kt)))
		rc = -ENOMEM;
	report_kernel_wait(r);
	if (rc)
		return mr_error(MR_EXIT_DATA, "%s", rc == -E2BIG ? "too many nodes" : "out of memory");
	if (mr_hwsrc_init(&r->hw))
		return mr_error(MR_EXIT_DATA, "out of memory");
	if (!report_sample_pass(r))
		return MR_EXIT_DATA;
	if (!hw_prepare(r))
		return mr_error(MR_EXIT_DATA, "out of memory");
	losses(r);
	report_threads_check(r);
	if (mr_agg_finish(&r->agg, mr_attrib_nvars(r->a)) ||
	    mr_agg_first_touches(&r->agg, r->run->ntouches, get_touch, r))
		return mr_error(MR_EXIT_DATA, "out of memory");
	for (size_t i = 0; r->nfar && i < r->agg.nvars; i++)
		r->st.far += r->agg.vars[i].far;
	r->st.remote -= r->st.far; /* the pass counted them remote */
	r->table_mode = r->o.mode;
	if (r->o.mode == MR_AGG_REMOTE && r->st.remote + r->st.far == 0) {
		r->no_remote = 1;
		r->table_mode = MR_AGG_ALL;
	}
	if (mr_agg_tables(&r->agg, r->table_mode, r->o.by_line, report_key_name, r, &r->tables) ||
	    (r->nfar && r->table_mode == MR_AGG_REMOTE &&
	     mr_agg_tables(&r->agg, MR_AGG_FAR, r->o.by_line, report_key_name, r, &r->far_tables)))
		return mr_error(MR_EXIT_DATA, "out of memory");
	report_runtime_last(r, NULL, 0);
	mr_agg_mark_shown(&r->agg, &r->tables, r->o.by_line, r->o.top);
	mr_agg_mark_shown(&r->agg, &r->far_tables, r->o.by_line, r->o.top);
	/* JSON lists every variable with samples, text the shown ones */
	ids = mr_agg_var_order(&r->agg, r->o.json, report_key_name, r, &nids);
	if (!ids)
		return mr_error(MR_EXIT_DATA, "out of memory");
	report_runtime_last(r, ids, nids);
	if ((r->o.pattern || r->o.by_member) && !second_passes(r, ids, nids)) {
		free(ids);
		return mr_error(MR_EXIT_DATA, "out of memory");
	}
	if (r->o.format == REPORT_PPROF || r->o.format == REPORT_TRACE) {
		rc = r->o.format == REPORT_PPROF ? report_write_pprof(r, ids, nids)
						 : report_write_trace(r, ids, nids);
		free(ids);
		mr_print_problems(r->run, stderr, "memphis-report: ");
		return rc != MR_EXIT_OK ? rc : r->run->ndamage ? MR_EXIT_DATA : MR_EXIT_OK;
	}
	if (r->o.json) {
		report_print_json(r, ids, nids, out);
	} else {
		report_print_text(r, ids, nids, out);
		report_counters_text(r, out); /* after the tables: only runs with counters */
		if (r->run->nwarnings || r->run->ndamage) {
			fprintf(out, "\n");
			mr_print_problems(r->run, out, "");
		}
		report_next_text(r, out);
	}
	free(ids);
	fflush(out);
	/* the body has them already where the reader sees both as one (a terminal, 2>&1) */
	if (!r->o.json && !same_file(out, stderr))
		mr_print_problems(r->run, stderr, "memphis-report: ");
	return r->run->ndamage ? MR_EXIT_DATA : MR_EXIT_OK;
}

/* Release what run_report left in r (not r->o). */
static void report_free(struct report *r)
{
	mr_agg_tables_free(&r->tables);
	mr_agg_tables_free(&r->far_tables);
	mr_pattern_free(&r->pat);
	mr_members_free(&r->mem);
	mr_xcells_free(&r->x);
	mr_pollwait_free(&r->pw);
	mr_ktime_free(&r->kt);
	report_kernel_wait(r);
	mr_kallsyms_free(&r->ksyms);
	mr_agg_free(&r->agg);
	mr_hw_order_free(&r->hw_by_node);
	mr_hw_order_free(&r->hw_by_var);
	mr_hwsrc_free(&r->hw);
	free(r->region_sel);
	free(r->cpu_node);
	free(r->far);
	mr_attrib_close(r->a);
	mr_run_close(r->run);
}

int report_run(const struct report_opts *o, FILE *out)
{
	struct report r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.o = *o;
	rc = run_report(&r, out);
	report_free(&r);
	return rc;
}
