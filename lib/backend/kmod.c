/* lib/backend/kmod.c - samples from the kernel module /dev/memphismod (kmod/), for users
 * and machines where perf_event_open is forbidden to the process (perf_event_paranoid 3,
 * no CAP_PERFMON) but the administrator granted the device to the user's group.
 *
 * The module samples the whole process (every thread, present and future, but the drain
 * thread) with task-clock events and returns records with the interrupted user registers,
 * so a sample is attributed exactly as the soft backend does (execution predecessor, address
 * rebuilt from the registers; lib/insn.h): weights are stall-weighted too. Where the
 * module offers a hardware kind (caps of GET_VERSION), MEMPHIS_KMOD_KIND=auto (default)
 * takes it instead: IBS op or PEBS load-latency records carry the data address, source and
 * latency themselves (untested on hardware), at MEMPHIS_HW_PERIOD and MEMPHIS_LDLAT (0: the
 * module's defaults). MEMPHIS_KMOD_KIND=clock|ibs|pebs (config.c) chooses; a kind the
 * module does not offer or refuses is said in one line, then the clock. It works per
 * process, not per thread: the per-thread hooks do nothing and the process hooks
 * start/stop the module at region boundaries and empty its buffers from the drain thread
 * (at least every 100 ms) and at memphis_print(). Samples the module dropped on a full
 * buffer come back as LOST records of their thread (its r_lost, as the soft backend's).
 * The module's page-fault stream (FAULTS, read apart) gives the first touches: the
 * process may not be allowed perf's page-fault events either.
 *
 * Scope (MEMPHIS_SCOPE, RUN scope): the module's events per thread, or per CPU
 * (MEMPHISMOD_CONFIG_PER_CPU, where caps offer it: the cpu clock at 100 us or more;
 * hardware kinds per thread) with only this process's samples kept:
 * no timer is re-armed when a thread sleeps and wakes. auto takes per CPU where the module
 * offers it and the CPUs do not look crowded (memphis__thread_crowded): a per-CPU session
 * puts a timer on every CPU, the other users' too. As the soft backend, it leaves per CPU
 * for per thread, for the rest of the run and with a note, at a region's start once the
 * CPUs look crowded (auto only: MEMPHIS_SCOPE=cpu stays). Unlike the soft backend's, the
 * module's per-CPU buffers fill with this process's samples only, at most one a period
 * per CPU in either scope: a drain that falls behind loses as much per thread, so that
 * is no reason to leave.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "insn.h"
#include "kmod_record.h"
#include "log.h"
#include "memphis/memphismod.h"
#include "self.h"
#include "writer.h"

#define BATCH 1024 /* records per READ */

static int dev_fd = -1;          /* the library's (fd.h): checked before every ioctl */
static struct memphis__fdid dev_id;
static size_t rec_size;
static uint32_t ncpus;
static unsigned char *rbuf;                   /* BATCH records as the module wrote them */
static struct memphis__kmod_sample *samples;  /* the batch decoded, sorted by tid */
static size_t nsamples;
static uint64_t unknown_tid;                  /* samples of threads not in the registry */
static uint64_t throttled_untold;             /* throttles READ told without a sample */
static struct memphis__code *code;            /* under the drain lock only */
static uint32_t pid;                          /* the profiled process, from the probe */
static uint64_t period_used;                  /* ns of the cpu clock (the fallback's too) */
static uint64_t hw_period_used;               /* ops or loads of a hardware kind */
static uint64_t ldlat_used;                   /* PEBS_LDLAT threshold sent, 0: default */
static uint64_t kind_used;                    /* enum memphismod_kind configured */
static uint64_t buffer_used;                  /* bytes per CPU, configured */
static uint64_t caps_seen;                    /* GET_VERSION's caps */
static uint64_t config_flags;                 /* CONFIGURE's: MEMPHISMOD_CONFIG_PER_CPU or 0 */
static int scope_cpu;                         /* the module samples per CPU (the flag, or
					       * MEMPHISMOD_CAP_PER_CPU_ALL) */
static int scope_auto;                        /* per CPU by MEMPHIS_SCOPE=auto: may leave */
static uint64_t lost_pending;                 /* lost in a read by start, told by the next */

