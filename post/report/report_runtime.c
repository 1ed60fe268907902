/* post/report/report_runtime.c - the runtimes apart in `memphis-report report` (issue 16 item 3):
 * each runtime's own data is one variable (kind "runtime", attrib_runtime.c) that the
 * tables and the variable lists put after the program's variables, whatever its count;
 * samples in a runtime's wait loop are counted by the sample pass (report_stats.wait) and
 * said in the header, in text and JSON, with the program's own waits (issue 41 item 3:
 * its poll loops, pollwait.h). */
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"

static int is_runtime(const struct report *r, uint32_t var)
{
	return mr_attrib_var(r->a, var)->kind == MR_VAR_RUNTIME;
}

/* Move the groups of table t that are runtime variables after the others, each part in
 * its order. */
static void table_runtime_last(const struct report *r, struct mr_agg_table *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->ngroups; i++) {
		struct mr_agg_group g = t->groups[i];

		if (is_runtime(r, g.key))
			continue;
		memmove(&t->groups[k + 1], &t->groups[k], (i - k) * sizeof(g));
		t->groups[k++] = g;
	}
}

void report_runtime_last(struct report *r, uint32_t *ids, size_t n)
{
	size_t k = 0;

	if (!ids) {
		for (size_t i = 0; !r->o.by_line && i < r->tables.ntab; i++)
			table_runtime_last(r, &r->tables.tab[i]);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];

		if (is_runtime(r, id))
			continue;
		memmove(&ids[k + 1], &ids[k], (i - k) * sizeof(id));
		ids[k++] = id;
	}
}

/* Samples in any runtime's wait loop. */
static uint64_t wait_total(const struct report *r)
{
	uint64_t n = 0;

	for (int rt = MR_RT_NONE + 1; rt < MR_RT_COUNT; rt++)
		n += r->st.wait[rt];
	return n;
}

/* Whether the header speaks of runtime wait: a runtime waited, or a runtime that waits
 * for other threads or processes (OpenMP, MPI) is in the run, so that a run whose
 * threads slept while waiting says that it saw no wait. */
static int wait_shown(const struct report *r)
{
	return wait_total(r) || r->pw.total || mr_attrib_runtime_loaded(r->a, MR_RT_OPENMP) ||
	       mr_attrib_runtime_loaded(r->a, MR_RT_MPI);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0.0;
}

#define SHOWN_LOOPS 3

static int var_is_local(const void *arg, uint32_t var)
{
	const struct report *r = arg;

	return mr_attrib_var(r->a, var)->kind == MR_VAR_LOCAL;
}

/* The program's poll loops, most samples first, into l[0 .. SHOWN_LOOPS): returns their
 * count. */
static size_t poll_loops(const struct report *r, struct mr_pollwait_loop *l)
{
	return r->pw.total ? mr_pollwait_loops(&r->pw, var_is_local, r, l, SHOWN_LOOPS) : 0;
}

/* "; program's own waits: 68.0 % in 2 poll loops: 61.2 % at f.c:41, f.c:42 on flag, ..." */
static void own_waits_text(const struct report *r, FILE *f)
{
	struct mr_pollwait_loop l[SHOWN_LOOPS];
	size_t n = poll_loops(r, l);

	if (!n)
		return;
	fprintf(f, "; program's own waits: %.1f %% in %zu poll loop%s", pct(r->pw.total, r->st.total),
		n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < SHOWN_LOOPS; i++) {
		fprintf(f, "%s%.1f %% at ", i ? ", " : ": ", pct(l[i].n, r->st.total));
		for (size_t k = 0; k < 3 && l[i].line[k]; k++)
			fprintf(f, "%s%s", k ? " and " : "", mr_esc(mr_attrib_line(r->a, l[i].line[k])));
		if (l[i].var)
			fprintf(f, " on %s", mr_esc(mr_attrib_var(r->a, l[i].var)->name));
	}
	if (n > SHOWN_LOOPS)
		fprintf(f, ", %zu more", n - SHOWN_LOOPS);
}

void report_runtime_text(const struct report *r, FILE *f)
{
	uint64_t n = wait_total(r);
	char a[32], b[32];
	const char *sep = ": ";

	if (!wait_shown(r))
		return;
	fprintf(f, "runtime wait: %s of %s samples (%.1f %%) in a runtime's wait loop",
		mr_fmt_count(a, n), mr_fmt_count(b, r->st.total), pct(n, r->st.total));
	for (int rt = MR_RT_NONE + 1; rt < MR_RT_COUNT; rt++) {
		if (!r->st.wait[rt])
			continue;
		fprintf(f, "%s%s %.1f %%", sep, mr_runtime_title((enum mr_runtime)rt),
			pct(r->st.wait[rt], r->st.total));
		sep = ", ";
	}
	own_waits_text(r, f);
	fprintf(f, "; threads asleep in a wait (passive waiting) take no samples\n");
}

/* "program": the program's own waits, when it has any. */
static void own_waits_json(const struct report *r, struct mr_json *j)
{
	struct mr_pollwait_loop l[SHOWN_LOOPS];
	size_t n = poll_loops(r, l);

	if (!n)
		return;
	mr_json_key(j, "program");
	mr_json_obj(j);
	mr_json_key(j, "samples");
	mr_json_u64(j, r->pw.total);
	mr_json_key(j, "share");
	mr_json_dbl(j, (double)r->pw.total / (double)r->st.total);
	mr_json_key(j, "poll_loops");
	mr_json_u64(j, n);
	mr_json_key(j, "loops");
	mr_json_arr(j);
	for (size_t i = 0; i < n && i < SHOWN_LOOPS; i++) {
		mr_json_obj(j);
		mr_json_key(j, "samples");
		mr_json_u64(j, l[i].n);
		mr_json_key(j, "lines");
		mr_json_arr(j);
		for (size_t k = 0; k < 3 && l[i].line[k]; k++)
			mr_json_str(j, mr_attrib_line(r->a, l[i].line[k]));
		mr_json_arr_end(j);
		mr_json_key(j, "variable");
		if (l[i].var)
			mr_json_str(j, mr_attrib_var(r->a, l[i].var)->name);
		else
			mr_json_null(j);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
}

void report_runtime_json(const struct report *r, struct mr_json *j)
{
	if (!wait_shown(r))
		return;
	mr_json_key(j, "runtime_wait");
	mr_json_obj(j);
	mr_json_key(j, "samples");
	mr_json_u64(j, wait_total(r));
	mr_json_key(j, "share");
	mr_json_dbl(j, r->st.total ? (double)wait_total(r) / (double)r->st.total : 0.0);
	mr_json_key(j, "by_runtime");
	mr_json_obj(j);
	for (int rt = MR_RT_NONE + 1; rt < MR_RT_COUNT; rt++) {
		if (!r->st.wait[rt])
			continue;
		mr_json_key(j, mr_runtime_key((enum mr_runtime)rt));
		mr_json_u64(j, r->st.wait[rt]);
	}
	mr_json_obj_end(j);
	own_waits_json(r, j);
	mr_json_obj_end(j);
}
