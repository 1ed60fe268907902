/* lib/drain.c - the drain thread and the sample path to disk.
 *
 * One thread, started at library load, never sampled itself, empties every thread's ring
 * buffers (samples and page faults) whenever the kernel wakes it at a buffer's watermark,
 * at least every 100 ms, and as often as a source that wakes nobody asks (backend.h's
 * read_every_ms), so regions of any length lose nothing to full buffers. It
 * also finds threads that did not attach themselves, notices exited ones (POLLHUP), and
 * writes buffered heap, first-touch and sample records. memphis_print() drains the rest
 * synchronously under the same lock (region.c).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "cpubuf.h"
#include "drain.h"
#include "fd.h"
#include "firsttouch.h"
#include "heap.h"
#include "internal.h"
#include "io.h"
#include "log.h"
#include "memphis/format.h"
#include "self.h"
#include "stack.h"
#include "thread.h"
#include "tls.h"
#include "topology.h"
#include "u64set.h"
#include "writer.h"

#define POLL_MS 100
#define SCAN_EVERY_NS 250000000ull
#define FLUSH_EVERY_NS 1000000000ull
/* Sampling left on after a region ends (backends with .linger): switching it costs one
 * ioctl per thread, or per CPU an interrupt of each CPU, which the program's thread pays
 * at every mark and print (an empty region: 0.5 ms on a 16-vCPU VM per CPU, 10 us per
 * thread), and a program marking a region per iteration pays it at every iteration. So
 * the events stay on, samples timed outside the open region are dropped when read, and
 * the drain thread switches them off when no region opened for LINGER_NS. */
#define LINGER_NS 100000000ull
_Static_assert(FLUSH_EVERY_NS + POLL_MS * 1000000ull == MEMPHIS__DRAIN_UNWRITTEN_NS,
	       "drain.h tells the longest a sample stays unwritten");

static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct memphis__backend *backend; /* NULL: no sampling */
static int sampling_ok;        /* backend usable and no write failed */
static int first_touch;
static int touch_by_backend;   /* the backend's page-fault stream, not the threads' */
static int touch_by_cpu;       /* the CPUs' page-fault events, not the threads' */
static uint64_t start_time;
/* The open region, as the sample path sees it. `region_on` changes under the registry
 * lock too, so a thread attaching meanwhile sees it (on_added). */
static int region_on;
static int live;               /* the sampling events are on (under the registry lock too);
				* never while !sampling_ok */
/* CLOCK_MONOTONIC: the open region began (UINT64_MAX after its close has been read:
 * nothing is kept until the next begins) and the last region ended */
static uint64_t region_t0 = UINT64_MAX, region_t1;
static uint32_t region_seq;
static struct memphis__region_counts counts;
static struct mph_u64set pages; /* the open region's sampled pages */
static pthread_t drain_thread;
static int started;
/* The drain thread's wake-up: a pipe, whose inode is its own, so that a check (fd.h) tells
 * it from a descriptor of the program that took its number. */
static int kick_fd[2] = { -1, -1 };
static struct memphis__fdid kick_id[2];
static int stopping;
static uint64_t drain_cpu_ns; /* CPU time the drain thread used, known after it stopped */
static uint64_t drain_passes; /* its passes (wake-ups), known after it stopped */
static uint64_t sample_wakes; /* its passes woken by a thread's sample ring's watermark */
static uint64_t gap_max_ns, wait_max_ns, read_max_ns; /* the drain's longest time between
						       * two reads of the rings, wait for the
						       * drain lock, read of all rings */

static void write_heap_block(uint16_t type, const void *recs, size_t len)
{
	memphis__writer_block(-1, type, recs, len);
}

/* Write the heap's buffered records (and a NOTE if some were dropped). */
static void heap_flush(void)
{
	uint64_t drop = memphis__heap_flush(write_heap_block);

	if (drop)
		memphis__note(MPH_LOG_WARN, "heap: %llu allocation/free records dropped (writer too slow, or "
			      "too many sampled small blocks live)",
			      (unsigned long long)drop);
}

void memphis__drain_lock(void)
{
	pthread_mutex_lock(&drain_lock);
}

void memphis__drain_unlock(void)
{
	pthread_mutex_unlock(&drain_lock);
}

pthread_mutex_t *memphis__drain_mutex(void)
{
	return &drain_lock;
}