static const char *kind_name(uint64_t kind)
{
	return kind == MEMPHISMOD_KIND_IBS_OP ? "IBS op" :
	       kind == MEMPHISMOD_KIND_PEBS_LDLAT ? "PEBS load latency" : "cpu clock";
}

/* The kind MEMPHIS_KMOD_KIND (want: enum memphis__kmod_kind, parsed by config.c) asks
 * for, given the module's caps. A hardware kind named but not offered is said in one line. */
static uint64_t kind_wanted(uint64_t caps, int want)
{
	if (want == MEMPHIS__KMOD_AUTO) {
		if (caps & MEMPHISMOD_CAP_IBS_OP)
			return MEMPHISMOD_KIND_IBS_OP;
		if (caps & MEMPHISMOD_CAP_PEBS)
			return MEMPHISMOD_KIND_PEBS_LDLAT;
		return MEMPHISMOD_KIND_CPU_CLOCK;
	}
	if (want == MEMPHIS__KMOD_IBS || want == MEMPHIS__KMOD_PEBS) {
		int ibs = want == MEMPHIS__KMOD_IBS;
		uint64_t kind = ibs ? MEMPHISMOD_KIND_IBS_OP : MEMPHISMOD_KIND_PEBS_LDLAT;

		if (caps & (ibs ? MEMPHISMOD_CAP_IBS_OP : MEMPHISMOD_CAP_PEBS))
			return kind;
		memphis__warn("kmod: MEMPHIS_KMOD_KIND=%s: %s does not offer %s sampling on this "
			      "machine (the CPU or kernel has no such PMU, e.g. a VM without PMU "
			      "passthrough; the module's load line in dmesg says why): sampling "
			      "with the cpu clock", ibs ? "ibs" : "pebs", MEMPHISMOD_DEVICE,
			      kind_name(kind));
	}
	return MEMPHISMOD_KIND_CPU_CLOCK;
}

/* The period CONFIGURE gets for a hardware kind: MEMPHIS_HW_PERIOD (want; 0 = the
 * module's default) moved into the module's limits (IBS: a multiple of 16). */
static uint64_t hw_period_of(uint64_t kind, uint64_t want)
{
	uint64_t lo = MEMPHISMOD_PEBS_PERIOD_MIN, hi = MEMPHISMOD_PEBS_PERIOD_MAX;

	if (kind == MEMPHISMOD_KIND_IBS_OP) {
		lo = MEMPHISMOD_IBS_PERIOD_MIN;
		hi = MEMPHISMOD_IBS_PERIOD_MAX;
		want &= ~0xfull;
	}
	if (!want)
		return kind == MEMPHISMOD_KIND_IBS_OP ? MEMPHISMOD_IBS_PERIOD_DEFAULT
						      : MEMPHISMOD_PEBS_PERIOD_DEFAULT;
	return want < lo ? lo : want > hi ? hi : want;
}

/* CONFIGURE the kind: period in ns for the clock, in ops or loads for the hardware kinds
 * (their own period), ldlat for PEBS only (0 = the module's default), with config_flags.
 * 0 or -errno. */
static int configure(int fd, uint64_t kind, uint64_t period, uint64_t ldlat, uint64_t buffer)
{
	struct memphismod_config c = { .size = sizeof(c), .flags = config_flags };

	c.kind = kind;
	c.period = period;
	c.ldlat = kind == MEMPHISMOD_KIND_PEBS_LDLAT ? ldlat : 0;
	c.buffer_size = buffer;
	return ioctl(fd, MEMPHISMOD_IOC_CONFIGURE, &c) < 0 ? -errno : 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 1 << 20 ? 1 << 20 : (int)n;
}

/* CONFIGURE's flags of the cpu clock at period_ns for MEMPHIS_SCOPE (want, enum
 * memphis__scope) given the module's caps: per CPU when asked for, or (auto) where offered
 * and the CPUs do not look crowded. */
