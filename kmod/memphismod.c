// SPDX-License-Identifier: GPL-2.0
/*
 * memphismod - memory-access sampling for memphis where user-space perf_event_open is
 * forbidden (perf_event_paranoid 2-3, no CAP_PERFMON), granted through /dev/memphismod to
 * one group the administrator chooses, never across processes.
 *
 * Interface: include/memphis/memphismod.h. Design (memphis DESIGN §3.3):
 *  - One session per open file. It belongs to the process that opened it: only that
 *    process (same thread group, same exec image) may configure, start, stop and read,
 *    and only that process is sampled.
 *  - START creates one task-clock software event per thread of the calling process (but
 *    the one START names in exclude_tid: the library's drain thread) with
 *    the in-kernel perf API (perf_event_create_kernel_counter), inherited by the threads
 *    those threads create (inherit + inherit_thread), and released at STOP: every thread
 *    is sampled, those that exist and those created later, and only while it runs, so
 *    idle CPUs take no timer interrupts (this is also what the soft backend does). The
 *    gap: a thread created during START by a thread whose event does not exist yet.
 *    A session whose CONFIGURE has MEMPHISMOD_CONFIG_PER_CPU (the cpu clock at 100 us or
 *    more: the timer interrupts every CPU, whoever runs there; every session with
 *    per_cpu_events=1) instead gets one cpu-clock event per online CPU of its own,
 *    filtered by thread group, exec id and exclude_tid in the handler (the filters of
 *    the per-thread events, which see only the process anyway): no gap, no timer re-armed
 *    when a thread sleeps and wakes (OpenMP passive waits), but a timer on every CPU while
 *    sampling (like `perf record -a`); each session has its own events, so several
 *    per-CPU sessions each see only their own process. perf refuses CPU-wide events to
 *    callers without CAP_PERFMON at paranoid > 0, so those are created with the module's
 *    kernel credentials (the device's group is the grant). In the QEMU TCG guest both
 *    scopes gave about as many samples a second, per CPU more in five boots of eight
 *    (kmod/README.md); the soft backend as root more, its kernel-mode samples, which the
 *    module never records.
 *  - Each CPU has its own ring of fixed-size records, filled by the handler on that CPU
 *    (hrtimer hard-irq context: no locks, no sleeping; single producer) and emptied by
 *    READ under the session mutex (single consumer): acquire/release on head and tail.
 *  - A sample that finds its CPU's ring full is counted for its thread and told by a LOST
 *    record once there is room (or at STOP, or the READ after it), so that the library
 *    can write lost samples per thread.
 *  - FAULTS: a page-fault software event per thread (inherited, period 1, user faults),
 *    from FAULTS to close, into rings of its own (its handler runs in the faulting task
 *    with preemption off; a clock sample interrupting it writes the other rings): first
 *    touch for processes that may not open perf's page-fault events themselves.
 *  - exclude_kernel=1 and a user_mode() check: records never hold a kernel address; the
 *    registers are the interrupted user registers. A sample is taken only when the
 *    current task has the session's thread group and exec id: after an exec (setuid or
 *    not) nothing more is recorded.
 *  - The file's owner is this module: it cannot be unloaded while a session is open;
 *    closing the file (also at process exit) stops and frees everything.
 *  - Hardware kinds (untested on hardware: no machine of the project has the PMU):
 *    IBS_OP on the ibs_op PMU, PEBS_LDLAT on the core PMU (raw 0x1cd, config1 = ldlat),
 *    both probed once at load (mph_hw_probe) by creating a disabled event; a kind is in
 *    caps only when that worked, else CONFIGURE refuses it with -EOPNOTSUPP and the load
 *    line in dmesg says why. The records carry what the PMU driver put in
 *    perf_sample_data (address, data source, latency), converted by the pure
 *    memphismod_rec_fill() of include/memphis/memphismod_rec.h (unit-tested in user
 *    space). IBS events are per CPU before 6.2 (the ibs_op PMU had no task context).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cdev.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/ptrace.h>

/* ---- where the kernel API moved between 5.10 and 6.12 ----
 * Each guard below was read in Debian's linux-source-5.10, -6.1 and -6.12 trees; the
 * module builds without warnings against the 5.10, 6.1 and 6.12 headers. */

/* perf_sample_data.sample_flags (6.1, "perf: Add sample_flags to indicate the PMU-filled
 * sample data"): from 6.1 on, the fields it does not name are not initialised before an
 * in-kernel counter's handler runs. */
#define MPH_HAVE_SAMPLE_FLAGS (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0))
/* union perf_sample_weight and PERF_SAMPLE_WEIGHT_STRUCT (5.12): before, weight is a u64. */
#define MPH_HAVE_WEIGHT_STRUCT (LINUX_VERSION_CODE >= KERNEL_VERSION(5, 12, 0))
/* perf_event_attr.inherit_thread (5.13): before, a forked process inherits the events
 * too, and the handler's thread-group check drops its samples. */
#define MPH_HAVE_INHERIT_THREAD (LINUX_VERSION_CODE >= KERNEL_VERSION(5, 13, 0))
#if !MPH_HAVE_WEIGHT_STRUCT
/* The uapi values of 5.12, for memphismod_rec.h; never asked of a kernel before 5.12
 * (MPH_WEIGHT_BEST is PERF_SAMPLE_WEIGHT there). */
#define PERF_SAMPLE_WEIGHT_STRUCT (1ULL << 24)
#define PERF_SAMPLE_WEIGHT_TYPE (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)
#define MPH_WEIGHT_BEST PERF_SAMPLE_WEIGHT
#else
#define MPH_WEIGHT_BEST PERF_SAMPLE_WEIGHT_STRUCT
#endif
/* struct device_type.devnode takes a const struct device * from 6.2 ("driver core: make
 * struct device_type.devnode() take a const *"); the kernel compiles modules with
 * -Werror=incompatible-pointer-types. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define MPH_DEVNODE_CONST const
#else
#define MPH_DEVNODE_CONST
#endif
/* The throttled state of an event: hw.interrupts set to MAX_INTERRUPTS (~0ULL, private to
 * kernel/events/core.c in 5.10, 6.1 and 6.12) by __perf_event_account_interrupt(), which
 * runs before the overflow handler, until the next tick unthrottles it. */
#define MPH_MAX_INTERRUPTS (~0ULL)

#include "memphis/memphismod.h"
#include "memphis/memphismod_rec.h"

#define MPH_REC_SIZE sizeof(struct memphismod_record)
#define MPH_PERIOD_MIN 10000ULL          /* the kernel's floor for clock events */
#define MPH_PERIOD_MAX 1000000000ULL     /* 1 s */
#define MPH_PERIOD_DEFAULT 1000000ULL    /* 1 ms */
#define MPH_BUF_KB_MIN 16U

static unsigned int group;
module_param(group, uint, 0444);
MODULE_PARM_DESC(group, "gid of /dev/memphismod (mode 0660), default 0: root only");

