/* post/report/report_counters.c - the counters of each selected region (COUNTERS records):
 * events per thread, summed per node of the thread's CPU and in all, each with the way it
 * was counted (PAPI, or the library's own perf_event_open) and, when the kernel multiplexed
 * it, how much of the time it had a counter (its counts are scaled); the events that could
 * not be counted and why; the kernel's NUMA counters per node; ratios the events allow.
 * Text and JSON (docs/report-schema.md, "counters"). Printed only for runs that hold
 * COUNTERS records, so the report of any other run is unchanged. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "report_impl.h"
#include "report_counters.h"

#define MAX_EV 32 /* events shown per region (the library counts at most 16) */

/* How an event was counted (bits: a run could mix them over threads). */
enum { BY_PAPI = 1, BY_PERF = 2 };

/* One thread's event counts in a region. */
struct ctr_thread {
	uint32_t tid;
	int cpu, node;
	uint64_t v[MAX_EV];
	uint32_t cov[MAX_EV];        /* perf_event_open: coverage in millionths; 0: PAPI's */
	unsigned char mux[MAX_EV];   /* 1: multiplexed, v scaled */
};

/* A region's counters, gathered from the records. */
struct ctr_region {
	uint32_t seq;
	const char *ev[MAX_EV];      /* events counted, in order of first record */
	size_t nev;
	unsigned by[MAX_EV];         /* BY_* of their records */
	size_t nmux[MAX_EV];         /* threads whose count of the event was multiplexed */
	uint32_t mincov[MAX_EV];     /* the least coverage of a multiplexed count */
	struct ctr_thread *thr;
	size_t nthr;
	const struct memphis_rec_counter **bad;  /* unavailable records */
	size_t nbad;
	const struct memphis_rec_counter **kern; /* numastat, vmstat, numa_maps records */
	size_t nkern;
};

/* The reason after the name's NUL in an unavailable record ("" if none), bounded by the
 * record (it may come from anyone) into buf. */
static const char *reason(const struct memphis_rec_counter *c, char *buf, size_t len)
{
	size_t n = strnlen(c->name, sizeof(c->name));

	buf[0] = '\0';
	if (n + 1 < sizeof(c->name))
		snprintf(buf, len, "%.*s", (int)strnlen(c->name + n + 1, sizeof(c->name) - n - 1),
			 c->name + n + 1);
	return buf;
}

/* A record's name as a C string (the records are read as written: bounded here). */
static const char *rec_name(const struct memphis_rec_counter *c, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strnlen(c->name, sizeof(c->name)), c->name);
	return buf;
}

static size_t ev_index(struct ctr_region *g, const struct memphis_rec_counter *c)
{
	size_t n = strnlen(c->name, sizeof(c->name));

	for (size_t k = 0; k < g->nev; k++)
		if (strlen(g->ev[k]) == n && !memcmp(g->ev[k], c->name, n))
			return k;
	if (g->nev == MAX_EV || n == sizeof(c->name))
		return MAX_EV;
	g->ev[g->nev] = c->name; /* NUL within the record: checked above */
	return g->nev++;
}

static struct ctr_thread *thread_of(const struct report *r, struct ctr_region *g,
				    const struct memphis_rec_counter *c)
{
	struct ctr_thread *t;

	for (size_t i = 0; i < g->nthr; i++)
		if (g->thr[i].tid == c->tid)
			return &g->thr[i];
	t = realloc(g->thr, (g->nthr + 1) * sizeof(*t));
	if (!t)
		return NULL;
	g->thr = t;
	t = &g->thr[g->nthr++];
	memset(t, 0, sizeof(*t));
	t->tid = c->tid;
	t->cpu = c->cpu;
	t->node = c->cpu >= 0 ? mr_run_cpu_node(r->run, (unsigned)c->cpu) : -1;
	return t;
}