static uint64_t scope_flags(uint64_t caps, int want, uint64_t period_ns)
{
	if (caps & MEMPHISMOD_CAP_PER_CPU_ALL) {
		if (want == MEMPHIS__SCOPE_THREAD)
			memphis__warn("kmod: MEMPHIS_SCOPE=thread: %s samples every process per CPU "
				      "(module parameter per_cpu_events=1)", MEMPHISMOD_DEVICE);
		return 0; /* per CPU without asking */
	}
	if (want == MEMPHIS__SCOPE_THREAD)
		return 0;
	if (!(caps & MEMPHISMOD_CAP_PER_CPU)) {
		if (want == MEMPHIS__SCOPE_CPU)
			memphis__warn("kmod: MEMPHIS_SCOPE=cpu: %s offers no per-CPU events (a module "
				      "of an older memphis): sampling per thread", MEMPHISMOD_DEVICE);
		return 0;
	}
	if (period_ns < MEMPHISMOD_PER_CPU_PERIOD_MIN) {
		/* the module's floor: a per-CPU timer interrupts every process on every CPU */
		if (want == MEMPHIS__SCOPE_CPU)
			memphis__warn("kmod: MEMPHIS_SCOPE=cpu: %s takes per-CPU events at a period "
				      "of %llu ns or more, not %llu: sampling per thread",
				      MEMPHISMOD_DEVICE, (unsigned long long)MEMPHISMOD_PER_CPU_PERIOD_MIN,
				      (unsigned long long)period_ns);
		return 0;
	}
	if (want == MEMPHIS__SCOPE_AUTO && memphis__thread_crowded(online_cpus())) {
		memphis__log(MPH_LOG_INFO, "kmod: the CPUs are oversubscribed (over two tasks per "
			     "CPU): events per thread, not per CPU");
		return 0;
	}
	return MEMPHISMOD_CONFIG_PER_CPU;
}

/* Why the device cannot be used, for the one line the user sees. */
static void access_reason(int err, char *why, size_t n)
{
	struct stat st;
	char grp[64] = "";

	if (err == ENOENT || err == ENODEV || err == ENXIO) {
		snprintf(why, n, "%s not present: the memphismod kernel module is not loaded "
			 "(as root: modprobe memphismod group=GID; see kmod/README.md)",
			 MEMPHISMOD_DEVICE);
		return;
	}
	if ((err == EACCES || err == EPERM) && stat(MEMPHISMOD_DEVICE, &st) == 0) {
		struct group *g = getgrgid(st.st_gid);
		if (g)
			snprintf(grp, sizeof(grp), "%s", g->gr_name);
		else
			snprintf(grp, sizeof(grp), "%u", (unsigned)st.st_gid);
		snprintf(why, n, "no access to %s (mode %03o, group %s): ask the administrator to "
			 "add you to group %s", MEMPHISMOD_DEVICE, (unsigned)(st.st_mode & 0777), grp,
			 grp);
		return;
	}
	snprintf(why, n, "cannot open %s: %s", MEMPHISMOD_DEVICE, strerror(err));
}

/* Per-CPU buffer: >= 0.5 s of samples at the period (the drain thread empties it every
 * 100 ms, but a drain pass over many samples can take longer on a slow machine), within
 * the module's limits. The module keeps a power of two of records, rounded down: ask for
 * one, or a request of 2,001 records leaves 1,024 (0.26 s at 250 us). */
static uint64_t buffer_bytes(const struct memphismod_version *v, uint64_t period_ns)
{
	uint64_t recs = 1;

	while (recs < 500000000ull / period_ns + 1)
		recs *= 2;
	uint64_t want = v->record_size * recs;

	if (want < v->buffer_default)
		want = v->buffer_default;
	if (want > v->buffer_max)
		want = v->buffer_max;
	return want;
}

