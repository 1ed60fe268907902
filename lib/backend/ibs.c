/* lib/backend/ibs.c - AMD IBS op sampling through perf_event_open on the ibs_op PMU: every
 * sample is one retired op with its exact data address, where its data came from and its
 * latency. Per thread on kernels that allow it (6.2 and later), else per CPU with the
 * samples of other processes dropped. The PMU's type and format bits come from sysfs;
 * the samples are decoded from PERF_SAMPLE_RAW with every validity bit (include/memphis/
 * hwdecode.h), always: the kernel's own DATA_SRC is not asked for, because kernels 6.1 to
 * 6.5 encode it differently (before 8bfc20baa935 "perf/x86/ibs: Set mem_lvl_num,
 * mem_remote and mem_hops for data_src"; a Zen 4 hit in another CCX of the node reads
 * there as another node's cache), and the registers give the 6.6+ convention on every
 * kernel. Untested on hardware: no machine of the project has IBS. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "cpufamily.h"
#include "ibs.h"
#include "log.h"
#include "memphis/hwdecode.h"
#include "self.h"

#define BASE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
		   PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define RING_PAGES 128

/* Only the minimum and the nibble: a period above what MaxCnt holds (0xffff0, or 23 bits
 * with OpCntExt) is the kernel's to split (perf_event_set_period()'s period_left, as Ravi
 * Bangoria answered in the review of "Add PMU specific minimum period"). */
uint64_t memphis__ibs_period(uint64_t want)
{
	if (!want)
		want = MEMPHIS__IBS_PERIOD;
	want &= ~0xfull;
	if (want < MEMPHIS__IBS_PERIOD_MIN)
		want = MEMPHIS__IBS_PERIOD_MIN;
	return want;
}

/* Append "; "-separated text to notes. */
static void note(char *notes, size_t n, const char *text)
{
	size_t k = strlen(notes);

	if (k + 1 < n)
		snprintf(notes + k, n - k, "%s%s", k ? "; " : "", text);
}

int memphis__ibs_plan(const struct memphis__ibs_opts *o, struct memphis__hw_plan *p,
		      char *notes, size_t notes_n, char *why, size_t n)
{
	struct memphis__hw_event *ev = &p->ev[0];
	struct perf_event_attr *a = &ev->attr;
	int type = memphis__pmu_type(o->sysfs, "ibs_op");

	memset(p, 0, sizeof(*p));
	notes[0] = 0;
	if (type < 0) {
		memphis__hw_why(type == -ENOENT ? -ENOENT : type, "ibs", "ibs_op", 2, 0, why, n);
		if (type == -ENOENT)
			snprintf(why, n, "ibs: no ibs_op PMU in sysfs (not an AMD CPU with IBS, or a "
				 "virtual machine without it); use MEMPHIS_BACKEND=pebs, soft or kmod");
		return type;
	}
	p->n = 1;
	ev->leader = -1;
	ev->kind = MEMPHIS__HW_ANY;
	snprintf(ev->name, sizeof(ev->name), "ibs_op");
	a->size = sizeof(*a);
	a->type = (uint32_t)type;
	a->sample_period = memphis__ibs_period(o->period);
	a->sample_type = BASE_TYPE | o->kernel_fields;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	if (o->cnt_ctl && memphis__pmu_set(o->sysfs, "ibs_op", "cnt_ctl", a, 1) < 0) {
		struct memphis__pmu_term t;
		memphis__pmu_term_parse("config:19", &t); /* IbsOpCntCtl, where sysfs is silent */
		memphis__pmu_term_set(a, &t, 1);
	}
	if (o->l3missonly) {
		if (memphis__pmu_has(o->sysfs, "ibs_op", "caps/zen4_ibs_extensions") &&
		    memphis__pmu_set(o->sysfs, "ibs_op", "l3missonly", a, 1) == 0)
			/* perf's own warning for it (builtin-record, amd ibs) */
			note(notes, notes_n, "l3missonly: the hardware restarts its count at every "
			     "tagged op that does not miss L3, so sample counts are not proportional "
			     "to ops (period skew): compare them only between runs with the same "
			     "setting");
		else
			note(notes, notes_n, "MEMPHIS_IBS_L3MISSONLY=1 ignored: this CPU/kernel has "
			     "no l3missonly (Zen 4 and later, caps/zen4_ibs_extensions)");
	}
	/* user-only sampling needs the kernel's software filter; without it IBS refuses
	 * exclude_kernel and kernel samples are dropped here */
	if (memphis__pmu_set(o->sysfs, "ibs_op", "swfilt", a, 1) == 0)
		a->exclude_kernel = 1;
	return 0;
}