int memphis__drain_sampling(void)
{
	return __atomic_load_n(&sampling_ok, __ATOMIC_RELAXED);
}

/* Record one sample of the open region: appended to its CPU's file buffer (with its
 * STACKS entry when u is given), its page remembered for the home-node query. The
 * backends' emit function; caller holds the drain lock (inside the library). */
static void emit_sample(struct memphis__thread *t, struct memphis_rec_sample *s,
			const struct memphis__ustack *u)
{
	if (backend->linger && (s->time < region_t0 || (!region_on && s->time > region_t1)))
		return; /* taken while sampling lingered between regions */
	s->region = region_seq;
	t->r_samples++;
	counts.samples++;
	if (s->flags & (MPH_S_EXACT | MPH_S_APPROX))
		mph_u64set_add(&pages, s->addr & ~4095ull);
	memphis__cpubuf_add(t, s, u, &counts.dropped);
}

void memphis__flush_samples(void)
{
	memphis__cpubuf_flush(&counts.dropped);
}

/* A stream stays readable through its mapping when the program closed its descriptor. */
static void drain_one(struct memphis__thread *t, void *ctx)
{
	if (sampling_ok && (t->sample.fd >= 0 || t->sample.base))
		backend->read(t, emit_sample);
	if (t->fault.base)
		memphis__touch_drain(t);
}

/* Every stream read once. */
static void read_all(void)
{
	memphis__thread_foreach(drain_one, NULL);
	if (sampling_ok && backend->read_process)
		counts.lost += backend->read_process(emit_sample);
	if (__atomic_load_n(&touch_by_backend, __ATOMIC_ACQUIRE))
		memphis__touch_lost(backend->read_touches(memphis__touch_add));
	if (touch_by_cpu)
		memphis__touch_drain_cpus();
}

void memphis__drain_all(void)
{
	memphis__enter();
	read_all();
	memphis__leave();
}

/* A pass's read, in slices (perf.h): when a slice ends before the rings are read, every
 * ring's records are copied out of it and decoding goes on, SLICES at most; what is left
 * waits, copied, for the next pass (1 returned when some is). Single-stepped in a guest, one read of examples/cg's
 * first region took 1.3 s (its code decoded for the first time) while its threads' rings
 * held 0.19 s of samples: 10-40 % of them were lost (issue 45). */
#define SLICE_NS 10000000ull
#define SLICES 16

static int drain_all_sliced(void)
{
	int left = 0;

	memphis__enter();
	for (int k = 0;; k++) {
		memphis__ring_slice(memphis__now() + SLICE_NS);
		read_all();
		left = memphis__ring_behind();
		if (!left || k == SLICES - 1)
			break;
		memphis__ring_copying(1);
		read_all();
		memphis__ring_copying(0);
	}
	memphis__ring_slice(0);
	memphis__leave();
	return left;
}

/* ---- the threads' streams, opened and closed through the registry's hooks ---- */

/* Threads whose sample (0) or page-fault (1) stream could not be opened, and the first
 * one's tid and error: told in the run at the end (memphis__drain_stop), so that the
 * report says its figures leave those threads out. */
static uint64_t unopened[2];
static int unopened_tid[2], unopened_err[2];

/* A stream (kind 0 samples, 1 page faults) of thread t could not be opened: the log says
 * why; when the library's share of descriptors (fd.h) is used up, one line for the user,
 * once. */
