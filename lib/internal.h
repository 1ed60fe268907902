/* lib/internal.h - what the files of libmemphis share. Nothing here is public API.
 *
 * Threads of the profiled process call into the library through the public functions,
 * the interposed allocator and pthread_create. One drain thread, started at library load,
 * owns the run directory writer and empties every thread's sample buffers. Locks, in the
 * order they may nest: g.api_lock (mark/print) -> g.drain_lock (anything that emits
 * samples or writes files) -> g.threads_lock (the registry) -> heap lock.
 */
#ifndef MEMPHIS_INTERNAL_H
#define MEMPHIS_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "memphis/format.h"

#define MEMPHIS__HIDDEN __attribute__((visibility("hidden")))

/* ---- log.c: the only place that writes to stderr ---- */
enum memphis__level { MPH_LOG_ERROR = 0, MPH_LOG_WARN = 1, MPH_LOG_INFO = 2, MPH_LOG_DEBUG = 3 };
/* Log a message at `level` when MEMPHIS_VERBOSE >= level (default: nothing). */
void memphis__log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one line a user always sees (e.g. why sampling is impossible): printed once per
 * process whatever the verbosity, prefixed "memphis: ". Later calls are logged only. */
void memphis__warn_once(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- config.c: settings from the environment, read once at start ---- */
struct memphis__config {
	char backend[16];        /* MEMPHIS_BACKEND: auto (default), soft, none */
	uint64_t period_ns;      /* MEMPHIS_PERIOD: 1ms default; "250us", "100000ns", "2ms" */
	int first_touch;         /* MEMPHIS_FIRST_TOUCH: 1 default */
	int callsite_depth;      /* MEMPHIS_CALLSITE_DEPTH: 1..MEMPHIS_MAX_FRAMES, default 4 */
	uint64_t heap_min;       /* MEMPHIS_HEAP_MIN: smallest allocation tracked, default 0 */
	char output[4096];       /* MEMPHIS_OUTPUT: run directory path, "" = default name */
	char auto_region[MEMPHIS_NAME_MAX]; /* MEMPHIS_REGION: whole-run region (launcher) */
	int verbose;             /* MEMPHIS_VERBOSE: 0..3 */
	int disabled;            /* MEMPHIS_DISABLE=1: load but do nothing */
};
/* Parse the environment into *c (defaults for absent or invalid values, each invalid
 * value logged). Never fails. */
void memphis__config_read(struct memphis__config *c);
/* Parse a period such as "1ms", "250us", "100000" (ns) into ns; -EINVAL if malformed or
 * outside [10us, 10s]. */
int memphis__parse_period(const char *s, uint64_t *ns);

/* ---- time ---- */
static inline uint64_t memphis__now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
pid_t memphis__gettid(void);

/* ---- u64set.c: a growing set of 64-bit keys (UINT64_MAX cannot be stored) ---- */
struct memphis__u64set {
	uint64_t *slot; /* key + 1 per used slot, 0 = free */
	size_t cap, n;
};
/* Add key: 1 if it was new, 0 if already there, -ENOMEM (the key is then not stored). */
int memphis__u64set_add(struct memphis__u64set *s, uint64_t key);
/* The keys as a malloc'ed array of *n (NULL on allocation failure); the set is emptied. */
uint64_t *memphis__u64set_take(struct memphis__u64set *s, size_t *n);

/* ---- writer.c: the run directory ---- */
/* Create the run directory (never following a planted symlink) and meta.mph with its FILE
 * block. Returns 0 or -errno. */
int memphis__writer_open(const char *path_or_empty, const char *exe_name, pid_t pid,
			 uint64_t start_time);
/* Append one block to meta.mph (cpu < 0) or cpuNNN.mph. Returns 0 or -errno; after the
 * first failure every later call fails with the same error (sampling stops, one warning). */
int memphis__writer_block(int cpu, uint16_t type, const void *payload, size_t len);
/* Same, with the payload in two pieces (header + array). */
int memphis__writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			   const void *b, size_t blen);
/* Write END blocks and close every file. */
void memphis__writer_close(void);
/* The first write error, 0 if none. */
int memphis__writer_error(void);
/* The run directory's path ("" before open). */
const char *memphis__writer_path(void);

/* ---- perf.c: perf_event_open and its ring buffers ---- */
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

/* ---- thread.c: the registry of the process's threads ---- */
struct memphis__thread {
	pid_t tid;
	uint32_t index;         /* 0 main thread, then order of attachment */
	int gone;               /* exited; kept until drained */
	uint64_t fs_base, stack_lo, stack_hi;
	struct memphis__ring sample; /* backend stream */
	struct memphis__ring fault;  /* first-touch stream */
	void *backend_state;
	/* counts for the open region */
	uint64_t r_samples, r_lost, r_throttled;
};
/* Attach the calling thread (it records its own fs_base and stack). */
void memphis__thread_attach_self(void);
/* Attach threads listed in /proc/self/task that are not yet known. */
void memphis__thread_scan(void);
/* Call fn for every registered thread, under the registry lock. */
void memphis__thread_foreach(void (*fn)(struct memphis__thread *t, void *ctx), void *ctx);
/* Close and forget threads marked gone whose buffers were drained. */
void memphis__thread_reap(void);
/* The thread's fs_base by tid, 0 if unknown. Registry lock taken inside. */
uint64_t memphis__thread_fs_base(pid_t tid);
/* Registry generation: changes whenever a thread is added or removed. */
unsigned memphis__thread_generation(void);
/* Mark a thread as exited (writes its exit record). Caller holds the registry lock. */
void memphis__thread_mark_gone(struct memphis__thread *t);
/* The drain thread's tid: never attached, never sampled. */
void memphis__thread_set_drain(pid_t tid);
/* Hold the registry lock (around memphis__g.region.open changes). */
void memphis__thread_lock(void);
void memphis__thread_unlock(void);

