/* lib/thread.c - the registry of the process's threads and how threads join it.
 *
 * Threads made with pthread_create attach themselves (the interposed pthread_create runs
 * a trampoline that registers the new thread before the user's function): they record
 * their own fs_base (for %fs: operands) and stack. Threads that already existed or were
 * made by a raw clone() are found by scanning /proc/self/task (at start and periodically
 * from the drain thread); their fs_base is unknown.
 */
#include <asm/prctl.h>
#include <linux/perf_event.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "fd.h"
#include "io.h"
#include "log.h"
#include "memphis/format.h"
#include "self.h"
#include "thread.h"
#include "writer.h"

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static struct memphis__thread **threads;
static size_t nthreads, cap;
static unsigned generation;
static uint32_t next_index;
static pid_t drain_tid;
static int active;  /* the library runs: threads attach */
static pid_t pid;
static const struct memphis__thread_hooks *hooks;
static void (*observer)(pid_t tid);

void memphis__thread_set_hooks(const struct memphis__thread_hooks *h)
{
	hooks = h;
}

void memphis__thread_set_observer(void (*added)(pid_t tid))
{
	observer = added;
}

void memphis__thread_activate(pid_t process)
{
	pid = process;
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
}

void memphis__thread_deactivate(void)
{
	__atomic_store_n(&active, 0, __ATOMIC_RELEASE);
}

static int is_active(void)
{
	return __atomic_load_n(&active, __ATOMIC_ACQUIRE);
}

static void changed(void)
{
	if (hooks && hooks->changed)
		hooks->changed();
}

void memphis__thread_set_drain(pid_t tid)
{
	drain_tid = tid;
}

pid_t memphis__thread_drain(void)
{
	return drain_tid;
}

int memphis__thread_own(pid_t tid)
{
	return tid == drain_tid || tid == memphis__io_tid();
}

static struct memphis__thread *find(pid_t tid)
{
	for (size_t i = 0; i < nthreads; i++)
		if (threads[i]->tid == tid && !threads[i]->gone)
			return threads[i];
	return NULL;
}

static void write_thread_record(const struct memphis__thread *t, uint32_t event)
{
	struct memphis_rec_thread r = {
		.time = memphis__now(),
		.tid = (uint32_t)t->tid,
		.event = event,
		.fs_base = t->fs_base,
		.stack_lo = t->stack_lo,
		.stack_hi = t->stack_hi,
		.index = t->index,
	};
	memphis__writer_block(-1, MPH_BLK_THREADS, &r, sizeof(r));
}

/* The threads' CPU time over a region (THREAD_CPU, format.h), at a cost per region that
 * does not grow with the threads: reading another thread's CPU clock is a system call
 * (6 us on a VM), which is why sampling lingers between regions rather than switching
 * every thread's events. So the process's clock is read at the region's start and end,
 * and a thread's own only by a thread that started in the region: at its exit, by itself,
 * or at the region's end. Under threads_lock. */
static uint32_t cpu_region;     /* the open region, 0 between regions */
static uint64_t cpu_process0;   /* the process's CPU time at its start */

/* The CPU time of thread tid of this process (its thread CPU clock, clock_getcpuclockid's
 * for a tid: MAKE_THREAD_CPUCLOCK of the kernel's posix-timers.h), or of the process for
 * tid 0; UINT64_MAX when it cannot be read (the thread is gone). */
static uint64_t cpu_ns_of(pid_t tid)
{
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6); /* per thread, CPUCLOCK_SCHED */
	struct timespec ts;

	if (tid == 0)
		clk = CLOCK_PROCESS_CPUTIME_ID;
	else if (tid == memphis__gettid())
		clk = CLOCK_THREAD_CPUTIME_ID;
	if (clock_gettime(clk, &ts) < 0)
		return UINT64_MAX;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Register `tid` (caller holds threads_lock) and open its streams. */
static struct memphis__thread *add(pid_t tid, uint64_t fs_base, uint64_t lo, uint64_t hi)
{
	struct memphis__thread *t;