int memphis__ibs_choose(struct memphis__ibs_opts *o, memphis__ibs_try_fn *try, void *ctx,
			struct memphis__hw_plan *p, int *per_cpu, char *notes, size_t notes_n,
			int paranoid, char *why, size_t n)
{
	/* cnt_ctl set at its hardware bit because sysfs has no format/cnt_ctl: a kernel
	 * without IBS_CAPS_OPCNT hides the file and refuses the bit (EINVAL), older ones
	 * without the file take it */
	int forced = o->cnt_ctl && !memphis__pmu_has(o->sysfs, "ibs_op", "format/cnt_ctl");
	int retried = 0, err;
	unsigned what;

	for (;;) {
		*per_cpu = 0;
		if ((err = memphis__ibs_plan(o, p, notes, notes_n, why, n)) < 0)
			return err;
		what = p->ev[0].attr.exclude_kernel ? 0 : MEMPHIS__HW_WHY_KERNEL;
		err = try(p, 0, -1, ctx); /* per thread: kernels 6.2 and later */
		if (err == -EINVAL || err == -EOPNOTSUPP) {
			int e2 = try(p, -1, 0, ctx);
			if (e2 == 0 || e2 == -EACCES || e2 == -EPERM || e2 == -EINVAL) {
				*per_cpu = e2 != -EINVAL;
				if (*per_cpu)
					what |= MEMPHIS__HW_WHY_CPU;
				err = e2;
			}
		}
		if (err != -EINVAL || !forced || retried)
			break;
		retried = 1;
		o->cnt_ctl = 0;
	}
	if (retried && err == 0)
		note(notes, notes_n, "MEMPHIS_IBS_CNT_CTL=1 refused by the kernel (no IbsOpCntCtl): "
		     "the period counts cycles");
	if (err < 0) {
		memphis__hw_why(err, "ibs", "ibs_op", paranoid, what, why, n);
		return err;
	}
	return 0;
}

int memphis__ibs_sample(const struct memphis__perf_sample *ps, uint64_t st, unsigned family,
			unsigned model, struct memphis_rec_sample *out)
{
	struct memphis_hw_access acc;

	memset(out, 0, sizeof(*out));
	if (!(st & PERF_SAMPLE_RAW) || !ps->raw ||
	    memphis_ibs_raw_decode(ps->raw, ps->raw_size, family, model, &acc) < 0)
		return 0; /* no registers, a short payload, or En/Val clear */
	if (!acc.is_load && !acc.is_store)
		return 0;
	/* user code only: the op's RIP, or with RipInvalid the interrupted context's */
	if ((acc.ip_valid ? acc.ip : ps->ip) >= MEMPHIS_USER_ADDR_END)
		return 0;
	out->time = ps->time;
	/* RipInvalid: the kernel reports the interrupted ip without PERF_EFLAGS_EXACT, which
	 * is not the sampled op; the sample keeps no instruction (ip 0), its address stays */
	out->ip = acc.ip_valid ? acc.ip : 0;
	out->sampled_ip = acc.ip_valid ? acc.ip : ps->ip;
	out->tid = ps->tid;
	out->cpu = (uint16_t)ps->cpu;
	out->flags = acc.is_load ? MPH_S_LOAD : MPH_S_STORE;
	if (acc.addr_valid && acc.addr >= 4096 && acc.addr < MEMPHIS_USER_ADDR_END) {
		out->addr = acc.addr;
		out->flags |= MPH_S_EXACT | MPH_S_HWADDR;
	} else {
		out->flags |= MPH_S_NOADDR;
	}
	out->data_src = acc.data_src;
	if (acc.remote)
		out->flags |= MPH_S_REMOTE_HW;
	out->weight = acc.latency;
	out->ins_lat = acc.ins_lat;
	return 1;
}

/* ---- the backend ---- */

static struct memphis__hw_plan plan;
static int per_cpu;        /* the kernel has no per-task IBS: one event per CPU */
static unsigned cpu_family, cpu_model; /* for the decoder's errata and CacheHitSt */
static pid_t own_pid;
static int ncpus;
static struct memphis__hw_set *cpu_sets;
static struct memphis__ring *cpu_rings;
static struct memphis__hw_times times; /* coverage of the closed threads' events */

