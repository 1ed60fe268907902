/* post/report/report_trace.c - --format trace: the Chrome trace event JSON of a run
 * (docs/export.md), the "JSON Object Format" that Perfetto (ui.perfetto.dev), chrome://tracing
 * and speedscope read: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}.
 *
 * One process (the run's pid), one track per thread. "ts" and "dur" are microseconds since
 * the run's start (the FILE block's start_time, CLOCK_MONOTONIC; otherData.start_ns), written
 * to the nanosecond (three decimals), so slices computed from the same nanoseconds nest
 * exactly. The events, in this order:
 *   M  process_name "EXE", thread_name "thread K", thread_sort_index (the viewers add
 *      the pid and tid to the names)
 *   X  each selected region occurrence on each thread alive in it, from the later of the
 *      two starts to the earlier of the two ends; no args: speedscope names a frame by its
 *      name and args, so a region's occurrences would be as many frames
 *   C  each shown variable: "remote % VAR" (the remote share of its samples whose two
 *      nodes are known) and "samples VAR" (remote, local) over the time bins of r->x
 *   i  first touches on the touching thread, one per (thread, variable, line, page node,
 *      time bin); page migrations on the process, one per (PAGES snapshot, from node, to
 *      node, variable)
 * The counts are the report's sample pass's (r->x: xcells.h): otherData.samples holds their
 * sums (attributed, remote, local), the JSON report's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <memphis.h>

#include "base/err.h"
#include "base/outfile.h"
#include "base/json.h"
#include "report_impl.h"
#include "u64map.h"

/* A thread of the trace: from THREADS, or known only from its samples or first touches. */
struct tthread {
	uint32_t tid;
	int index;           /* thread index (THREADS), -1 unknown */
	uint64_t start, end; /* alive in [start, end): its START and EXIT records, else all */
};

/* A region slice's counts: samples of one thread in one region. */
struct tsums {
	uint64_t n, remote, local, far;
};

/* An instant event that stands for several records: the records sharing key k (compared
 * in order), the earliest one's time and their count (pages). */
struct tinst {
	uint64_t k[5];
	uint64_t time, count;
};

/* A growing array of tinst, merged by key. */
struct tinsts {
	struct tinst *v;
	size_t n, cap;
};

struct trace {
	struct report *r;
	struct mr_json j;
	uint64_t t0;            /* the run's start: ts 0 */
	uint32_t pid, main_tid; /* the process; its main thread (the counters' tid) */
	size_t nevents;
	struct tthread *th;     /* by index, then tid */
	size_t nth, capth;
	struct mph_u64map th_by_tid; /* tid -> slot in th (before the sort only) */
	struct mph_u64map sums_at;   /* tid << 32 | region seq -> index into sums */
	struct tsums *sums;
	size_t nsums, capsums;
	uint64_t unplaced;      /* samples of a region without a REGION record: in no slice */
};

/* ---- threads ---- */

/* The slot of tid in t->th, added (alive throughout) when new. NULL when out of memory. */
static struct tthread *thread_get(struct trace *t, uint32_t tid)
{
	uint64_t *slot = mph_u64map_put(&t->th_by_tid, tid, t->nth);

	if (!slot)
		return NULL;
	if (*slot < t->nth)
		return &t->th[*slot];
	if (t->nth == t->capth) {
		size_t cap = t->capth ? t->capth * 2 : 16;
		struct tthread *nt = realloc(t->th, cap * sizeof(*nt));

		if (!nt)
			return NULL;
		t->th = nt;
		t->capth = cap;
	}
	t->th[t->nth] = (struct tthread){ tid, mr_attrib_thread_index(t->r->a, tid), 0, UINT64_MAX };
	return &t->th[t->nth++];
}

static int thread_cmp(const void *pa, const void *pb)
{
	const struct tthread *a = pa, *b = pb;
	/* known indexes first, in order; then the others by tid */
	uint64_t ka = a->index >= 0 ? (uint64_t)a->index : (1ull << 32) + a->tid;
	uint64_t kb = b->index >= 0 ? (uint64_t)b->index : (1ull << 32) + b->tid;

	return ka < kb ? -1 : ka > kb;
}

