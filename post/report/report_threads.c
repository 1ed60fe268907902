/* post/report/report_threads.c - the threads' CPU time in the selected regions beside their
 * samples (meta.mph's THREAD_CPU and LOSS records: the process's time per region, and that
 * of each thread that started in a region), and the warning when threads shorter than one
 * sampling period took a measurable share of it: per-thread sampling (MEMPHIS_SCOPE
 * thread, the default for non-root users and MPI ranks) samples a thread only once it ran
 * a whole period of CPU time, so 2,000 threads of 0.3 ms each at the 1 ms default are all
 * but invisible.
 *
 * The rule (memphis-report(1), OUTPUT): a thread is short in a region when it started in
 * it, ran less than one period of CPU time there and got no sample; the warning is given
 * when the short threads' CPU time is at least 5 % of the process's CPU time in the
 * selected regions of a run sampled per thread with a period in time. 5 %: the share of a
 * variable the tables show is about that precise at the sample counts a region typically
 * has, so less than that missing moves no conclusion, and more may hide a variable. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report_impl.h"
#include "u64map.h"

#define SHORT_SHARE_WARN 0.05

struct thread_time {
	uint32_t tid;
	bool cpu_known;     /* a THREAD_CPU record of a selected region names it: it started
			     * in that region */
	uint64_t cpu_ns;    /* in the selected regions it started in */
	uint64_t samples;   /* its LOSS records' samples over the selected regions */
	uint64_t short_ns;  /* its CPU time in regions where it was short */
	bool is_short;      /* short in some region */
};