static unsigned int buf_kb_default = 256;
module_param(buf_kb_default, uint, 0444);
MODULE_PARM_DESC(buf_kb_default, "per-CPU sample buffer in KiB when the caller asks for none (16..buf_kb_max, default 256)");

static unsigned int buf_kb_max = 4096;
module_param(buf_kb_max, uint, 0444);
MODULE_PARM_DESC(buf_kb_max, "largest per-CPU sample buffer in KiB a caller may ask for (16..65536, default 4096)");

static unsigned int mem_max_mb = 256;
module_param(mem_max_mb, uint, 0444);
MODULE_PARM_DESC(mem_max_mb, "sample buffers of all sessions together, MiB (1..16384, default 256)");

static bool per_cpu_events;
module_param(per_cpu_events, bool, 0444);
MODULE_PARM_DESC(per_cpu_events, "every session samples with one cpu-clock event per CPU filtered by process, as if it asked for MEMPHISMOD_CONFIG_PER_CPU (default N: per thread unless asked)");

static unsigned int max_sessions = 64;
module_param(max_sessions, uint, 0444);
MODULE_PARM_DESC(max_sessions, "sessions with buffers at the same time (1..4096, default 64)");

struct mph_cpu_buf {
	struct memphismod_record *rec; /* NULL for a CPU that was offline at START */
	unsigned long mask;            /* entries - 1, entries a power of two */
	unsigned long head;            /* written by the handler on this CPU only */
	unsigned long tail;            /* written by READ (session mutex) only */
	atomic64_t lost;               /* dropped records no LOST record tells */
	atomic64_t throttled;          /* throttles of the session's events on this CPU no
	                                * REC_THROTTLED sample tells (READ's throttled) */
	u64 lost_n;                    /* dropped samples of thread lost_tid, told by a LOST
	                                * record once there is room (handler only; STOP) */
	u32 lost_tid;
} ____cacheline_aligned;

struct mph_session {
	struct mutex lock;               /* serialises the ioctls of this file */
	struct pid *tgid;                /* the owner: the opening process */
	u64 exec_id;                     /* its exec image (task_struct.self_exec_id) */
	struct pid_namespace *pid_ns;    /* pids in records are in this namespace */
	u32 tgid_nr;
	u32 exclude_tid;                 /* START's: never sampled (the library's drain) */
	bool lost_records;               /* the caller reads LOST records (its START has
	                                  * exclude_tid: a reader of the first version
	                                  * would drop them and miss the count) */
	int running;                     /* read by the handler */
	u64 kind, period, buf_size;      /* configuration */
	bool per_cpu;                    /* CONFIGURE's MEMPHISMOD_CONFIG_PER_CPU */
	u64 ldlat;                       /* PEBS_LDLAT threshold */
	struct perf_event **events;      /* nr_events entries, NULL where none */
	unsigned int nr_events;
	struct mph_cpu_buf *bufs;        /* nr_cpu_ids entries */
	/* the page-fault stream (FAULTS): from FAULTS to close, apart from START/STOP */
	struct perf_event **fevents;
	unsigned int nr_fevents;
	struct mph_cpu_buf *fbufs;       /* nr_cpu_ids entries */
	u32 fault_exclude_tid;
	int faulting;                    /* read by the fault handler */
	size_t charged;                  /* bytes counted in mph_mem, fcharged of them fbufs' */
	size_t fcharged;
};

static atomic_long_t mph_mem;        /* bytes of buffers of all sessions */
static atomic_t mph_sessions;        /* sessions holding buffers */
static dev_t mph_devt;
static struct cdev mph_cdev;
static struct class *mph_class;
static struct device *mph_dev;
static struct cred *mph_kcred;       /* for creating the CPU-wide events */

/* What mph_hw_probe() found at load; read-only afterwards. */
#define MPH_IBS_SYSFS_TYPE "/sys/bus/event_source/devices/ibs_op/type"
#define MPH_IBS_CNT_CTL (1ULL << 19)  /* ibs_op config: count ops, not cycles */
#define MPH_PEBS_LDLAT_EVENT 0x1cdULL /* MEM_TRANS_RETIRED.LOAD_LATENCY */
/* Kernels before 6.2 give the ibs_op PMU no task context: per-task events fail there. */
#define MPH_IBS_PER_TASK (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0))
static u64 mph_caps;                 /* MEMPHISMOD_CAP_* of the hardware kinds */
static u32 mph_ibs_type;             /* the ibs_op PMU's perf type */
static u64 mph_ibs_config;           /* MPH_IBS_CNT_CTL, or 0 where the CPU lacks it */
static u8 mph_pebs_precise;          /* highest precise_ip the kernel accepted */
static u64 mph_hw_weight;            /* PEBS: PERF_SAMPLE_WEIGHT_STRUCT, or WEIGHT where refused */

/* ---- the overflow handler: hard-irq context (clock) or NMI (IBS, PEBS) ---- */

/* A sample of thread tid found the buffer full: counted for that thread (a LOST record
 * tells it later), or without thread when another thread's drops wait to be told or the
 * caller does not read LOST records. */
static void mph_drop(struct mph_session *s, struct mph_cpu_buf *b, u32 tid)
{
	if (!s->lost_records || (b->lost_n && b->lost_tid != tid)) {
		atomic64_inc(&b->lost);
		return;
	}
	b->lost_tid = tid;
	b->lost_n++;
}

/* Write the LOST record of b's pending drops at head (there is room) and publish it.
 * Producer only: the handler on b's CPU, or STOP once no handler runs. Returns the new
 * head. */
static unsigned long mph_lost_record(struct mph_session *s, struct mph_cpu_buf *b,
				     unsigned long head, int cpu)
{
	struct memphismod_record *r = &b->rec[head & b->mask];

	memset(r, 0, MPH_REC_SIZE);
	r->time = ktime_get_mono_fast_ns();
	r->pid = s->tgid_nr;
	r->tid = b->lost_tid;
	r->cpu = (u32)cpu;
	r->flags = MEMPHISMOD_REC_LOST;
	r->weight = b->lost_n;
	b->lost_n = 0;
	smp_store_release(&b->head, head + 1);
	return head + 1;
}

/* The PERF_SAMPLE_* fields of *data the PMU driver filled. Before 6.1 there is no
 * sample_flags, but perf_sample_data_init() set addr 0, raw NULL, weight 0 and data_src
 * PERF_MEM_NA (5.10 to 6.0), so a field that differs from those was filled. */
static u64 mph_sample_flags(const struct perf_sample_data *data)
{
#if MPH_HAVE_SAMPLE_FLAGS
	return data->sample_flags;
#else
	u64 f = 0;

	if (data->addr)
		f |= PERF_SAMPLE_ADDR;
	if (data->data_src.val != PERF_MEM_NA)
		f |= PERF_SAMPLE_DATA_SRC;
#if MPH_HAVE_WEIGHT_STRUCT
	if (data->weight.full)
#else
	if (data->weight)
#endif
		f |= PERF_SAMPLE_WEIGHT_TYPE;
	if (data->raw)
		f |= PERF_SAMPLE_RAW;
	return f;
#endif
}

