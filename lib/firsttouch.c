/* lib/firsttouch.c - who first touched each page: a page-fault software event per thread
 * (sample_period 1, exact data address) running from library start, because first touch
 * usually happens in initialisation, before any region (DESIGN §3.1). In the cpu scope
 * (percpu.h) one event per CPU instead, its faults of this process's threads but the
 * drain thread kept: a thread's event is scheduled out and in at each of its context
 * switches, a CPU's is not.
 *
 * A fault that maps a transparent huge page places 512 base pages at once. We detect it
 * when the records are written: the first fault seen in a 2 MiB range, alone in its batch,
 * after which /proc/self/pagemap shows the whole range present, is flagged MPH_TOUCH_HUGE
 * unless a later batch holds another fault in that range (held back until then, below).
 * Every fault is recorded (not only the first of a page): the report takes the earliest.
 *
 * A fault whose instruction lies outside the executable (memset in libc first-touching a
 * user array) keeps its registers and top of stack (stack.h) for the report to find the
 * caller: STACKS entries written just before the FIRST_TOUCH block of their records.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "firsttouch.h"
#include "insn.h"
#include "io.h"
#include "internal.h"
#include "log.h"
#include "maps.h"
#include "memphis/format.h"
#include "percpu.h"
#include "self.h"
#include "stack.h"
#include "topology.h"
#include "u64set.h"
#include "writer.h"

#define BATCH 8192
#define HUGE_SHIFT 21

static struct memphis_rec_touch batch[BATCH];
static size_t nbatch;
static struct memphis__stackbuf stk; /* STACKS entries of records in batch */
static uint64_t lost;       /* fault records the kernel dropped (ring full), not yet noted */
static int thp = -1;        /* transparent huge pages possible at all */
static struct mph_u64set seen; /* 2 MiB ranges whose first fault was judged */
static struct memphis__percpu cpus; /* the cpu scope's events; none open per thread */

struct fault_layout {
	struct perf_event_header h;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint32_t cpu, res;
};

static void touch_attr(struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_PAGE_FAULTS;
	a->sample_period = 1;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			 PERF_SAMPLE_CPU;
	if (memphis__fault_stack_bytes()) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = MEMPHIS__FAULT_REGS_MASK;
		a->sample_stack_user = memphis__fault_stack_bytes();
	}
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = memphis__perf_lost_format();
	a->watermark = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
}

/* The ring: 64 KiB / 512 KiB of 48-byte records; grown in proportion when records carry
 * the user stack (392 bytes with MEMPHIS__FAULT_STACK_BYTES), up to 256 KiB / 4 MiB. A
 * 512 MiB memset (131,072 faults) on a loaded 2-vCPU machine lost 0-3,600 records with
 * 2 MiB, none in three runs each with 4 and 8 MiB (1 KB captures then). */
static unsigned ring_pages(int small)
{
	unsigned base = small ? 16 : 128, most = small ? 64 : 1024, pages = base;
	unsigned nregs = (unsigned)__builtin_popcountll(MEMPHIS__FAULT_REGS_MASK);
	uint64_t rec = sizeof(struct fault_layout),
		 grown = rec + memphis__stack_record_extra(0, nregs, memphis__fault_stack_bytes());

	while (pages < most && pages * rec < base * grown)
		pages *= 2;
	return pages;
}

int memphis__touch_open(struct memphis__thread *t, int small)
{
	struct perf_event_attr a;

	touch_attr(&a);
	return memphis__ring_open(&t->fault, &a, t->tid, ring_pages(small), 4);
}

int memphis__touch_open_cpus(pid_t pid)
{
	struct perf_event_attr a;

	touch_attr(&a);
	return memphis__percpu_open(&cpus, &a, pid, ring_pages(0), 4);
}

/* Keep the registers and stack of fault r (the record of len bytes, of thread t) as a
 * STACKS entry when its instruction is outside the executable. 1 when the fault has an
 * entry: its own, or the thread's last one when that unwinds alike (same signature):
 * memset placing an array faults once a page with the same stack, and 1.2 KB a page
 * would be a third of the memory touched (docs/format.md says how a reader finds it). */
