/* lib/region.c - the open region (contracts in region.h). The drain samples it and counts;
 * this file names it, numbers it and writes its record. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "drain.h"
#include "log.h"
#include "memphis/format.h"
#include "numastat.h"
#include "region.h"
#include "self.h"
#include "thread.h"
#include "topology.h"
#include "writer.h"

static pthread_mutex_t region_lock = PTHREAD_MUTEX_INITIALIZER;
static int open_;                      /* a region is open */
static uint32_t seq;                   /* the open (or last) region's number, from 1 */
static uint64_t t_start;
static char name_[MEMPHIS_NAME_MAX];

/* Stop sampling, drain everything, write the region's pages, losses and record.
 * Caller holds region_lock and a region is open. The maps are not read here: a snapshot
 * per region cost an open, a read of /proc/self/maps and a block of several KiB on every
 * memphis_print(); the callers poll for loaded or unloaded objects once the locks are
 * free (topology.h: dl_iterate_phdr takes the loader's lock). */
static void close_locked(void)
{
	struct memphis__region_counts c;
	struct memphis_rec_region r;

	memphis__enter();
	/* counted first: the counts end as close to the program's print as they can */
	memphis__counters_end(seq);
	memphis__numastat_end(seq);
	memphis__drain_lock();
	memphis__drain_region_end(&c);
	open_ = 0;
	memset(&r, 0, sizeof(r));
	r.seq = seq;
	r.t_start = t_start;
	r.t_end = memphis__now();
	r.samples = c.samples;
	r.lost = c.lost;
	r.throttled = c.throttled;
	r.dropped = c.dropped;
	memcpy(r.name, name_, sizeof(r.name));
	memphis__writer_block(-1, MPH_BLK_REGION, &r, sizeof(r));
	memphis__thread_cpu_end(seq);
	memphis__thread_reap();
	memphis__drain_unlock();
	memphis__leave();
}

void memphis__region_open(const char *name)
{
	memphis__maps_poll(); /* objects loaded since the last snapshot are named from the start */
	pthread_mutex_lock(&region_lock);
	if (open_)
		close_locked();
	memphis__drain_lock();
	memset(name_, 0, sizeof(name_));
	memcpy(name_, name, strnlen(name, sizeof(name_) - 1));
	seq++;
	t_start = memphis__now();
	open_ = 1;
	memphis__thread_cpu_begin(seq);
	memphis__drain_region_begin(seq);
	memphis__drain_unlock();
	/* counted last: the counts start as close to the program's mark as they can */
	memphis__numastat_begin(seq);
	memphis__counters_begin(seq);
	pthread_mutex_unlock(&region_lock);
}

int memphis__region_close(void)
{
	int err;

	pthread_mutex_lock(&region_lock);
	if (!open_) {
		memphis__note(MPH_LOG_WARN, "memphis_print() without an open region: ignored");
		err = -EINVAL;
	} else {
		close_locked();
		err = memphis__writer_error();
	}
	pthread_mutex_unlock(&region_lock);
	if (err == 0)
		memphis__maps_poll();
	return err;
}

/* pthread_mutex_trylock for at most ms milliseconds: 0 when held, else -EBUSY. */
static int lock_within(pthread_mutex_t *m, unsigned ms)
{
	struct timespec pause = { 0, 1000000 };

	for (unsigned i = 0; i <= ms; i++) {
		if (pthread_mutex_trylock(m) == 0)
			return 0;
		nanosleep(&pause, NULL);
	}
	return -EBUSY;
}

int memphis__region_end_within(unsigned ms)
{
	if (memphis__inside() || lock_within(&region_lock, ms) < 0)
		return -EBUSY;
	/* The drain lock too: held by this thread (interrupted in region_open), it would
	 * never come free. Once tried, close_locked may take it for good. */
	if (lock_within(memphis__drain_mutex(), ms) < 0) {
		pthread_mutex_unlock(&region_lock);
		return -EBUSY;
	}
	memphis__drain_unlock();
	if (open_)
		close_locked();
	pthread_mutex_unlock(&region_lock);
	memphis__maps_poll();
	return 0;
}

void memphis__region_end(void)
{
	pthread_mutex_lock(&region_lock);
	if (open_)
		close_locked();
	pthread_mutex_unlock(&region_lock);
	memphis__maps_poll();
}
