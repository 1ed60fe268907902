/* lib/backend/soft.c - the software sampler: a clock event with the user registers; each
 * sample is attributed to the execution predecessor of the sampled IP and its data address
 * rebuilt from the registers (lib/insn.h). Works without a PMU, in VMs and containers, at
 * perf_event_paranoid <= 2 for the own process. Samples are stall-weighted: they land
 * where retirement waited, not once per access (DESIGN §3.1). Kernel mode is sampled too
 * where the kernel allows it (root, CAP_PERFMON, perf_event_paranoid <= 1): such a sample
 * carries the user registers at the kernel's entry, and is attributed to the instruction
 * that faulted, or to the system call (memphis__code_attribute_entry, MPH_S_KERNEL).
 *
 * Scope (MEMPHIS_SCOPE): a task-clock event per thread, or, where the kernel allows
 * events of a CPU (percpu.h), a cpu-clock event per CPU whose samples of this process are
 * handed to their thread: no timer is re-armed when a thread sleeps and wakes.
 *
 * The rings are read on the drain's timer, at half their capacity in time
 * (read_every_ms), not at their watermark: each ring would wake the drain every half
 * ring of samples, so its wake-ups grew with the CPUs or threads (16 busy CPUs at 1 ms
 * with the user stack: ~260 a second, each on a CPU the program's threads were using),
 * while the timer's do not (20 a second at most rings' 100 ms).
 *
 * A thread's ring fills with its own CPU time, so a drain thread that waits for a CPU
 * behind it loses nothing: it gets the same fair share. A CPU's ring fills with every
 * process's time there, at one sample per period of wall time, while the drain, one
 * thread among those waiting, gets a CPU only once the others had theirs: on
 * oversubscribed CPUs it waited 0.1-2.5 s (2 vCPUs, 65 busy threads, 2 other busy
 * processes) against a ring of 107 ms, and the region lost hundreds of samples. So the
 * scope turns to events per thread, for the rest of the run and with a note in it, before
 * a region's events are switched on when the CPUs look oversubscribed (cpus_crowded), or
 * when a read found the drain fell behind: a run that lost samples is worse than one
 * sampled per thread, whichever scope was asked for. Not at that read itself: the drain
 * thread would open the threads' events in the process's table while a program thread may
 * have closed a low number to dup2 onto it (a shell's redirection, t_closefds), taking
 * the number or making the program's dup2 fail; a region's start is a program thread's
 * call (memphis_mark), as a thread's own birth is where its events are opened.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "fd.h"
#include "insn.h"
#include "log.h"
#include "percpu.h"
#include "perf.h"
#include "self.h"
#include "stack.h"
#include "topology.h"
#include "writer.h"

static struct memphis__code *code; /* used under the drain lock only */
static uint64_t code_dl; /* memphis__dl_changes() when code was last emptied */
static uint64_t period;            /* ns, from the probe */
static int scope_cpu;              /* sampling through `cpus`, not per thread (changes under
				    * the registry lock too: soft_open reads it there) */
static int cpus_on;                /* the CPUs' events are on (the last start) */
static int left_cpus;              /* leave_cpus ran: from the CPUs' events to the threads' */
static char behind[96];            /* why a read found the drain behind; leave_cpus at the
				    * next region's start */
static struct memphis__percpu cpus;
static uint64_t unknown_tid;       /* samples of threads not registered (yet), dropped */
static int kernel_on;              /* the events sample kernel mode too (the probe) */
static uint64_t lost_pending;      /* lost in rings read by start, told by the next read */

/* The clock: a thread's own time per thread, a CPU's time per CPU (task-clock on a CPU
 * event would count the time of the task that opened it). */
static void soft_attr(struct perf_event_attr *a, uint64_t period_ns, int per_cpu)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = per_cpu ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period_ns;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_REGS_USER;
	a->sample_regs_user = MEMPHIS__REGS_MASK;
	if (memphis__stack_bytes()) {
		a->sample_type |= PERF_SAMPLE_STACK_USER;
		a->sample_stack_user = memphis__stack_bytes();
	}
	a->exclude_kernel = !kernel_on;
	a->exclude_hv = 1;
	/* a CPU's clock ticks in its idle task too: never the program's, and with kernel_on
	 * a record each period of every idle CPU, which the drain reads and drops and whose
	 * ring's losses it would tell as the program's */
	a->exclude_idle = per_cpu;
	/* a thread's own event: a PERF_RECORD_FORK when it makes a thread, which a wrapper of
	 * pthread_create that calls libc's (likwid-pin's) hides from the library's */
	a->task = !per_cpu;
	a->disabled = 1;
	a->watermark = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->read_format = memphis__perf_lost_format();
}