static int keep_stack(struct memphis__thread *t, const struct fault_layout *r, size_t len)
{
	struct memphis__ustack u;
	uint64_t sig;
	int err;

	if (!memphis__stack_wanted_ip(r->ip) ||
	    memphis__stack_parse(r + 1, len - sizeof(*r), MEMPHIS__FAULT_REGS_MASK, &u) || !u.regs)
		return 0;
	sig = memphis__stack_signature(t, &u);
	if (sig == t->touch_stack)
		return 1;
	err = memphis__stackbuf_add(&stk, MPH_STACK_TOUCH, r->time, t, r->tid, &u);
	if (err == -ENOSPC) {
		memphis__touch_flush(0);
		err = memphis__stackbuf_add(&stk, MPH_STACK_TOUCH, r->time, t, r->tid, &u);
	}
	t->touch_stack = err == 0 ? sig : 0;
	return err == 0;
}

/* ctx: the thread whose ring is read, or NULL for the CPUs' rings (the thread looked up by
 * the record's tid: only a registered one's stack is kept). */
static void on_fault(const void *rec, size_t len, void *ctx)
{
	const struct fault_layout *r = rec;
	struct memphis__thread *t = ctx;

	if (r->h.type == PERF_RECORD_LOST && len >= sizeof(struct perf_event_header) + 16) {
		uint64_t n;
		memcpy(&n, (const char *)rec + sizeof(struct perf_event_header) + 8, sizeof(n));
		lost += n;
		return;
	}
	if (r->h.type != PERF_RECORD_SAMPLE || len < sizeof(*r))
		return;
	if (!t) {
		static struct memphis__thread_cache found;
		if (memphis__thread_own((pid_t)r->tid))
			return;
		t = memphis__thread_find((pid_t)r->tid, &found);
	}
	if (nbatch == BATCH)
		memphis__touch_flush(0);
	/* after the batch's flush: the entry goes into the STACKS block of its record's batch */
	int kept = t && keep_stack(t, r, len);
	memphis__touch_add(&(struct memphis_rec_touch){
		.time = r->time,
		.addr = r->addr,
		.ip = r->ip,
		.tid = r->tid,
		.cpu = (uint16_t)r->cpu,
		.flags = kept ? MPH_TOUCH_STACK : 0,
		.page_shift = 12,
	});
}

void memphis__touch_add(const struct memphis_rec_touch *r)
{
	if (nbatch == BATCH)
		memphis__touch_flush(0);
	batch[nbatch++] = *r;
}

void memphis__touch_lost(uint64_t n)
{
	lost += n;
}

void memphis__touch_drain(struct memphis__thread *t)
{
	memphis__ring_drain(&t->fault, on_fault, t);
	lost += memphis__ring_lost(&t->fault);
}

void memphis__touch_drain_cpus(void)
{
	memphis__percpu_drain(&cpus, on_fault, NULL);
	lost += memphis__percpu_lost(&cpus);
}

void memphis__touch_cpu_fds(void (*add)(int fd, void *ctx), void *ctx)
{
	memphis__percpu_fds(&cpus, add, ctx);
}

static int thp_possible(void)
{
	char buf[128] = "";
	struct memphis__fdid id;
	int fd = memphis__open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY, &id);

	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	memphis__fd_close(&fd, &id);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return strstr(buf, "[never]") == NULL;
}

/* /proc/self/pagemap, kept open (used as the batch is, one flush at a time): not opened
 * at each flush (memphis__kept_fd). */
static struct memphis__kept pagemap;

/* What mark_huge reads once per flush: the pagemap, the sleeps left, and the maps, read
 * when a faulting page is first found absent. */
struct judge {
	int pagemap;
	int budget;
	int maps_read;
	struct mph_maps maps;
};

/* 1 when a transparent huge page may back the 2 MiB range holding addr: one anonymous,
 * private, writable mapping covers all of it. */