static int push(const struct memphis_rec_counter ***arr, size_t *n,
		const struct memphis_rec_counter *c)
{
	const struct memphis_rec_counter **a = realloc(*arr, (*n + 1) * sizeof(*a));

	if (!a)
		return -1;
	a[(*n)++] = c;
	*arr = a;
	return 0;
}

/* Note how record c of thread t's event k was counted. */
static void count_how(struct ctr_region *g, struct ctr_thread *t, size_t k,
		      const struct memphis_rec_counter *c)
{
	g->by[k] |= c->flags & MPH_CTR_PERF ? BY_PERF : BY_PAPI;
	if (!(c->flags & MPH_CTR_PERF))
		return;
	t->cov[k] = c->coverage > 0 && c->coverage <= 1000000 ? (uint32_t)c->coverage : 0;
	if (!(c->flags & MPH_CTR_MULTIPLEXED))
		return;
	t->mux[k] = 1;
	if (!g->nmux[k]++ || t->cov[k] < g->mincov[k])
		g->mincov[k] = t->cov[k];
}

/* The way event k was counted, in words. */
static const char *how_name(const struct ctr_region *g, size_t k)
{
	switch (g->by[k]) {
	case BY_PERF: return "perf_event_open";
	case BY_PAPI: return "papi";
	default: return "papi and perf_event_open";
	}
}

/* Which way an unavailable record's event was tried. */
static const char *bad_how(const struct memphis_rec_counter *c)
{
	return c->flags & MPH_CTR_PERF ? "perf_event_open" : "papi";
}

/* Gather region seq's records into *g. Returns 1 when it has any, 0 when none, -1 when
 * out of memory. */
static int gather(const struct report *r, uint32_t seq, struct ctr_region *g)
{
	memset(g, 0, sizeof(*g));
	g->seq = seq;
	for (size_t i = 0; i < r->run->ncounters; i++) {
		const struct memphis_rec_counter *c = &r->run->counters[i];
		struct ctr_thread *t;
		size_t k;

		if (c->region != seq)
			continue;
		if (c->flags & MPH_CTR_UNAVAILABLE) {
			if (push(&g->bad, &g->nbad, c))
				return -1;
		} else if (c->source != MPH_CTR_PAPI) {
			if (push(&g->kern, &g->nkern, c))
				return -1;
		} else if ((k = ev_index(g, c)) < MAX_EV) {
			if (!(t = thread_of(r, g, c)))
				return -1;
			t->v[k] += c->value;
			count_how(g, t, k, c);
		}
	}
	return g->nev || g->nbad || g->nkern;
}

static void release(struct ctr_region *g)
{
	free(g->thr);
	free(g->bad);
	free(g->kern);
}

/* Sum of event k over the threads on node (INT32_MIN: all threads). */
static uint64_t sum(const struct ctr_region *g, size_t k, int node)
{
	uint64_t s = 0;

	for (size_t i = 0; i < g->nthr; i++)
		if (node == INT32_MIN || g->thr[i].node == node)
			s += g->thr[i].v[k];
	return s;
}

/* Distinct nodes of the threads' CPUs, ascending, into nodes[] (g->nthr entries). */
static size_t thread_nodes(const struct ctr_region *g, int *nodes)
{
	size_t n = 0;

	for (size_t i = 0; i < g->nthr; i++) {
		size_t j = 0;
		while (j < n && nodes[j] < g->thr[i].node)
			j++;
		if (j < n && nodes[j] == g->thr[i].node)
			continue;
		memmove(nodes + j + 1, nodes + j, (n - j) * sizeof(*nodes));
		nodes[j] = g->thr[i].node;
		n++;
	}
	return n;
}

/* The index of the event named exactly `name`, -1 if not counted. */
static int ev_named(const struct ctr_region *g, const char *name)
{
	for (size_t k = 0; k < g->nev; k++)
		if (!strcmp(g->ev[k], name))
			return (int)k;
	return -1;
}