	if (nthreads == cap) {
		size_t ncap = cap ? cap * 2 : 64;
		struct memphis__thread **n = realloc(threads, ncap * sizeof(*n));
		if (!n)
			return NULL;
		threads = n;
		cap = ncap;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->index = next_index++;
	t->fs_base = fs_base;
	t->stack_lo = lo;
	t->stack_hi = hi;
	t->sample.fd = -1;
	t->fault.fd = -1;
	t->cpu_region = cpu_region;
	if (hooks && hooks->added)
		hooks->added(t);
	if (observer)
		observer(tid);
	threads[nthreads++] = t;
	generation++;
	write_thread_record(t, MPH_THREAD_START);
	return t;
}

void memphis__thread_attach_self(void)
{
	pid_t tid = memphis__gettid();
	unsigned long fs = 0;
	uint64_t lo = 0, hi = 0;
	pthread_attr_t attr;
	struct memphis__thread *t;

	if (!is_active() || memphis__thread_own(tid))
		return;
	memphis__enter(); /* pthread_getattr_np allocates */
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		void *addr;
		size_t size;
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			lo = (uint64_t)(uintptr_t)addr;
			hi = lo + size;
		}
		pthread_attr_destroy(&attr);
	}
	memphis__self_set_stack(lo, hi); /* for the allocations' call-site chains (callsite.c) */
	pthread_mutex_lock(&threads_lock);
	t = find(tid);
	if (t) {
		/* found by a scan first: fill in what only the thread itself can know */
		t->fs_base = fs;
		t->stack_lo = lo;
		t->stack_hi = hi;
		write_thread_record(t, MPH_THREAD_START);
		if (observer) /* what could only be made from another thread, made again */
			observer(tid);
	} else {
		add(tid, fs, lo, hi);
	}
	pthread_mutex_unlock(&threads_lock);
	memphis__leave();
	changed();
}

/* /proc/self/task, read at every scan all run long: kept open (memphis__kept_fd) in the
 * I/O thread (io.h); one scan at a time reads it (the start's and the drain thread's). */
static struct memphis__kept task_dir;
static pthread_mutex_t task_dir_lock = PTHREAD_MUTEX_INITIALIZER;

struct tids {
	pid_t *tid;
	size_t n, cap;
};

/* The ids in /proc/self/task into *arg (malloc'd); run in the I/O thread. 0 or -errno. */
static long list_tasks(void *arg)
{
	struct tids *l = arg;
	struct dirent *e;
	DIR *d = memphis__opendir_kept(&task_dir, "/proc/self/task");

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0)
			continue;
		if (l->n == l->cap) {
			size_t ncap = l->cap ? l->cap * 2 : 64;
			pid_t *n = realloc(l->tid, ncap * sizeof(*n));
			if (!n)
				break;
			l->tid = n;
			l->cap = ncap;
		}
		l->tid[l->n++] = tid;
	}
	memphis__closedir(d);
	return 0;
}

void memphis__thread_scan(void)
{
	struct tids l = { 0 };
	int added = 0;

	if (!is_active())
		return;
	memphis__enter(); /* the list allocates */
	pthread_mutex_lock(&task_dir_lock);
	if (memphis__io_read(list_tasks, &l) < 0)
		goto out;
	pthread_mutex_lock(&threads_lock);
	for (size_t i = 0; i < l.n; i++) {
		pid_t tid = l.tid[i];
		if (memphis__thread_own(tid) || find(tid))
			continue;
		if (add(tid, 0, 0, 0))
			added = 1;
	}
	/* threads that vanished without a hang-up (no stream open) */
	for (size_t i = 0; i < nthreads; i++) {
		struct memphis__thread *t = threads[i];
		if (!t->gone && syscall(SYS_tgkill, pid, t->tid, 0) < 0 && errno == ESRCH)
			memphis__thread_mark_gone(t);
	}
	pthread_mutex_unlock(&threads_lock);
out:
	pthread_mutex_unlock(&task_dir_lock);
	free(l.tid);
	memphis__leave();
	if (added)
		changed();
}

