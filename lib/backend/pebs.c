/* lib/backend/pebs.c - Intel PEBS: load-latency and precise-store samples, per thread,
 * each with the exact data address, the data source (union perf_mem_data_src) and the
 * access latency in cycles. Events are named for libpfm4 (MEMPHIS_EVENT overrides the
 * defaults; MEMPHIS_LDLAT sets the latency threshold), opened per thread on every PMU the
 * CPU has (hybrid: cpu_core and cpu_atom; the kernel counts each only on its core type)
 * and written into the thread's one ring. The periods are prime: PEBS does not randomise.
 * Untested on hardware: no machine of the project has a PMU; the same code runs in the
 * tests on the software page-faults event (MEMPHIS_EVENT=perf::PAGE-FAULTS). */
#include <errno.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "log.h"
#include "memphis/hwdecode.h"
#include "pebs.h"
#include "perf_ring.h"
#include "self.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | \
		     PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC)
#define RING_PAGES 128 /* 512 KiB: ~6500 samples before the drain must have run */

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_ret;

static void pfm_init_once(void)
{
	pfm_ret = pfm_initialize();
}

/* Encode a libpfm4 event name (user level only) into *a. 0, or -ENOENT with why. */
static int encode(const char *name, struct perf_event_attr *a, char *why, size_t n)
{
	pfm_perf_encode_arg_t e;
	int ret;

	pthread_once(&pfm_once, pfm_init_once);
	if (pfm_ret != PFM_SUCCESS) {
		snprintf(why, n, "pebs: libpfm4 does not start: %s", pfm_strerror(pfm_ret));
		return -ENOENT;
	}
	memset(a, 0, sizeof(*a));
	memset(&e, 0, sizeof(e));
	e.attr = a;
	e.size = sizeof(e);
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &e);
	if (ret != PFM_SUCCESS) {
		snprintf(why, n, "pebs: event %.80s: %s (libpfm4)", name, pfm_strerror(ret));
		return -ENOENT;
	}
	a->size = sizeof(*a);
	return 0;
}

static unsigned kind_of(const char *name)
{
	if (strstr(name, "STORE"))
		return MEMPHIS__HW_STORE;
	if (strstr(name, "LOAD") || strstr(name, "LDLAT"))
		return MEMPHIS__HW_LOAD;
	return MEMPHIS__HW_ANY;
}

/* Add a sampling event; its period: libpfm's (":period=N"), o->period, or the default. */
static struct memphis__hw_event *add(struct memphis__hw_plan *p, const struct memphis__pebs_opts *o,
				     const struct perf_event_attr *a, unsigned kind, int leader,
				     const char *pmu, const char *name)
{
	struct memphis__hw_event *ev;

	if (p->n == MEMPHIS__HW_MAX)
		return NULL;
	ev = &p->ev[p->n++];
	ev->attr = *a;
	ev->leader = leader;
	ev->kind = kind;
	snprintf(ev->name, sizeof(ev->name), "%s%s%.80s", pmu, *pmu ? "/" : "", name);
	if (kind == MEMPHIS__HW_COUNT) { /* a counting leader: no samples of its own */
		ev->attr.sample_period = 0;
		ev->attr.sample_type = 0;
		ev->attr.precise_ip = 0;
		ev->attr.exclude_kernel = 1;
		ev->attr.exclude_hv = 1;
		return ev;
	}
	if (!ev->attr.sample_period || ev->attr.freq) {
		ev->attr.freq = 0;
		ev->attr.sample_period = o->period ? o->period
				       : kind == MEMPHIS__HW_STORE ? MEMPHIS__PEBS_STORE_PERIOD
								   : MEMPHIS__PEBS_LOAD_PERIOD;
	}
	ev->attr.sample_type = SAMPLE_TYPE | (o->weight_struct ? PERF_SAMPLE_WEIGHT_STRUCT
							       : PERF_SAMPLE_WEIGHT);
	/* the probe's precise_ip, or below it the event's own (":precise=N" of MEMPHIS_EVENT,
	 * as libpfm4 encoded it): the probe then starts there */
	ev->attr.precise_ip = (unsigned)o->precise & 3;
	if (a->precise_ip && a->precise_ip < ev->attr.precise_ip)
		ev->attr.precise_ip = a->precise_ip;
	ev->attr.exclude_kernel = 1;
	ev->attr.exclude_hv = 1;
	ev->attr.use_clockid = 1;
	ev->attr.clockid = CLOCK_MONOTONIC;
	return ev;
}

