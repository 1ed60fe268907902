/* lib/perf.c - perf_event_open(2) and reading its ring buffers. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "perf.h"
#include "self.h"

int memphis__perf_open(struct perf_event_attr *attr, pid_t tid)
{
	return memphis__perf_open_on(attr, tid, -1, -1);
}

uint64_t memphis__perf_lost_format(void)
{
	static int known; /* 0: not asked, 1: refused, 2: taken */
	int k = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (!k) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_DUMMY,
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
			.read_format = PERF_FORMAT_LOST,
		};
		int fd = memphis__perf_open(&a, 0);
		k = fd >= 0 ? 2 : 1;
		if (fd >= 0)
			close(fd);
		__atomic_store_n(&known, k, __ATOMIC_RELAXED);
	}
	return k == 2 ? PERF_FORMAT_LOST : 0;
}

int memphis__perf_open_on(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd)
{
	for (int tries = 0; tries < 4; tries++) {
		long fd = syscall(SYS_perf_event_open, attr, tid, cpu, group_fd,
				  PERF_FLAG_FD_CLOEXEC);
		uint64_t id;

		if (fd < 0)
			return -errno;
		/* Not an event any more: a thread of the program closed this number and put its
		 * own file there right after (dup2; see memphis__fd_take), closing ours. */
		if (ioctl((int)fd, PERF_EVENT_IOC_ID, &id) < 0)
			continue;
		return (int)fd;
	}
	return -EAGAIN;
}

static int ring_map(struct memphis__ring *r, int fd, unsigned data_pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t len = (1 + (size_t)data_pages) * page;
	void *p;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->base = p;
	r->data_size = (size_t)data_pages * page;
	r->fd = fd;
	return 0;
}

int memphis__ring_open(struct memphis__ring *r, struct perf_event_attr *attr, pid_t tid,
		       unsigned data_pages, unsigned watermark_div)
{
	return memphis__ring_open_on(r, attr, tid, -1, -1, data_pages, watermark_div);
}

int memphis__perf_take(struct perf_event_attr *attr, pid_t tid, int cpu, int group_fd,
		       struct memphis__fdid *fid)
{
	sigset_t old;
	int fd;

	memphis__fd_fork_hold(&old);
	fd = memphis__fd_take(memphis__perf_open_on(attr, tid, cpu, group_fd), 0, fid);
	memphis__fd_fork_release(&old);
	return fd;
}

int memphis__ring_open_on(struct memphis__ring *r, struct perf_event_attr *attr, pid_t tid,
			  int cpu, int group_fd, unsigned data_pages, unsigned watermark_div)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd, err = -ENOMEM;

	for (; data_pages >= 1; data_pages /= 2) {
		attr->wakeup_watermark = (uint32_t)(data_pages * page / watermark_div);
		struct memphis__fdid fid;
		uint64_t id;
		fd = memphis__perf_take(attr, tid, cpu, group_fd, &fid);
		if (fd < 0)
			return fd;
		err = ioctl(fd, PERF_EVENT_IOC_ID, &id) < 0 ? -errno : ring_map(r, fd, data_pages);
		if (err == 0) {
			r->fid = fid;
			r->id = id;
			r->lost_counter = attr->read_format == PERF_FORMAT_LOST;
			return 0;
		}
		memphis__fd_close(&fd, &fid);
		if (err != -EPERM && err != -ENOMEM)
			break;
	}
	r->fd = -1;
	return err;
}

/* A LOST record (u64 id, u64 lost) in a copy: the losses memphis__ring_lost told ahead
 * of it taken out. 1 when some are left to pass on. */
static int lost_record(struct memphis__ring *r, unsigned char *rec, size_t len)
{
	const size_t at = sizeof(struct perf_event_header) + 8;
	uint64_t lost, known;

	if (len < at + 8)
		return 1;
	memcpy(&lost, rec + at, 8);
	known = lost < r->lost_ahead ? lost : r->lost_ahead;
	r->lost_ahead -= known;
	lost -= known;
	memcpy(rec + at, &lost, 8);
	r->lost_told += lost;
	return lost > 0;
}