/* A kernel counter of a node (node -1: the system's), summed; *have set when present. */
static uint64_t kern(const struct ctr_region *g, uint16_t source, int node, const char *name,
		     int *have)
{
	uint64_t v = 0;

	*have = 0;
	for (size_t i = 0; i < g->nkern; i++) {
		const struct memphis_rec_counter *c = g->kern[i];
		if (c->source == source && (node == INT32_MIN || c->node == node) &&
		    !strncmp(c->name, name, sizeof(c->name))) {
			v += c->value;
			*have = 1;
		}
	}
	return v;
}

/* Ratios the counted events allow: fn(name, value, what) for each. */
typedef void (*ratio_fn)(void *ctx, const char *name, double v, const char *what);

static void ratios(const struct ctr_region *g, ratio_fn fn, void *ctx)
{
	int ins = ev_named(g, "PAPI_TOT_INS"), cyc = ev_named(g, "PAPI_TOT_CYC");
	int hl, ho;
	uint64_t loc, oth;

	if (ins >= 0 && cyc >= 0 && sum(g, (size_t)cyc, INT32_MIN))
		fn(ctx, "ipc", (double)sum(g, (size_t)ins, INT32_MIN) /
		       (double)sum(g, (size_t)cyc, INT32_MIN), "PAPI_TOT_INS / PAPI_TOT_CYC");
	/* remote share of DRAM accesses from a pair of events ...REMOTE_DRAM / ...LOCAL_DRAM */
	for (size_t k = 0; k < g->nev; k++) {
		const char *p = strstr(g->ev[k], "REMOTE_DRAM");
		char local[80], what[200];
		int l;

		if (!p || strlen(g->ev[k]) >= sizeof(local))
			continue;
		snprintf(local, sizeof(local), "%.*sLOCAL_DRAM%s", (int)(p - g->ev[k]), g->ev[k],
			 p + strlen("REMOTE_DRAM"));
		if ((l = ev_named(g, local)) < 0)
			continue;
		uint64_t rem = sum(g, k, INT32_MIN), lo = sum(g, (size_t)l, INT32_MIN);
		snprintf(what, sizeof(what), "%s / (%s + %s)", g->ev[k], g->ev[k], local);
		if (rem + lo)
			fn(ctx, "remote_dram_share", (double)rem / (double)(rem + lo), what);
	}
	loc = kern(g, MPH_CTR_NUMASTAT, INT32_MIN, "local_node", &hl);
	oth = kern(g, MPH_CTR_NUMASTAT, INT32_MIN, "other_node", &ho);
	if (hl && ho && loc + oth)
		fn(ctx, "kernel_other_node_share", (double)oth / (double)(loc + oth),
		   "other_node / (local_node + other_node), all nodes, whole system");
}

/* ---- text ---- */

static void text_ratio(void *ctx, const char *name, double v, const char *what)
{
	fprintf((FILE *)ctx, "  %s %.3f  (%s)\n", name, v, what);
}

/* A row of counts; mux: the thread's multiplexed flags (NULL: a sum, marked when any of
 * its threads was). A column of an event never multiplexed is as wide as before. */
static void text_row(const struct ctr_region *g, const char *label, int cpu, const char *node,
		     const uint64_t *v, const unsigned char *mux, FILE *f)
{
	char cb[16];

	snprintf(cb, sizeof(cb), "%d", cpu);
	fprintf(f, "  %-14s %4s %5s", label, cpu >= 0 ? cb : "-", node);
	for (size_t k = 0; k < g->nev; k++) {
		int w = (int)(strlen(g->ev[k]) > 14 ? strlen(g->ev[k]) : 14);
		char num[32];

		if (!g->nmux[k])
			fprintf(f, " %*s", w, mr_fmt_count(num, v[k]));
		else
			fprintf(f, " %*s%c", w, mr_fmt_count(num, v[k]),
				(mux ? mux[k] : 1) ? '*' : ' ');
	}
	fprintf(f, "\n");
}