static int forked; /* a thread made out of the library's sight, seen since the last scan
		    * (atomic) */

void memphis__thread_forked(void)
{
	__atomic_store_n(&forked, 1, __ATOMIC_RELAXED);
}

void memphis__thread_fork_record(const void *rec, size_t len)
{
	struct {
		struct perf_event_header h;
		uint32_t pid, ppid, tid, ptid;
	} r;

	if (len < sizeof(r))
		return;
	memcpy(&r, rec, sizeof(r));
	/* a thread of the process (pid == ppid), not one of the library's. Whether it is
	 * registered is the scan's to tell: rings are read under the registry's lock. */
	if (r.h.type == PERF_RECORD_FORK && r.pid == r.ppid && r.tid != r.ptid &&
	    !memphis__thread_own((pid_t)r.tid))
		memphis__thread_forked();
}

int memphis__thread_scan_due(void)
{
	return __atomic_exchange_n(&forked, 0, __ATOMIC_RELAXED);
}

void memphis__thread_mark_gone(struct memphis__thread *t)
{
	if (t->gone)
		return;
	t->gone = 1;
	write_thread_record(t, MPH_THREAD_EXIT);
}

/* The calling thread ends (pthread_create's trampoline, as it returns or exits): its CPU
 * time, which no one can read once it is gone. */
static void thread_ends(void *arg)
{
	pid_t tid = memphis__gettid();
	uint64_t ns = cpu_ns_of(tid);
	struct memphis__thread *t;

	(void)arg;
	pthread_mutex_lock(&threads_lock);
	if ((t = find(tid))) {
		t->cpu_exit_ns = ns;
		t->cpu_exited = ns != UINT64_MAX;
	}
	pthread_mutex_unlock(&threads_lock);
}

void memphis__thread_cpu_begin(uint32_t region)
{
	uint64_t now = cpu_ns_of(0);

	pthread_mutex_lock(&threads_lock);
	cpu_region = region;
	cpu_process0 = now;
	pthread_mutex_unlock(&threads_lock);
}

void memphis__thread_cpu_end(uint32_t region)
{
	uint64_t process = cpu_ns_of(0);
	struct memphis_rec_thread_cpu *r;
	size_t n = 0;

	memphis__enter(); /* the block allocates */
	pthread_mutex_lock(&threads_lock);
	r = calloc(nthreads + 2, sizeof(*r));
	if (r && process != UINT64_MAX && cpu_process0 != UINT64_MAX && process >= cpu_process0)
		r[n++] = (struct memphis_rec_thread_cpu){ region, 0, process - cpu_process0 };
	for (size_t i = 0; r && i < nthreads; i++) {
		const struct memphis__thread *t = threads[i];
		uint64_t ns;

		if (t->cpu_region != region || !region)
			continue;
		ns = t->cpu_exited ? t->cpu_exit_ns : t->gone ? UINT64_MAX : cpu_ns_of(t->tid);
		if (ns != UINT64_MAX)
			r[n++] = (struct memphis_rec_thread_cpu){ region, (uint32_t)t->tid, ns };
	}
	cpu_region = 0;
	pthread_mutex_unlock(&threads_lock);
	if (n)
		memphis__writer_block(-1, MPH_BLK_THREAD_CPU, r, n * sizeof(*r));
	free(r);
	memphis__leave();
}

void memphis__thread_foreach(void (*fn)(struct memphis__thread *t, void *ctx), void *ctx)
{
	pthread_mutex_lock(&threads_lock);
	for (size_t i = 0; i < nthreads; i++)
		fn(threads[i], ctx);
	pthread_mutex_unlock(&threads_lock);
}

/* Threads pthread_create made whose trampoline has not registered them yet: a region may
 * start before they first run (65 threads on 2 busy CPUs), and memphis__thread_crowded
 * counts them too. */