uint64_t memphis__ring_lost(struct memphis__ring *r)
{
	uint64_t v[2]; /* value, lost */

	if (!r->filled || !r->lost_counter)
		return 0;
	r->filled = 0;
	if (!memphis__ring_check(r) ||
	    read(r->fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[1] <= r->lost_told)
		return 0;
	uint64_t d = v[1] - r->lost_told;
	r->lost_told = v[1];
	r->lost_ahead += d;
	return d;
}

/* The reading thread's slice (perf.h): its end, whether a drain stopped at it, copy mode,
 * and the bytes all rings hold copied. */
static uint64_t slice_end;
static int slice_behind, copying;
static size_t staged_bytes;

/* A ring may be closed by another thread than the reader's: the count is atomic. */
static void staged_add(long d)
{
	__atomic_add_fetch(&staged_bytes, (size_t)d, __ATOMIC_RELAXED);
}

void memphis__ring_slice(uint64_t end)
{
	slice_end = end;
	slice_behind = 0;
}

int memphis__ring_behind(void)
{
	return slice_behind;
}

void memphis__ring_copying(int on)
{
	copying = on;
}

/* The slice has ended (a clock read per record: 20 ns against the microseconds a sample
 * costs; a warm-up's single decoding may take long enough to be worth stopping after). */
static int slice_over(void)
{
	if (!slice_end || memphis__now() < slice_end)
		return 0;
	slice_behind = 1;
	return 1;
}

/* Header of the record at ring offset `tail` (it may wrap). */
static struct perf_event_header ring_header(const struct memphis__ring *r,
					    const unsigned char *data, uint64_t tail)
{
	struct perf_event_header h;
	size_t off = (size_t)(tail & (r->data_size - 1));

	if (off + sizeof(h) <= r->data_size) {
		memcpy(&h, data + off, sizeof(h));
	} else {
		size_t first = r->data_size - off;
		memcpy(&h, data + off, first);
		memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
	}
	return h;
}

/* Copy the complete records of [tail, head) that the cap leaves room for to the end of
 * r->stage, oldest first. Returns the new tail. */
static uint64_t ring_stage(struct memphis__ring *r, const unsigned char *data, uint64_t tail,
			   uint64_t head)
{
	uint64_t end = tail;
	size_t room = MEMPHIS__STAGE_MAX - __atomic_load_n(&staged_bytes, __ATOMIC_RELAXED), len;

	while (end + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h = ring_header(r, data, end);
		if (h.size < sizeof(h) || end + h.size > head || end + h.size - tail > room)
			break;
		end += h.size;
	}
	len = (size_t)(end - tail);
	if (!len)
		return tail;
	if (r->stage_off) {
		memmove(r->stage, r->stage + r->stage_off, r->stage_len - r->stage_off);
		r->stage_len -= r->stage_off;
		r->stage_off = 0;
	}
	if (r->stage_len + len > r->stage_cap) {
		size_t cap = r->stage_cap ? r->stage_cap : 65536;
		while (cap < r->stage_len + len)
			cap *= 2;
		unsigned char *p = memphis__lib_realloc(r->stage, cap);
		if (!p)
			return tail;
		r->stage = p;
		r->stage_cap = cap;
	}
	size_t off = (size_t)(tail & (r->data_size - 1));
	size_t first = off + len <= r->data_size ? len : r->data_size - off;
	memcpy(r->stage + r->stage_len, data + off, first);
	memcpy(r->stage + r->stage_len + first, data, len - first);
	r->stage_len += len;
	staged_add((long)len);
	return end;
}

/* Decode what r->stage holds (memphis__ring_drain). 1 when the slice ended first. */
static int stage_drain(struct memphis__ring *r, memphis__record_fn fn, void *ctx, size_t *n)
{
	while (r->stage_off + sizeof(struct perf_event_header) <= r->stage_len) {
		unsigned char *rec = r->stage + r->stage_off;
		struct perf_event_header h;

		memcpy(&h, rec, sizeof(h));
		if (h.size < sizeof(h) || r->stage_off + h.size > r->stage_len)
			break; /* cannot be: only complete records are copied */
		if (h.type != PERF_RECORD_LOST || lost_record(r, rec, h.size))
			fn(rec, h.size, ctx);
		r->stage_off += h.size;
		++*n;
		if (r->stage_off < r->stage_len && slice_over()) {
			staged_add(-(long)h.size);
			return 1;
		}
		staged_add(-(long)h.size);
	}
	staged_add(-(long)(r->stage_len - r->stage_off));
	memphis__lib_free(r->stage);
	r->stage = NULL;
	r->stage_off = r->stage_len = r->stage_cap = 0;
	return 0;
}

size_t memphis__ring_drain(struct memphis__ring *r, memphis__record_fn fn, void *ctx)
{
	struct perf_event_mmap_page *mp = r->base;
	const unsigned char *data;
	uint64_t head, tail;
	size_t n = 0;

	if (!copying && r->stage && stage_drain(r, fn, ctx, &n))
		return n;
	if (!mp)
		return n;
	data = (const unsigned char *)r->base + mp->data_offset;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	tail = mp->data_tail;
	/* a record larger than the space left was lost: none is near 16 KiB (a quarter of
	 * a large ring, half of a small one) */
	size_t room = r->data_size / 4 > 16384 ? r->data_size / 4 : 16384;
	if (room > r->data_size / 2)
		room = r->data_size / 2;
	if (head - tail + room >= r->data_size)
		r->filled = 1;
	if (copying) {
		__atomic_store_n(&mp->data_tail, ring_stage(r, data, tail, head), __ATOMIC_RELEASE);
		return 0;
	}
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h = ring_header(r, data, tail);
		size_t off = (size_t)(tail & (r->data_size - 1));

		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= r->data_size && h.type != PERF_RECORD_LOST) {
			fn(data + off, h.size, ctx);
		} else {
			if (r->scratch_size < h.size) {
				unsigned char *s = memphis__lib_realloc(r->scratch, 65536);
				if (!s)
					goto skip;
				r->scratch = s;
				r->scratch_size = 65536;
			}
			size_t first = off + h.size <= r->data_size ? h.size : r->data_size - off;
			memcpy(r->scratch, data + off, first);
			memcpy(r->scratch + first, data, h.size - first);
			if (h.type != PERF_RECORD_LOST || lost_record(r, r->scratch, h.size))
				fn(r->scratch, h.size, ctx);
		}
skip:
		tail += h.size;
		n++;
		if (tail + sizeof(struct perf_event_header) <= head && slice_over())
			break;
	}
	__atomic_store_n(&mp->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int memphis__ring_check(struct memphis__ring *r)
{
	uint64_t id;

	if (r->fd < 0)
		return 0;
	/* the inode first: PERF_EVENT_IOC_ID goes only to a perf event */
	if (memphis__fd_is(r->fd, &r->fid, NULL) && ioctl(r->fd, PERF_EVENT_IOC_ID, &id) == 0 &&
	    id == r->id)
		return 1;
	memphis__fd_forget(&r->fd);
	return 0;
}

void memphis__ring_close(struct memphis__ring *r)
{
	if (r->base)
		munmap(r->base, r->data_size + (size_t)sysconf(_SC_PAGESIZE));
	if (memphis__ring_check(r))
		memphis__fd_close(&r->fd, &r->fid);
	memphis__lib_free(r->scratch);
	staged_add(-(long)(r->stage_len - r->stage_off));
	memphis__lib_free(r->stage);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

int memphis__ring_enable(struct memphis__ring *r, int on)
{
	if (!memphis__ring_check(r))
		return -EBADF;
	if (ioctl(r->fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) < 0)
		return -errno;
	return 0;
}