/* The aux leader where sysfs has one (mem-loads-aux); its index, or -1. */
static int aux_leader(struct memphis__hw_plan *p, const struct memphis__pebs_opts *o,
		      const char *pmu, uint32_t type)
{
	struct perf_event_attr a;

	if (!memphis__pmu_has(o->sysfs, pmu, "events/mem-loads-aux"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	if (memphis__pmu_alias(o->sysfs, pmu, "mem-loads-aux", &a) < 0) {
		a.type = type;
		a.config = MEMPHIS__PEBS_AUX_CONFIG;
	}
	if (!add(p, o, &a, MEMPHIS__HW_COUNT, -1, pmu, "mem-loads-aux"))
		return -1;
	return (int)p->n - 1;
}

/* A core-PMU load-latency event (event 0xcd umask 0x01, as encoded for any PMU type). */
static int is_load_latency(const struct perf_event_attr *a)
{
	return (a->config & 0xffff) == 0x01cd && a->type != PERF_TYPE_SOFTWARE;
}

/* One PMU's default pair: libpfm names first (prefix), else sysfs's aliases. */
static int defaults(struct memphis__hw_plan *p, const struct memphis__pebs_opts *o, const char *pmu,
		    const char *prefix, char *why, size_t n)
{
	char name[128];
	struct perf_event_attr ld, st;
	int type = memphis__pmu_type(o->sysfs, pmu), have_st, st_sysfs;

	snprintf(name, sizeof(name), "%sMEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%u", prefix, o->ldlat);
	if (encode(name, &ld, why, n) == 0) {
		/* the stores: sysfs's mem-stores where the kernel names one, as perf mem does
		 * ("%s/mem-stores/P"): on Sapphire Rapids and hybrid P-cores it is the store
		 * latency event (0x2cd), whose records carry the full data source
		 * (store_latency_data()), where ALL_STORES gives only L1 hit or miss */
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		st_sysfs = memphis__pmu_has(o->sysfs, pmu, "events/mem-stores") &&
			   memphis__pmu_alias(o->sysfs, pmu, "mem-stores", &st) == 0;
		snprintf(name, sizeof(name), "%sMEM_INST_RETIRED:ALL_STORES", prefix);
		have_st = st_sysfs || encode(name, &st, why, n) == 0;
		if (type >= 0 && strcmp(pmu, "cpu")) { /* hybrid: the PMU's own type */
			ld.type = (uint32_t)type;
			st.type = (uint32_t)type;
		}
	} else {
		/* sysfs: mem-loads (its ldlat term set) and mem-stores */
		memset(&ld, 0, sizeof(ld));
		ld.size = sizeof(ld);
		st = ld;
		if (type < 0 || memphis__pmu_alias(o->sysfs, pmu, "mem-loads", &ld) < 0) {
			snprintf(why, n, "pebs: no load-latency event for this CPU (libpfm4 has no "
				 "table for it and sysfs PMU %s no mem-loads event); name one with "
				 "MEMPHIS_EVENT, or use MEMPHIS_BACKEND=soft", pmu);
			return -ENOENT;
		}
		memphis__pmu_set(o->sysfs, pmu, "ldlat", &ld, o->ldlat);
		have_st = st_sysfs = memphis__pmu_alias(o->sysfs, pmu, "mem-stores", &st) == 0;
	}
	int leader = aux_leader(p, o, pmu, ld.type);
	snprintf(name, sizeof(name), "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=%u", o->ldlat);
	if (!add(p, o, &ld, MEMPHIS__HW_LOAD, leader, pmu, name))
		return -E2BIG;
	if (have_st && !add(p, o, &st, MEMPHIS__HW_STORE, -1, pmu,
			    st_sysfs ? "mem-stores" : "MEM_INST_RETIRED:ALL_STORES"))
		return -E2BIG;
	return 0;
}

int memphis__pebs_plan(const struct memphis__pebs_opts *o, struct memphis__hw_plan *p,
		       char *why, size_t n)
{
	int hybrid = memphis__pmu_type(o->sysfs, "cpu_core") >= 0;
	int err;

	memset(p, 0, sizeof(*p));
	if (o->events && *o->events) {
		char list[512], *save = NULL;
		snprintf(list, sizeof(list), "%s", o->events);
		for (char *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
			struct perf_event_attr a;
			int leader = -1;
			if ((err = encode(e, &a, why, n)) < 0)
				return err;
			if (is_load_latency(&a))
				leader = aux_leader(p, o, hybrid ? "cpu_core" : "cpu", a.type);
			if (!add(p, o, &a, kind_of(e), leader, "", e)) {
				snprintf(why, n, "pebs: MEMPHIS_EVENT names more than %d events", MEMPHIS__HW_MAX);
				return -E2BIG;
			}
		}
		return 0;
	}
	if (!hybrid && memphis__pmu_type(o->sysfs, "cpu") < 0) {
		snprintf(why, n, "pebs: no hardware core PMU (ENOENT: sysfs has no cpu or cpu_core "
			 "PMU: a virtual machine without PMU passthrough, or no kernel driver for this "
			 "CPU); use MEMPHIS_BACKEND=soft or kmod");
		return -ENOENT;
	}
	if (!hybrid)
		return defaults(p, o, "cpu", o->prefix ? o->prefix : "", why, n);
	/* hybrid: both core types (libpfm4 >= 4.14 names them adl_glc / adl_grt) */
	if ((err = defaults(p, o, "cpu_core", "adl_glc::", why, n)) < 0)
		return err;
	if (memphis__pmu_type(o->sysfs, "cpu_atom") >= 0 &&
	    (err = defaults(p, o, "cpu_atom", "adl_grt::", why, n)) < 0)
		return err;
	return 0;
}

/* ---- the backend ---- */

static struct memphis__hw_plan plan;   /* from the probe, read-only afterwards */
static struct memphis__hw_times times; /* coverage of the closed threads' events */

struct pebs_thread {
	struct memphis__hw_set set;
};

/* A sampling event that only PEBS makes a memory sample of: any but software and
 * tracepoint events (MEMPHIS_EVENT=perf::PAGE-FAULTS, which the tests use). */
static int needs_pebs(const struct memphis__hw_plan *p)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->ev[i].kind != MEMPHIS__HW_COUNT && p->ev[i].attr.type != PERF_TYPE_SOFTWARE &&
		    p->ev[i].attr.type != PERF_TYPE_TRACEPOINT)
			return 1;
	return 0;
}

