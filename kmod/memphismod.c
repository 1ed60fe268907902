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
 *  - START creates one task-clock software event per thread of the calling process with
 *    the in-kernel perf API (perf_event_create_kernel_counter), inherited by the threads
 *    those threads create (inherit + inherit_thread), and released at STOP: every thread
 *    is sampled, those that exist and those created later, and only while it runs, so
 *    idle CPUs take no timer interrupts (this is also what the soft backend does). The
 *    gap: a thread created during START by a thread whose event does not exist yet.
 *    per_cpu_events=1 instead creates one cpu-clock event per online CPU and filters by
 *    thread group in the handler: no gap, but a timer on every CPU while sampling (like
 *    `perf record -a`); perf refuses CPU-wide events to callers without CAP_PERFMON at
 *    paranoid > 0, so those are created with the module's kernel credentials (the
 *    device's group is the grant). In the QEMU guest the per-CPU mode gave several times
 *    fewer samples than the soft backend at the same period.
 *  - Each CPU has its own ring of fixed-size records, filled by the handler on that CPU
 *    (hrtimer hard-irq context: no locks, no sleeping; single producer) and emptied by
 *    READ under the session mutex (single consumer): acquire/release on head and tail.
 *  - exclude_kernel=1 and a user_mode() check: records never hold a kernel address; the
 *    registers are the interrupted user registers. A sample is taken only when the
 *    current task has the session's thread group and exec id: after an exec (setuid or
 *    not) nothing more is recorded.
 *  - The file's owner is this module: it cannot be unloaded while a session is open;
 *    closing the file (also at process exit) stops and frees everything.
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
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/ptrace.h>

#include "memphis/memphismod.h"

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
MODULE_PARM_DESC(per_cpu_events, "sample with one cpu-clock event per CPU filtered by process instead of task-clock events per thread (default N)");

static unsigned int max_sessions = 64;
module_param(max_sessions, uint, 0444);
MODULE_PARM_DESC(max_sessions, "sessions with buffers at the same time (1..4096, default 64)");

struct mph_cpu_buf {
	struct memphismod_record *rec; /* NULL for a CPU that was offline at START */
	unsigned long mask;            /* entries - 1, entries a power of two */
	unsigned long head;            /* written by the handler on this CPU only */
	unsigned long tail;            /* written by READ (session mutex) only */
	atomic64_t lost;
} ____cacheline_aligned;

struct mph_session {
	struct mutex lock;               /* serialises the ioctls of this file */
	struct pid *tgid;                /* the owner: the opening process */
	u64 exec_id;                     /* its exec image (task_struct.self_exec_id) */
	struct pid_namespace *pid_ns;    /* pids in records are in this namespace */
	u32 tgid_nr;
	int running;                     /* read by the handler */
	u64 kind, period, buf_size;      /* configuration */
	struct perf_event **events;      /* nr_events entries, NULL where none */
	unsigned int nr_events;
	struct mph_cpu_buf *bufs;        /* nr_cpu_ids entries */
	size_t charged;                  /* bytes counted in mph_mem */
};

static atomic_long_t mph_mem;        /* bytes of buffers of all sessions */
static atomic_t mph_sessions;        /* sessions holding buffers */
static dev_t mph_devt;
static struct cdev mph_cdev;
static struct class *mph_class;
static struct device *mph_dev;
static struct cred *mph_kcred;       /* for creating the CPU-wide events */

/* ---- the overflow handler: hard-irq context ---- */

static void mph_overflow(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs)
{
	struct mph_session *s = event->overflow_handler_context;
	struct task_struct *tsk = current;
	struct memphismod_record *r;
	struct mph_cpu_buf *b;
	unsigned long head, tail;
	int cpu;

	if (!READ_ONCE(s->running) || !regs || !user_mode(regs))
		return;
	if ((tsk->flags & (PF_KTHREAD | PF_EXITING)) || task_tgid(tsk) != s->tgid ||
	    tsk->self_exec_id != s->exec_id)
		return;
	if (instruction_pointer(regs) >= TASK_SIZE_MAX)
		return;
	cpu = smp_processor_id();
	b = &s->bufs[cpu];
	if (!b->rec)
		return;
	head = b->head;
	tail = smp_load_acquire(&b->tail);
	if (head - tail > b->mask) {
		atomic64_inc(&b->lost);
		return;
	}
	r = &b->rec[head & b->mask];
	r->time = ktime_get_mono_fast_ns();
	r->ip = instruction_pointer(regs);
	r->addr = 0;
	r->data_src = 0;
	r->weight = 0;
	r->pid = s->tgid_nr;
	r->tid = (u32)task_pid_nr_ns(tsk, s->pid_ns);
	r->cpu = (u32)cpu;
	r->flags = MEMPHISMOD_REC_REGS;
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

/* Release events, then buffers and their charge. */
static void mph_resources_free(struct mph_session *s)
{
	unsigned int cpu;

	mph_events_release(s);
	if (s->bufs) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			kvfree(s->bufs[cpu].rec);
		kfree(s->bufs);
		s->bufs = NULL;
		atomic_dec(&mph_sessions);
	}
	if (s->charged) {
		atomic_long_sub(s->charged, &mph_mem);
		s->charged = 0;
	}
}