static u64 mph_sample_weight(const struct perf_sample_data *data)
{
#if MPH_HAVE_WEIGHT_STRUCT
	return data->weight.full;
#else
	return data->weight;
#endif
}

static void mph_overflow(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct mph_session *s = event->overflow_handler_context;
	struct task_struct *tsk = current;
	struct memphismod_sample_in in = { 0 };
	struct memphismod_record *r;
	struct mph_cpu_buf *b;
	unsigned long head, tail;
	bool throttled;
	int cpu;

	if (!s || !READ_ONCE(s->running) || !regs) /* s: NULL for the load-time probe events */
		return;
	/* perf throttled the event at this sample (too many samples in this tick): none of it
	 * until the next tick. Told by the sample's REC_THROTTLED, else by READ's count. */
	throttled = READ_ONCE(event->hw.interrupts) == MPH_MAX_INTERRUPTS;
	cpu = smp_processor_id();
	b = &s->bufs[cpu];
	if (!b->rec)
		return;
	if ((tsk->flags & (PF_KTHREAD | PF_EXITING)) || task_tgid(tsk) != s->tgid ||
	    tsk->self_exec_id != s->exec_id) {
		/* another process: its throttle stops the session's sampling only on a
		 * per-CPU event (an inherited per-thread one is that process's own) */
		if (event->cpu == -1)
			return;
		goto out_untold;
	}
	if (s->kind == MEMPHISMOD_KIND_CPU_CLOCK && !user_mode(regs))
		goto out_untold;
	in.tid = (u32)task_pid_nr_ns(tsk, s->pid_ns);
	if (in.tid == s->exclude_tid) /* per-CPU events see it; per-thread ones have none */
		goto out_untold;
	head = b->head;
	tail = smp_load_acquire(&b->tail);
	if (b->lost_n && head - tail < b->mask)
		head = mph_lost_record(s, b, head, cpu); /* room for it and this sample */
	if (head - tail > b->mask) {
		/* counted before the conversion: an IBS op without memory access is among
		 * the lost while the buffer is full */
		mph_drop(s, b, in.tid);
		goto out_untold;
	}
	in.kind = s->kind;
	in.ours = 1;
	in.ip = instruction_pointer(regs);
	in.user_mode = user_mode(regs);
	in.user_top = TASK_SIZE_MAX;
	in.time = ktime_get_mono_fast_ns();
	in.pid = s->tgid_nr;
	in.cpu = (u32)cpu;
	if (s->kind != MEMPHISMOD_KIND_CPU_CLOCK) {
		/* only the fields the driver filled: the rest of perf_sample_data is not
		 * initialised before an in-kernel counter's handler runs */
		in.sample_flags = mph_sample_flags(data);
		if (in.sample_flags & PERF_SAMPLE_ADDR)
			in.addr = data->addr;
		if (in.sample_flags & PERF_SAMPLE_DATA_SRC)
			in.data_src = data->data_src.val;
		if (in.sample_flags & PERF_SAMPLE_WEIGHT_TYPE)
			in.weight = mph_sample_weight(data);
		in.weight_struct = mph_hw_weight == PERF_SAMPLE_WEIGHT_STRUCT;
		/* IBS raw sample: u32 caps, then the op MSRs from IBS_OP_CTL on */
		if (s->kind == MEMPHISMOD_KIND_IBS_OP && (in.sample_flags & PERF_SAMPLE_RAW) &&
		    data->raw && !data->raw->frag.copy && data->raw->frag.data &&
		    data->raw->frag.size >= sizeof(u32) + MEMPHIS_IBS_NREGS * sizeof(u64)) {
			const u8 *raw = data->raw->frag.data;

			in.ibs_caps = *(const u32 *)raw;
			in.ibs_regs = (const u64 *)(raw + sizeof(u32));
		}
		/* the decoder's erratum 1293 and CacheHitSt depend on the model */
		in.cpu_family = boot_cpu_data.x86;
		in.cpu_model = boot_cpu_data.x86_model;
	}
	r = &b->rec[head & b->mask];
	if (memphismod_rec_fill(&in, r) != MEMPHISMOD_REC_KEEP)
		goto out_untold;
	if (throttled)
		r->flags |= MEMPHISMOD_REC_THROTTLED;
	if (r->flags & MEMPHISMOD_REC_REGS) {
		/* AX BX CX DX SI DI BP SP IP R8..R15: perf's PERF_REG_X86_* order, lib/insn.h's */
		r->regs[0] = regs->ax;
		r->regs[1] = regs->bx;
		r->regs[2] = regs->cx;
		r->regs[3] = regs->dx;
		r->regs[4] = regs->si;
		r->regs[5] = regs->di;
		r->regs[6] = regs->bp;
		r->regs[7] = regs->sp;
		r->regs[8] = regs->ip;
		r->regs[9] = regs->r8;
		r->regs[10] = regs->r9;
		r->regs[11] = regs->r10;
		r->regs[12] = regs->r11;
		r->regs[13] = regs->r12;
		r->regs[14] = regs->r13;
		r->regs[15] = regs->r14;
		r->regs[16] = regs->r15;
	}
	smp_store_release(&b->head, head + 1);
	return;

out_untold:
	if (throttled)
		atomic64_inc(&b->throttled);
}

/* The page-fault stream's handler (FAULTS): process context, preemption off (the
 * software event's recursion context), so one producer per CPU and buffer; a clock
 * sample interrupting it writes the other buffers. */
static void mph_fault_overflow(struct perf_event *event, struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	struct mph_session *s = event->overflow_handler_context;
	struct task_struct *tsk = current;
	struct memphismod_record *r;
	struct mph_cpu_buf *b;
	unsigned long head, tail;
	u32 tid;
	int cpu;

	if (!s || !READ_ONCE(s->faulting) || !regs || !user_mode(regs) ||
	    data->addr >= TASK_SIZE_MAX)
		return;
	if ((tsk->flags & (PF_KTHREAD | PF_EXITING)) || task_tgid(tsk) != s->tgid ||
	    tsk->self_exec_id != s->exec_id)
		return;
	tid = (u32)task_pid_nr_ns(tsk, s->pid_ns);
	if (tid == s->fault_exclude_tid)
		return;
	cpu = smp_processor_id();
	b = &s->fbufs[cpu];
	if (!b->rec)
		return;
	head = b->head;
	tail = smp_load_acquire(&b->tail);
	if (head - tail > b->mask) {
		atomic64_inc(&b->lost);
		return;
	}
	r = &b->rec[head & b->mask];
	memset(r, 0, MPH_REC_SIZE);
	r->time = ktime_get_mono_fast_ns();
	r->ip = instruction_pointer(regs);
	r->addr = data->addr;
	r->pid = s->tgid_nr;
	r->tid = tid;
	r->cpu = (u32)cpu;
	r->flags = MEMPHISMOD_REC_FAULT | MEMPHISMOD_REC_ADDR;
	smp_store_release(&b->head, head + 1);
}