/* memphis__ibs_try_fn of the probe: open the plan for real, close it again. */
static int try_open(const struct memphis__hw_plan *p, pid_t tid, int cpu, void *ctx)
{
	struct memphis__hw_set s;
	struct memphis__ring r = { .fd = -1 };
	int failed, err = memphis__hw_set_open(&s, &r, p, tid, cpu, 1, &failed);

	if (err == 0)
		memphis__hw_set_close(&s, &r);
	return err;
}

static int ibs_probe(const struct memphis__backend_params *p, struct memphis__sampling *out,
		     char *why, size_t n)
{
	struct memphis__ibs_opts o = {
		.sysfs = p->sysfs ? p->sysfs : "/sys", .period = p->hw_period,
		.cnt_ctl = p->ibs_cnt_ctl, .l3missonly = p->ibs_l3missonly,
	};
	int err;

	own_pid = p->pid;
	mph_cpu_family_model(&cpu_family, &cpu_model); /* 0, 0: no model-specific bit trusted */
	err = memphis__ibs_choose(&o, try_open, NULL, &plan, &per_cpu, out->hw_notes,
				  sizeof(out->hw_notes), memphis__paranoid(), why, n);
	if (err < 0)
		return err;
	if (out->hw_notes[0])
		memphis__log(MPH_LOG_WARN, "ibs: %s", out->hw_notes);
	memphis__log(MPH_LOG_INFO, "ibs: %s, period %llu, config %#llx, sample_type %#llx",
		     per_cpu ? "per CPU" : "per thread", (unsigned long long)plan.ev[0].attr.sample_period,
		     (unsigned long long)plan.ev[0].attr.config,
		     (unsigned long long)plan.ev[0].attr.sample_type);
	out->weight = "latency";
	out->hw_unit = o.cnt_ctl ? "ops" : "cycles";
	memphis__hw_plan_describe(&plan, out->hw_events, sizeof(out->hw_events), &out->hw_period);
	return 0;
}

static int ibs_open(struct memphis__thread *t)
{
	struct memphis__hw_set *s;
	int failed, err;

	if (per_cpu)
		return 0;
	s = memphis__lib_calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if ((err = memphis__hw_set_open(s, &t->sample, &plan, t->tid, -1, RING_PAGES, &failed)) < 0) {
		memphis__lib_free(s);
		return err;
	}
	t->backend_state = s;
	return 0;
}

static int ibs_enable(struct memphis__thread *t, int on)
{
	return t->backend_state ? memphis__hw_set_enable(t->backend_state, &t->sample, on) : 0;
}

struct reading {
	struct memphis__thread *t;   /* NULL per CPU: the samples are collected */
	memphis__emit_fn *emit;
	struct memphis__perf_losses loss;
	struct memphis_rec_sample *buf;
	size_t n, cap;
};

static void on_record(const void *rec, size_t len, void *ctx)
{
	struct reading *rd = ctx;
	struct memphis__perf_sample ps;
	struct memphis_rec_sample s;
	uint64_t st = plan.ev[0].attr.sample_type;
	int type = memphis__perf_record_count(rec, len, &rd->loss);

	if (type == PERF_RECORD_FORK)
		memphis__thread_fork_record(rec, len);
	if (type != PERF_RECORD_SAMPLE || memphis__perf_sample_parse(rec, len, st, &ps) < 0)
		return;
	if (!memphis__ibs_sample(&ps, st, cpu_family, cpu_model, &s))
		return;
	if (rd->t) {
		rd->emit(rd->t, &s, NULL);
		return;
	}
	if (ps.pid != (uint32_t)own_pid)
		return;
	if (rd->n == rd->cap) {
		size_t cap = rd->cap ? rd->cap * 2 : 4096;
		struct memphis_rec_sample *b = memphis__lib_realloc(rd->buf, cap * sizeof(*b));
		if (!b) {
			rd->loss.lost++;
			return;
		}
		rd->buf = b;
		rd->cap = cap;
	}
	rd->buf[rd->n++] = s;
}

static void ibs_read(struct memphis__thread *t, memphis__emit_fn *emit)
{
	struct reading rd = { .t = t, .emit = emit };

	if (per_cpu || !t->backend_state)
		return;
	memphis__ring_drain(&t->sample, on_record, &rd);
	t->r_lost += rd.loss.lost + rd.loss.lost_samples;
	t->r_throttled += rd.loss.throttle;
}