/* How each event was counted, and which counts are scaled. */
static void text_how(const struct ctr_region *g, FILE *f)
{
	fprintf(f, "  counted by:");
	for (size_t k = 0; k < g->nev; k++)
		fprintf(f, "%s %s (%s)", k ? "," : "", g->ev[k], how_name(g, k));
	fprintf(f, "\n");
	for (size_t k = 0; k < g->nev; k++)
		if (g->nmux[k])
			fprintf(f, "  multiplexed (*): %s on %zu of %zu threads, counting %.1f %% of "
				"the time at least; scaled by time enabled / running\n",
				g->ev[k], g->nmux[k], g->nthr, g->mincov[k] / 1e4);
}

static void text_kernel(const struct ctr_region *g, FILE *f)
{
	static const char *const keys[] = { "numa_hit", "numa_miss", "numa_foreign",
					    "interleave_hit", "local_node", "other_node" };
	int maxnode = -1, have;
	char num[32];

	for (size_t i = 0; i < g->nkern; i++)
		if (g->kern[i]->node > maxnode && g->kern[i]->node < 65536)
			maxnode = g->kern[i]->node;
	if (maxnode < 0 && !g->nkern)
		return;
	fprintf(f, "  kernel NUMA counters (numastat: whole system; resident: this process at the end)\n");
	fprintf(f, "  %-6s", "node");
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		fprintf(f, " %14s", keys[k]);
	fprintf(f, " %14s\n", "resident_pages");
	for (int n = 0; n <= maxnode; n++) {
		fprintf(f, "  %-6d", n);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			uint64_t v = kern(g, MPH_CTR_NUMASTAT, n, keys[k], &have);
			fprintf(f, " %14s", have ? mr_fmt_count(num, v) : "-");
		}
		uint64_t v = kern(g, MPH_CTR_NUMA_MAPS, n, "resident_pages", &have);
		fprintf(f, " %14s\n", have ? mr_fmt_count(num, v) : "-");
	}
	uint64_t mig = kern(g, MPH_CTR_TASK, INT32_MIN, "numa_pages_migrated", &have);
	if (have)
		fprintf(f, "  numa_pages_migrated %s (this process's threads, by NUMA balancing)\n",
			mr_fmt_count(num, mig));
	for (size_t i = 0; i < g->nkern; i++)
		if (g->kern[i]->source == MPH_CTR_VMSTAT) {
			char nb[sizeof(g->kern[i]->name) + 1];
			fprintf(f, "  %s %s (whole system)\n", rec_name(g->kern[i], nb, sizeof(nb)),
				mr_fmt_count(num, g->kern[i]->value));
		}
}

static void text_region(const struct report *r, const struct ctr_region *g, FILE *f)
{
	const struct memphis_rec_region *reg = mr_run_region(r->run, g->seq);
	int *nodes = calloc(g->nthr + 1, sizeof(*nodes));
	uint64_t v[MAX_EV];

	fprintf(f, "\nCounters of region %" PRIu32 " \"%s\"\n", g->seq, reg ? reg->name : "?");
	if (g->nev) {
		fprintf(f, "  %-14s %4s %5s", "thread", "cpu", "node");
		for (size_t k = 0; k < g->nev; k++)
			fprintf(f, " %14s", g->ev[k]);
		fprintf(f, "\n");
		for (size_t i = 0; i < g->nthr; i++) {
			char label[40], nb[16];
			report_thread_text(r, g->thr[i].tid, label, sizeof(label));
			snprintf(nb, sizeof(nb), "%d", g->thr[i].node);
			text_row(g, label, g->thr[i].cpu, g->thr[i].node >= 0 ? nb : "?",
				 g->thr[i].v, g->thr[i].mux, f);
		}
		for (size_t n = 0, nn = nodes ? thread_nodes(g, nodes) : 0; n < nn; n++) {
			char label[40] = "node ?";
			if (nodes[n] >= 0)
				snprintf(label, sizeof(label), "node %d", nodes[n]);
			for (size_t k = 0; k < g->nev; k++)
				v[k] = sum(g, k, nodes[n]);
			text_row(g, label, -1, "", v, NULL, f);
		}
		for (size_t k = 0; k < g->nev; k++)
			v[k] = sum(g, k, INT32_MIN);
		text_row(g, "sum", -1, "", v, NULL, f);
		text_how(g, f);
	}
	for (size_t i = 0; i < g->nbad; i++) {
		char label[40] = "every thread", nb[sizeof(g->bad[i]->name) + 1];
		char why[sizeof(g->bad[i]->name) + 1];
		if (g->bad[i]->tid)
			report_thread_text(r, g->bad[i]->tid, label, sizeof(label));
		fprintf(f, "  not counted: %s (%s): %s\n", rec_name(g->bad[i], nb, sizeof(nb)),
			label, reason(g->bad[i], why, sizeof(why)));
	}
	text_kernel(g, f);
	ratios(g, text_ratio, f);
	free(nodes);
}

