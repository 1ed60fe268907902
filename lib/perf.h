/* lib/perf.h - perf_event_open(2) and its ring buffers. Below it: self. */
#ifndef MEMPHIS_PERF_H
#define MEMPHIS_PERF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fd.h"

/* A perf event and its ring. The descriptor is the library's (fd.h): checked before every
 * ioctl and close, by its identity and the event's id (every perf descriptor has the same
 * inode). The mapping stays readable when the program closed the descriptor. */
struct memphis__ring {
	int fd;              /* -1 when closed or lost */
	struct memphis__fdid fid;
	uint64_t id;         /* PERF_EVENT_IOC_ID */
	void *base;          /* mmap: control page + data */
	size_t data_size;    /* power of two */
	unsigned char *scratch; /* for records that wrap around the end of the data area */
	size_t scratch_size;
	/* Losses (memphis__ring_lost): opened with read_format PERF_FORMAT_LOST; told to the
	 * callers in all (LOST records and counter); of those, counted ahead of their records */
	int lost_counter;
	int filled;          /* found (nearly) full by the last drain: samples may be lost */
	uint64_t lost_told, lost_ahead;
	/* Records copied out of the ring, not decoded yet (memphis__ring_copying): the oldest
	 * are at stage + stage_off, stage_len bytes in all, from memphis__lib_malloc */
	unsigned char *stage;
	size_t stage_off, stage_len, stage_cap;
};
struct perf_event_attr;
/* perf_event_open for thread `tid`, any CPU, close-on-exec. Returns fd or -errno. */
int memphis__perf_open(struct perf_event_attr *attr, pid_t tid);
/* PERF_FORMAT_LOST where the kernel takes it (6.0 and later: memphis__ring_lost), else 0.
 * Asked once, with an event opened and closed at once: call it where events are opened. */
uint64_t memphis__perf_lost_format(void);
/* perf_event_open for thread tid (or -1) on cpu (or -1) in the group of group_fd (or -1),
 * close-on-exec. Returns fd or -errno. */
int memphis__perf_open_on(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd);
/* memphis__perf_open_on, the descriptor taken as the library's (memphis__fd_take, not
 * essential: -EMFILE past the share), no fork between (fd.h). Returns fd or -errno. */
int memphis__perf_take(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
		       struct memphis__fdid *fid);
/* Open an event for `tid` and map its ring, halving the size down to one page while the
 * locked-memory limit refuses; wakeup_watermark = buffer / watermark_div (attr->watermark
 * must be set). The descriptor counts in the library's share (fd.h). Returns 0 or -errno
 * (the open error as is; -EMFILE when the share is used up). */
int memphis__ring_open(struct memphis__ring *r, struct perf_event_attr *attr, pid_t tid,
		       unsigned data_pages, unsigned watermark_div);
/* memphis__ring_open for thread tid (or -1) on cpu (or -1) in the group of group_fd (or -1). */
int memphis__ring_open_on(struct memphis__ring *r, struct perf_event_attr *attr, pid_t tid,
			  int cpu, int group_fd, unsigned data_pages, unsigned watermark_div);
/* Call fn(record, ctx) for every complete record in the ring and release them: first
 * those copied out of it earlier (memphis__ring_copying), then those still in it, oldest
 * first. Records are contiguous and 8-byte aligned for fn even when they wrap. A LOST
 * record comes with the losses that memphis__ring_lost already told taken out (a copy;
 * none left: not passed). Returns the number of records. Within a slice
 * (memphis__ring_slice) it stops once the slice has ended, what is left kept for the next
 * call. Rings are read by one thread at a time (the drain lock's holder): the slice and
 * copy mode are that thread's. */
typedef void (*memphis__record_fn)(const void *rec, size_t len, void *ctx);
size_t memphis__ring_drain(struct memphis__ring *r, memphis__record_fn fn, void *ctx);
/* Decoding in slices: a record's decoding may wait (a module's symbols read, a function's
 * code decoded for the first time: milliseconds; hundreds of them single-stepped in a
 * guest), and a ring nobody reads meanwhile fills and loses samples. memphis__ring_drain
 * stops at `end` (memphis__now() ns; 0: never, the default) and says so to
 * memphis__ring_behind (1 when a drain stopped since this call); the caller then reads
 * every ring again with memphis__ring_copying(1), which copies each ring's records out
 * (freeing it for the kernel) without decoding them, and goes on decoding in a new slice.
 * Copies are capped by MEMPHIS__STAGE_MAX bytes over all rings: past it a ring keeps its
 * records, fills, and the kernel counts its losses as without copies. */
#define MEMPHIS__STAGE_MAX (64u << 20)
void memphis__ring_slice(uint64_t end);
int memphis__ring_behind(void);
void memphis__ring_copying(int on);
/* Samples the event lost that no LOST record told yet (0 unless it was opened with
 * read_format == PERF_FORMAT_LOST, kernel >= 6.0): the kernel counts a loss at once but
 * writes its record only with a later sample, which a ring nobody read until its thread
 * slept, ended or was switched off never gets. Counted once: their records, when they
 * come, are reduced by as much (memphis__ring_drain). The counter is read (two system
 * calls) only after a drain that found the ring nearly full: none can be lost before. */
uint64_t memphis__ring_lost(struct memphis__ring *r);
/* 1 when r's descriptor still is its event; else 0, and the descriptor is forgotten (the
 * program closed it): r->fd = -1, the mapping stays for the last reads. */
int memphis__ring_check(struct memphis__ring *r);
/* PERF_EVENT_IOC_ENABLE (on) or _DISABLE. 0 or -errno; -EBADF when the descriptor is no
 * longer the event's (nothing is sent to it). */
int memphis__ring_enable(struct memphis__ring *r, int on);
/* Unmap, and close the descriptor when it still is the event's; accepts a closed ring.
 * Records copied out and not decoded yet go with it: read it outside a slice first. */
void memphis__ring_close(struct memphis__ring *r);

#endif /* MEMPHIS_PERF_H */