static unsigned ring_pages(uint64_t period_ns);

/* Sample through events of every CPU where `scope` allows it and the kernel does. */
static void open_scope(int scope, pid_t pid)
{
	struct perf_event_attr a;
	int err;

	if (scope == MEMPHIS__SCOPE_THREAD)
		return;
	soft_attr(&a, period, 1);
	/* the watermark at the ring's end: nobody waits on it (read_every_ms) */
	err = memphis__percpu_open(&cpus, &a, pid, ring_pages(period), 1);
	if (err == 0)
		scope_cpu = 1;
	else if (scope == MEMPHIS__SCOPE_CPU)
		memphis__warn("MEMPHIS_SCOPE=cpu: events of every CPU cannot be opened (%s%s): "
			      "sampling per thread", strerror(-err),
			      err == -EACCES || err == -EPERM ?
				      "; they need CAP_PERFMON or kernel.perf_event_paranoid <= 0" : "");
	else
		memphis__log(MPH_LOG_INFO, "soft: per-CPU events refused (%s): per thread",
			     strerror(-err));
}

/* kernel.perf_event_paranoid, -100 when unreadable. */
static int paranoid_level(void)
{
	FILE *f = memphis__fopen("/proc/sys/kernel/perf_event_paranoid");
	int paranoid = -100;

	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -100;
		fclose(f);
	}
	return paranoid;
}

static int soft_probe(const struct memphis__backend_params *p, struct memphis__sampling *out,
		      char *why, size_t n)
{
	struct perf_event_attr a;
	int fd;

	/* kernel mode where the kernel allows it (root, CAP_PERFMON, perf_event_paranoid <= 1):
	 * a page fault's or a system call's time is then seen, on behalf of the user
	 * instruction that entered the kernel */
	kernel_on = p->kernel;
	if (!kernel_on)
		snprintf(out->kernel_why, sizeof(out->kernel_why), "MEMPHIS_KERNEL=0");
	soft_attr(&a, 1000000, 0);
	fd = memphis__perf_open(&a, 0);
	if (kernel_on && (fd == -EACCES || fd == -EPERM)) {
		kernel_on = 0;
		snprintf(out->kernel_why, sizeof(out->kernel_why),
			 "kernel.perf_event_paranoid=%d: kernel samples need <= 1, CAP_PERFMON or root",
			 paranoid_level());
		soft_attr(&a, 1000000, 0);
		fd = memphis__perf_open(&a, 0);
	}
	if (fd == -EINVAL && memphis__stack_bytes()) {
		/* a kernel that refuses the user stack still samples: without it */
		memphis__log(MPH_LOG_WARN, "soft: perf refuses sample_stack_user=%u: no STACKS entries",
			     memphis__stack_bytes());
		memphis__stack_init(0);
		soft_attr(&a, 1000000, 0);
		fd = memphis__perf_open(&a, 0);
	}
	if (fd >= 0) {
		close(fd);
		period = p->period_ns;
		out->period_ns = period;
		out->weight = "stall";
		out->kernel_samples = kernel_on;
		open_scope(p->scope, p->pid);
		out->scope = scope_cpu ? "cpu" : "thread";
		return 0;
	}
	if (fd == -EACCES || fd == -EPERM) {
		int paranoid = paranoid_level();

		if (paranoid > 2)
			snprintf(why, n, "perf_event_open refused (%s): kernel.perf_event_paranoid=%d; "
				 "run 'sysctl kernel.perf_event_paranoid=2' as root, or use the kmod backend",
				 strerror(-fd), paranoid);
		else
			snprintf(why, n, "perf_event_open refused (%s) although perf_event_paranoid=%d: "
				 "a seccomp filter (container runtime?) or an LSM forbids it; allow the "
				 "perf_event_open syscall (e.g. docker --security-opt seccomp=unconfined)",
				 strerror(-fd), paranoid);
	} else if (fd == -ENOSYS || fd == -ENOENT || fd == -EOPNOTSUPP) {
		snprintf(why, n, "perf_event_open not available (%s): kernel without "
			 "CONFIG_PERF_EVENTS or syscall filtered", strerror(-fd));
	} else {
		snprintf(why, n, "perf_event_open failed: %s", strerror(-fd));
	}
	return fd;
}