/* Every thread: THREADS' (alive from its START to its EXIT record), then those only the
 * samples or first touches name (alive throughout). 0 or -ENOMEM. */
static int threads_collect(struct trace *t)
{
	const struct mr_run *run = t->r->run;
	const struct mr_xcells *x = &t->r->x;

	for (size_t i = 0; i < run->nthreads; i++) {
		const struct memphis_rec_thread *rec = &run->threads[i];
		struct tthread *th = thread_get(t, rec->tid);

		if (!th)
			return -ENOMEM;
		if (rec->event == MPH_THREAD_START && (th->start == 0 || rec->time < th->start))
			th->start = rec->time;
		else if (rec->event == MPH_THREAD_EXIT)
			th->end = th->end == UINT64_MAX || rec->time > th->end ? rec->time : th->end;
	}
	for (size_t i = 0; x->slot && i <= x->mask; i++)
		if (x->slot[i].n && !thread_get(t, x->slot[i].tid))
			return -ENOMEM;
	for (size_t i = 0; i < run->ntouches; i++)
		if (!thread_get(t, run->touches[i].tid))
			return -ENOMEM;
	for (size_t i = 0; i < t->nth; i++)
		if (t->th[i].end < t->th[i].start) /* an exit before a (tid reused) start */
			t->th[i].end = UINT64_MAX;
	qsort(t->th, t->nth, sizeof(*t->th), thread_cmp);
	for (size_t i = 0; i < t->nth; i++)
		if (t->th[i].index == 0)
			t->main_tid = t->th[i].tid;
	return 0;
}

/* ---- the sample counts per (thread, region) ---- */

static int sums_collect(struct trace *t)
{
	const struct mr_xcells *x = &t->r->x;
	uint32_t nnodes = t->r->nnodes;

	for (size_t i = 0; x->slot && i <= x->mask; i++) {
		const struct mr_xcell *c = &x->slot[i];
		uint64_t *at;
		struct tsums *s;
		enum mr_xclass cls;

		if (!c->n)
			continue;
		at = mph_u64map_put(&t->sums_at, (uint64_t)c->tid << 32 | c->region, t->nsums);
		if (!at)
			return -ENOMEM;
		if (*at == t->nsums) {
			if (t->nsums == t->capsums) {
				size_t cap = t->capsums ? t->capsums * 2 : 64;
				struct tsums *ns = realloc(t->sums, cap * sizeof(*ns));

				if (!ns)
					return -ENOMEM;
				t->sums = ns;
				t->capsums = cap;
			}
			t->sums[t->nsums++] = (struct tsums){ 0 };
		}
		s = &t->sums[*at];
		cls = mr_xclass_of(c->cpu_node, c->page_node, nnodes, t->r->agg.far);
		s->n += c->n;
		s->remote += cls == MR_X_REMOTE ? c->n : 0;
		s->local += cls == MR_X_LOCAL ? c->n : 0;
		s->far += cls == MR_X_FAR ? c->n : 0;
		if (!mr_run_region(t->r->run, c->region))
			t->unplaced += c->n;
	}
	return 0;
}

static struct tsums sums_of(const struct trace *t, uint32_t tid, uint32_t seq)
{
	const uint64_t *at = mph_u64map_get(&t->sums_at, (uint64_t)tid << 32 | seq);

	return at ? t->sums[*at] : (struct tsums){ 0 };
}

/* ---- aggregated instant events ---- */

static int tinst_cmp(const void *pa, const void *pb)
{
	const struct tinst *a = pa, *b = pb;

	for (int i = 0; i < 5; i++)
		if (a->k[i] != b->k[i])
			return a->k[i] < b->k[i] ? -1 : 1;
	return 0;
}