static int may_be_huge(struct judge *j, uint64_t addr)
{
	uint64_t lo = addr & ~((1ull << HUGE_SHIFT) - 1), hi = lo + (1ull << HUGE_SHIFT);
	const struct mph_mapping *m;

	if (!j->maps_read) {
		char *text = memphis__slurp("/proc/self/maps");

		j->maps_read = 1;
		if (!text || mph_maps_parse(text, 0, &j->maps) < 0)
			memset(&j->maps, 0, sizeof(j->maps));
		free(text);
	}
	m = mph_maps_find(&j->maps, addr);
	return m && m->inode == 0 && m->perms[1] == 'w' && m->perms[3] == 'p' && m->start <= lo &&
	       hi <= m->end;
}

/* 1 if every base page of the 2 MiB range holding fault r's address is present (pagemap
 * bit 63). The record is written at fault entry, so the faulting page itself may not be
 * mapped yet (a huge page is being zeroed, and on a busy machine the faulting thread may
 * wait for a CPU first): wait for it until 100 ms after the fault, in 250 us sleeps of
 * the flush's budget, where a huge page may hold it at all. The pages the library's own
 * work faults in a program's thread (its perf rings, libelf's mapping of a file read for
 * symbols) and a buffer unmapped since are not waited for: every print after such a
 * fault stalled the program's thread for 100 ms (seen: 135 ms prints in examples/cg). */
static int range_present(struct judge *j, const struct memphis_rec_touch *r)
{
	uint64_t e[512];
	uint64_t range = r->addr >> HUGE_SHIFT;
	unsigned self = (unsigned)((r->addr >> 12) & 511);
	off_t off = (off_t)((range << HUGE_SHIFT) >> 12) * 8;

	for (int first = 1;; first = 0) {
		if (pread(j->pagemap, e, sizeof(e), off) != (ssize_t)sizeof(e))
			return 0;
		if (e[self] >> 63)
			break;
		if ((first && !may_be_huge(j, r->addr)) || j->budget <= 0 ||
		    memphis__now() > r->time + 100000000ull)
			return 0;
		j->budget--;
		usleep(250);
	}
	for (int i = 0; i < 512; i++)
		if (!(e[i] >> 63))
			return 0;
	return 1;
}

static int cmp_range(const void *a, const void *b)
{
	uint64_t x = ((const struct memphis_rec_touch *)a)->addr >> HUGE_SHIFT;
	uint64_t y = ((const struct memphis_rec_touch *)b)->addr >> HUGE_SHIFT;
	return x < y ? -1 : x > y;
}

/* Write records r[0..n) and tell their pages' homes. */
static void write_touches(struct memphis_rec_touch *r, size_t n)
{
	uint64_t *pages;

	if (n == 0)
		return;
	memphis__writer_block(-1, MPH_BLK_FIRST_TOUCH, r, n * sizeof(r[0]));
	pages = malloc(n * sizeof(*pages));
	if (pages) {
		for (size_t i = 0; i < n; i++)
			pages[i] = r[i].addr & ~((1ull << r[i].page_shift) - 1);
		memphis__pages_write(0, pages, n);
		free(pages);
	}
}

/* Faults judged huge, not yet written, oldest first, and when each was judged. A range
 * faulted page by page can look like one: its first fault the last record read in a
 * batch, the other 511 faulted before the judgement read the pagemap, their records in
 * the next batch (seen in 2 of 70 runs of t_touch.sh's "small" case on a loaded machine,
 * under MADV_NOHUGEPAGE). So a record is written as a base page's when a later batch has
 * a fault in its range, as a huge page's once a batch flushed HOLD_NS after the judgement
 * has none (every fault before the judgement was drained by then) or at the last flush. */
#define HOLD_NS 1000000000ull
#define HELD 256
static struct memphis_rec_touch held[HELD];
static uint64_t judged[HELD];
static size_t nheld;

/* Write held[0..k) as huge pages' and drop them. */
static void release_held(size_t k)
{
	for (size_t i = 0; i < k; i++) {
		held[i].flags |= MPH_TOUCH_HUGE;
		held[i].page_shift = HUGE_SHIFT;
	}
	write_touches(held, k);
	memmove(held, held + k, (nheld - k) * sizeof(held[0]));
	memmove(judged, judged + k, (nheld - k) * sizeof(judged[0]));
	nheld -= k;
}