/* The largest sample record: 184 bytes, and the user stack when it is captured (1,224
 * bytes at MEMPHIS_STACK_BYTES=1024; a stack shallower than that gives a smaller one). */
static uint64_t record_max(void)
{
	return 184ull + memphis__stack_record_extra(1, MPH_NREGS, memphis__stack_bytes());
}

/* Data pages for >= 100 ms of samples at the period, a power of two >= 8. */
static unsigned ring_pages(uint64_t period_ns)
{
	uint64_t bytes = record_max() * (100000000ull / period_ns + 1);
	unsigned pages = 8;

	while ((uint64_t)pages * 4096 < bytes && pages < 1024)
		pages *= 2;
	return pages;
}

/* Per CPU, a thread has no stream of its own: open and enable do nothing. */
static int soft_open(struct memphis__thread *t)
{
	struct perf_event_attr a;

	if (scope_cpu)
		return 0;
	soft_attr(&a, period, 0);
	return memphis__ring_open(&t->sample, &a, t->tid, ring_pages(period), 2);
}

static int soft_enable(struct memphis__thread *t, int on)
{
	return scope_cpu ? 0 : memphis__ring_enable(&t->sample, on);
}

struct sample_layout {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t abi;
	uint64_t regs[MPH_NREGS];
};

/* 1 with *u filled when sample s keeps its registers and stack (stack.h): its attributed
 * instruction accesses memory (a non-memory one is attributed to no data: the report has
 * no line to move to a caller; 83 % of cg's samples at 250 us on a busy 2-vCPU machine
 * were non-memory, libgomp spinning, and made its cpu files 22 times larger) and is
 * outside the executable, or its data address is on the thread's stack; or it is a system
 * call outside the executable (libc's wrapper: the report names its caller's line). */
static int keep_stack(const struct memphis__thread *t, const struct memphis_rec_sample *s,
		      const void *rec, size_t len, struct memphis__ustack *u)
{
	size_t at = offsetof(struct sample_layout, abi);

	if (!memphis__stack_bytes() || (s->flags & (MPH_S_NONMEM | MPH_S_SYSCALL)) == MPH_S_NONMEM ||
	    memphis__stack_parse((const char *)rec + at, len - at, MEMPHIS__REGS_MASK, u) ||
	    !u->regs)
		return 0;
	if (memphis__stack_wanted_ip(s->ip))
		return 1;
	return (s->flags & (MPH_S_EXACT | MPH_S_APPROX)) &&
	       memphis__stack_wanted_addr(t, s->addr, u->regs[MPH_SP]);
}

/* A thread's ring (t set), or the CPUs' rings (t NULL: each sample's thread is looked up
 * by its tid, and losses are the process's). */
struct reading {
	struct memphis__thread *t;
	memphis__emit_fn *emit;
	uint64_t lost;                 /* per CPU: samples the rings lost */
	struct memphis__thread_cache found; /* per CPU */
};