/* Count `count` records of key k at time `time`: into the last entry when it has the same
 * key (a memset's run of page faults), else a new one. 0 or -ENOMEM. */
static int tinsts_add(struct tinsts *s, const uint64_t k[5], uint64_t time, uint64_t count)
{
	struct tinst e = { { k[0], k[1], k[2], k[3], k[4] }, time, count };

	if (s->n && !tinst_cmp(&s->v[s->n - 1], &e)) {
		struct tinst *l = &s->v[s->n - 1];

		l->time = time < l->time ? time : l->time;
		l->count += count;
		return 0;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		struct tinst *nv = realloc(s->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = e;
	return 0;
}

/* One entry per key, in key order. */
static void tinsts_merge(struct tinsts *s)
{
	size_t out = 0;

	qsort(s->v, s->n, sizeof(*s->v), tinst_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (out && !tinst_cmp(&s->v[out - 1], &s->v[i])) {
			struct tinst *l = &s->v[out - 1];

			l->time = s->v[i].time < l->time ? s->v[i].time : l->time;
			l->count += s->v[i].count;
		} else {
			s->v[out++] = s->v[i];
		}
	}
	s->n = out;
}

/* ---- writing ---- */

/* ns since the run's start as microseconds, exact. */
static void ts_key(struct trace *t, const char *key, uint64_t ns)
{
	mr_json_key(&t->j, key);
	mr_json_milli(&t->j, ns >= t->t0 ? (int64_t)(ns - t->t0) : -(int64_t)(t->t0 - ns));
}

/* Open an event: name, ph, ts (ns; metadata: 0), pid, tid. The caller adds its members
 * and closes it with mr_json_obj_end. */
static void event(struct trace *t, const char *name, const char *ph, uint64_t ns, uint32_t tid)
{
	mr_json_obj(&t->j);
	mr_json_key(&t->j, "name");
	mr_json_str(&t->j, name);
	mr_json_key(&t->j, "ph");
	mr_json_str(&t->j, ph);
	if (ns)
		ts_key(t, "ts", ns);
	else {
		mr_json_key(&t->j, "ts");
		mr_json_u64(&t->j, 0);
	}
	mr_json_key(&t->j, "pid");
	mr_json_u64(&t->j, t->pid);
	mr_json_key(&t->j, "tid");
	mr_json_u64(&t->j, tid);
	t->nevents++;
}

/* A metadata event whose args hold one member. */
static void meta_event(struct trace *t, const char *name, uint32_t tid, const char *key,
		       const char *s, int64_t v)
{
	event(t, name, "M", 0, tid);
	mr_json_key(&t->j, "args");
	mr_json_obj(&t->j);
	mr_json_key(&t->j, key);
	if (s)
		mr_json_str(&t->j, s);
	else
		mr_json_i64(&t->j, v);
	mr_json_obj_end(&t->j);
	mr_json_obj_end(&t->j);
}

/* The names: the executable's file name and "thread K" (K its index; "thread ?" when
 * THREADS does not know it), without the ids, which Perfetto and speedscope append
 * themselves ("cg 4242", "cg (pid 4242)"): named with them, each showed them twice. */
static void write_metadata(struct trace *t)
{
	const char *exe = mr_run_get(t->r->run, "exe");
	const char *base = exe && strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe ? exe : "?";
	char buf[64];

	meta_event(t, "process_name", t->main_tid, "name", *base ? base : "?", 0);
	for (size_t i = 0; i < t->nth; i++) {
		const struct tthread *th = &t->th[i];

		if (th->index >= 0)
			snprintf(buf, sizeof(buf), "thread %d", th->index);
		else
			snprintf(buf, sizeof(buf), "thread ?");
		meta_event(t, "thread_name", th->tid, "name", buf, 0);
		meta_event(t, "thread_sort_index", th->tid, "sort_index", NULL, (int64_t)i);
	}
}

/* The X events: each selected region occurrence on each thread alive in it, or with
 * samples in it (a thread whose records miss its start: then the whole region). A seq
 * written twice carries its samples on mr_run_region's record only. */
static void write_regions(struct trace *t)
{
	const struct mr_run *run = t->r->run;

	for (size_t k = 0; k < t->nth; k++) {
		const struct tthread *th = &t->th[k];

		for (size_t i = 0; i < run->nregions; i++) {
			const struct memphis_rec_region *reg = &run->regions[i];
			struct tsums s = { 0 };
			uint64_t lo, hi;
			char name[MEMPHIS_NAME_MAX + 1];

			if (!report_region_selected(t->r, reg->seq) || reg->t_end <= reg->t_start)
				continue;
			if (mr_run_region(run, reg->seq) == reg)
				s = sums_of(t, th->tid, reg->seq);
			lo = reg->t_start > th->start ? reg->t_start : th->start;
			hi = reg->t_end < th->end ? reg->t_end : th->end;
			if (hi <= lo && !s.n)
				continue;
			if (hi <= lo)
				lo = reg->t_start, hi = reg->t_end;
			memcpy(name, reg->name, MEMPHIS_NAME_MAX);
			name[MEMPHIS_NAME_MAX] = '\0';
			event(t, name[0] ? name : "(region)", "X", lo, th->tid);
			mr_json_key(&t->j, "dur");
			mr_json_milli(&t->j, (int64_t)(hi - lo));
			mr_json_obj_end(&t->j);
		}
	}
}

/* A counter event: name, then args {k1: v1, k2: v2}; k2 NULL: {k1: the percentage v1
 * is of v1 + v2} (0 when both are 0). */
static void counter_event(struct trace *t, const char *name, uint64_t ns, const char *k1,
			  uint64_t v1, const char *k2, uint64_t v2)
{
	event(t, name, "C", ns, t->main_tid);
	mr_json_key(&t->j, "args");
	mr_json_obj(&t->j);
	mr_json_key(&t->j, k1);
	if (!k2)
		mr_json_dbl(&t->j, v1 + v2 ? 100.0 * (double)v1 / (double)(v1 + v2) : 0);
	else
		mr_json_u64(&t->j, v1);
	if (k2) {
		mr_json_key(&t->j, k2);
		mr_json_u64(&t->j, v2);
	}
	mr_json_obj_end(&t->j);
	mr_json_obj_end(&t->j);
}

/* The C events of each shown variable: "remote % VAR" (its remote samples' share of those
 * whose two nodes are known; 0 in a bin without any: a counter holds its value up to the
 * next point, and a gap must not show the bin before it), "samples VAR" (remote, local)
 * and, where a node has no CPU, "far-tier % VAR" (its far-tier samples' share), a point at the start of each bin of r->x whose value differs from the bin
 * before it (the same graph as a point per bin, without its repeats), and a closing 0 at
 * the series' end. */
static void write_counters(struct trace *t, const uint32_t *ids, size_t nids)
{
	const struct mr_xcells *x = &t->r->x;

	for (size_t i = 0; i < nids; i++) {
		const char *var = report_key_name(t->r, 1, ids[i]);
		char share[600], samples[600], far[600];
		uint64_t prev_rm = 0, prev_lc = 0, prev_fr = 0;
		double prev_share = -1;

		if (!t->r->agg.vars[ids[i]].shown || !x->nbins)
			continue;
		snprintf(share, sizeof(share), "remote %% %s", var);
		snprintf(samples, sizeof(samples), "samples %s", var);
		snprintf(far, sizeof(far), "far-tier %% %s", var);
		for (uint32_t b = 0; b <= x->nbins; b++) {
			uint64_t ns = x->t0 + (uint64_t)b * x->bin_ns;
			uint64_t rm = b < x->nbins ? mr_xcells_bin(x, ids[i], b, MR_X_REMOTE) : 0;
			uint64_t lc = b < x->nbins ? mr_xcells_bin(x, ids[i], b, MR_X_LOCAL) : 0;
			uint64_t fr = b < x->nbins ? mr_xcells_bin(x, ids[i], b, MR_X_FAR) : 0;
			double sh = rm + lc ? (double)rm / (double)(rm + lc) : 0;

			if (b == 0 || b == x->nbins || sh != prev_share)
				counter_event(t, share, ns, "remote %", rm, NULL, lc);
			if (b == 0 || b == x->nbins || rm != prev_rm || lc != prev_lc)
				counter_event(t, samples, ns, "remote", rm, "local", lc);
			/* where a node has no CPU: the far tier's share of the known */
			if (t->r->nfar && (b == 0 || b == x->nbins || fr != prev_fr || rm != prev_rm ||
					   lc != prev_lc))
				counter_event(t, far, ns, "far-tier %", fr, NULL, rm + lc);
			prev_share = sh, prev_rm = rm, prev_lc = lc, prev_fr = fr;
		}
	}
}

/* A node index as JSON: null for nnodes (unknown). */
static void node_value(struct trace *t, uint64_t node)
{
	if (node < t->r->nnodes)
		mr_json_u64(&t->j, node);
	else
		mr_json_null(&t->j);
}

/* The first touches of variables with samples, one event per (time bin, thread,
 * variable, line, page node): the bins of r->x's length (its shortest without a series)
 * from the run's start. 0 or -ENOMEM. */
static int write_touches(struct trace *t)
{
	struct report *r = t->r;
	uint64_t bin_ns = r->x.bin_ns ? r->x.bin_ns : MR_XCELLS_MIN_BIN_NS;
	struct tinsts s = { 0 };

	for (size_t i = 0; i < r->run->ntouches; i++) {
		const struct memphis_rec_touch *rec = &r->run->touches[i];
		struct mr_agg_touch a;
		uint64_t k[5];

		report_touch(r, i, &a);
		if (!a.var || a.var >= r->agg.nvars || !r->agg.vars[a.var].matrix)
			continue; /* what the first-touch tables skip */
		k[0] = rec->time > t->t0 ? (rec->time - t->t0) / bin_ns : 0;
		k[1] = a.tid, k[2] = a.var, k[3] = a.line, k[4] = a.page_node;
		if (tinsts_add(&s, k, rec->time, a.pages)) {
			free(s.v);
			return -ENOMEM;
		}
	}
	tinsts_merge(&s);
	for (size_t i = 0; i < s.n; i++) {
		const struct tinst *e = &s.v[i];
		const char *var = report_key_name(r, 1, (uint32_t)e->k[2]);
		char name[600];

		snprintf(name, sizeof(name), "first touch %s", var);
		event(t, name, "i", e->time, (uint32_t)e->k[1]);
		mr_json_key(&t->j, "s");
		mr_json_str(&t->j, "t");
		mr_json_key(&t->j, "args");
		mr_json_obj(&t->j);
		mr_json_key(&t->j, "pages");
		mr_json_u64(&t->j, e->count);
		mr_json_key(&t->j, "page_node");
		node_value(t, e->k[4]);
		mr_json_key(&t->j, "line");
		mr_json_str(&t->j, report_key_name(r, 0, (uint32_t)e->k[3]));
		mr_json_key(&t->j, "variable");
		mr_json_str(&t->j, var);
		mr_json_obj_end(&t->j);
		mr_json_obj_end(&t->j);
	}
	free(s.v);
	return 0;
}

/* The PAGES blocks in time order (ties in file order). */
static int pages_cmp(const void *pa, const void *pb)
{
	const struct mr_pages *a = *(const struct mr_pages *const *)pa;
	const struct mr_pages *b = *(const struct mr_pages *const *)pb;

	if (a->hdr.time != b->hdr.time)
		return a->hdr.time < b->hdr.time ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* The page migrations: a page whose home in a PAGES snapshot (a region's end; region 0:
 * the first touches') differs from its home in the snapshot before that had it. One
 * event per (snapshot region, from node, to node, variable of the page's first byte at
 * that time), at the first such block's time. 0 or -ENOMEM. */
static int write_migrations(struct trace *t)
{
	const struct mr_run *run = t->r->run;
	const struct mr_pages **order = calloc(run->npages ? run->npages : 1, sizeof(*order));
	struct mph_u64map home;
	struct tinsts s = { 0 };
	int rc = -ENOMEM;

	if (!order)
		return -ENOMEM;
	if (mph_u64map_init(&home, 1024))
		goto out_free_order;
	for (size_t i = 0; i < run->npages; i++)
		order[i] = &run->pages[i];
	qsort(order, run->npages, sizeof(*order), pages_cmp);
	for (size_t i = 0; i < run->npages; i++) {
		const struct mr_pages *pg = order[i];

		for (uint32_t k = 0; k < pg->hdr.count; k++) {
			struct memphis_rec_page p = mr_pages_at(pg, k);
			uint64_t *was, key[5];

			if (p.node < 0 || p.page == MPH_U64MAP_EMPTY)
				continue; /* not present, or no node: no move to see */
			was = mph_u64map_put(&home, p.page, (uint64_t)p.node);
			if (!was)
				goto out;
			if (*was == (uint64_t)p.node)
				continue;
			key[0] = pg->hdr.region, key[1] = *was, key[2] = (uint64_t)p.node;
			key[3] = mr_attrib_data(t->r->a, p.page, pg->hdr.time, 0);
			key[4] = 0;
			*was = (uint64_t)p.node;
			if (tinsts_add(&s, key, pg->hdr.time, 1))
				goto out;
		}
	}
	tinsts_merge(&s);
	for (size_t i = 0; i < s.n; i++) {
		const struct tinst *e = &s.v[i];
		const char *var = report_key_name(t->r, 1, (uint32_t)e->k[3]);
		char name[128];

		snprintf(name, sizeof(name), "pages moved Node%" PRIu64 " -> Node%" PRIu64,
			 e->k[1], e->k[2]);
		event(t, name, "i", e->time, t->main_tid);
		mr_json_key(&t->j, "s");
		mr_json_str(&t->j, "p");
		mr_json_key(&t->j, "args");
		mr_json_obj(&t->j);
		mr_json_key(&t->j, "pages");
		mr_json_u64(&t->j, e->count);
		mr_json_key(&t->j, "from_node");
		mr_json_u64(&t->j, e->k[1]);
		mr_json_key(&t->j, "to_node");
		mr_json_u64(&t->j, e->k[2]);
		mr_json_key(&t->j, "variable");
		mr_json_str(&t->j, var);
		mr_json_key(&t->j, "region");
		mr_json_u64(&t->j, e->k[0]);
		mr_json_obj_end(&t->j);
		mr_json_obj_end(&t->j);
	}
	rc = 0;
out:
	free(s.v);
	mph_u64map_free(&home);
out_free_order:
	free(order);
	return rc;
}

/* A member of otherData: a string (its viewers show the object as text). */
static void other(struct trace *t, const char *key, const char *value)
{
	mr_json_key(&t->j, key);
	mr_json_str(&t->j, value ? value : "");
}

static void write_other_data(struct trace *t)
{
	const struct report *r = t->r;
	struct tsums sum = { 0 };
	char buf[64];

	mr_json_key(&t->j, "otherData");
	mr_json_obj(&t->j);
	snprintf(buf, sizeof(buf), "%d.%d.%d", MEMPHIS_VERSION_MAJOR, MEMPHIS_VERSION_MINOR,
		 MEMPHIS_VERSION_PATCH);
	other(t, "memphis_version", buf);
	other(t, "run_memphis_version", mr_run_get(r->run, "memphis_version"));
	other(t, "run_directory", r->o.dir);
	other(t, "executable", mr_run_get(r->run, "exe"));
	other(t, "backend", mr_run_get(r->run, "backend"));
	snprintf(buf, sizeof(buf), "%" PRIu32, t->pid);
	other(t, "pid", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, t->t0);
	other(t, "start_ns", buf);
	other(t, "time", "ts and dur: microseconds since start_ns (CLOCK_MONOTONIC)");
	for (size_t i = 0; i < t->nsums; i++) {
		sum.n += t->sums[i].n;
		sum.remote += t->sums[i].remote;
		sum.local += t->sums[i].local;
		sum.far += t->sums[i].far;
	}
	mr_json_key(&t->j, "samples");
	mr_json_obj(&t->j);
	mr_json_key(&t->j, "attributed");
	mr_json_u64(&t->j, sum.n);
	mr_json_key(&t->j, "remote");
	mr_json_u64(&t->j, sum.remote);
	mr_json_key(&t->j, "local");
	mr_json_u64(&t->j, sum.local);
	if (t->r->nfar) {
		mr_json_key(&t->j, "far");
		mr_json_u64(&t->j, sum.far);
	}
	mr_json_obj_end(&t->j);
	snprintf(buf, sizeof(buf), "%" PRIu64, t->unplaced);
	other(t, "samples_in_no_slice", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, r->x.bin_ns);
	other(t, "bin_ns", buf);
	mr_json_obj_end(&t->j);
}

/* The run's start: its FILE block's time, else the earliest time it records. */
static uint64_t run_start(const struct mr_run *run)
{
	uint64_t t = UINT64_MAX;

	if (run->have_meta_file && run->meta_file.start_time)
		return run->meta_file.start_time;
	for (size_t i = 0; i < run->nthreads; i++)
		t = run->threads[i].time < t ? run->threads[i].time : t;
	for (size_t i = 0; i < run->nregions; i++)
		t = run->regions[i].t_start < t ? run->regions[i].t_start : t;
	for (size_t i = 0; i < run->ntouches; i++)
		t = run->touches[i].time < t ? run->touches[i].time : t;
	return t == UINT64_MAX ? 0 : t;
}

/* The whole trace on f. 0 or -ENOMEM (f then holds part of it). */
static int write_trace(struct trace *t, const uint32_t *ids, size_t nids, FILE *f)
{
	if (threads_collect(t) || sums_collect(t))
		return -ENOMEM;
	mr_json_init(&t->j, f);
	mr_json_obj(&t->j);
	mr_json_key(&t->j, "traceEvents");
	mr_json_arr(&t->j);
	write_metadata(t);
	write_regions(t);
	write_counters(t, ids, nids);
	if (write_touches(t) || write_migrations(t))
		return -ENOMEM;
	mr_json_arr_end(&t->j);
	mr_json_key(&t->j, "displayTimeUnit");
	mr_json_str(&t->j, "ms");
	write_other_data(t);
	mr_json_obj_end(&t->j);
	return 0;
}

int report_write_trace(struct report *r, const uint32_t *ids, size_t nids)
{
	struct trace t = { .r = r, .pid = r->run->meta_file.pid };
	struct mr_outfile out;
	int rc;

	t.t0 = run_start(r->run);
	t.main_tid = t.pid;
	if (mph_u64map_init(&t.th_by_tid, 64) || mph_u64map_init(&t.sums_at, 256))
		goto out_nomem;
	rc = mr_outfile_open(&out, r->o.output);
	if (rc != MR_EXIT_OK)
		goto out;
	if (write_trace(&t, ids, nids, out.f)) {
		mr_outfile_abandon(&out);
		goto out_nomem;
	}
	rc = mr_outfile_close(&out);
	if (rc == MR_EXIT_OK)
		fprintf(stderr, "memphis-report: wrote %s (Chrome trace: %zu events; open in "
			"https://ui.perfetto.dev or speedscope)\n",
			out.to_stdout ? "standard output" : r->o.output, t.nevents);
	goto out;
out_nomem:
	rc = mr_error(MR_EXIT_DATA, "out of memory writing the trace");
out:
	free(t.th);
	free(t.sums);
	mph_u64map_free(&t.th_by_tid);
	mph_u64map_free(&t.sums_at);
	return rc;
}