static void not_opened(struct memphis__thread *t, int kind, int err)
{
	static int said;

	if (__atomic_fetch_add(&unopened[kind], 1, __ATOMIC_RELAXED) == 0) {
		unopened_tid[kind] = (int)t->tid;
		unopened_err[kind] = err;
	}
	memphis__log(MPH_LOG_WARN, "no %s of thread %d: %s", kind ? "page faults" : "samples",
		     (int)t->tid, strerror(-err));
	if (err == -EMFILE && !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		memphis__warn("thread %d and later ones are not sampled while memphis holds its share "
			      "of descriptors (%ld, a quarter of ulimit -n), so that the program never "
			      "runs short; raise ulimit -n to sample more threads at once",
			      (int)t->tid, memphis__fd_held());
}

/* A new thread (registry lock held): its sampling stream, enabled when a region is open,
 * and its page-fault stream (a small ring when born inside a region: thread churn). */
static void on_added(struct memphis__thread *t)
{
	if (memphis__drain_sampling()) {
		int err = backend->open(t);
		if (err < 0)
			not_opened(t, 0, err);
		else if (live)
			backend->enable(t, 1);
	}
	if (first_touch && !touch_by_cpu && !__atomic_load_n(&touch_by_backend, __ATOMIC_ACQUIRE)) {
		int err = memphis__touch_open(t, region_on);
		if (err < 0)
			not_opened(t, 1, err);
	}
}

/* A gone thread is freed (registry lock held): close its streams. */
static void on_reaped(struct memphis__thread *t)
{
	if (backend)
		backend->close(t);
	memphis__ring_close(&t->fault);
}

static void kick(void);

static const struct memphis__thread_hooks hooks = {
	.added = on_added,
	.reaped = on_reaped,
	.changed = kick,
};

/* ---- regions ---- */

/* Start or stop one thread's sampling. When the program closed the stream's descriptor
 * (the event lives on through its mapping, but takes no ioctl), what it holds is read,
 * the stream ended and a new one opened. Caller holds the drain and registry locks. */
static void enable_one(struct memphis__thread *t, void *ctx)
{
	int on = *(int *)ctx;

	if (t->gone || (t->sample.fd < 0 && !t->sample.base))
		return;
	if (backend->enable(t, on) == -EBADF && t->sample.base) {
		drain_one(t, NULL);
		backend->close(t);
		if (backend->open(t) == 0 && on)
			backend->enable(t, 1);
	}
}

/* Switch sampling on or off: the flag under the registry lock, so that a thread attaching
 * meanwhile sees it (on_added), then every thread's stream, then the process-wide hook of
 * backends that have one. Caller holds drain_lock. */
static void switch_sampling(int on)
{
	memphis__thread_lock();
	live = on;
	memphis__thread_unlock();
	memphis__thread_foreach(enable_one, &on);
	if (backend->start)
		backend->start(on, emit_sample);
}

/* Open (on = 1) or close the region for sampling: a lingering backend's events are left
 * on at the close (see LINGER_NS). Caller holds drain_lock. */
static void region_sampling(int on)
{
	memphis__thread_lock();
	region_on = on;
	memphis__thread_unlock();
	if (!sampling_ok || (!on && backend->linger))
		return;
	if (live == on) {
		/* still on, lingering: start(1) again, for a source that changes its events only
		 * at a region's start (soft per CPU: backend.h) */
		if (on && backend->start)
			backend->start(1, emit_sample);
		return;
	}
	switch_sampling(on);
}

/* A thread's counts since the last region's end: what the drain read meanwhile (the LOST
 * and THROTTLE records of sampling that lingered) was taken outside any region. */
static void counts_reset(struct memphis__thread *t, void *ctx)
{
	(void)ctx;
	t->r_samples = t->r_lost = t->r_throttled = 0;
}

void memphis__drain_region_begin(uint32_t seq)
{
	memset(&counts, 0, sizeof(counts));
	memphis__thread_foreach(counts_reset, NULL);
	region_seq = seq;
	region_t0 = memphis__now();
	region_sampling(1);
}

/* The region's LOSS records, one per thread that sampled, lost or was throttled, written
 * as one block: a block per thread cost three system calls per thread on every print. */
struct losses {
	struct memphis_rec_loss *r;
	size_t n, cap;
};

static void loss_one(struct memphis__thread *t, void *ctx)
{
	struct losses *l = ctx;
	struct memphis_rec_loss r = {
		.region = region_seq,
		.tid = (uint32_t)t->tid,
		.samples = t->r_samples,
		.lost = t->r_lost,
		.throttled = t->r_throttled,
	};

	counts.lost += t->r_lost;
	counts.throttled += t->r_throttled;
	t->r_samples = t->r_lost = t->r_throttled = 0;
	if (!r.samples && !r.lost && !r.throttled)
		return;
	if (l->n == l->cap) {
		size_t ncap = l->cap ? l->cap * 2 : 16;
		struct memphis_rec_loss *nr = realloc(l->r, ncap * sizeof(*nr));
		if (!nr) { /* no memory: this one in a block of its own */
			memphis__writer_block(-1, MPH_BLK_LOSS, &r, sizeof(r));
			return;
		}
		l->r = nr;
		l->cap = ncap;
	}
	l->r[l->n++] = r;
}

/* A hardware backend's share of the region each of its events sampled, as NOTEs the
 * report reads (docs/format.md): "hw coverage: region=R enabled_ns=N running_ns=M
 * event=NAME", one per event that was enabled. Caller holds drain_lock. */
static void coverage_notes(void)
{
	struct memphis__hw_coverage c[MEMPHIS__HW_MAX];
	size_t n;

	if (!sampling_ok || !backend->coverage)
		return;
	n = backend->coverage(c, MEMPHIS__HW_MAX);
	for (size_t i = 0; i < n; i++)
		memphis__note(MPH_LOG_INFO, "hw coverage: region=%u enabled_ns=%llu running_ns=%llu "
			      "event=%s", region_seq, (unsigned long long)c[i].enabled_ns,
			      (unsigned long long)c[i].running_ns, c[i].name);
}

void memphis__drain_region_end(struct memphis__region_counts *c)
{
	uint64_t *sampled;
	size_t n = 0;

	memphis__enter();
	region_t1 = memphis__now();
	region_sampling(0);
	memphis__drain_all();
	coverage_notes();
	region_t0 = UINT64_MAX;
	memphis__flush_samples();
	memphis__cpubuf_region_end(region_seq);
	sampled = mph_u64set_take(&pages, &n);
	if (sampled)
		memphis__pages_post(region_seq, sampled, n);
	free(sampled);
	memphis__touch_flush(0);
	heap_flush();
	struct losses l = { 0 };
	memphis__thread_foreach(loss_one, &l);
	if (l.n)
		memphis__writer_block(-1, MPH_BLK_LOSS, l.r, l.n * sizeof(l.r[0]));
	free(l.r);
	*c = counts;
	memphis__leave();
}

struct pollset {
	struct pollfd *fds;
	pid_t *tids;   /* tid + 1 for a fault stream's descriptor, -tid - 1 for a sample's,
			* POLL_PROCESS for a process-wide source's, 0 for the kick pipe */
	size_t n, cap;
	size_t least_ring; /* data bytes of the smallest thread sample ring; 0: none */
};
#define POLL_PROCESS INT_MIN
/* A process-wide source's descriptor hung up or failed: it is not polled again (a hang-up
 * stays readable and would keep poll from waiting); its rings are still read. */
static int process_hup;

/* Append fd (of thread tid, as in pollset.tids; 0 for the kick pipe) to the poll set,
 * polled for `events` (0: only its hang-up or error, which poll tells unasked). */
static void pollset_add(struct pollset *ps, int fd, pid_t tid, short events)
{
	if (ps->n == ps->cap) {
		size_t ncap = ps->cap ? ps->cap * 2 : 64;
		struct pollfd *f = realloc(ps->fds, ncap * sizeof(*f));
		pid_t *tt = realloc(ps->tids, ncap * sizeof(*tt));
		if (f)
			ps->fds = f;
		if (tt)
			ps->tids = tt;
		if (!f || !tt)
			return;
		ps->cap = ncap;
	}
	ps->fds[ps->n] = (struct pollfd){ .fd = fd, .events = events };
	ps->tids[ps->n++] = tid;
}

static void add_process_fd(int fd, void *ctx)
{
	pollset_add(ctx, fd, POLL_PROCESS, POLLIN);
}

/* Poll only descriptors that still are the streams' (the program may have closed them and
 * reused the numbers): checked whenever the set is built. */
static void collect(struct memphis__thread *t, void *ctx)
{
	struct pollset *ps = ctx;
	int fault, timer = backend && backend->read_every_ms;

	if (t->gone)
		return;
	fault = memphis__ring_check(&t->fault);
	if (t->sample.base && (!ps->least_ring || t->sample.data_size < ps->least_ring))
		ps->least_ring = t->sample.data_size;
	/* a source read on the timer (backend.h) is polled only to see the thread end, and
	 * not at all where its page-fault stream tells that: its watermark wakes the drain
	 * every time the ring's size was written, read or not (a switch from events per CPU
	 * to per thread, with no page-fault stream of the threads' own, woke it 28-30 times
	 * a second instead of 19 on 2 CPUs) */
	if (memphis__ring_check(&t->sample) && !(fault && timer))
		pollset_add(ps, t->sample.fd, -t->tid - 1, timer ? 0 : POLLIN);
	if (fault)
		pollset_add(ps, t->fault.fd, t->tid + 1, POLLIN);
}

/* A gone thread's streams, drained, are closed at once: a program that makes and ends
 * threads inside one region must not run out of descriptors. Its counts stay until the
 * region's LOSS records. Caller holds the drain lock. */
static void retire(struct memphis__thread *t, void *ctx)
{
	if (!t->gone || (t->sample.fd < 0 && !t->sample.base && !t->fault.base))
		return;
	drain_one(t, NULL);
	on_reaped(t);
}

#define HUPS_PER_PASS 64 /* hang-ups taken per pass; more at the next (they stay readable) */

struct hup {
	pid_t tids[HUPS_PER_PASS];
	size_t n;
};

/* A hang-up from a thread's stream: it exited, when the descriptor still is the stream's
 * (not a descriptor of the program's that took its number). */
static void mark_hup(struct memphis__thread *t, void *ctx)
{
	struct hup *h = ctx;

	for (size_t i = 0; i < h->n; i++) {
		pid_t tid = h->tids[i] < 0 ? -h->tids[i] - 1 : h->tids[i] - 1;
		struct memphis__ring *r = h->tids[i] < 0 ? &t->sample : &t->fault;
		if (tid == t->tid && !t->gone && memphis__ring_check(r)) {
			drain_one(t, NULL);
			memphis__thread_mark_gone(t);
			retire(t, NULL);
		}
	}
}

/* Make the kick pipe; a pipe whose descriptors the program closed is forgotten, not
 * closed. 0 or -errno. */
static int kick_open(void)
{
	int p[2], err = memphis__pipe(p, kick_id);

	if (err)
		return err;
	kick_fd[0] = p[0];
	__atomic_store_n(&kick_fd[1], p[1], __ATOMIC_RELEASE);
	return 0;
}

/* The kick pipe still ours? Else a new one; the old ends are forgotten, not closed (a user
 * thread may be writing to the one that is still ours). 1 when it was replaced. */
static int kick_check(void)
{
	int w = __atomic_load_n(&kick_fd[1], __ATOMIC_ACQUIRE);

	if (memphis__fd_is(kick_fd[0], &kick_id[0], NULL) && memphis__fd_is(w, &kick_id[1], NULL))
		return 0;
	memphis__fd_forget(&kick_fd[0]);
	__atomic_store_n(&kick_fd[1], -1, __ATOMIC_RELEASE);
	memphis__fd_forget(&w);
	kick_open();
	return 1;
}

/* The drain's poll timeout in ms: what is left of POLL_MS, or of less where a source that
 * wakes nobody needs it (thread_ring_bytes: its smallest thread ring), since the last read
 * began at last_read (a pass longer than that, single-stepped in a guest, reads again at
 * once). Caller holds drain_lock. */
static int poll_timeout(size_t thread_ring_bytes, uint64_t last_read)
{
	unsigned every = sampling_ok && backend->read_every_ms ?
				 backend->read_every_ms(thread_ring_bytes) : 0;
	uint64_t ms = every && every < POLL_MS ? every : POLL_MS;
	uint64_t since = (memphis__now() - last_read) / 1000000;

	return since >= ms ? 0 : (int)(ms - since);
}

struct drain_state { /* drain_main's, from pass to pass */
	unsigned gen;        /* thread generation the poll set was built at; ~0u: build it again */
	uint64_t last_scan, last_flush, last_read; /* memphis__now() at the last scan and retire,
						    * periodic flush, and pass's drain */
};

/* Build *ps again (without drain_lock: it is this thread's) when the kick pipe was replaced
 * or *gen is not the registry's generation (~0u: build it again), which *gen becomes. */
static void pollset_refresh(struct pollset *ps, unsigned *gen)
{
	if (kick_check())
		*gen = ~0u;
	if (*gen == memphis__thread_generation())
		return;
	*gen = memphis__thread_generation();
	ps->n = 0;
	ps->least_ring = 0;
	memphis__thread_foreach(collect, ps);
	if (sampling_ok && backend->poll_fds && !process_hup)
		backend->poll_fds(add_process_fd, ps);
	if (touch_by_cpu && !process_hup)
		memphis__touch_cpu_fds(add_process_fd, ps);
	if (kick_fd[0] >= 0)
		pollset_add(ps, kick_fd[0], 0, POLLIN);
}

/* Poll *ps (outside drain_lock: a print never waits on this wait) and sort what came back:
 * a descriptor the program closed or a process-wide source's hang-up (process_hup) make
 * st->gen ~0u, the kick pipe is read empty, a thread's hang-up or error goes into h. */
static void poll_results(struct pollset *ps, struct drain_state *st, struct hup *h)
{
	pthread_mutex_lock(&drain_lock);
	int timeout = poll_timeout(ps->least_ring, st->last_read);
	pthread_mutex_unlock(&drain_lock);
	int r = poll(ps->fds, ps->n, timeout);
	drain_passes++;
	if (r < 0 && errno != EINTR)
		usleep(POLL_MS * 1000);
	memphis__maps_poll(); /* a dlopen/dlclose since the last pass: a MAPS block */
	int stale = 0, woke = 0;
	for (size_t i = 0; r > 0 && i < ps->n; i++) {
		woke |= ps->tids[i] < 0 && ps->tids[i] != POLL_PROCESS &&
			(ps->fds[i].revents & POLLIN);
		if (ps->fds[i].revents & POLLNVAL) {
			stale = 1; /* closed by the program: build the set again */
		} else if (ps->tids[i] == POLL_PROCESS) {
			if (ps->fds[i].revents & (POLLHUP | POLLERR)) {
				process_hup = 1;
				stale = 1;
			}
		} else if (ps->tids[i] == 0 && (ps->fds[i].revents & POLLIN)) {
			char v[64];
			if (memphis__fd_is(kick_fd[0], &kick_id[0], NULL))
				while (read(kick_fd[0], v, sizeof(v)) > 0)
					;
		} else if ((ps->fds[i].revents & (POLLHUP | POLLERR)) && h->n < HUPS_PER_PASS) {
			h->tids[h->n++] = ps->tids[i];
		}
	}
	sample_wakes += woke;
	if (stale)
		st->gen = ~0u;
}

/* A pass's work, under drain_lock: every ring read, h's threads retired, the periodic scan,
 * lingering sampling switched off, records and samples flushed, sampling stopped after a
 * write failed; st->gen ~0u after hang-ups or a scan (every descriptor checked again). */
static void drain_pass(struct drain_state *st, struct hup *h)
{
	uint64_t asked = memphis__now(), t;

	pthread_mutex_lock(&drain_lock);
	t = memphis__now();
	if (t - asked > wait_max_ns)
		wait_max_ns = t - asked;
	if (t - st->last_read > gap_max_ns)
		gap_max_ns = t - st->last_read;
	st->last_read = t;
	int left = drain_all_sliced();
	if (memphis__now() - t > read_max_ns)
		read_max_ns = memphis__now() - t;
	if (h->n) {
		memphis__thread_foreach(mark_hup, h);
		if (!region_on) {
			if (left)
				memphis__drain_all(); /* a ring closes with its copies */
			memphis__thread_reap();
		}
		st->gen = ~0u;
	}
	uint64_t now = memphis__now();
	int due = memphis__thread_scan_due(); /* a thread made out of the library's sight */
	if (now - st->last_scan > SCAN_EVERY_NS || due) {
		memphis__thread_scan();
		memphis__thread_foreach(retire, NULL);
		st->last_scan = now;
		st->gen = ~0u; /* and check every descriptor polled */
	}
	if (live && !region_on && now - region_t1 > LINGER_NS)
		switch_sampling(0);
	memphis__touch_flush(0);
	heap_flush();
	if (now - st->last_flush > FLUSH_EVERY_NS) {
		memphis__flush_samples();
		st->last_flush = now;
	}
	if (memphis__writer_error() && sampling_ok) {
		__atomic_store_n(&sampling_ok, 0, __ATOMIC_RELAXED);
		switch_sampling(0);
	}
	pthread_mutex_unlock(&drain_lock);
}

static void *drain_main(void *arg)
{
	sigset_t all;
	struct pollset ps = { 0 };
	uint64_t t0 = memphis__now();
	struct drain_state st = { .gen = ~0u, .last_scan = 0, .last_flush = t0, .last_read = t0 };
	sem_t *ready = arg;

	memphis__unpin_self();
	memphis__enter(); /* everything this thread allocates is the library's: never left */
	memphis__own_thread("memphis-drain");
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	memphis__thread_set_drain(memphis__gettid());
	memphis__io_lazy(1); /* the posts of a print are written after this thread's next pass */
	sem_post(ready);

	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		struct hup h = { .n = 0 };
		pollset_refresh(&ps, &st.gen);
		poll_results(&ps, &st, &h);
		drain_pass(&st, &h);
		memphis__io_kick();
	}
	memphis__io_lazy(0);
	free(ps.fds);
	free(ps.tids);
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		drain_cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return NULL;
}