static void on_record(const void *rec, size_t len, void *ctx)
{
	struct reading *rd = ctx;
	struct memphis__thread *t = rd->t;
	const struct perf_event_header *h = rec;

	switch (h->type) {
	case PERF_RECORD_SAMPLE: {
		const struct sample_layout *r = rec;
		struct memphis_rec_sample s = { 0 };
		struct memphis__ustack u;
		if (len < offsetof(struct sample_layout, regs))
			return;
		if (!t && !(t = memphis__thread_find((pid_t)r->tid, &rd->found))) {
			unknown_tid++; /* the drain thread, or one not found yet */
			if (!memphis__thread_own((pid_t)r->tid))
				memphis__thread_forked();
			return;
		}
		s.time = r->time;
		s.sampled_ip = r->ip;
		s.ip = r->ip;
		s.tid = r->tid;
		s.cpu = (uint16_t)r->cpu;
		s.weight = 1;
		if (r->abi != PERF_SAMPLE_REGS_ABI_NONE && len >= sizeof(*r) && code) {
			struct memphis__regs regs;
			memcpy(regs.r, r->regs, sizeof(regs.r));
			regs.fs_base = t->fs_base;
			regs.gs_base = 0;
			if ((h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
				/* the user registers are those at the kernel's entry */
				s.flags = (uint16_t)(MPH_S_KERNEL |
						     memphis__code_attribute_entry(code, r->regs[MPH_IP],
										  &regs, &s.ip, &s.addr));
			else
				s.flags = (uint16_t)memphis__code_attribute(code, r->ip, &regs,
									    &s.ip, &s.addr);
		} else {
			s.flags = MPH_S_NOADDR | MPH_S_NOPRED;
		}
		rd->emit(t, &s, keep_stack(t, &s, rec, len, &u) ? &u : NULL);
		break;
	}
	case PERF_RECORD_LOST: {
		const struct { struct perf_event_header h; uint64_t id, lost; } *r = rec;
		if (len >= sizeof(*r)) {
			if (t)
				t->r_lost += r->lost;
			else
				rd->lost += r->lost;
		}
		break;
	}
	case PERF_RECORD_FORK:
		memphis__thread_fork_record(rec, len);
		break;
	case PERF_RECORD_THROTTLE:
		if (t)
			t->r_throttled++;
		else
			memphis__log(MPH_LOG_DEBUG, "soft: a CPU's event was throttled");
		break;
	default:
		break;
	}
}

/* The code cache, made or emptied when code was mapped or unmapped since. */
static void code_ready(void)
{
	uint64_t dl = memphis__dl_changes();

	if (!code) {
		memphis__enter();
		code = memphis__code_new();
		memphis__leave();
		code_dl = dl;
	} else if (dl != code_dl) {
		/* code was unmapped or mapped (dlclose/dlopen): nothing cached about an address
		 * still holds, answers for unmapped code (NOADDR) included */
		memphis__enter();
		memphis__code_invalidate(code);
		memphis__leave();
		code_dl = dl;
	}
}

static void soft_read(struct memphis__thread *t, memphis__emit_fn *emit)
{
	struct reading rd = { .t = t, .emit = emit };

	code_ready();
	memphis__ring_drain(&t->sample, on_record, &rd);
	t->r_lost += memphis__ring_lost(&t->sample);
}

static void soft_close(struct memphis__thread *t)
{
	memphis__ring_close(&t->sample);
}

/* 1 when the CPUs look oversubscribed (memphis__thread_crowded: over two tasks or threads
 * of the process per CPU). The drain's wait for a CPU grows with the runnable threads
 * there times the CPU time of its pass (1-8 ms seen, 60 under UBSan), and it once passed
 * the rings' 100 ms; two a CPU still leaves per CPU a program of one thread a CPU
 * (OpenMP) with a helper thread or two. */
static int cpus_crowded(void)
{
	return memphis__thread_crowded(cpus.n);
}

/* The fullest CPU ring, in 1/1024ths of its size. */
static unsigned cpus_fill(void)
{
	unsigned most = 0;

	for (int k = 0; k < cpus.n; k++) {
		const struct perf_event_mmap_page *mp = cpus.ring[k].base;
		if (!mp)
			continue;
		uint64_t used = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) - mp->data_tail;
		unsigned f = (unsigned)(used * 1024 / cpus.ring[k].data_size);
		if (f > most)
			most = f;
	}
	return most;
}

/* Give thread t a stream of its own (enabled while the CPUs' were on), unless it has one:
 * a thread that attached after scope_cpu turned 0 opened its own (soft_open). */
static void open_own(struct memphis__thread *t, void *ctx)
{
	struct perf_event_attr a;
	int err;

	(void)ctx;
	if (t->gone || t->sample.fd >= 0 || t->sample.base)
		return;
	soft_attr(&a, period, 0);
	/* the watermark at the ring's end, as the CPUs' had: the drain reads it on its timer
	 * (read_every_ms) and polls it for its hang-up only, the threads having no page-fault
	 * stream of their own in this scope to tell their end */
	err = memphis__ring_open(&t->sample, &a, t->tid, ring_pages(period), 1);
	if (err == 0 && cpus_on)
		err = memphis__ring_enable(&t->sample, 1);
	if (err < 0)
		memphis__log(MPH_LOG_WARN, "soft: no samples of thread %d: %s", (int)t->tid,
			     strerror(-err));
}

/* From the CPUs' events to one per thread, for the rest of the run (see the top): the
 * CPUs' rings read to their end (their losses told by the next read) and closed, then
 * every thread's own stream opened. Caller holds the drain lock. */
static void leave_cpus(struct reading *rd, const char *why)
{
	memphis__percpu_enable(&cpus, 0, on_record, rd);
	memphis__percpu_drain(&cpus, on_record, rd);
	lost_pending += rd->lost + memphis__percpu_lost(&cpus);
	rd->lost = 0;
	memphis__percpu_close(&cpus);
	left_cpus = 1;
	memphis__thread_lock();
	scope_cpu = 0;
	memphis__thread_unlock();
	memphis__thread_foreach(open_own, NULL);
	memphis__note(MPH_LOG_INFO, "soft: events per thread from here on, not per CPU: %s", why);
}

static uint64_t soft_read_process(memphis__emit_fn *emit)
{
	struct reading rd = { .emit = emit };
	unsigned fill;

	if (!scope_cpu)
		return 0;
	code_ready();
	fill = cpus_fill();
	memphis__percpu_drain(&cpus, on_record, &rd);
	rd.lost += memphis__percpu_lost(&cpus);
	/* read late: a ring more than half full, read at half its time, or one that lost */
	if ((fill > 512 || rd.lost) && !behind[0])
		snprintf(behind, sizeof(behind), "the drain fell behind the CPUs' rings (%u %% full, "
			 "%llu lost)", fill * 100 / 1024, (unsigned long long)rd.lost);
	rd.lost += lost_pending;
	lost_pending = 0;
	if (unknown_tid)
		memphis__log(MPH_LOG_DEBUG, "soft: %llu samples of unregistered threads dropped",
			     (unsigned long long)unknown_tid);
	unknown_tid = 0;
	return rd.lost;
}

static int soft_start(int on, memphis__emit_fn *emit)
{
	struct reading rd = { .emit = emit };
	int err;

	if (!scope_cpu || (on && cpus_on && !behind[0]))
		return 0; /* lingering: already on (backend.h) */
	code_ready();
	if (on && (behind[0] || cpus_crowded())) {
		cpus_on = 1;
		leave_cpus(&rd, behind[0] ? behind : "the CPUs are oversubscribed (over two tasks "
			   "or threads of the process per CPU): the drain would wait for one longer "
			   "than their rings last");
		lost_pending += rd.lost;
		return 0;
	}
	cpus_on = on;
	err = memphis__percpu_enable(&cpus, on, on_record, &rd);
	lost_pending += rd.lost;
	return err;
}

/* Half the time the smallest ring holds at one sample per period (a ring may be smaller
 * than asked: memphis__ring_open halves it under the locked-memory limit); at least 1 ms.
 * Per thread, a thread's samples come at most once per period too (its own CPU time). */
static unsigned soft_read_every_ms(size_t thread_ring_bytes)
{
	size_t least = thread_ring_bytes ? thread_ring_bytes : SIZE_MAX;
	uint64_t ms;

	for (int k = 0; scope_cpu && k < cpus.n; k++)
		if (cpus.ring[k].base && cpus.ring[k].data_size < least)
			least = cpus.ring[k].data_size;
	/* the threads' own rings, just opened by leave_cpus: the drain knows their size at its
	 * next look at the registry (250 ms at most) */
	if (least == SIZE_MAX && left_cpus)
		least = (size_t)ring_pages(period) * (size_t)sysconf(_SC_PAGESIZE);
	if (least == SIZE_MAX)
		return 0;
	ms = least / record_max() * period / 2 / 1000000;
	return ms < 1 ? 1 : ms > 1000 ? 1000 : (unsigned)ms;
}

const struct memphis__backend memphis__backend_soft = {
	.name = "soft",
	.probe = soft_probe,
	.open = soft_open,
	.enable = soft_enable,
	.read = soft_read,
	.close = soft_close,
	.start = soft_start,
	.read_process = soft_read_process,
	.read_every_ms = soft_read_every_ms,
	.linger = 1,
};
