/* lib/papiset.h - PAPI for counters.c: started once, and one thread's event set, made
 * attached to the thread (or, where PAPI cannot attach, the thread's own), read from any
 * thread, and freed. Owns PAPI's state for the library (started or not, the component of
 * the events, whether a set may be read from another thread) and the count of the sets'
 * descriptors. Not thread-safe: every call is made under the counters lock (counters.h),
 * which serialises all PAPI calls. Below it: fd, writer, self.
 *
 * A program may close descriptors it did not open (fd.h). PAPI's perf_event descriptors
 * are opened by PAPI at numbers we do not choose, and PAPI would read, ioctl and close
 * them by number. So each set's descriptors are found when it is made (the lowest free
 * numbers before, which are perf_event descriptors after, each with its event id) and
 * checked before PAPI touches the set again: a set with a descriptor that is no longer the
 * same event is never touched again (its counts are "unavailable", its memory stays with
 * PAPI), so PAPI never reads, stops or closes a descriptor of the program.
 *
 * Reading another thread's set (counters.c reads every thread's from the one that marks
 * or prints) is right only where PAPI reads it with read(2). PAPI before 7.1 reads even an
 * attached set with rdpmc when its component has fast_counter_read
 * (src/components/perf_event/perf_event.c:1286 @papi-7-0-0-t: `if (fast_counter_read &&
 * !inherit) _pe_rdpmc_read(...)`; fixed by 4f63dfe9b "don't use fast rdpmc counter reads
 * in attach or syswide scenarios", first in papi-7-1-0-t); rdpmc from another thread
 * reads the counter of the reader's CPU, and the kernel does not refuse it: invalid
 * counts. A thread's own (not attached) set is read with rdpmc by every version that has
 * fast_counter_read.
 *
 * Oversubscription: the set is left as PAPI makes it when not multiplexed
 * (PAPI_set_multiplex is never called): one group whose leader is pinned (perf_event.c:
 * 734-737 @papi-7-0-0-t), which the kernel schedules before any flexible event (a
 * sampler's, the library's own counters) or puts in error state, and then PAPI_read fails
 * and the counts are named as not counted. A PAPI count is whole or absent, never silently
 * short; a multiplexed set would be scaled by PAPI without saying by how much.
 */
#ifndef MEMPHIS_PAPISET_H
#define MEMPHIS_PAPISET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A perf_event descriptor of a set, and the kernel's id of its event. */
struct memphis__papifd {
	int fd;
	uint64_t id;
};

/* One thread's set. */
struct memphis__papiset {
	int set;           /* PAPI event set, PAPI_NULL when none (it could not start, it was
			    * freed, or it was left to PAPI) */
	int err;           /* PAPI error code when it could not start or be read */
	const char *why;   /* the reason for err when PAPI's text would not say it */
	struct memphis__papifd *fds;
	size_t nfds;
};

/* Start PAPI, once (PAPI_library_init, PAPI_thread_init with the kernel's thread ids):
 * PAPI_VER_CURRENT when it runs, else the error (told once in the run's notes). */
int memphis__papi_start(void);
/* PAPI's reason for error rc about event code, in words: the component's own reason when
 * the component is off ("perf_event off: Error libpfm4 no default PMU found"). */
const char *memphis__papi_why(int rc, int code, char *buf, size_t n);
/* The native event a PAPI preset is made of, into native (n bytes): 1 when the preset is
 * one native event, not derived from several (PAPI_TOT_CYC: CYCLES_NOT_IN_HALT on Zen 3),
 * else 0. */
int memphis__papi_preset_native(int code, char *native, size_t n);
/* Whether event `code` may be counted with the events probed so far: ev[0 .. n) is every
 * event so far, code last. The first event fixes the component (the others must be of
 * it). PAPI_OK; the error of a set of them on the calling thread; PAPI_ECMP with *why set
 * where another thread could not read the set (PAPI < 7.1 with fast_counter_read). */
int memphis__papi_probe(const int *ev, int n, const char **why);
/* Make and start p's set of ev[0 .. n) for thread tid: attached to it, or its own when
 * tid is the calling thread and another may read it. Never fails the program: p->set is
 * PAPI_NULL and p->err (p->why) says why when it cannot (the library's share of
 * descriptors used up, PAPI's error). */
void memphis__papiset_make(struct memphis__papiset *p, pid_t tid, const int *ev, int n);
/* Read p's counts into v[]: PAPI_OK or the error (also in p->err). A set whose descriptors
 * the program closed is never touched again (p->why says so); one PAPI cannot read is
 * freed. tid: whose set it is, for the note told once. */
int memphis__papiset_read(struct memphis__papiset *p, long long *v, pid_t tid);
/* Free p's set (or leave it to PAPI when its descriptors are no longer its events) and
 * its descriptor list; accepts a set never made. */
void memphis__papiset_free(struct memphis__papiset *p);

#endif /* MEMPHIS_PAPISET_H */
