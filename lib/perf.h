/* lib/perf.h - perf_event_open(2) and its ring buffers. Below it: self. */
#ifndef MEMPHIS_PERF_H
#define MEMPHIS_PERF_H

#include <stddef.h>
#include <sys/types.h>

struct memphis__ring {
	int fd;              /* -1 when closed */
	void *base;          /* mmap: control page + data */
	size_t data_size;    /* power of two */
	unsigned char *scratch; /* for records that wrap around the end of the data area */
	size_t scratch_size;
};
struct perf_event_attr;
/* perf_event_open for thread `tid`, any CPU, close-on-exec. Returns fd or -errno. */
int memphis__perf_open(struct perf_event_attr *attr, pid_t tid);
/* Map `data_pages` (power of two) of ring buffer for fd. Returns 0 or -errno. */
int memphis__ring_map(struct memphis__ring *r, int fd, unsigned data_pages);
/* Open an event for `tid` and map its ring, halving the size down to one page while the
 * locked-memory limit refuses; wakeup_watermark = buffer / watermark_div (attr->watermark
 * must be set). Returns 0 or -errno (the open error as is). */
int memphis__ring_open(struct memphis__ring *r, struct perf_event_attr *attr, pid_t tid,
		       unsigned data_pages, unsigned watermark_div);
/* Call fn(record, ctx) for every complete record in the ring and release them. Records
 * are contiguous for fn even when they wrap. Returns the number of records. */
typedef void (*memphis__record_fn)(const void *rec, size_t len, void *ctx);
size_t memphis__ring_drain(struct memphis__ring *r, memphis__record_fn fn, void *ctx);
/* PERF_EVENT_IOC_ENABLE (on) or _DISABLE; -1 with errno on failure. */
int memphis__perf_enable(int fd, int on);
/* Unmap and close; accepts a closed ring. */
void memphis__ring_close(struct memphis__ring *r);

#endif /* MEMPHIS_PERF_H */