static int starting;

int memphis__thread_crowded(int ncpus)
{
	struct sysinfo si;
	size_t n = 0;

	if (ncpus < 1)
		ncpus = 1;
	if (sysinfo(&si) == 0 && si.loads[0] > (unsigned long)ncpus * 2 << SI_LOAD_SHIFT)
		return 1;
	pthread_mutex_lock(&threads_lock);
	for (size_t i = 0; i < nthreads; i++)
		n += !threads[i]->gone;
	pthread_mutex_unlock(&threads_lock);
	n += (size_t)__atomic_load_n(&starting, __ATOMIC_RELAXED);
	return n > (size_t)ncpus * 2;
}

void memphis__thread_lock(void)
{
	pthread_mutex_lock(&threads_lock);
}

void memphis__thread_unlock(void)
{
	pthread_mutex_unlock(&threads_lock);
}

void memphis__thread_reap(void)
{
	size_t j = 0;

	memphis__enter();
	pthread_mutex_lock(&threads_lock);
	for (size_t i = 0; i < nthreads; i++) {
		struct memphis__thread *t = threads[i];
		if (t->gone) {
			if (hooks && hooks->reaped)
				hooks->reaped(t);
			free(t);
			generation++;
		} else {
			threads[j++] = t;
		}
	}
	nthreads = j;
	pthread_mutex_unlock(&threads_lock);
	memphis__leave();
}

uint64_t memphis__thread_fs_base(pid_t tid)
{
	uint64_t fs = 0;

	pthread_mutex_lock(&threads_lock);
	for (size_t i = 0; i < nthreads; i++)
		if (threads[i]->tid == tid) {
			fs = threads[i]->fs_base;
			break;
		}
	pthread_mutex_unlock(&threads_lock);
	return fs;
}

struct memphis__thread *memphis__thread_find(pid_t tid, struct memphis__thread_cache *c)
{
	struct memphis__thread *t = NULL;

	if (c->t && c->gen == __atomic_load_n(&generation, __ATOMIC_RELAXED) && c->t->tid == tid)
		return c->t;
	pthread_mutex_lock(&threads_lock);
	for (size_t i = nthreads; i-- > 0;)
		if (threads[i]->tid == tid) {
			t = threads[i];
			break;
		}
	c->t = t;
	c->gen = generation;
	pthread_mutex_unlock(&threads_lock);
	return t;
}

unsigned memphis__thread_generation(void)
{
	return __atomic_load_n(&generation, __ATOMIC_RELAXED);
}

/* ---- pthread_create interposition ---- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

/* The new thread registers before the user's function runs. It may already be cancelled
 * (pthread_cancel right after pthread_create): registration holds the registry and writer
 * locks across cancellation points (writev), so cancellation waits until it is done. */
static void *trampoline(void *p)
{
	struct start s = *(struct start *)p;
	int old;
	void *ret;

	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	memphis__lib_free(p);
	memphis__thread_attach_self();
	__atomic_sub_fetch(&starting, 1, __ATOMIC_RELAXED);
	pthread_setcancelstate(old, &old);
	/* its CPU time as it ends: by returning, pthread_exit or cancellation */
	pthread_cleanup_push(thread_ends, NULL);
	ret = s.fn(s.arg);
	pthread_cleanup_pop(1);
	return ret;
}

__attribute__((visibility("default"))) int
pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	memphis__pthread_create_fn *real = memphis__real_pthread_create();
	struct start *s;
	int rc;

	if (!real)
		return EAGAIN;
	if (!is_active())
		return real(th, attr, fn, arg);
	s = memphis__lib_malloc(sizeof(*s));
	if (!s)
		return real(th, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	__atomic_add_fetch(&starting, 1, __ATOMIC_RELAXED);
	rc = real(th, attr, trampoline, s);
	if (rc != 0) {
		__atomic_sub_fetch(&starting, 1, __ATOMIC_RELAXED);
		memphis__lib_free(s);
	}
	return rc;
}