int memphis__drain_start(const struct memphis__drain_params *p)
{
	sem_t ready;
	int err;

	backend = p->backend;
	sampling_ok = backend != NULL;
	first_touch = p->first_touch;
	start_time = p->start_time;
	if ((err = memphis__cpubuf_start()) < 0)
		return err;
	if ((err = kick_open()) < 0)
		return err;
	/* before any thread attaches (it then opens no page-fault stream of its own) */
	if (first_touch && p->touch_per_cpu) {
		err = memphis__touch_open_cpus(p->pid);
		if (err == 0)
			touch_by_cpu = 1;
		else
			memphis__log(MPH_LOG_WARN, "page faults of every CPU (%s): per thread",
				     strerror(-err));
	}
	memphis__thread_set_hooks(&hooks);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, memphis__tls_thread_stack());
	sem_init(&ready, 0, 0);
	err = memphis__own_thread_create(&drain_thread, &attr, drain_main, &ready);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	while (sem_wait(&ready) < 0 && errno == EINTR)
		;
	sem_destroy(&ready);
	started = 1;
	/* after the drain thread exists, so that the backend leaves it out; before the
	 * program's threads attach (they then open no page-fault stream of their own) */
	if (first_touch && backend && backend->touch_start && backend->read_touches &&
	    backend->touch_start() == 0)
		__atomic_store_n(&touch_by_backend, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Make the drain thread rebuild its poll set (the registry changed). */
static void kick(void)
{
	uint64_t one = 1;

	int fd = __atomic_load_n(&kick_fd[1], __ATOMIC_ACQUIRE);

	if (memphis__fd_is(fd, &kick_id[1], NULL)) {
		ssize_t w = memphis__write_pipe(fd, &one, 1);
		(void)w;
	}
}

void memphis__drain_stop(void)
{
	if (!started)
		return;
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	kick();
	pthread_join(drain_thread, NULL);
	started = 0;
	memphis__note(MPH_LOG_INFO, "drain thread cpu_ns=%llu passes=%llu wall_ns=%llu "
		      "sample_wakes=%llu gap_max_ns=%llu wait_max_ns=%llu read_max_ns=%llu",
		      (unsigned long long)drain_cpu_ns, (unsigned long long)drain_passes,
		      (unsigned long long)(memphis__now() - start_time),
		      (unsigned long long)sample_wakes,
		      (unsigned long long)gap_max_ns, (unsigned long long)wait_max_ns,
		      (unsigned long long)read_max_ns);
	for (int k = 0; k < 2; k++) {
		uint64_t n = __atomic_load_n(&unopened[k], __ATOMIC_RELAXED);
		int e = unopened_err[k];

		/* "not sampled: " starts the text the report shows as a warning */
		if (n)
			memphis__note(MPH_LOG_WARN, "not sampled: %llu thread%s had no %s stream "
				      "(the first, tid %d: %s)%s", (unsigned long long)n,
				      n == 1 ? "" : "s", k ? "page-fault" : "sample", unopened_tid[k],
				      strerror(-e), e == -EPERM || e == -ENOMEM ?
				      ": the kernel's locked memory for perf buffers is used up "
				      "(kernel.perf_event_mlock_kb per CPU, then ulimit -l); raise "
				      "ulimit -l" : e == -EMFILE ?
				      ": memphis held its share of descriptors; raise ulimit -n" : "");
	}
}

void memphis__drain_finish(void)
{
	memphis__enter();
	pthread_mutex_lock(&drain_lock);
	memphis__drain_all();
	memphis__flush_samples();
	memphis__touch_flush(1);
	memphis__heap_stop();
	heap_flush();
	memphis__writer_close();
	pthread_mutex_unlock(&drain_lock);
	memphis__leave();
}