int memphis__pebs_choose(struct memphis__pebs_opts *o, memphis__pebs_try_fn *try, void *ctx,
			 struct memphis__hw_plan *p, int paranoid, char *why, size_t n)
{
	int err = 0, failed = -1, first_err = 0, first_failed = -1;

	/* the highest precise_ip the kernel takes, WEIGHT_STRUCT before WEIGHT */
	for (int ws = 1; ws >= 0; ws--) {
		for (int precise = 3; precise >= 0; precise--) {
			o->weight_struct = ws;
			o->precise = precise;
			if ((err = memphis__pebs_plan(o, p, why, n)) < 0)
				return err;
			/* precise_ip 0 is no PEBS: load latency and precise stores then carry no
			 * data address or source (libpfm4: "Precise Event and ldlat required") */
			if (precise == 0 && needs_pebs(p))
				break;
			err = try(p, &failed, ctx);
			if (err == 0)
				return 0;
			if (!first_err) {
				first_err = err;
				first_failed = failed;
			}
			if (err != -EINVAL && err != -EOPNOTSUPP)
				goto refused;
		}
	}
	err = first_err;
	failed = first_failed;
refused:
	memphis__hw_why(err, "pebs", failed >= 0 && (unsigned)failed < p->n ? p->ev[failed].name
							      : "the PEBS events",
			paranoid, 0, why, n);
	return err;
}

/* memphis__pebs_try_fn of the probe: open the plan on the calling thread and close it
 * again; 0 only when every event opened. */
static int try_plan(const struct memphis__hw_plan *p, int *failed, void *ctx)
{
	struct memphis__hw_set s;
	struct memphis__ring r = { .fd = -1 };
	int err = memphis__hw_set_open(&s, &r, p, 0, -1, 1, failed);

	if (err == 0) {
		memphis__hw_set_close(&s, &r);
		if (*failed >= 0)
			return -EINVAL;
	}
	return err;
}

static int pebs_probe(const struct memphis__backend_params *p, struct memphis__sampling *out,
		      char *why, size_t n)
{
	struct memphis__pebs_opts o = {
		.sysfs = p->sysfs ? p->sysfs : "/sys", .events = p->event, .prefix = "",
		.ldlat = p->ldlat ? p->ldlat : 30, .period = p->hw_period,
	};
	int err = memphis__pebs_choose(&o, try_plan, NULL, &plan, memphis__paranoid(), why, n);

	if (err < 0)
		return err;
	out->weight = "latency";
	out->hw_unit = "events";
	/* MEMPHIS_EVENT's names carry their own (config1 in hw_events) */
	out->ldlat = p->event && *p->event ? 0 : o.ldlat;
	out->precise_ip = 0;
	for (unsigned i = 0; i < plan.n; i++)
		if ((int)plan.ev[i].attr.precise_ip > out->precise_ip)
			out->precise_ip = (int)plan.ev[i].attr.precise_ip;
	memphis__hw_plan_describe(&plan, out->hw_events, sizeof(out->hw_events), &out->hw_period);
	memphis__log(MPH_LOG_INFO, "pebs: %u events, precise_ip %d, %s", plan.n, out->precise_ip,
		     o.weight_struct ? "WEIGHT_STRUCT" : "WEIGHT");
	return 0;
}

