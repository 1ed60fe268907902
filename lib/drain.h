/* lib/drain.h - the drain: one thread that empties every thread's streams into the run,
 * and the sample path to disk. It owns the drain lock, the chosen backend once started,
 * the sampling switch (sampling is possible; off for good after a write error), the
 * region's sampling state (on/off and sequence number stamped into samples), the region's
 * sample counters and sampled pages, and the per-CPU sample buffers. It opens and closes
 * the threads' streams through the registry's hooks. Below it: backend, firsttouch, heap,
 * thread, topology, tls, writer, self, log. */
#ifndef MEMPHIS_DRAIN_H
#define MEMPHIS_DRAIN_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

/* The longest a sample stays in the library's buffers before it is written (the flush
 * interval plus one poll): what an exit that skips the library's shutdown may lose. */
#define MEMPHIS__DRAIN_UNWRITTEN_NS 1100000000ull

struct memphis__drain_params {
	const struct memphis__backend *backend; /* NULL: nothing to sample */
	int first_touch;                        /* open page-fault streams */
	pid_t pid;                              /* the process */
	int touch_per_cpu;                      /* page faults from events of every CPU
						 * (the cpu scope, percpu.h), else per
						 * thread */
	uint64_t start_time;                    /* library start, for the closing note */
};

/* The region's counts since memphis__drain_region_begin. */
struct memphis__region_counts {
	uint64_t samples, lost, throttled, dropped;
};

/* Register the registry's hooks and start the drain thread. 0 or -errno (nothing
 * started: the library then does not run). */
int memphis__drain_start(const struct memphis__drain_params *p);
/* Stop and join the drain thread (a NOTE tells its CPU time). */
void memphis__drain_stop(void);
/* The drain lock: held around anything that emits samples or writes buffered records. */
void memphis__drain_lock(void);
void memphis__drain_unlock(void);
/* The drain lock itself, for a bounded trylock (region.c's exec path). */
pthread_mutex_t *memphis__drain_mutex(void);
/* 1 while sampling is possible (a backend runs and no write failed), else 0. */
int memphis__drain_sampling(void);

/* Drain every thread's streams now (caller holds the drain lock). */
void memphis__drain_all(void);
/* Write buffered samples of every CPU to disk (caller holds the drain lock). */
void memphis__flush_samples(void);

/* Region `seq` opens (caller holds the drain lock): counters and pages start empty,
 * sampling starts on every thread and on threads that attach later. */
void memphis__drain_region_begin(uint32_t seq);
/* The open region closes (caller holds the drain lock): sampling stops, every stream is
 * drained, samples are written, then the region's PAGES, buffered first-touch and heap
 * records, and a LOSS record per thread that lost anything. Fills *c. */
void memphis__drain_region_end(struct memphis__region_counts *c);

/* Library shutdown, after memphis__drain_stop: drain and write everything, stop heap
 * recording and close the run directory. */
void memphis__drain_finish(void);

#endif /* MEMPHIS_DRAIN_H */