/* Buffers for the online CPUs, charged to the global budget. 0 or -errno (nothing left
 * allocated on failure). */
static int mph_bufs_alloc(struct mph_session *s)
{
	unsigned long entries = rounddown_pow_of_two(s->buf_size / MPH_REC_SIZE);
	size_t bytes = entries * MPH_REC_SIZE;
	unsigned int cpu;

	if (atomic_inc_return(&mph_sessions) > max_sessions) {
		atomic_dec(&mph_sessions);
		return -EMFILE;
	}
	s->charged = bytes * num_online_cpus();
	if (atomic_long_add_return(s->charged, &mph_mem) > (long)mem_max_mb << 20) {
		atomic_long_sub(s->charged, &mph_mem);
		s->charged = 0;
		atomic_dec(&mph_sessions);
		return -ENOMEM;
	}
	s->bufs = kcalloc(nr_cpu_ids, sizeof(*s->bufs), GFP_KERNEL_ACCOUNT);
	if (!s->bufs) {
		atomic_dec(&mph_sessions);
		goto out_free;
	}
	for_each_online_cpu(cpu) {
		struct mph_cpu_buf *b = &s->bufs[cpu];

		b->rec = kvmalloc_node(bytes, GFP_KERNEL_ACCOUNT, cpu_to_node(cpu));
		if (!b->rec)
			goto out_free;
		b->mask = entries - 1;
		atomic64_set(&b->lost, 0);
	}
	return 0;

out_free:
	mph_resources_free(s);
	return -ENOMEM;
}

static struct perf_event *mph_counter(struct mph_session *s, int cpu, struct task_struct *task)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = task ? PERF_COUNT_SW_TASK_CLOCK : PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = s->period,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		/* per thread: threads created later inherit the event (threads only) */
		.inherit = task ? 1 : 0,
		.inherit_thread = task ? 1 : 0,
	};
	const struct cred *old = NULL;
	struct perf_event *ev;

	/* A CPU-wide event needs perf_allow_cpu() (paranoid <= 0 or CAP_PERFMON) of the
	 * caller: access was granted by the device's group instead, so it is created with
	 * the module's kernel credentials; the handler's thread-group filter confines it. */
	if (!task)
		old = override_creds(mph_kcred);
	ev = perf_event_create_kernel_counter(&attr, cpu, task, mph_overflow, s);
	if (!task)
		revert_creds(old);
	return ev;
}

/* per_cpu_events=1: one cpu-clock event per online CPU with a buffer. */
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
 * exist yet is missed (the price of per-thread events; per_cpu_events=1 has no such gap). */
