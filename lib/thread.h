/* lib/thread.h - the registry of the process's threads. It owns the registry and its lock,
 * and keeps its own inputs: whether the library runs (activate/deactivate), the process id,
 * the drain thread's tid, and the hooks of the one who opens the threads' streams (the
 * drain). Below it: writer, io, self, log. */
#ifndef MEMPHIS_THREAD_H
#define MEMPHIS_THREAD_H

#include <stdint.h>
#include <sys/types.h>

#include "perf.h"

struct memphis__thread {
	pid_t tid;
	uint32_t index;         /* 0 main thread, then order of attachment */
	int gone;               /* exited; kept until drained */
	uint64_t fs_base, stack_lo, stack_hi;
	struct memphis__ring sample; /* backend stream */
	struct memphis__ring fault;  /* first-touch stream */
	void *backend_state;
	/* counts for the open region, kept by the drain */
	uint64_t r_samples, r_lost, r_throttled;
	/* kept by firsttouch: the signature of the thread's last STACKS entry of a page
	 * fault (stack.h), 0 none */
	uint64_t touch_stack;
	/* the region open when it registered (0 none), and its CPU time (ns, its CPU clock) at
	 * its exit, read by the thread as it ends (cpu_exited). Under the registry lock. */
	uint32_t cpu_region;
	uint64_t cpu_exit_ns;
	int cpu_exited;
};

/* Called by the registry; all optional. `added` and `reaped` run under the registry lock. */
struct memphis__thread_hooks {
	void (*added)(struct memphis__thread *t);  /* a new thread: open its streams */
	void (*reaped)(struct memphis__thread *t); /* a gone thread is freed: close them */
	void (*changed)(void);                     /* threads were added (lock not held) */
};
/* Register the hooks (before the registry is activated). *h must live on. */
void memphis__thread_set_hooks(const struct memphis__thread_hooks *h);
/* A second observer of new threads (the counters), called under the registry lock after
 * the hooks' `added`, with the new thread's tid; called again on a thread that registers
 * itself after a scan found it. Set before the registry is activated. */
void memphis__thread_set_observer(void (*added)(pid_t tid));
/* Start attaching threads of process `pid` (the library runs) / stop for good (shutdown,
 * or a fork child, which is not profiled): attach, scan and pthread_create's trampoline
 * do nothing while inactive. */
void memphis__thread_activate(pid_t pid);
void memphis__thread_deactivate(void);

/* Attach the calling thread (it records its own fs_base and stack). */
void memphis__thread_attach_self(void);
/* Attach threads listed in /proc/self/task that are not yet known. */
void memphis__thread_scan(void);
/* A thread the library may not have seen made (a wrapper of pthread_create that calls
 * libc's, as likwid-pin preloads, bypasses the library's): the drain's next pass scans at
 * once instead of at its periodic scan. memphis__thread_forked: a sample of a thread not
 * registered; memphis__thread_fork_record: rec (len bytes), a record of a thread's own
 * event (attr.task), when it is a PERF_RECORD_FORK of a thread of the process. Neither
 * takes a lock. memphis__thread_scan_due: 1 once after either (atomic). */
void memphis__thread_forked(void);
void memphis__thread_fork_record(const void *rec, size_t len);
int memphis__thread_scan_due(void);
/* Call fn for every registered thread, under the registry lock. */
void memphis__thread_foreach(void (*fn)(struct memphis__thread *t, void *ctx), void *ctx);
/* 1 when ncpus CPUs look oversubscribed: the load average is over two tasks per CPU, or
 * the process has over two threads per CPU, registered or made by pthread_create and not
 * registered yet (per-CPU sampling scopes: soft.c, kmod.c). Registry lock taken inside. */
int memphis__thread_crowded(int ncpus);
/* Close (through the reaped hook) and forget threads marked gone. */
void memphis__thread_reap(void);
/* The thread's fs_base by tid, 0 if unknown. Registry lock taken inside. */
uint64_t memphis__thread_fs_base(pid_t tid);
/* The caller's last answer of memphis__thread_find: samples of one CPU mostly come from
 * one thread. Zero it before the first call. */
struct memphis__thread_cache {
	struct memphis__thread *t;
	unsigned gen;
};
/* The registered thread `tid` (the newest, when an exited one with the same tid is not
 * reaped yet), or NULL. Caller holds the drain lock: threads are freed only under it
 * (memphis__thread_reap's callers), so the pointer stays valid while it is held. */
struct memphis__thread *memphis__thread_find(pid_t tid, struct memphis__thread_cache *c);
/* Registry generation: changes whenever a thread is added or removed. */
unsigned memphis__thread_generation(void);
/* The CPU time over region `region` (MPH_BLK_THREAD_CPU, format.h): begin reads the
 * process's CPU clock at the region's start; end writes the block: the process's time
 * over the region (tid 0), and that of each thread that started in it, to its exit or
 * now. Called by region.c at the region's start and end (before the gone threads are
 * reaped). A system call or two per region, one per thread started in it. */
void memphis__thread_cpu_begin(uint32_t region);
void memphis__thread_cpu_end(uint32_t region);
/* Mark a thread as exited (writes its exit record). Caller holds the registry lock. */
void memphis__thread_mark_gone(struct memphis__thread *t);
/* The drain thread's tid: never attached, never sampled. */
void memphis__thread_set_drain(pid_t tid);
/* It, or 0 before the drain started. */
pid_t memphis__thread_drain(void);
/* 1 for the library's own threads (the drain thread, the I/O thread): never attached,
 * never sampled, their page faults not the program's first touches. */
int memphis__thread_own(pid_t tid);
/* Hold the registry lock (so that a flag read by the added hook changes atomically with
 * respect to attaching threads). */
void memphis__thread_lock(void);
void memphis__thread_unlock(void);

#endif /* MEMPHIS_THREAD_H */
