/* lib/drain.c - the drain thread and the sample path to disk.
 *
 * One thread, started at library load, never sampled itself, empties every thread's ring
 * buffers (samples and page faults) whenever the kernel wakes it at a buffer's watermark
 * and at least every 100 ms, so regions of any length lose nothing to full buffers. It
 * also finds threads that did not attach themselves, notices exited ones (POLLHUP), and
 * writes buffered heap, first-touch and sample records. memphis_print() drains the rest
 * synchronously under the same lock.
 */
#include <errno.h>
#include <poll.h>
#include <semaphore.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"

#define CPU_BUF 1170          /* samples per block: ~64 KiB */
#define POLL_MS 100
#define SCAN_EVERY_NS 250000000ull
#define FLUSH_EVERY_NS 1000000000ull

struct cpu_buf {
	size_t n;
	struct memphis_rec_sample s[CPU_BUF];
};

static struct cpu_buf **bufs;  /* per CPU, allocated on first sample */
static int nbufs;
static struct memphis__u64set pages; /* the open region's sampled pages */
static pthread_t drain_thread;
static int started;
static int kick_fd = -1;
static int stopping;
static uint64_t drain_cpu_ns; /* CPU time the drain thread used, known after it stopped */

uint64_t *memphis__region_pages_take(size_t *n)
{
	return memphis__u64set_take(&pages, n);
}

static void flush_cpu(int cpu)
{
	struct cpu_buf *b = bufs[cpu];

	if (!b || b->n == 0)
		return;
	if (memphis__writer_block(cpu, MPH_BLK_SAMPLES, b->s, b->n * sizeof(b->s[0])) < 0)
		memphis__g.region.dropped += b->n;
	b->n = 0;
}

void memphis__emit_sample(struct memphis__thread *t, struct memphis_rec_sample *s)
{
	int cpu = s->cpu;

	s->region = memphis__g.region.seq;
	t->r_samples++;
	memphis__g.region.samples++;
	if (cpu >= nbufs) {
		memphis__g.region.dropped++;
		return;
	}
	if (!bufs[cpu]) {
		bufs[cpu] = calloc(1, sizeof(**bufs));
		if (!bufs[cpu]) {
			memphis__g.region.dropped++;
			return;
		}
	}
	if (s->flags & (MPH_S_EXACT | MPH_S_APPROX))
		memphis__u64set_add(&pages, s->addr & ~4095ull);
	bufs[cpu]->s[bufs[cpu]->n++] = *s;
	if (bufs[cpu]->n == CPU_BUF)
		flush_cpu(cpu);
}

void memphis__flush_samples(void)
{
	for (int c = 0; c < nbufs; c++)
		flush_cpu(c);
}

static void drain_one(struct memphis__thread *t, void *ctx)
{
	if (memphis__g.sampling_ok && t->sample.fd >= 0)
		memphis__g.backend->drain(t);
	if (t->fault.fd >= 0)
		memphis__touch_drain(t);
}

void memphis__drain_all(void)
{
	memphis__internal++;
	memphis__thread_foreach(drain_one, NULL);
	if (memphis__g.sampling_ok && memphis__g.backend->drain_process)
		memphis__g.backend->drain_process();
	memphis__internal--;
}

struct pollset {
	struct pollfd *fds;
	pid_t *tids;
	size_t n, cap;
};

/* Append fd (of thread tid; 0 for the kick eventfd) to the poll set. */
static void pollset_add(struct pollset *ps, int fd, pid_t tid)
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
	ps->fds[ps->n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	ps->tids[ps->n++] = tid;
}

static void collect(struct memphis__thread *t, void *ctx)
{
	if (t->gone)
		return;
	if (t->sample.fd >= 0)
		pollset_add(ctx, t->sample.fd, t->tid);
	if (t->fault.fd >= 0)
		pollset_add(ctx, t->fault.fd, t->tid);
}

struct hup {
	pid_t *tids;
	size_t n;
};

static void mark_hup(struct memphis__thread *t, void *ctx)
{
	struct hup *h = ctx;

	for (size_t i = 0; i < h->n; i++)
		if (h->tids[i] == t->tid && !t->gone) {
			drain_one(t, NULL);
			memphis__thread_mark_gone(t);
		}
}

static void disable_one(struct memphis__thread *t, void *ctx)
{
	if (t->sample.fd >= 0)
		memphis__g.backend->enable(t, 0);
}

