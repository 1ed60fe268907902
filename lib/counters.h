/* lib/counters.h - events counted per thread over each region (MEMPHIS_PAPI_EVENTS),
 * written as MPH_BLK_COUNTERS records at the region's end. Owns the event list (each event
 * counted one of two ways: the library's own perf_event_open, perfctr.h, or PAPI,
 * papiset.h; counters.c says which and why) and every thread's events, under its own lock.
 * Lock order: region lock -> registry lock -> counters lock -> heap lock. Below it:
 * papiset, perfctr, writer, self, log.
 *
 * A thread's events are opened when the thread registers (on the thread itself for
 * threads made with pthread_create and the main thread, or from the thread whose scan
 * found it first), count while the thread lives, and are read at every mark and print: a
 * region's count is the difference, and a thread that starts within a region counts from
 * its start. Reading is done by the thread that marks or prints, for every thread, so no
 * thread is interrupted and one that ended keeps its counts: the perf way reads with
 * read(2); PAPI's sets are attached to their thread (PAPI_attach) or, where PAPI cannot
 * attach (it checks with a hardware event, missing without a PMU), the thread's own set
 * when PAPI reads it with read(2). A thread found by a scan (not made by pthread_create)
 * where PAPI cannot attach has no PAPI counts (named as not counted). PAPI_thread_init
 * gives each thread its own PAPI thread record (one running set per thread); all PAPI
 * calls are made under the counters lock. A thread's events are freed at the first mark
 * or print after it ended.
 */
#ifndef MEMPHIS_COUNTERS_H
#define MEMPHIS_COUNTERS_H

#include <stdint.h>
#include <sys/types.h>

/* Prepare `events` (comma-separated libpfm4 names, PAPI presets or PAPI native names):
 * each event that cannot be counted is named once (log and NOTE) with the reason, the
 * others are kept. Returns the number of events kept (0: nothing will be counted), never
 * fails the program. PAPI is initialised only for an event libpfm4 does not name (or a
 * preset); an empty list does nothing. */
int memphis__counters_init(const char *events);
/* Region `seq` opened: read every thread's counts (the region's start). */
void memphis__counters_begin(uint32_t seq);
/* The registry's observer: thread `tid` joined (caller holds the registry lock; called on
 * the thread itself when it made itself known, from the scanning thread when a scan found
 * it first, and again on the thread itself then): open its events. */
void memphis__counters_thread_added(pid_t tid);
/* Region `seq` closes: read every thread's counts and write the region's records (the
 * threads' counts, and the events or threads that could not be counted). */
void memphis__counters_end(uint32_t seq);

#endif /* MEMPHIS_COUNTERS_H */