static void ibs_close(struct memphis__thread *t)
{
	if (t->backend_state) {
		memphis__hw_times_add(&times, t->backend_state, &t->sample);
		memphis__hw_set_close(t->backend_state, &t->sample);
		memphis__lib_free(t->backend_state);
		t->backend_state = NULL;
	}
}

/* Per CPU: the events open at the first region and stay open, enabled in regions. */
static int ibs_start(int on, memphis__emit_fn *emit)
{
	int failed, opened = 0;

	if (!per_cpu)
		return 0;
	if (!cpu_sets) {
		ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
		if (ncpus < 1)
			ncpus = 1;
		cpu_sets = memphis__lib_calloc((size_t)ncpus, sizeof(*cpu_sets));
		cpu_rings = memphis__lib_calloc((size_t)ncpus, sizeof(*cpu_rings));
		if (!cpu_sets || !cpu_rings)
			return -ENOMEM;
		for (int c = 0; c < ncpus; c++) {
			cpu_rings[c].fd = -1;
			cpu_sets[c].ring = -1;
			if (memphis__hw_set_open(&cpu_sets[c], &cpu_rings[c], &plan, -1, c, RING_PAGES,
						 &failed) == 0)
				opened++;
		}
		if (!opened)
			return -ENODEV;
	}
	for (int c = 0; c < ncpus; c++)
		if (cpu_sets[c].ring >= 0)
			memphis__hw_set_enable(&cpu_sets[c], &cpu_rings[c], on);
	return 0;
}

struct matching {
	struct reading *rd;
	memphis__emit_fn *emit;
	size_t matched;
};

static int by_tid_time(const void *a, const void *b)
{
	const struct memphis_rec_sample *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->time > y->time) - (x->time < y->time);
}

void memphis__ibs_sort(struct memphis_rec_sample *s, size_t n)
{
	qsort(s, n, sizeof(*s), by_tid_time);
}

static void emit_thread(struct memphis__thread *t, void *ctx)
{
	struct matching *m = ctx;
	size_t lo = 0, hi = m->rd->n;

	if (t->gone)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->rd->buf[mid].tid < (uint32_t)t->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < m->rd->n && m->rd->buf[lo].tid == (uint32_t)t->tid; lo++, m->matched++)
		m->emit(t, &m->rd->buf[lo], NULL);
}

static uint64_t ibs_read_process(memphis__emit_fn *emit)
{
	struct reading rd = { .t = NULL, .emit = emit };
	struct matching m = { &rd, emit, 0 };

	if (!per_cpu || !cpu_sets)
		return 0;
	for (int c = 0; c < ncpus; c++)
		if (cpu_sets[c].ring >= 0)
			memphis__ring_drain(&cpu_rings[c], on_record, &rd);
	if (rd.n) {
		memphis__ibs_sort(rd.buf, rd.n);
		memphis__thread_foreach(emit_thread, &m);
	}
	memphis__lib_free(rd.buf);
	return rd.loss.lost + rd.loss.lost_samples;
}

static void times_of(struct memphis__thread *t, void *ctx)
{
	if (t->backend_state)
		memphis__hw_times_add(&times, t->backend_state, &t->sample);
}

/* A second IBS user of a CPU (perf record -e ibs_op, numatop, another memphis) takes it at
 * schedule-in (perf_ibs_add() -ENOSPC): memphis's event then runs only part of the time. */
static size_t ibs_coverage(struct memphis__hw_coverage *c, size_t n)
{
	if (!per_cpu)
		memphis__thread_foreach(times_of, NULL);
	for (int cpu = 0; per_cpu && cpu_sets && cpu < ncpus; cpu++)
		if (cpu_sets[cpu].ring >= 0)
			memphis__hw_times_add(&times, &cpu_sets[cpu], &cpu_rings[cpu]);
	return memphis__hw_times_take(&times, &plan, c, n);
}

const struct memphis__backend memphis__backend_ibs = {
	.name = "ibs",
	.probe = ibs_probe,
	.open = ibs_open,
	.enable = ibs_enable,
	.read = ibs_read,
	.close = ibs_close,
	.start = ibs_start,
	.read_process = ibs_read_process,
	.coverage = ibs_coverage,
};
