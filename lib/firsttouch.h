/* lib/firsttouch.h - who first touched each page: a page-fault stream per thread. Its
 * buffered records are owned here; the drain calls in under its lock. Below it: perf,
 * topology, writer, self. */
#ifndef MEMPHIS_FIRSTTOUCH_H
#define MEMPHIS_FIRSTTOUCH_H

#include <stdint.h>

#include "memphis/format.h"
#include "thread.h"

/* Open the thread's page-fault stream (enabled at once). `small`: a 64 KiB ring instead of
 * 512 KiB, for threads born inside a region (thread churn: the ring's allocation and
 * release were most of a short thread's cost; such threads rarely first-touch much, and
 * the drain is woken at a quarter full). 0 or -errno. */
int memphis__touch_open(struct memphis__thread *t, int small);
/* Drain it into buffered first-touch records. Caller holds the drain lock. */
void memphis__touch_drain(struct memphis__thread *t);
/* The cpu scope (percpu.h): a page-fault event per CPU for process pid, enabled at once,
 * instead of one per thread; 0 or -errno (then none is open). Its records of the drain
 * thread are dropped when read. */
int memphis__touch_open_cpus(pid_t pid);
/* Drain the CPUs' events (caller holds the drain lock), and add(fd, ctx) for each of
 * their descriptors to poll. Nothing when they are not open. */
void memphis__touch_drain_cpus(void);
void memphis__touch_cpu_fds(void (*add)(int fd, void *ctx), void *ctx);
/* Write buffered first-touch records and the home nodes of their pages; `last`: the
 * library's last flush, which also writes the records held for a judgement (firsttouch.c).
 * Caller holds the drain lock. */
void memphis__touch_flush(int last);
/* Buffer one record of a page-fault stream that is not a thread's (the kmod backend's),
 * and count faults such a stream lost. Caller holds the drain lock. */
void memphis__touch_add(const struct memphis_rec_touch *r);
void memphis__touch_lost(uint64_t n);

#endif /* MEMPHIS_FIRSTTOUCH_H */