/* Write the held fault in range as a base page's, if there is one. */
static void release_range(uint64_t range)
{
	for (size_t k = 0; k < nheld; k++)
		if (held[k].addr >> HUGE_SHIFT == range) {
			memphis__log(MPH_LOG_DEBUG, "first touch: the fault at %#llx is not a huge "
				     "page's: a later batch has another in its range",
				     (unsigned long long)held[k].addr);
			write_touches(&held[k], 1);
			memmove(held + k, held + k + 1, (nheld - k - 1) * sizeof(held[0]));
			memmove(judged + k, judged + k + 1, (nheld - k - 1) * sizeof(judged[0]));
			nheld--;
			return;
		}
}

/* Release the held faults judged before `before` (all with UINT64_MAX) as huge. */
static void release_judged(uint64_t before)
{
	size_t k = 0;

	while (k < nheld && judged[k] < before)
		k++;
	release_held(k);
}

/* Judge the huge-page faults among r[0..n) (sorted by 2 MiB range on the way): each is
 * moved to the held ones, and the records left are compacted to r[0..returned). Run in
 * the I/O thread (io.h), which holds the pagemap's descriptor. */
static size_t mark_huge(struct memphis_rec_touch *r, size_t n)
{
	struct judge jd = { .budget = 800 }; /* 200 ms of waiting per flush at most */
	size_t out = 0;

	if (thp < 0)
		thp = thp_possible();
	if (!thp || n == 0)
		return n;
	jd.pagemap = memphis__kept_fd(&pagemap, "/proc/self/pagemap", O_RDONLY);
	if (jd.pagemap < 0)
		return n;
	qsort(r, n, sizeof(r[0]), cmp_range);
	for (size_t i = 0; i < n;) {
		uint64_t range = r[i].addr >> HUGE_SHIFT;
		size_t j = i;
		while (j < n && r[j].addr >> HUGE_SHIFT == range)
			j++;
		release_range(range);
		if (mph_u64set_add(&seen, range) == 1 && j - i == 1 && range_present(&jd, &r[i])) {
			if (nheld == HELD)
				release_held(1);
			held[nheld] = r[i];
			judged[nheld++] = memphis__now();
		} else {
			memmove(&r[out], &r[i], (j - i) * sizeof(r[0]));
			out += j - i;
		}
		i = j;
	}
	mph_maps_free(&jd.maps);
	return out;
}

/* One flush's records, judged, written and their pages' nodes told, in the I/O thread:
 * posted (the records copied after this; the flush does not wait for the judgement's
 * sleeps), or called with r where they could not be posted. */
struct touch_call {
	size_t n;
	uint64_t flushed;            /* when; UINT64_MAX at the last flush */
	struct memphis_rec_touch *r; /* NULL: copied after this */
};

static long touches_in_io(void *arg)
{
	struct touch_call *c = arg;
	struct memphis_rec_touch *r = c->r ? c->r : (struct memphis_rec_touch *)(c + 1);

	write_touches(r, mark_huge(r, c->n));
	if (c->flushed == UINT64_MAX)
		release_judged(UINT64_MAX);
	else if (c->flushed > HOLD_NS)
		release_judged(c->flushed - HOLD_NS);
	return 0;
}

void memphis__touch_flush(int last)
{
	if (lost) {
		memphis__note(MPH_LOG_WARN, "first touch: %llu page-fault records lost (buffer full)",
			      (unsigned long long)lost);
		lost = 0;
	}
	if (nbatch == 0 && !last)
		return;
	memphis__enter();
	/* the entries first: a reader finds them before their records (format.h) */
	memphis__stackbuf_write(&stk, -1);
	struct touch_call c = { nbatch, last ? UINT64_MAX : memphis__now(), NULL };
	struct iovec iov[2] = { { &c, sizeof(c) }, { batch, nbatch * sizeof(batch[0]) } };
	if (memphis__io_post(touches_in_io, iov, 2) == -EAGAIN) {
		c.r = batch;
		memphis__io_call(touches_in_io, &c);
	}
	nbatch = 0;
	memphis__leave();
}