/* ---- session resources ---- */

/* Release every event (and the per-thread events perf inherited from them): afterwards no
 * handler of this session runs. */
static void mph_events_release(struct mph_session *s)
{
	unsigned int i;

	WRITE_ONCE(s->running, 0);
	if (!s->events)
		return;
	for (i = 0; i < s->nr_events; i++)
		if (s->events[i])
			perf_event_release_kernel(s->events[i]);
	kfree(s->events);
	s->events = NULL;
	s->nr_events = 0;
}

/* Free one set of per-CPU buffers (NULL is fine) and uncharge `bytes`. */
static void mph_bufs_free(struct mph_cpu_buf **bufs, size_t *charged, size_t bytes)
{
	unsigned int cpu;

	if (*bufs) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			kvfree((*bufs)[cpu].rec);
		kfree(*bufs);
		*bufs = NULL;
	}
	atomic_long_sub(bytes, &mph_mem);
	*charged -= bytes;
}

/* Release the sample events, then their buffers and charge (the fault stream stays). */
static void mph_resources_free(struct mph_session *s)
{
	mph_events_release(s);
	if (s->bufs) {
		mph_bufs_free(&s->bufs, &s->charged, s->charged - s->fcharged);
		atomic_dec(&mph_sessions);
	}
}

/* Buffers of buf_size for the online CPUs, charged to the global budget (and to
 * s->charged). 0 or -errno (nothing left allocated on failure). */
static int mph_bufs_alloc(struct mph_session *s, struct mph_cpu_buf **out)
{
	unsigned long entries = rounddown_pow_of_two(s->buf_size / MPH_REC_SIZE);
	size_t bytes = entries * MPH_REC_SIZE, total = bytes * num_online_cpus();
	struct mph_cpu_buf *bufs;
	unsigned int cpu;

	if (atomic_long_add_return(total, &mph_mem) > (long)mem_max_mb << 20) {
		atomic_long_sub(total, &mph_mem);
		return -ENOMEM;
	}
	s->charged += total;
	bufs = kcalloc(nr_cpu_ids, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs)
		goto out_free;
	for_each_online_cpu(cpu) {
		struct mph_cpu_buf *b = &bufs[cpu];

		b->rec = kvmalloc_node(bytes, GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!b->rec)
			goto out_free;
		b->mask = entries - 1;
		atomic64_set(&b->lost, 0);
		atomic64_set(&b->throttled, 0);
	}
	*out = bufs;
	return 0;

out_free:
	mph_bufs_free(&bufs, &s->charged, total);
	return -ENOMEM;
}

/* The sample buffers, counted as a session. 0 or -errno. */
static int mph_sample_bufs_alloc(struct mph_session *s)
{
	int err;

	if (atomic_inc_return(&mph_sessions) > max_sessions) {
		atomic_dec(&mph_sessions);
		return -EMFILE;
	}
	err = mph_bufs_alloc(s, &s->bufs);
	if (err)
		atomic_dec(&mph_sessions);
	return err;
}

/* The attr of a session's kind (per thread when task, else CPU-wide). */
static void mph_attr(struct perf_event_attr *attr, u64 kind, u64 period, u64 ldlat, bool task)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->sample_period = period;
	/* per thread: threads created later inherit the event (threads only) */
	attr->inherit = task ? 1 : 0;
#if MPH_HAVE_INHERIT_THREAD
	attr->inherit_thread = task ? 1 : 0;
#endif
	switch (kind) {
	case MEMPHISMOD_KIND_IBS_OP:
		attr->type = mph_ibs_type;
		attr->config = mph_ibs_config;
		/* RAW only: the op registers are all the handler reads (memphismod_rec.h: the
		 * driver's own DATA_SRC is the older encoding before 6.6), and RAW makes the
		 * driver read all of them. IBS refuses exclude_kernel (no privilege filter
		 * before swfilt): the handler drops kernel samples. */
		attr->sample_type = PERF_SAMPLE_RAW;
		break;
	case MEMPHISMOD_KIND_PEBS_LDLAT:
		attr->type = PERF_TYPE_RAW;
		attr->config = MPH_PEBS_LDLAT_EVENT;
		attr->config1 = ldlat;
		attr->precise_ip = mph_pebs_precise;
		attr->sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | mph_hw_weight;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		/* wakeup_events without watermark keeps the kernel from batching PEBS records
		 * (large PEBS, auto-reload): batched records but the last go to the event's
		 * ring buffer, which an in-kernel counter does not have, not to the handler */
		attr->wakeup_events = 1;
		break;
	default:
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = task ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK;
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
		break;
	}
}

static struct perf_event *mph_create(struct perf_event_attr *attr, int cpu,
				     struct task_struct *task, void *ctx)
{
	const struct cred *old = NULL;
	struct perf_event *ev;

	/* A CPU-wide event needs perf_allow_cpu() (paranoid <= 0 or CAP_PERFMON) of the
	 * caller: access was granted by the device's group instead, so it is created with
	 * the module's kernel credentials; the handler's thread-group filter confines it. */
	if (!task)
		old = override_creds(mph_kcred);
	ev = perf_event_create_kernel_counter(attr, cpu, task, mph_overflow, ctx);
	if (!task)
		revert_creds(old);
	return ev;
}

static struct perf_event *mph_counter(struct mph_session *s, int cpu, struct task_struct *task)
{
	struct perf_event_attr attr;

	mph_attr(&attr, s->kind, s->period, s->ldlat, task != NULL);
	return mph_create(&attr, cpu, task, s);
}

/* A user page fault, every one (period 1), inherited by the threads created later. */
static void mph_fault_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_PAGE_FAULTS;
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr->inherit = 1;
#if MPH_HAVE_INHERIT_THREAD
	attr->inherit_thread = 1;
#endif
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/* Release the page-fault events, then their buffers: afterwards no fault handler of this
 * session runs. */
static void mph_faults_release(struct mph_session *s)
{
	unsigned int i;

	WRITE_ONCE(s->faulting, 0);
	if (s->fevents) {
		for (i = 0; i < s->nr_fevents; i++)
			if (s->fevents[i])
				perf_event_release_kernel(s->fevents[i]);
		kfree(s->fevents);
		s->fevents = NULL;
		s->nr_fevents = 0;
	}
	if (s->fbufs) {
		mph_bufs_free(&s->fbufs, &s->charged, s->fcharged);
		s->fcharged = 0;
	}
}

/* ---- the hardware kinds: found once at load ---- */