static int pebs_open(struct memphis__thread *t)
{
	struct pebs_thread *pt = memphis__lib_calloc(1, sizeof(*pt));
	int failed, err;

	if (!pt)
		return -ENOMEM;
	err = memphis__hw_set_open(&pt->set, &t->sample, &plan, t->tid, -1, RING_PAGES, &failed);
	if (err < 0) {
		memphis__lib_free(pt);
		return err;
	}
	t->backend_state = pt;
	return 0;
}

static int pebs_enable(struct memphis__thread *t, int on)
{
	struct pebs_thread *pt = t->backend_state;

	return pt ? memphis__hw_set_enable(&pt->set, &t->sample, on) : -EBADF;
}

struct reading {
	struct memphis__thread *t;
	const struct pebs_thread *pt;
	memphis__emit_fn *emit;
	struct memphis__perf_losses loss;
};

void memphis__pebs_sample(const struct memphis__perf_sample *ps, unsigned kind,
			  struct memphis_rec_sample *s)
{
	struct memphis_hw_access acc = { 0 };

	memset(s, 0, sizeof(*s));
	memphis_mem_src_decode(ps->data_src, &acc);
	s->time = ps->time;
	s->ip = ps->ip;
	s->sampled_ip = ps->ip;
	s->tid = ps->tid;
	s->cpu = (uint16_t)ps->cpu;
	s->data_src = ps->data_src;
	s->weight = ps->lat;
	s->ins_lat = ps->ins_lat;
	/* an address the program could have used: user space, not the null page */
	if (ps->addr >= 4096 && ps->addr < MEMPHIS_USER_ADDR_END) {
		s->flags = MPH_S_EXACT | MPH_S_HWADDR;
		s->addr = ps->addr;
	} else {
		s->flags = MPH_S_NOADDR;
	}
	if (acc.is_load || (!acc.is_store && kind == MEMPHIS__HW_LOAD))
		s->flags |= MPH_S_LOAD;
	else if (acc.is_store || kind == MEMPHIS__HW_STORE)
		s->flags |= MPH_S_STORE;
	if (acc.remote)
		s->flags |= MPH_S_REMOTE_HW;
}

static void on_record(const void *rec, size_t len, void *ctx)
{
	struct reading *rd = ctx;
	struct memphis__perf_sample ps;
	struct memphis_rec_sample s;
	int type = memphis__perf_record_count(rec, len, &rd->loss);

	if (type == PERF_RECORD_FORK)
		memphis__thread_fork_record(rec, len);
	if (type != PERF_RECORD_SAMPLE)
		return;
	if (memphis__perf_sample_parse(rec, len, plan.ev[rd->pt->set.ring].attr.sample_type, &ps) < 0)
		return;
	memphis__pebs_sample(&ps, memphis__hw_set_kind(&rd->pt->set, ps.id), &s);
	rd->emit(rd->t, &s, NULL);
}

static void pebs_read(struct memphis__thread *t, memphis__emit_fn *emit)
{
	struct reading rd = { t, t->backend_state, emit, { 0 } };

	if (!rd.pt || rd.pt->set.ring < 0)
		return;
	memphis__ring_drain(&t->sample, on_record, &rd);
	t->r_lost += rd.loss.lost + rd.loss.lost_samples;
	t->r_throttled += rd.loss.throttle;
}

static void pebs_close(struct memphis__thread *t)
{
	struct pebs_thread *pt = t->backend_state;

	if (pt) {
		memphis__hw_times_add(&times, &pt->set, &t->sample);
		memphis__hw_set_close(&pt->set, &t->sample);
		memphis__lib_free(pt);
		t->backend_state = NULL;
	} else {
		memphis__ring_close(&t->sample);
	}
}

static void times_of(struct memphis__thread *t, void *ctx)
{
	struct pebs_thread *pt = t->backend_state;

	if (pt)
		memphis__hw_times_add(&times, &pt->set, &t->sample);
}

/* The PEBS events share the core PMU's counters with every other event of the thread
 * (PAPI's, the NMI watchdog's, another tool's): perf rotates them, and the events run
 * part of the time. */
static size_t pebs_coverage(struct memphis__hw_coverage *c, size_t n)
{
	memphis__thread_foreach(times_of, NULL);
	return memphis__hw_times_take(&times, &plan, c, n);
}

const struct memphis__backend memphis__backend_pebs = {
	.name = "pebs",
	.probe = pebs_probe,
	.open = pebs_open,
	.enable = pebs_enable,
	.read = pebs_read,
	.close = pebs_close,
	.coverage = pebs_coverage,
};