struct threads {
	struct thread_time *t;
	size_t n;
	uint64_t cpu_ns;           /* the process's (THREAD_CPU tid 0), else the threads' */
	uint64_t started_ns;       /* the threads' that started in a region */
	size_t nstarted;
	uint64_t short_ns;         /* the short ones' */
	size_t nshort;             /* threads short in some region */
	uint64_t period_ns;        /* 0: not a period in time */
	bool per_thread;           /* RUN scope=thread */
};

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int by_index(const void *x, const void *y, void *arg)
{
	const struct report *r = arg;
	const struct thread_time *a = x, *b = y;
	int ia = mr_attrib_thread_index(r->a, a->tid), ib = mr_attrib_thread_index(r->a, b->tid);

	/* known indexes first, in order; then by tid */
	if ((ia < 0) != (ib < 0))
		return ia < 0 ? 1 : -1;
	if (ia != ib)
		return ia < ib ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

/* The entry of tid in th (added when new), NULL when out of memory. */
static struct thread_time *entry(struct threads *th, struct mph_u64map *pos, uint32_t tid)
{
	uint64_t *p = mph_u64map_get(pos, tid);

	if (p)
		return &th->t[*p];
	if (!mph_u64map_put(pos, tid, th->n))
		return NULL;
	th->t[th->n] = (struct thread_time){ .tid = tid };
	return &th->t[th->n++];
}

/* The threads' CPU time and samples over the selected regions into th (th->n 0 when the
 * run has no THREAD_CPU record). 0 or -ENOMEM. */
static int build(const struct report *r, struct threads *th)
{
	const struct mr_run *run = r->run;
	const char *scope = mr_run_get(run, "scope");
	struct mph_u64map pos = { 0 }, by_key = { 0 }; /* tid -> entry; region,tid -> samples */
	int rc = -ENOMEM;

	memset(th, 0, sizeof(*th));
	th->period_ns = mr_run_get_u64(run, "period_ns", 0);
	th->per_thread = scope && !strcmp(scope, "thread");
	if (!run->nthread_cpu)
		return 0;
	th->t = calloc(run->nthread_cpu + run->nlosses + 1, sizeof(*th->t));
	if (!th->t || mph_u64map_init(&pos, 64) || mph_u64map_init(&by_key, run->nlosses + 1))
		goto out;
	for (size_t i = 0; i < run->nlosses; i++) {
		const struct memphis_rec_loss *l = &run->losses[i];
		struct thread_time *t;
		uint64_t *s;

		if (!report_region_selected(r, l->region) || !l->samples ||
		    ((uint64_t)l->region << 32 | l->tid) == MPH_U64MAP_EMPTY)
			continue;
		if (!(s = mph_u64map_put(&by_key, (uint64_t)l->region << 32 | l->tid, 0)) ||
		    !(t = entry(th, &pos, l->tid)))
			goto out;
		*s = add_sat(*s, l->samples);
		t->samples = add_sat(t->samples, l->samples);
	}
	for (size_t i = 0; i < run->nthread_cpu; i++) {
		const struct memphis_rec_thread_cpu *c = &run->thread_cpu[i];
		uint64_t key = (uint64_t)c->region << 32 | c->tid;
		uint64_t *s = key != MPH_U64MAP_EMPTY ? mph_u64map_get(&by_key, key) : NULL;
		struct thread_time *t;

		if (!report_region_selected(r, c->region))
			continue;
		if (c->tid == 0) {
			th->cpu_ns = add_sat(th->cpu_ns, c->cpu_ns);
			continue;
		}
		if (!(t = entry(th, &pos, c->tid)))
			goto out;
		th->nstarted += !t->cpu_known;
		t->cpu_known = true;
		t->cpu_ns = add_sat(t->cpu_ns, c->cpu_ns);
		th->started_ns = add_sat(th->started_ns, c->cpu_ns);
		if (th->period_ns && c->cpu_ns < th->period_ns && !(s && *s)) {
			th->nshort += !t->is_short;
			t->is_short = true;
			t->short_ns = add_sat(t->short_ns, c->cpu_ns);
			th->short_ns = add_sat(th->short_ns, c->cpu_ns);
		}
	}
	if (th->cpu_ns < th->started_ns) /* no process record (or a hostile one) */
		th->cpu_ns = th->started_ns;
	qsort_r(th->t, th->n, sizeof(*th->t), by_index, (void *)r);
	rc = 0;
out:
	mph_u64map_free(&pos);
	mph_u64map_free(&by_key);
	if (rc) {
		free(th->t);
		memset(th, 0, sizeof(*th));
	}
	return rc;
}

/* Should the report warn of th's short threads (the rule above)? */
static bool warn(const struct threads *th)
{
	return th->per_thread && th->period_ns && th->cpu_ns &&
	       (double)th->short_ns >= SHORT_SHARE_WARN * (double)th->cpu_ns;
}

void report_threads_check(const struct report *r)
{
	struct threads th;
	char a[32];

	if (build(r, &th) || !warn(&th))
		goto out;
	mr_run_add_warning(r->run, "%s thread%s ran less than one sampling period (%.3g ms) of "
			   "CPU time in a region and got no sample there: %.1f ms, %.1f %% of the "
			   "process's CPU time in the regions, is in no figure of this report (a "
			   "thread sampled per thread is sampled only once it ran a whole period: "
			   "MEMPHIS_SCOPE=cpu, where allowed, or a shorter MEMPHIS_PERIOD samples "
			   "them)", mr_fmt_count(a, th.nshort), th.nshort == 1 ? "" : "s",
			   (double)th.period_ns / 1e6, (double)th.short_ns / 1e6,
			   100.0 * (double)th.short_ns / (double)th.cpu_ns);
out:
	free(th.t);
}

void report_threads_text(const struct report *r, FILE *f)
{
	struct threads th;
	char a[32], b[32];

	if (build(r, &th) || !th.cpu_ns)
		goto out;
	fprintf(f, "threads: the process ran %.1f ms of CPU time in the regions",
		(double)th.cpu_ns / 1e6);
	if (th.nstarted)
		fprintf(f, ", %s thread%s that started there %.1f ms of it",
			mr_fmt_count(a, th.nstarted), th.nstarted == 1 ? "" : "s",
			(double)th.started_ns / 1e6);
	if (th.per_thread && th.period_ns)
		fprintf(f, "; %s ran less than one period (%.3g ms) in a region and got no sample "
			"there: %.1f ms, %.1f %%", mr_fmt_count(b, th.nshort),
			(double)th.period_ns / 1e6, (double)th.short_ns / 1e6,
			th.cpu_ns ? 100.0 * (double)th.short_ns / (double)th.cpu_ns : 0.0);
	fprintf(f, "\n");
out:
	free(th.t);
}

void report_threads_json(struct mr_json *j, const struct report *r)
{
	struct threads th;
	char who[48];

	if (build(r, &th) || !th.cpu_ns)
		goto out;
	mr_json_key(j, "thread_time");
	mr_json_obj(j);
	mr_json_key(j, "period_ns");
	if (th.period_ns)
		mr_json_u64(j, th.period_ns);
	else
		mr_json_null(j);
	mr_json_key(j, "per_thread");
	mr_json_bool(j, th.per_thread);
	mr_json_key(j, "cpu_ns");
	mr_json_u64(j, th.cpu_ns);
	mr_json_key(j, "started_threads");
	mr_json_u64(j, th.nstarted);
	mr_json_key(j, "started_cpu_ns");
	mr_json_u64(j, th.started_ns);
	mr_json_key(j, "short_threads");
	mr_json_u64(j, th.nshort);
	mr_json_key(j, "short_cpu_ns");
	mr_json_u64(j, th.short_ns);
	mr_json_key(j, "warned");
	mr_json_bool(j, warn(&th));
	mr_json_key(j, "threads");
	mr_json_arr(j);
	for (size_t i = 0; i < th.n; i++) {
		const struct thread_time *t = &th.t[i];
		int idx = mr_attrib_thread_index(r->a, t->tid);

		report_thread_text(r, t->tid, who, sizeof(who));
		mr_json_obj(j);
		mr_json_key(j, "tid");
		mr_json_u64(j, t->tid);
		mr_json_key(j, "thread");
		mr_json_str(j, who);
		mr_json_key(j, "index");
		if (idx >= 0)
			mr_json_i64(j, idx);
		else
			mr_json_null(j);
		mr_json_key(j, "cpu_ns");
		if (t->cpu_known)
			mr_json_u64(j, t->cpu_ns);
		else
			mr_json_null(j);
		mr_json_key(j, "samples");
		mr_json_u64(j, t->samples);
		mr_json_key(j, "short_cpu_ns");
		mr_json_u64(j, t->short_ns);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
out:
	free(th.t);
}