/* The ibs_op PMU's dynamic perf type. The kernel exports no lookup of a PMU by name
 * (perf_pmu_register()'s idr is static), so it is read where perf tools read it, from
 * sysfs, once at load in insmod's process context (as the DAMON IBS RFC does). The
 * probe event of mph_hw_probe() then confirms the PMU behind the type is ibs_op. */
static int mph_ibs_sysfs_type(u32 *type)
{
	char buf[16] = "";
	struct file *f;
	loff_t pos = 0;
	ssize_t n;

	f = filp_open(MPH_IBS_SYSFS_TYPE, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = kernel_read(f, buf, sizeof(buf) - 1, &pos);
	filp_close(f, NULL);
	if (n < 0)
		return (int)n;
	buf[n] = 0;
	return kstrtou32(strim(buf), 10, type);
}

/* Create and release a disabled event of the kind on `cpu` with the attr of the module
 * (nothing is counted; the PMU's event_init and hw_config judge the attr). 0 or -errno. */
static int mph_try_event(u64 kind, const char *want_pmu, int cpu)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	int err = 0;

	mph_attr(&attr, kind, kind == MEMPHISMOD_KIND_IBS_OP ? MEMPHISMOD_IBS_PERIOD_DEFAULT :
		 MEMPHISMOD_PEBS_PERIOD_DEFAULT, MEMPHISMOD_LDLAT_DEFAULT, false);
	attr.disabled = 1;
	ev = mph_create(&attr, cpu, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	if (want_pmu && (!ev->pmu || !ev->pmu->name || strcmp(ev->pmu->name, want_pmu)))
		err = -ENOENT;
	perf_event_release_kernel(ev);
	return err;
}

/* Fill why (for the load line) and return whether IBS op sampling works here. */
static bool mph_probe_ibs(char *why, size_t n)
{
	int cpu = raw_smp_processor_id(), err;

	if (!boot_cpu_has(X86_FEATURE_IBS)) {
		snprintf(why, n, "no (the CPU reports no IBS)");
		return false;
	}
	err = mph_ibs_sysfs_type(&mph_ibs_type);
	if (err) {
		snprintf(why, n, "no (%s: %d: the kernel has no ibs_op PMU)", MPH_IBS_SYSFS_TYPE, err);
		return false;
	}
	mph_ibs_config = MPH_IBS_CNT_CTL;
	err = mph_try_event(MEMPHISMOD_KIND_IBS_OP, "ibs_op", cpu);
	if (err == -EINVAL) { /* no IbsOpCntCtl: the period counts cycles */
		mph_ibs_config = 0;
		err = mph_try_event(MEMPHISMOD_KIND_IBS_OP, "ibs_op", cpu);
	}
	if (err) {
		snprintf(why, n, "no (ibs_op type %u: creating an event failed: %d)", mph_ibs_type, err);
		return false;
	}
	snprintf(why, n, "yes (ibs_op type %u, counting %s, per %s)", mph_ibs_type,
		 mph_ibs_config ? "ops" : "cycles", MPH_IBS_PER_TASK ? "thread" : "CPU");
	return true;
}

/* On `cpu`: the highest precise_ip the kernel accepts for the load-latency event (3, 2,
 * 1), with WEIGHT_STRUCT where accepted. 0 or the last -errno. */
static int mph_try_pebs(int cpu)
{
	int err = -EOPNOTSUPP;
	u8 p;

	mph_hw_weight = MPH_WEIGHT_BEST;
	for (p = 3; p >= 1; p--) {
		mph_pebs_precise = p;
		err = mph_try_event(MEMPHISMOD_KIND_PEBS_LDLAT, NULL, cpu);
		if (err == -EINVAL && mph_hw_weight != PERF_SAMPLE_WEIGHT) {
			mph_hw_weight = PERF_SAMPLE_WEIGHT;
			err = mph_try_event(MEMPHISMOD_KIND_PEBS_LDLAT, NULL, cpu);
		}
		if (err != -EOPNOTSUPP)
			break;
	}
	return err;
}

/* Fill why and return whether PEBS load-latency sampling works here. The probe runs on
 * the first online CPU the core PMU covers, not on insmod's: on a hybrid CPU the raw
 * type reaches the P-core PMU (cpu_core) only, and x86_pmu_event_init() answers -ENOENT
 * for a CPU outside its supported_cpus (an E-core) before it looks at the attr (6.1,
 * 6.12), which read as "no PEBS driver" when insmod ran on an E-core. */
static bool mph_probe_pebs(char *why, size_t n)
{
	int err = -ENOENT, cpu, probed = -1;

	if (!boot_cpu_has(X86_FEATURE_PEBS)) {
		snprintf(why, n, "no (the CPU reports no PEBS)");
		return false;
	}
	for_each_online_cpu(cpu) {
		probed = cpu;
		err = mph_try_pebs(cpu);
		if (err != -ENOENT)
			break;
	}
	if (err == -ENODATA) {
		/* Sapphire Rapids, hybrid P-cores: a load-latency event with DATA_SRC must be
		 * in a group led by mem-loads-aux (0x8203); perf_event_create_kernel_counter()
		 * has no group leader argument, so the module cannot build that group. */
		snprintf(why, n, "no (CPU %d: the CPU needs the mem-loads-aux group leader, which in-kernel counters cannot have: use the library's pebs backend)", probed);
		return false;
	}
	if (err) {
		mph_pebs_precise = 0;
		snprintf(why, n, "no (raw 0x1cd with precise_ip, CPU %d: %d: no PEBS PMU driver)", probed, err);
		return false;
	}
	snprintf(why, n, "yes (precise_ip %u, %s, probed on CPU %d)", mph_pebs_precise,
		 mph_hw_weight == PERF_SAMPLE_WEIGHT ? "weight" : "weight struct", probed);
	return true;
}

/* Once at load: which hardware kinds this machine samples (mph_caps), said in one line.
 * An AMD CPU has no PEBS and an Intel CPU no IBS, so at most one of them is probed for
 * real. */
static void mph_hw_probe(void)
{
	char ibs[160], pebs[200];

	if (mph_probe_ibs(ibs, sizeof(ibs)))
		mph_caps |= MEMPHISMOD_CAP_IBS_OP;
	else if (mph_probe_pebs(pebs, sizeof(pebs)))
		mph_caps |= MEMPHISMOD_CAP_PEBS;
	if (mph_caps & MEMPHISMOD_CAP_IBS_OP)
		snprintf(pebs, sizeof(pebs), "not probed (IBS found)");
	pr_info("hardware sampling: IBS op %s; PEBS load latency %s\n", ibs, pebs);
}

/* MEMPHISMOD_CONFIG_PER_CPU, per_cpu_events=1 (and IBS before 6.2): one event per online
 * CPU with a buffer. */
static int mph_events_create_cpu(struct mph_session *s)
{
	unsigned int cpu;

	s->events = kcalloc(nr_cpu_ids, sizeof(*s->events), GFP_KERNEL_ACCOUNT);
	if (!s->events)
		return -ENOMEM;
	s->nr_events = nr_cpu_ids;
	WRITE_ONCE(s->running, 1);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct perf_event *ev;

		if (!s->bufs[cpu].rec || !cpu_online(cpu))
			continue;
		ev = mph_counter(s, cpu, NULL);
		if (IS_ERR(ev)) {
			pr_debug("cpu %u: perf_event_create_kernel_counter: %ld\n", cpu, PTR_ERR(ev));
			mph_events_release(s);
			return PTR_ERR(ev);
		}
		s->events[cpu] = ev;
	}
	return 0;
}