/* ---- backend.c and backend_*.c ---- */
struct memphis__backend {
	const char *name;
	const char *weight;   /* RUN key "weight": stall, latency, count */
	/* 0 if usable on this machine for this process, else -errno and a one-line reason. */
	int (*probe)(char *why, size_t n);
	/* Open the thread's sampling stream, disabled. 0 or -errno. */
	int (*open)(struct memphis__thread *t);
	/* Start / stop sampling of the thread. */
	int (*enable)(struct memphis__thread *t, int on);
	/* Emit every buffered sample of the thread through memphis__emit_sample. */
	void (*drain)(struct memphis__thread *t);
	/* Release the thread's stream (after a final drain). */
	void (*close)(struct memphis__thread *t);
	/* Optional, for sources that sample the whole process at once (kmod); NULL for
	 * per-thread sources. start(1) runs after every thread's enable(1) when a region
	 * opens, start(0) before the final drain when it closes. 0 or -errno. */
	int (*start)(int on);
	/* Emit the process's buffered samples; called by memphis__drain_all (g.drain_lock). */
	void (*drain_process)(void);
};
extern const struct memphis__backend memphis__backend_soft;
extern const struct memphis__backend memphis__backend_kmod;
/* Choose per MEMPHIS_BACKEND; fills why/skips for the RUN block. NULL when none can run
 * (then `why` holds the one line to print). */
const struct memphis__backend *memphis__backend_select(const char *want, char *why,
						       size_t why_n, char *skips,
						       size_t skips_n);

/* ---- sampler core (drain.c) ---- */
/* Record one sample of the open region: appended to its CPU's file buffer, its page
 * remembered for the home-node query. Caller holds g.drain_lock. */
void memphis__emit_sample(struct memphis__thread *t, struct memphis_rec_sample *s);
/* Drain every thread's streams now (caller holds g.drain_lock). */
void memphis__drain_all(void);
/* Write buffered samples of every CPU to disk (caller holds g.drain_lock). */
void memphis__flush_samples(void);
/* Start / stop the drain thread. */
int memphis__drain_start(void);
void memphis__drain_stop(void);
/* Ask the drain thread to rebuild its poll set (a thread was added). */
void memphis__drain_kick(void);
/* Unique pages of the open region's samples: take them (caller frees with free()). */
uint64_t *memphis__region_pages_take(size_t *n);

/* ---- firsttouch.c ---- */
/* Open the thread's page-fault stream (enabled at once). 0 or -errno. */
int memphis__touch_open(struct memphis__thread *t);
/* Drain it into buffered first-touch records. Caller holds g.drain_lock. */
void memphis__touch_drain(struct memphis__thread *t);
/* Write buffered first-touch records and the home nodes of their pages. */
void memphis__touch_flush(void);

/* ---- heap.c ---- */
/* Write buffered allocation and free records (drain thread / print). */
void memphis__heap_flush(void);
/* Set while the library itself allocates: the interposer records nothing. */
extern __thread int memphis__internal __attribute__((tls_model("initial-exec")));
/* Prepare the allocator interposition (resolve the real functions) and start recording. */
void memphis__heap_init(void);
/* Stop recording and write what is buffered (library shutdown). */
void memphis__heap_stop(void);

/* ---- topology.c ---- */
/* Write the TOPOLOGY block. */
void memphis__topology_write(void);
/* Home nodes of `n` pages into a PAGES block for `region`. */
void memphis__pages_write(uint32_t region, const uint64_t *pages, size_t n);
/* Write a MAPS block with the current /proc/self/maps, then the TLS block. */
void memphis__maps_write(void);

/* ---- tls.c ---- */
/* Write a TLS block: each loaded module's static TLS offset from fs_base and size. */
void memphis__tls_write(void);
/* Bytes of static TLS every thread carries (upper bound), 0 if none. */
uint64_t memphis__tls_static_size(void);

/* ---- api.c: global state ---- */
struct memphis__region {
	int open;
	uint32_t seq;
	uint64_t t_start;
	char name[MEMPHIS_NAME_MAX];
	uint64_t samples, lost, throttled, dropped;
};
struct memphis__global {
	int state;               /* 0 not started, 1 running, 2 failed/disabled, 3 finished */
	int sampling_ok;         /* backend usable */
	pid_t pid;
	uint64_t start_time;
	struct memphis__config cfg;
	const struct memphis__backend *backend;
	pthread_mutex_t api_lock, drain_lock;
	struct memphis__region region;
	uint32_t region_seq;
};
extern struct memphis__global memphis__g;

/* Write a NOTE block to the run and log it at `level`. */
void memphis__note(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* MEMPHIS_INTERNAL_H */