/* What the module samples with `kind`, for the RUN block. */
static void describe(uint64_t kind, struct memphis__sampling *out)
{
	out->kmod_kind = kind == MEMPHISMOD_KIND_IBS_OP ? "ibs" :
			 kind == MEMPHISMOD_KIND_PEBS_LDLAT ? "pebs" : "clock";
	out->scope = scope_cpu ? "cpu" : "thread";
	if (kind == MEMPHISMOD_KIND_CPU_CLOCK) {
		out->weight = "stall";
		out->period_ns = period_used;
		return;
	}
	out->weight = "latency";
	out->hw_period = hw_period_used;
	/* the module counts cycles where the CPU has no IbsOpCntCtl (its load line says) */
	out->hw_unit = kind == MEMPHISMOD_KIND_IBS_OP ? "ops" : "events";
	if (kind == MEMPHISMOD_KIND_PEBS_LDLAT)
		out->ldlat = (unsigned)(ldlat_used ? ldlat_used : MEMPHISMOD_LDLAT_DEFAULT);
}

static int kmod_probe(const struct memphis__backend_params *p, struct memphis__sampling *out,
		      char *why, size_t n)
{
	struct memphismod_version v = { .size = sizeof(v) };
	uint64_t period = p->period_ns, kind, buffer;
	sigset_t old;
	int fd, err;

	if (dev_fd >= 0) {
		describe(kind_used, out);
		return 0;
	}
	memphis__fd_fork_hold(&old);
	fd = memphis__fd_take(open(MEMPHISMOD_DEVICE, O_RDWR | O_CLOEXEC), 1, &dev_id);
	memphis__fd_fork_release(&old);
	if (fd < 0) {
		err = fd == -1 ? errno : -fd;
		access_reason(err, why, n);
		return -err;
	}
	if (ioctl(fd, MEMPHISMOD_IOC_GET_VERSION, &v) < 0) {
		err = errno;
		snprintf(why, n, "%s: GET_VERSION failed (%s): not a memphismod device?",
			 MEMPHISMOD_DEVICE, strerror(err));
		goto out_close;
	}
	if (v.abi_version != MEMPHISMOD_ABI_VERSION || v.record_size < MEMPHISMOD_RECORD_SIZE_VER0 ||
	    v.record_size > 4096 || v.nr_cpus == 0) {
		err = EPROTO;
		snprintf(why, n, "%s speaks ABI %llu (record %llu bytes), this library ABI %d: "
			 "load the module of the same memphis version", MEMPHISMOD_DEVICE,
			 (unsigned long long)v.abi_version, (unsigned long long)v.record_size,
			 MEMPHISMOD_ABI_VERSION);
		goto out_close;
	}
	if (period < v.period_min)
		period = v.period_min;
	if (period > v.period_max)
		period = v.period_max;
	buffer = buffer_bytes(&v, period);
	kind = kind_wanted(v.caps, p->kmod_kind);
	config_flags = 0; /* per CPU: the cpu clock only (memphismod.h) */
	if (kind != MEMPHISMOD_KIND_CPU_CLOCK) {
		hw_period_used = hw_period_of(kind, p->hw_period);
		ldlat_used = p->ldlat;
		err = -configure(fd, kind, hw_period_used, ldlat_used, buffer);
		if (err) {
			memphis__warn("kmod: %s refused %s sampling (CONFIGURE: %s): sampling with "
				      "the cpu clock", MEMPHISMOD_DEVICE, kind_name(kind), strerror(err));
			kind = MEMPHISMOD_KIND_CPU_CLOCK;
		}
	}
	if (kind == MEMPHISMOD_KIND_CPU_CLOCK) {
		config_flags = scope_flags(v.caps, p->scope, period);
		err = -configure(fd, kind, period, 0, buffer);
		if (err == EINVAL && config_flags) {
			/* caps offered the flag, and yet: per thread, as a module without it */
			memphis__log(MPH_LOG_WARN, "kmod: %s refused per-CPU events (EINVAL): per "
				     "thread", MEMPHISMOD_DEVICE);
			config_flags = 0;
			err = -configure(fd, kind, period, 0, buffer);
		}
		if (err) {
			snprintf(why, n, "%s: CONFIGURE (period %llu ns, buffer %llu bytes) failed: %s",
				 MEMPHISMOD_DEVICE, (unsigned long long)period,
				 (unsigned long long)buffer, strerror(err));
			goto out_close;
		}
	}
	rbuf = memphis__lib_malloc(BATCH * v.record_size);
	samples = memphis__lib_malloc(BATCH * sizeof(*samples));
	if (!rbuf || !samples) {
		err = ENOMEM;
		snprintf(why, n, "out of memory");
		goto out_free;
	}
	rec_size = v.record_size;
	caps_seen = v.caps;
	scope_cpu = config_flags || (v.caps & MEMPHISMOD_CAP_PER_CPU_ALL);
	scope_auto = config_flags && p->scope == MEMPHIS__SCOPE_AUTO;
	ncpus = v.nr_cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)v.nr_cpus;
	pid = (uint32_t)p->pid;
	period_used = period;
	kind_used = kind;
	buffer_used = buffer;
	describe(kind, out); /* the module's limits may have moved the period */
	dev_fd = fd;
	memphis__log(MPH_LOG_INFO, "kmod: %s abi %llu, caps %#llx, %s per %s, period %llu %s, "
		     "buffer %llu bytes/cpu", MEMPHISMOD_DEVICE, (unsigned long long)v.abi_version,
		     (unsigned long long)v.caps, kind_name(kind), scope_cpu ? "CPU" : "thread",
		     (unsigned long long)(kind == MEMPHISMOD_KIND_CPU_CLOCK ? period : hw_period_used),
		     kind == MEMPHISMOD_KIND_CPU_CLOCK ? "ns" : out->hw_unit,
		     (unsigned long long)buffer);
	return 0;