static int mph_events_create_task(struct mph_session *s)
{
	struct task_struct **tasks, *t;
	unsigned int n = 0, cap, i;
	int err = 0;

	cap = get_nr_threads(current) + 16;
	tasks = kcalloc(cap, sizeof(*tasks), GFP_KERNEL);
	s->events = kcalloc(cap, sizeof(*s->events), GFP_KERNEL_ACCOUNT);
	if (!tasks || !s->events) {
		kfree(tasks);
		kfree(s->events);
		s->events = NULL;
		return -ENOMEM;
	}
	rcu_read_lock();
	for_each_thread(current, t) {
		if (n == cap)
			break;
		if (t->flags & PF_EXITING)
			continue;
		get_task_struct(t);
		tasks[n++] = t;
	}
	rcu_read_unlock();
	s->nr_events = n;
	WRITE_ONCE(s->running, 1);
	for (i = 0; i < n; i++) {
		struct perf_event *ev = err ? NULL : mph_counter(s, -1, tasks[i]);

		if (!err && IS_ERR(ev)) {
			/* a thread that exited meanwhile is no error */
			if (PTR_ERR(ev) != -ESRCH)
				err = PTR_ERR(ev);
			ev = NULL;
		}
		s->events[i] = ev;
		put_task_struct(tasks[i]);
	}
	kfree(tasks);
	if (err) {
		pr_debug("perf_event_create_kernel_counter (task): %d\n", err);
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
	v.caps = MEMPHISMOD_CAP_CPU_CLOCK;
	if (boot_cpu_has(X86_FEATURE_IBS))
		v.caps |= MEMPHISMOD_CAP_IBS_OP;
	if (boot_cpu_has(X86_FEATURE_PEBS))
		v.caps |= MEMPHISMOD_CAP_PEBS;
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
	u64 usize, period, buf;
	int err;

	err = mph_copy_in(&c, sizeof(c), MEMPHISMOD_CONFIG_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (c.flags)
		return -EINVAL;
	switch (c.kind) {
	case MEMPHISMOD_KIND_CPU_CLOCK:
		break;
	case MEMPHISMOD_KIND_IBS_OP:
	case MEMPHISMOD_KIND_PEBS_LDLAT:
		/* Reserved: the hardware paths are not built in this version (and no machine
		 * of the project has the PMU to test them on). */
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
	period = c.period ? c.period : MPH_PERIOD_DEFAULT;
	if (period < MPH_PERIOD_MIN || period > MPH_PERIOD_MAX)
		return -EINVAL;
	buf = c.buffer_size ? c.buffer_size : (u64)buf_kb_default << 10;
	if (buf < (u64)MPH_BUF_KB_MIN << 10 || buf > (u64)buf_kb_max << 10)
		return -EINVAL;
	if (s->running)
		return -EBUSY;
	mph_resources_free(s); /* a new configuration starts from nothing */
	s->kind = c.kind;
	s->period = period;
	s->buf_size = buf;
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
	if (st.flags)
		return -EINVAL;
	if (s->running)
		return 0;
	if (!s->bufs) {
		err = mph_bufs_alloc(s);
		if (err)
			return err;
	}
	return per_cpu_events ? mph_events_create_cpu(s) : mph_events_create_task(s);
}

/* Stop: the events are released (no timer runs between regions); the buffers and what
 * they hold stay for READ. */
static int mph_stop(struct mph_session *s)
{
	mph_events_release(s);
	return 0;
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
	struct memphismod_read rd;
	char __user *dst;
	unsigned long room;
	unsigned int cpu;
	u64 usize;
	int err;

	err = mph_copy_in(&rd, sizeof(rd), MEMPHISMOD_READ_SIZE_VER0, arg, &usize);
	if (err)
		return err;
	if (rd.flags)
		return -EINVAL;
	dst = u64_to_user_ptr(rd.buf);
	room = min_t(u64, rd.buf_size / MPH_REC_SIZE, ULONG_MAX / MPH_REC_SIZE);
	rd.nr_records = 0;
	rd.lost = 0;
	rd.pending = 0;
	for (cpu = 0; s->bufs && cpu < nr_cpu_ids; cpu++) {
		struct mph_cpu_buf *b = &s->bufs[cpu];
		long got;

		if (!b->rec)
			continue;
		got = mph_read_cpu(b, dst, room);
		if (got < 0)
			return got;
		dst += got * MPH_REC_SIZE;
		room -= got;
		rd.nr_records += got;
		rd.lost += atomic64_xchg(&b->lost, 0);
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
	.llseek = no_llseek,
};

/* ---- the device node: 0660, group from the module parameter (devtmpfs) ---- */

static char *mph_devnode(struct device *dev, umode_t *mode, kuid_t *uid, kgid_t *gid)
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

	BUILD_BUG_ON(sizeof(struct memphismod_record) != MEMPHISMOD_RECORD_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_version) != MEMPHISMOD_VERSION_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_config) != MEMPHISMOD_CONFIG_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_start) != MEMPHISMOD_START_SIZE_VER0);
	BUILD_BUG_ON(sizeof(struct memphismod_read) != MEMPHISMOD_READ_SIZE_VER0);

	err = mph_params_check();
	if (err)
		return err;
	mph_kcred = prepare_kernel_cred(NULL);
	if (!mph_kcred)
		return -ENOMEM;
	err = alloc_chrdev_region(&mph_devt, 0, 1, "memphismod");
	if (err)
		goto out_put_cred;
	mph_class = class_create(THIS_MODULE, "memphismod");
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