static void *drain_main(void *arg)
{
	sigset_t all;
	struct pollset ps = { 0 };
	unsigned gen = ~0u;
	uint64_t last_scan = 0, last_flush = memphis__now();
	sem_t *ready = arg;

	memphis__internal = 1; /* everything this thread allocates is the library's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	memphis__thread_set_drain(memphis__gettid());
	sem_post(ready);

	while (!__atomic_load_n(&stopping, __ATOMIC_ACQUIRE)) {
		if (gen != memphis__thread_generation()) {
			gen = memphis__thread_generation();
			ps.n = 0;
			memphis__thread_foreach(collect, &ps);
			pollset_add(&ps, kick_fd, 0);
		}
		int r = poll(ps.fds, ps.n, POLL_MS);
		if (r < 0 && errno != EINTR)
			usleep(POLL_MS * 1000);

		pid_t hupped[64];
		struct hup h = { hupped, 0 };
		for (size_t i = 0; r > 0 && i < ps.n; i++) {
			if (ps.fds[i].fd == kick_fd && (ps.fds[i].revents & POLLIN)) {
				uint64_t v;
				ssize_t rr = read(kick_fd, &v, sizeof(v));
				(void)rr;
			} else if ((ps.fds[i].revents & (POLLHUP | POLLERR)) && h.n < 64) {
				hupped[h.n++] = ps.tids[i];
			}
		}

		pthread_mutex_lock(&memphis__g.drain_lock);
		memphis__drain_all();
		if (h.n) {
			memphis__thread_foreach(mark_hup, &h);
			if (!memphis__g.region.open)
				memphis__thread_reap();
			gen = ~0u;
		}
		uint64_t now = memphis__now();
		if (now - last_scan > SCAN_EVERY_NS) {
			memphis__thread_scan();
			last_scan = now;
		}
		memphis__touch_flush();
		memphis__heap_flush();
		if (now - last_flush > FLUSH_EVERY_NS) {
			memphis__flush_samples();
			last_flush = now;
		}
		if (memphis__writer_error() && memphis__g.sampling_ok) {
			memphis__g.sampling_ok = 0;
			memphis__thread_foreach(disable_one, NULL);
			if (memphis__g.backend->start)
				memphis__g.backend->start(0);
		}
		pthread_mutex_unlock(&memphis__g.drain_lock);
	}
	free(ps.fds);
	free(ps.tids);
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		drain_cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return NULL;
}

int memphis__drain_start(void)
{
	sem_t ready;
	int err;

	nbufs = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (nbufs < 1)
		nbufs = 1;
	bufs = calloc((size_t)nbufs, sizeof(*bufs));
	kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!bufs || kick_fd < 0)
		return -ENOMEM;
	/* glibc carves every thread's static TLS out of its stack: a program with large
	 * __thread data would leave a default-sized drain thread almost no stack. */
	pthread_attr_t attr;
	size_t stack = 0;
	pthread_attr_init(&attr);
	if (pthread_getattr_default_np(&attr) == 0)
		pthread_attr_getstacksize(&attr, &stack);
	pthread_attr_destroy(&attr);
	pthread_attr_init(&attr);
	if (stack < (1u << 20))
		stack = 1u << 20;
	stack += (size_t)memphis__tls_static_size();
	pthread_attr_setstacksize(&attr, (stack + 4095) & ~(size_t)4095);
	sem_init(&ready, 0, 0);
	err = pthread_create(&drain_thread, &attr, drain_main, &ready);
	pthread_attr_destroy(&attr);
	if (err)
		return -err;
	while (sem_wait(&ready) < 0 && errno == EINTR)
		;
	sem_destroy(&ready);
	started = 1;
	return 0;
}

void memphis__drain_kick(void)
{
	uint64_t one = 1;

	if (kick_fd >= 0) {
		ssize_t w = write(kick_fd, &one, sizeof(one));
		(void)w;
	}
}

void memphis__drain_stop(void)
{
	if (!started)
		return;
	__atomic_store_n(&stopping, 1, __ATOMIC_RELEASE);
	memphis__drain_kick();
	pthread_join(drain_thread, NULL);
	started = 0;
	memphis__note(MPH_LOG_INFO, "drain thread cpu_ns=%llu wall_ns=%llu", (unsigned long long)drain_cpu_ns,
		      (unsigned long long)(memphis__now() - memphis__g.start_time));
}