out_free:
	memphis__lib_free(rbuf);
	memphis__lib_free(samples);
	rbuf = NULL;
	samples = NULL;
out_close:
	memphis__fd_close(&fd, &dev_id);
	return -err;
}

/* Per-thread hooks: the module samples the whole process, nothing to do per thread. */
static int kmod_open(struct memphis__thread *t)
{
	return 0;
}

static int kmod_enable(struct memphis__thread *t, int on)
{
	return 0;
}

static void kmod_read(struct memphis__thread *t, memphis__emit_fn *emit)
{
}

static void kmod_close(struct memphis__thread *t)
{
}

/* START, the drain thread excluded: its own samples filled the buffer of the CPU it ran
 * on exactly while it was busiest, a sampled thread sharing that CPU lost its samples, and
 * reading them cost the drain more time (guest, cg at 250 us: 3,883 of the drain's samples
 * read and dropped, 962 of the program's lost). A module of the first version knows no
 * exclude_tid (E2BIG): START as before. */
static int start_ioctl(void)
{
	struct memphismod_start st = { .size = sizeof(st),
				       .exclude_tid = (uint64_t)memphis__thread_drain() };
	int r = ioctl(dev_fd, MEMPHISMOD_IOC_START, &st);

	if (r < 0 && errno == E2BIG) {
		st.size = MEMPHISMOD_START_SIZE_VER0;
		r = ioctl(dev_fd, MEMPHISMOD_IOC_START, &st);
	}
	return r;
}

static uint64_t kmod_read_process(memphis__emit_fn *emit);

/* From per CPU to per thread for the rest of the run (see the top), while the module is
 * stopped between regions: its buffers read to their end (CONFIGURE frees them), then
 * configured again without the flag. Caller holds the drain lock. 0 or -errno. */
static int leave_cpus(memphis__emit_fn *emit)
{
	int err;

	lost_pending += kmod_read_process(emit);
	config_flags = 0;
	err = configure(dev_fd, kind_used, kind_used == MEMPHISMOD_KIND_CPU_CLOCK ? period_used :
			hw_period_used, ldlat_used, buffer_used);
	if (err) {
		config_flags = MEMPHISMOD_CONFIG_PER_CPU; /* nothing changed in the module */
		return err;
	}
	scope_cpu = 0;
	scope_auto = 0;
	memphis__note(MPH_LOG_INFO, "kmod: events per thread from here on, not per CPU: the CPUs "
		      "are oversubscribed (over two tasks or threads of the process per CPU), and "
		      "a per-CPU event interrupts every task there");
	return 0;
}

