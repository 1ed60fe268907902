/* lib/region.h - the open region: its name, sequence number and start time, and the lock
 * that serialises opening and closing (memphis_mark* / memphis_print / shutdown). Lock
 * order: region lock -> drain lock -> registry lock -> heap lock. Below it: counters,
 * numastat, drain, topology, thread, writer, self. */
#ifndef MEMPHIS_REGION_H
#define MEMPHIS_REGION_H

/* Close the open region if there is one, then open region `name` (NUL-terminated, at most
 * MEMPHIS_NAME_MAX - 1 bytes, no newlines) and start sampling. */
void memphis__region_open(const char *name);
/* Close the open region: sampling stops, everything is drained and written with the
 * REGION record, and a MAPS snapshot when objects were loaded or unloaded since the last
 * one (memphis__maps_poll). Returns 0 or the writer's error; -EINVAL (and a
 * NOTE) when no region is open. */
int memphis__region_close(void);
/* Close the open region if there is one (library shutdown). */
void memphis__region_end(void);
/* Same, when the caller may be a thread interrupted inside the library (exec from a signal
 * handler): gives up with -EBUSY, closing nothing, when the calling thread is inside the
 * library or the region or drain lock is not free within `ms` milliseconds; else 0. */
int memphis__region_end_within(unsigned ms);

#endif /* MEMPHIS_REGION_H */