/* Default: one task-clock event per thread of the calling process, inherited by the
 * threads they create. A thread created during START by a thread whose event does not
 * exist yet is missed (the price of per-thread events; per-CPU ones have no such gap). */
static int mph_task_events(struct mph_session *s, bool faults);

static int mph_events_create_task(struct mph_session *s)
{
	return mph_task_events(s, false);
}

/* One event per thread of the calling process but `exclude` (a tid, 0 = none) into
 * *events / *nr: the session's sample kind, or (faults) the page-fault event. */
static int mph_task_events(struct mph_session *s, bool faults)
{
	struct perf_event ***events = faults ? &s->fevents : &s->events;
	u32 exclude = faults ? s->fault_exclude_tid : s->exclude_tid;
	struct perf_event_attr fattr;
	struct task_struct **tasks, *t;
	unsigned int n = 0, cap, i;
	int err = 0;

	cap = get_nr_threads(current) + 16;
	tasks = kcalloc(cap, sizeof(*tasks), GFP_KERNEL);
	*events = kcalloc(cap, sizeof(**events), GFP_KERNEL_ACCOUNT);
	if (!tasks || !*events) {
		kfree(tasks);
		kfree(*events);
		*events = NULL;
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_thread(current, t) {
		if (n == cap)
			break;
		if ((t->flags & PF_EXITING) ||
		    (exclude && task_pid_nr_ns(t, s->pid_ns) == exclude))
			continue;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	if (faults) {
		mph_fault_attr(&fattr);
		s->nr_fevents = n;
		WRITE_ONCE(s->faulting, 1);
	} else {
		s->nr_events = n;
		WRITE_ONCE(s->running, 1);
	}
	for (i = 0; i < n; i++) {
		struct perf_event *ev = err ? NULL :
			faults ? perf_event_create_kernel_counter(&fattr, -1, tasks[i],
								  mph_fault_overflow, s) :
			mph_counter(s, -1, tasks[i]);

		if (!err && IS_ERR(ev)) {
			/* a thread that exited meanwhile is no error */
			if (PTR_ERR(ev) != -ESRCH)
				err = PTR_ERR(ev);
			ev = NULL;
		}
		(*events)[i] = ev;
		put_task_struct(tasks[i]);
	}
	kfree(tasks);
	if (err) {
		pr_debug("perf_event_create_kernel_counter (task%s): %d\n", faults ? ", faults" : "",
			 err);
		if (faults)
			mph_faults_release(s);
		else
			mph_events_release(s);
	}
	return err;
}

/* ---- ioctl argument copying (extensible structs, see the uapi header) ---- */

static int mph_copy_in(void *k, size_t ksize, size_t ver0, unsigned long arg, u64 *usize)
{
	u64 size;
	int err;

	if (get_user(size, (u64 __user *)arg))
		return -EFAULT;
	if (size < ver0)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(k, ksize, (const void __user *)arg, size);
	if (err)
		return err;
	*usize = size;
	return 0;
}

static int mph_copy_out(unsigned long arg, void *k, size_t ksize, u64 usize)
{
	size_t n = min_t(u64, ksize, usize);

	*(u64 *)k = n;
	return copy_to_user((void __user *)arg, k, n) ? -EFAULT : 0;
}

/* ---- the commands ---- */

static int mph_get_version(unsigned long arg)
{
	struct memphismod_version v;
	u64 usize;
	int err;

	err = mph_copy_in(&v, sizeof(v), MEMPHISMOD_VERSION_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	memset(&v, 0, sizeof(v));
	v.abi_version = MEMPHISMOD_ABI_VERSION;
	v.caps = MEMPHISMOD_CAP_CPU_CLOCK | MEMPHISMOD_CAP_FAULTS | MEMPHISMOD_CAP_PER_CPU |
		 (per_cpu_events ? MEMPHISMOD_CAP_PER_CPU_ALL : 0) | mph_caps;
	v.record_size = MPH_REC_SIZE;
	v.buffer_min = (u64)MPH_BUF_KB_MIN << 10;
	v.buffer_max = (u64)buf_kb_max << 10;
	v.buffer_default = (u64)buf_kb_default << 10;
	v.period_min = MPH_PERIOD_MIN;
	v.period_max = MPH_PERIOD_MAX;
	v.nr_cpus = nr_cpu_ids;
	return mph_copy_out(arg, &v, sizeof(v), usize);
}

static int mph_configure(struct mph_session *s, unsigned long arg)
{
	struct memphismod_config c;
	u64 usize, period, buf, ldlat = 0;
	int err;

	err = mph_copy_in(&c, sizeof(c), MEMPHISMOD_CONFIG_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (c.flags & ~MEMPHISMOD_CONFIG_PER_CPU)
		return -EINVAL;
	switch (c.kind) {
	case MEMPHISMOD_KIND_CPU_CLOCK:
		period = c.period ? c.period : MPH_PERIOD_DEFAULT;
		if (period < MPH_PERIOD_MIN || period > MPH_PERIOD_MAX || c.ldlat)
			return -EINVAL;
		break;
	case MEMPHISMOD_KIND_IBS_OP:
		/* not in caps: no IBS here (the load line in dmesg says why) */
		if (!(mph_caps & MEMPHISMOD_CAP_IBS_OP))
			return -EOPNOTSUPP;
		period = c.period ? c.period : MEMPHISMOD_IBS_PERIOD_DEFAULT;
		if (period < MEMPHISMOD_IBS_PERIOD_MIN || period > MEMPHISMOD_IBS_PERIOD_MAX ||
		    (period & 0xf) || c.ldlat)
			return -EINVAL;
		break;
	case MEMPHISMOD_KIND_PEBS_LDLAT:
		if (!(mph_caps & MEMPHISMOD_CAP_PEBS))
			return -EOPNOTSUPP;
		period = c.period ? c.period : MEMPHISMOD_PEBS_PERIOD_DEFAULT;
		ldlat = c.ldlat ? c.ldlat : MEMPHISMOD_LDLAT_DEFAULT;
		if (period < MEMPHISMOD_PEBS_PERIOD_MIN || period > MEMPHISMOD_PEBS_PERIOD_MAX ||
		    ldlat < MEMPHISMOD_LDLAT_MIN || ldlat > MEMPHISMOD_LDLAT_MAX)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	/* a per-CPU event interrupts every CPU, the other users' processes too: the clock
	 * only, at no more than 10 kHz (a hardware kind's rate would follow their work) */
	if ((c.flags & MEMPHISMOD_CONFIG_PER_CPU) &&
	    (c.kind != MEMPHISMOD_KIND_CPU_CLOCK || period < MEMPHISMOD_PER_CPU_PERIOD_MIN))
		return -EINVAL;
	buf = c.buffer_size ? c.buffer_size : (u64)buf_kb_default << 10;
	if (buf < (u64)MPH_BUF_KB_MIN << 10 || buf > (u64)buf_kb_max << 10)
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	mph_resources_free(s); /* a new configuration starts from nothing */
	s->kind = c.kind;
	s->period = period;
	s->ldlat = ldlat;
	s->buf_size = buf;
	s->per_cpu = c.flags & MEMPHISMOD_CONFIG_PER_CPU;
	return 0;
}

static int mph_start(struct mph_session *s, unsigned long arg)
{
	struct memphismod_start st;
	u64 usize;
	int err;

	err = mph_copy_in(&st, sizeof(st), MEMPHISMOD_START_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (st.flags || st.exclude_tid > U32_MAX)
		return -EINVAL;
	if (s->running)
		return 0;
	s->exclude_tid = (u32)st.exclude_tid;
	s->lost_records = usize >= MEMPHISMOD_START_SIZE_VER1;
	if (!s->bufs) {
		err = mph_sample_bufs_alloc(s);
		if (err)
			return err;
	}
	if (s->per_cpu || per_cpu_events ||
	    (s->kind == MEMPHISMOD_KIND_IBS_OP && !MPH_IBS_PER_TASK))
		return mph_events_create_cpu(s);
	return mph_events_create_task(s);
}

/* While no handler runs (after STOP, under the session mutex), the drops of b not told
 * yet become a LOST record where there is room; else they wait for a READ to make some. */
static void mph_lost_flush(struct mph_session *s, struct mph_cpu_buf *b, unsigned int cpu)
{
	if (b->rec && b->lost_n && !READ_ONCE(s->running) && b->head - b->tail <= b->mask)
		mph_lost_record(s, b, b->head, cpu);
}

/* Stop: the events are released (no timer runs between regions); the buffers and what
 * they hold stay for READ, with a LOST record for each CPU's drops not told yet. */
static int mph_stop(struct mph_session *s)
{
	unsigned int cpu;

	mph_events_release(s);
	for (cpu = 0; s->bufs && cpu < nr_cpu_ids; cpu++)
		mph_lost_flush(s, &s->bufs[cpu], cpu);
	return 0;
}

/* FAULTS: the page-fault stream of every thread but exclude_tid, until close. */
static int mph_faults(struct mph_session *s, unsigned long arg)
{
	struct memphismod_faults f;
	size_t before = s->charged;
	u64 usize;
	int err;

	err = mph_copy_in(&f, sizeof(f), MEMPHISMOD_FAULTS_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (f.flags || f.exclude_tid > U32_MAX)
		return -EINVAL;
	if (s->fbufs)
		return 0;
	err = mph_bufs_alloc(s, &s->fbufs);
	if (err)
		return err;
	s->fcharged = s->charged - before;
	s->fault_exclude_tid = (u32)f.exclude_tid;
	return mph_task_events(s, true);
}

/* Copy up to `room` records of one CPU's ring to `dst`. Returns the count or -EFAULT
 * (then nothing of this CPU is consumed). */
static long mph_read_cpu(struct mph_cpu_buf *b, char __user *dst, unsigned long room)
{
	unsigned long head = smp_load_acquire(&b->head);
	unsigned long tail = b->tail;
	unsigned long n = min(head - tail, room);
	unsigned long first = min(n, b->mask + 1 - (tail & b->mask));

	if (!n)
		return 0;
	if (copy_to_user(dst, &b->rec[tail & b->mask], first * MPH_REC_SIZE))
		return -EFAULT;
	if (n > first && copy_to_user(dst + first * MPH_REC_SIZE, b->rec,
				      (n - first) * MPH_REC_SIZE))
		return -EFAULT;
	smp_store_release(&b->tail, tail + n);
	return n;
}

static int mph_read(struct mph_session *s, unsigned long arg)
{
	struct mph_cpu_buf *bufs;
	struct memphismod_read rd;
	char __user *dst;
	unsigned long room;
	unsigned int cpu;
	u64 usize;
	int err;

	err = mph_copy_in(&rd, sizeof(rd), MEMPHISMOD_READ_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (rd.flags & ~MEMPHISMOD_READ_FAULTS)
		return -EINVAL;
	bufs = rd.flags & MEMPHISMOD_READ_FAULTS ? s->fbufs : s->bufs;
	dst = u64_to_user_ptr(rd.buf);
	room = min_t(u64, rd.buf_size / MPH_REC_SIZE, ULONG_MAX / MPH_REC_SIZE);
	rd.nr_records = 0;
	rd.lost = 0;
	rd.pending = 0;
	rd.throttled = 0;
	for (cpu = 0; bufs && cpu < nr_cpu_ids; cpu++) {
		struct mph_cpu_buf *b = &bufs[cpu];
		long got;

		if (!b->rec)
			continue;
		got = mph_read_cpu(b, dst, room);
		if (got < 0)
			return got;
		if (b->lost_n && bufs == s->bufs) {
			/* stopped with a full buffer: its LOST record, now that there is room */
			long more;

			mph_lost_flush(s, b, cpu);
			more = mph_read_cpu(b, dst + got * MPH_REC_SIZE, room - got);
			if (more < 0)
				return more;
			got += more;
		}
		dst += got * MPH_REC_SIZE;
		room -= got;
		rd.nr_records += got;
		rd.lost += atomic64_xchg(&b->lost, 0);
		if (bufs == s->bufs)
			rd.throttled += atomic64_xchg(&b->throttled, 0);
		rd.pending += smp_load_acquire(&b->head) - b->tail;
	}
	return mph_copy_out(arg, &rd, sizeof(rd), usize);
}

static long mph_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mph_session *s = file->private_data;
	long err;

	if (cmd == MEMPHISMOD_IOC_GET_VERSION)
		return mph_get_version(arg);
	switch (cmd) {
	case MEMPHISMOD_IOC_CONFIGURE:
	case MEMPHISMOD_IOC_START:
	case MEMPHISMOD_IOC_STOP:
	case MEMPHISMOD_IOC_READ:
	case MEMPHISMOD_IOC_FAULTS:
		break;
	default:
		return -ENOTTY;
	}
	/* Only the process that opened the file, in the same exec image, uses the session:
	 * a forked child or a process the descriptor was passed to gets nothing. */
	if (task_tgid(current) != s->tgid || current->self_exec_id != s->exec_id)
		return -EPERM;
	if (mutex_lock_interruptible(&s->lock))
		return -EINTR;
	switch (cmd) {
	case MEMPHISMOD_IOC_CONFIGURE:
		err = mph_configure(s, arg);
		break;
	case MEMPHISMOD_IOC_START:
		err = mph_start(s, arg);
		break;
	case MEMPHISMOD_IOC_STOP:
		err = mph_stop(s);
		break;
	case MEMPHISMOD_IOC_FAULTS:
		err = mph_faults(s, arg);
		break;
	default:
		err = mph_read(s, arg);
		break;
	}
	mutex_unlock(&s->lock);
	return err;
}

static int mph_open(struct inode *inode, struct file *file)
{
	struct mph_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	s->tgid = get_pid(task_tgid(current));
	s->pid_ns = get_pid_ns(task_active_pid_ns(current));
	s->tgid_nr = (u32)task_tgid_nr_ns(current, s->pid_ns);
	s->exec_id = current->self_exec_id;
	s->kind = MEMPHISMOD_KIND_CPU_CLOCK;
	s->period = MPH_PERIOD_DEFAULT;
	s->buf_size = (u64)buf_kb_default << 10;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int mph_release(struct inode *inode, struct file *file)
{
	struct mph_session *s = file->private_data;

	mph_faults_release(s);
	mph_resources_free(s);
	put_pid_ns(s->pid_ns);
	put_pid(s->tgid);
	mutex_destroy(&s->lock);
	kfree(s);
	return 0;
}

static const struct file_operations mph_fops = {
	.owner = THIS_MODULE,
	.open = mph_open,
	.release = mph_release,
	.unlocked_ioctl = mph_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	/* no .llseek: nonseekable_open() clears FMODE_LSEEK, so lseek() is -ESPIPE on every
	 * kernel (5.10's vfs_llseek() falls back to no_llseek, 6.1 defines that NULL, 6.12
	 * removed it) */
};

/* ---- the device node: 0660, group from the module parameter (devtmpfs) ---- */

static char *mph_devnode(MPH_DEVNODE_CONST struct device *dev, umode_t *mode, kuid_t *uid,
			 kgid_t *gid)
{
	if (mode)
		*mode = 0660;
	if (gid)
		*gid = make_kgid(&init_user_ns, group);
	return NULL;
}

static const struct device_type mph_devtype = {
	.name = "memphismod",
	.devnode = mph_devnode,
};

static void mph_dev_release(struct device *dev)
{
	kfree(dev);
}

static int __init mph_params_check(void)
{
	if (buf_kb_max < MPH_BUF_KB_MIN || buf_kb_max > 65536) {
		pr_err("buf_kb_max=%u out of range %u..65536\n", buf_kb_max, MPH_BUF_KB_MIN);
		return -EINVAL;
	}
	if (buf_kb_default < MPH_BUF_KB_MIN || buf_kb_default > buf_kb_max) {
		pr_err("buf_kb_default=%u out of range %u..%u\n", buf_kb_default, MPH_BUF_KB_MIN,
		       buf_kb_max);
		return -EINVAL;
	}
	if (mem_max_mb < 1 || mem_max_mb > 16384) {
		pr_err("mem_max_mb=%u out of range 1..16384\n", mem_max_mb);
		return -EINVAL;
	}
	if (max_sessions < 1 || max_sessions > 4096) {
		pr_err("max_sessions=%u out of range 1..4096\n", max_sessions);
		return -EINVAL;
	}
	if (!gid_valid(make_kgid(&init_user_ns, group))) {
		pr_err("group=%u is not a valid gid\n", group);
		return -EINVAL;
	}
	return 0;
}

static int __init mph_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct memphismod_record) != MEMPHISMOD_RECORD_SIZE_VER1);
	BUILD_BUG_ON(offsetof(struct memphismod_record, ins_lat) != MEMPHISMOD_RECORD_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_version) != MEMPHISMOD_VERSION_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_config) != MEMPHISMOD_CONFIG_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct memphismod_start) != MEMPHISMOD_START_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct memphismod_read) != MEMPHISMOD_READ_SIZE_VER1);
	BUILD_BUG_ON(sizeof(struct memphismod_faults) != MEMPHISMOD_FAULTS_SIZE_VER0);

	err = mph_params_check();
	if (err)
		return err;
	/* init's credentials: from 6.2 prepare_kernel_cred(NULL) warns and returns NULL
	 * ("cred: Do not default to init_cred in prepare_kernel_cred()") */
	mph_kcred = prepare_kernel_cred(&init_task);
	if (!mph_kcred)
		return -ENOMEM;
	mph_hw_probe();
	err = alloc_chrdev_region(&mph_devt, 0, 1, "memphismod");
	if (err)
		goto out_put_cred;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
	/* 6.4: "driver core: class: remove module * from class_create()" */
	mph_class = class_create("memphismod");
#else
	mph_class = class_create(THIS_MODULE, "memphismod");
#endif
	if (IS_ERR(mph_class)) {
		err = PTR_ERR(mph_class);
		goto out_unregister_region;
	}
	cdev_init(&mph_cdev, &mph_fops);
	mph_cdev.owner = THIS_MODULE;
	mph_dev = kzalloc(sizeof(*mph_dev), GFP_KERNEL);
	if (!mph_dev) {
		err = -ENOMEM;
		goto out_destroy_class;
	}
	device_initialize(mph_dev);
	mph_dev->devt = mph_devt;
	mph_dev->class = mph_class;
	mph_dev->type = &mph_devtype;
	mph_dev->release = mph_dev_release;
	err = dev_set_name(mph_dev, "memphismod");
	if (err)
		goto out_put_device;
	err = cdev_device_add(&mph_cdev, mph_dev);
	if (err)
		goto out_put_device;
	pr_info("/dev/memphismod ready (abi %d, mode 0660, group %u, buffer %u KiB/cpu, max %u KiB)\n",
		MEMPHISMOD_ABI_VERSION, group, buf_kb_default, buf_kb_max);
	return 0;

out_put_device:
	put_device(mph_dev);
out_destroy_class:
	class_destroy(mph_class);
out_unregister_region:
	unregister_chrdev_region(mph_devt, 1);
out_put_cred:
	put_cred(mph_kcred);
	return err;
}

static void __exit mph_exit(void)
{
	/* No session can exist: every open file holds a reference on this module. */
	cdev_device_del(&mph_cdev, mph_dev);
	put_device(mph_dev);
	class_destroy(mph_class);
	unregister_chrdev_region(mph_devt, 1);
	put_cred(mph_kcred);
	pr_info("unloaded\n");
}

module_init(mph_init);
module_exit(mph_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("memphis developers");
MODULE_DESCRIPTION("memphis: memory-access sampling for a granted group through /dev/memphismod");