static int kmod_start(int on, memphis__emit_fn *emit)
{
	int r;

	if (!memphis__fd_ours(&dev_fd, &dev_id, NULL))
		return -EBADF;
	if (on && scope_auto && memphis__thread_crowded(online_cpus()) && (r = leave_cpus(emit))) {
		memphis__log(MPH_LOG_WARN, "kmod: CONFIGURE per thread failed (%s): per CPU still",
			     strerror(-r));
		scope_auto = 0;
	}
	r = on ? start_ioctl() : ioctl(dev_fd, MEMPHISMOD_IOC_STOP, 0);
	if (r < 0 && on && kind_used != MEMPHISMOD_KIND_CPU_CLOCK) {
		/* the hardware event could not be created (e.g. the PMU is busy): the clock */
		int err = errno;

		memphis__warn("kmod: START of %s sampling failed (%s): sampling with the cpu clock",
			      kind_name(kind_used), strerror(err));
		kind_used = MEMPHISMOD_KIND_CPU_CLOCK;
		r = configure(dev_fd, kind_used, period_used, 0, buffer_used);
		if (r == 0)
			r = start_ioctl();
		else
			errno = -r;
	}
	if (r < 0) {
		int err = errno;
		memphis__warn_once("kmod: %s failed: %s", on ? "START" : "STOP", strerror(err));
		return -err;
	}
	return 0;
}

static int by_tid(const void *a, const void *b)
{
	const struct memphis__kmod_sample *x = a, *y = b;

	if (x->s.tid != y->s.tid)
		return x->s.tid < y->s.tid ? -1 : 1;
	return x->s.time < y->s.time ? -1 : x->s.time > y->s.time;
}

struct matching {
	memphis__emit_fn *emit;
	size_t matched;
	uint64_t lost_told; /* of LOST records given to their thread */
};