void report_counters_text(const struct report *r, FILE *f)
{
	for (size_t i = 0; i < r->run->nregions; i++) {
		struct ctr_region g = { 0 };
		uint32_t seq = r->run->regions[i].seq;

		if (report_region_selected(r, seq) && gather(r, seq, &g) > 0)
			text_region(r, &g, f);
		release(&g);
	}
}

/* ---- JSON ---- */

static void json_values(struct mr_json *j, const struct ctr_region *g, const uint64_t *v)
{
	mr_json_key(j, "values");
	mr_json_obj(j);
	for (size_t k = 0; k < g->nev; k++) {
		mr_json_key(j, g->ev[k]);
		mr_json_u64(j, v[k]);
	}
	mr_json_obj_end(j);
}

static void json_ratio(void *ctx, const char *name, double v, const char *what)
{
	struct mr_json *j = ctx;

	mr_json_obj(j);
	mr_json_key(j, "name");
	mr_json_str(j, name);
	mr_json_key(j, "value");
	mr_json_dbl(j, v);
	mr_json_key(j, "from");
	mr_json_str(j, what);
	mr_json_obj_end(j);
}

static void json_kernel(struct mr_json *j, const struct ctr_region *g)
{
	mr_json_key(j, "kernel");
	mr_json_arr(j);
	for (size_t i = 0; i < g->nkern; i++) {
		const struct memphis_rec_counter *c = g->kern[i];
		char nb[sizeof(c->name) + 1];
		mr_json_obj(j);
		mr_json_key(j, "source");
		const char *src = mr_counter_source_name(c->source);
		mr_json_str(j, src ? src : "unknown");
		if (c->source == MPH_CTR_TASK) {
			mr_json_key(j, "tid");
			mr_json_u64(j, c->tid);
		}
		mr_json_key(j, "node");
		if (c->node >= 0)
			mr_json_u64(j, (uint64_t)c->node);
		else
			mr_json_null(j);
		mr_json_key(j, "name");
		mr_json_str(j, rec_name(c, nb, sizeof(nb)));
		mr_json_key(j, "value");
		mr_json_u64(j, c->value);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
}

static void json_node_val(struct mr_json *j, int node)
{
	if (node >= 0)
		mr_json_u64(j, (uint64_t)node);
	else
		mr_json_null(j);
}

/* "counted_by": per event, the way it was counted and whether it was multiplexed. */
static void json_how(struct mr_json *j, const struct ctr_region *g)
{
	mr_json_key(j, "counted_by");
	mr_json_arr(j);
	for (size_t k = 0; k < g->nev; k++) {
		mr_json_obj(j);
		mr_json_key(j, "event");
		mr_json_str(j, g->ev[k]);
		mr_json_key(j, "path");
		mr_json_str(j, how_name(g, k));
		mr_json_key(j, "multiplexed");
		mr_json_bool(j, g->nmux[k] > 0);
		mr_json_key(j, "threads_multiplexed");
		mr_json_u64(j, g->nmux[k]);
		mr_json_key(j, "coverage");
		if (g->nmux[k])
			mr_json_dbl(j, g->mincov[k] / 1e6);
		else if (g->by[k] == BY_PERF)
			mr_json_dbl(j, 1.0);
		else
			mr_json_null(j);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
}

static void json_region(struct mr_json *j, const struct report *r, const struct ctr_region *g)
{
	int *nodes = calloc(g->nthr + 1, sizeof(*nodes));
	uint64_t v[MAX_EV];

	mr_json_obj(j);
	mr_json_key(j, "region");
	mr_json_u64(j, g->seq);
	mr_json_key(j, "events");
	mr_json_arr(j);
	for (size_t k = 0; k < g->nev; k++)
		mr_json_str(j, g->ev[k]);
	mr_json_arr_end(j);
	json_how(j, g);
	mr_json_key(j, "threads");
	mr_json_arr(j);
	for (size_t i = 0; i < g->nthr; i++) {
		char label[40];
		mr_json_obj(j);
		mr_json_key(j, "tid");
		mr_json_u64(j, g->thr[i].tid);
		report_thread_text(r, g->thr[i].tid, label, sizeof(label));
		mr_json_key(j, "thread");
		mr_json_str(j, label);
		mr_json_key(j, "cpu");
		json_node_val(j, g->thr[i].cpu);
		mr_json_key(j, "node");
		json_node_val(j, g->thr[i].node);
		json_values(j, g, g->thr[i].v);
		mr_json_key(j, "coverage");
		mr_json_obj(j);
		for (size_t k = 0; k < g->nev; k++)
			if (g->thr[i].cov[k]) {
				mr_json_key(j, g->ev[k]);
				mr_json_dbl(j, g->thr[i].cov[k] / 1e6);
			}
		mr_json_obj_end(j);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "by_node");
	mr_json_arr(j);
	for (size_t n = 0, nn = nodes ? thread_nodes(g, nodes) : 0; n < nn; n++) {
		mr_json_obj(j);
		mr_json_key(j, "node");
		json_node_val(j, nodes[n]);
		for (size_t k = 0; k < g->nev; k++)
			v[k] = sum(g, k, nodes[n]);
		json_values(j, g, v);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "sum");
	mr_json_obj(j);
	for (size_t k = 0; k < g->nev; k++)
		v[k] = sum(g, k, INT32_MIN);
	json_values(j, g, v);
	mr_json_obj_end(j);
	mr_json_key(j, "not_counted");
	mr_json_arr(j);
	for (size_t i = 0; i < g->nbad; i++) {
		char nb[sizeof(g->bad[i]->name) + 1], why[sizeof(g->bad[i]->name) + 1];
		mr_json_obj(j);
		mr_json_key(j, "event");
		mr_json_str(j, rec_name(g->bad[i], nb, sizeof(nb)));
		mr_json_key(j, "tid");
		if (g->bad[i]->tid)
			mr_json_u64(j, g->bad[i]->tid);
		else
			mr_json_null(j);
		mr_json_key(j, "error");
		mr_json_i64(j, g->bad[i]->error);
		if (g->bad[i]->source == MPH_CTR_PAPI) {
			mr_json_key(j, "path");
			mr_json_str(j, bad_how(g->bad[i]));
		}
		mr_json_key(j, "reason");
		mr_json_str(j, reason(g->bad[i], why, sizeof(why)));
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	json_kernel(j, g);
	mr_json_key(j, "ratios");
	mr_json_arr(j);
	ratios(g, json_ratio, j);
	mr_json_arr_end(j);
	mr_json_obj_end(j);
	free(nodes);
}

void report_counters_json(struct mr_json *j, const struct report *r)
{
	if (!r->run->ncounters)
		return;
	mr_json_key(j, "counters");
	mr_json_arr(j);
	for (size_t i = 0; i < r->run->nregions; i++) {
		struct ctr_region g = { 0 };
		uint32_t seq = r->run->regions[i].seq;

		if (report_region_selected(r, seq) && gather(r, seq, &g) > 0)
			json_region(j, r, &g);
		release(&g);
	}
	mr_json_arr_end(j);
}
