/* lib/perfctr.h - events the library counts per thread itself, with perf_event_open(2):
 * named for libpfm4, read with read(2) (so any thread may read any thread's events: the
 * kernel answers for a thread on another CPU, where rdpmc would read the wrong counter),
 * each with the time it was enabled and the time it was counting (read_format
 * PERF_FORMAT_TOTAL_TIME_ENABLED | _RUNNING), so that a count the kernel multiplexed
 * (more events than counters: another user, a hardware sampler, the NMI watchdog) is
 * scaled and flagged, never silently short. Each event is its own group and not pinned:
 * the kernel rotates it with the others and says for how long it ran.
 *
 * Descriptors are the library's (fd.h, taken with memphis__perf_take): at high numbers,
 * in its share, close-on-exec, closed in a fork child, and checked (identity and the
 * event's id: every perf descriptor has the same inode) before every read and close.
 * Not thread-safe: the caller serialises the calls on one set. Below it: perf, fd, self.
 */
#ifndef MEMPHIS_PERFCTR_H
#define MEMPHIS_PERFCTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fd.h"

#define MEMPHIS__PERFCTR_MAX 16 /* events per thread */
#define MEMPHIS__PERFCTR_FULL 1000000u /* coverage of a count made all the time: millionths */

struct perf_event_attr;

/* The attributes of event `name` (a libpfm4 name: perf::PAGE-FAULTS, perf::CYCLES, a core
 * PMU's event), user level only, ready for memphis__perfctr_open. 0; -ENOENT when libpfm4
 * does not name it (or does not start); -EOPNOTSUPP when it names an event of a PMU that
 * counts per CPU (uncore), not per thread; -EINVAL when the name asks for what a count of
 * one thread is not: a CPU (cpu=), sampling (period=, freq=, precise=). why (n bytes) says
 * which in words. */
int memphis__perfctr_encode(const char *name, struct perf_event_attr *attr, char *why, size_t n);

/* A count as read, with its times in ns (enabled: while its thread ran and it was on;
 * running: while it also had a counter). */
struct memphis__perfctr_read {
	uint64_t value, enabled, running;
};

/* What an event added up to between two reads of it. */
struct memphis__perfctr_count {
	uint64_t value;     /* the count; scaled by enabled / running when multiplexed */
	uint32_t coverage;  /* running / enabled in millionths (MEMPHIS__PERFCTR_FULL: always
			     * counting, or never enabled: nothing was missed) */
	int multiplexed;    /* 1: counted only part of the time; value is scaled */
};

/* The count between reads start and end (pure): value end - start; when the event ran
 * less time than it was enabled, value * enabled / running (rounded to nearest, at most
 * UINT64_MAX), coverage running / enabled (at least 1), multiplexed 1. Returns 0;
 * -EBUSY when it was enabled but never running (nothing to scale: out is the raw delta,
 * coverage 0); -ERANGE when end is before start. */
int memphis__perfctr_delta(const struct memphis__perfctr_read *start,
			   const struct memphis__perfctr_read *end,
			   struct memphis__perfctr_count *out);

/* One thread's events. */
struct memphis__perfctr_set {
	int n;
	int fd[MEMPHIS__PERFCTR_MAX];   /* -1: not open (err says why) */
	struct memphis__fdid fid[MEMPHIS__PERFCTR_MAX];
	uint64_t id[MEMPHIS__PERFCTR_MAX];
	int err[MEMPHIS__PERFCTR_MAX];  /* 0, or -errno: why the event is not counted */
};

/* Open attr[0 .. n) (n <= MEMPHIS__PERFCTR_MAX) for thread tid, counting from now. An
 * event that cannot be opened keeps its -errno in err[] (-EMFILE: the library's share of
 * descriptors is used up), the others count. Returns how many are counting. */
int memphis__perfctr_open(struct memphis__perfctr_set *s, const struct perf_event_attr *attr,
			  int n, pid_t tid);
/* Read event k into *r: 0, or -errno, also kept in err[k] when the event is lost for
 * good: -EBADF when its descriptor is no longer the event (the program closed it: it is
 * forgotten, never closed by us), -ENOSPC when the kernel put it in error state (a pinned
 * event that found no counter: read gives 0 bytes). Reading a thread that ended gives
 * its final count. */
int memphis__perfctr_read(struct memphis__perfctr_set *s, int k, struct memphis__perfctr_read *r);
/* Close every event that still is ours; accepts a set never opened (n 0). */
void memphis__perfctr_close(struct memphis__perfctr_set *s);

#endif /* MEMPHIS_PERFCTR_H */