/* Emit the batch's samples of thread t (registry lock held by the foreach). */
static void emit_thread(struct memphis__thread *t, void *ctx)
{
	struct matching *m = ctx;
	size_t lo = 0, hi = nsamples;

	if (t->gone)
		return;
	while (lo < hi) { /* first sample with tid >= t->tid */
		size_t mid = lo + (hi - lo) / 2;
		if (samples[mid].s.tid < (uint32_t)t->tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < nsamples && samples[lo].s.tid == (uint32_t)t->tid; lo++) {
		struct memphis__kmod_sample *k = &samples[lo];

		m->matched++;
		if (k->lost) {
			t->r_lost += k->lost;
			m->lost_told += k->lost;
			continue;
		}
		if (k->throttled) /* what PERF_RECORD_THROTTLE is to the soft backend */
			t->r_throttled++;
		if (k->has_regs && code) {
			struct memphis__regs regs;
			memcpy(regs.r, k->regs, sizeof(regs.r));
			regs.fs_base = t->fs_base;
			regs.gs_base = 0;
			k->s.flags = (uint16_t)memphis__code_attribute(code, k->s.sampled_ip, &regs,
								       &k->s.ip, &k->s.addr);
		}
		m->emit(t, &k->s, NULL);
	}
}

/* One READ into rbuf of the module's sample buffers (flags 0) or page-fault buffers
 * (MEMPHISMOD_READ_FAULTS); rd->nr_records is at most BATCH. 0, or -errno after saying
 * once that it failed. */
static int read_batch(uint32_t flags, struct memphismod_read *rd)
{
	*rd = (struct memphismod_read){
		.size = sizeof(*rd),
		.buf = (uint64_t)(uintptr_t)rbuf,
		.buf_size = BATCH * rec_size,
		.flags = flags,
	};
	if (ioctl(dev_fd, MEMPHISMOD_IOC_READ, rd) < 0) {
		int err = errno;

		memphis__warn_once("kmod: READ%s failed: %s",
				   flags & MEMPHISMOD_READ_FAULTS ? " of page faults" : "", strerror(err));
		return -err;
	}
	if (rd->nr_records > BATCH)
		rd->nr_records = BATCH;
	return 0;
}

/* Empty the module's buffers (caller holds the drain lock). Returns the samples lost. */
static uint64_t kmod_read_process(memphis__emit_fn *emit)
{
	uint64_t lost = 0;

	for (int rounds = 0; memphis__fd_ours(&dev_fd, &dev_id, NULL) && rounds < 64; rounds++) {
		struct memphismod_read rd;
		struct matching m = { emit, 0, 0 };
		uint64_t lost_recs = 0;

		if (read_batch(0, &rd) < 0)
			return lost;
		lost += rd.lost;
		/* throttles no sample tells (a module before READ's throttled writes 0): no
		 * thread to give them to, as the soft backend's per-CPU THROTTLE records */
		throttled_untold += rd.throttled;
		nsamples = 0;
		for (size_t i = 0; i < rd.nr_records; i++)
			if (memphis__kmod_decode(rbuf + i * rec_size, rec_size, ncpus,
						 &samples[nsamples]) == 0 &&
			    samples[nsamples].pid == pid && !samples[nsamples].fault)
				lost_recs += samples[nsamples++].lost;
		if (nsamples) {
			if (!code) {
				memphis__enter();
				code = memphis__code_new();
				memphis__leave();
			}
			qsort(samples, nsamples, sizeof(*samples), by_tid);
			memphis__thread_foreach(emit_thread, &m);
			/* the drain thread (never registered) and threads not found yet; their
			 * LOST records count for the process */
			unknown_tid += nsamples - m.matched;
			lost += lost_recs - m.lost_told;
		}
		if (rd.pending == 0 || rd.nr_records == 0)
			break;
	}
	lost += lost_pending;
	lost_pending = 0;
	if (unknown_tid)
		memphis__log(MPH_LOG_DEBUG, "kmod: %llu samples of unregistered threads dropped",
			     (unsigned long long)unknown_tid);
	if (throttled_untold)
		memphis__log(MPH_LOG_DEBUG, "kmod: %llu throttles of the module's events told by "
			     "no sample", (unsigned long long)throttled_untold);
	return lost;
}

/* The module's page-fault stream (first touch), every thread but the drain: perf's own
 * page-fault events are software events and need no PMU, but a process that may not call
 * perf_event_open (paranoid 3: why it uses the module) cannot open them either. */
static int kmod_touch_start(void)
{
	struct memphismod_faults f = { .size = sizeof(f),
				       .exclude_tid = (uint64_t)memphis__thread_drain() };

	if (!(caps_seen & MEMPHISMOD_CAP_FAULTS))
		return -EOPNOTSUPP;
	if (!memphis__fd_ours(&dev_fd, &dev_id, NULL))
		return -EBADF;
	if (ioctl(dev_fd, MEMPHISMOD_IOC_FAULTS, &f) < 0) {
		int err = errno;
		memphis__log(MPH_LOG_WARN, "kmod: FAULTS failed (%s): first touch from perf's "
			     "page-fault events, where the process may open them", strerror(err));
		return -err;
	}
	return 0;
}

/* Empty the module's page-fault buffers into emit (caller holds the drain lock). Returns
 * the faults lost. */
static uint64_t kmod_read_touches(memphis__touch_fn *emit)
{
	uint64_t lost = 0;

	for (int rounds = 0; memphis__fd_ours(&dev_fd, &dev_id, NULL) && rounds < 64; rounds++) {
		struct memphismod_read rd;

		if (read_batch(MEMPHISMOD_READ_FAULTS, &rd) < 0)
			return lost;
		lost += rd.lost;
		for (size_t i = 0; i < rd.nr_records; i++) {
			struct memphis__kmod_sample k;

			if (memphis__kmod_decode(rbuf + i * rec_size, rec_size, ncpus, &k) == 0 &&
			    k.fault && k.pid == pid && k.s.addr)
				emit(&(struct memphis_rec_touch){
					.time = k.s.time,
					.addr = k.s.addr,
					.ip = k.s.ip,
					.tid = k.s.tid,
					.cpu = k.s.cpu,
					.page_shift = 12,
				});
		}
		if (rd.pending == 0 || rd.nr_records == 0)
			break;
	}
	return lost;
}

const struct memphis__backend memphis__backend_kmod = {
	.name = "kmod",
	.probe = kmod_probe,
	.open = kmod_open,
	.enable = kmod_enable,
	.read = kmod_read,
	.close = kmod_close,
	.start = kmod_start,
	.read_process = kmod_read_process,
	.touch_start = kmod_touch_start,
	.read_touches = kmod_read_touches,
};
