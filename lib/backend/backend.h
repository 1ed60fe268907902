/* lib/backend/backend.h - a sample source behind one small interface. One file per source
 * (soft.c, kmod.c, ibs.c, pebs.c), each defining `memphis__backend_NAME`, listed in
 * names.h; select.c chooses one. A backend owns its own state (device, buffers, the code
 * cache); it hands samples to the caller's emit function and never writes files itself.
 * Below it: thread (the registry), code, perf, log, self. */
#ifndef MEMPHIS_BACKEND_H
#define MEMPHIS_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "hwset.h"
#include "memphis/format.h"
#include "names.h"
#include "thread.h"

/* What a backend is asked for; it keeps what it needs. */
struct memphis__backend_params {
	uint64_t period_ns;  /* MEMPHIS_PERIOD */
	pid_t pid;           /* the profiled process */
	int scope;           /* MEMPHIS_SCOPE: enum memphis__scope (soft, kmod) */
	int kernel;          /* MEMPHIS_KERNEL: kernel mode too where allowed (soft) */
	/* hardware backends (pebs, ibs) */
	const char *event;   /* MEMPHIS_EVENT: libpfm4 names, comma-separated; NULL/"" = defaults */
	unsigned ldlat;      /* MEMPHIS_LDLAT: PEBS load-latency threshold, cycles */
	uint64_t hw_period;  /* MEMPHIS_HW_PERIOD: events (PEBS) or ops/cycles (IBS) between
			      * samples; 0 = the backend's default */
	int ibs_cnt_ctl;     /* MEMPHIS_IBS_CNT_CTL: IBS counts dispatched ops (1) or cycles (0) */
	int ibs_l3missonly;  /* MEMPHIS_IBS_L3MISSONLY: only ops that missed L3 (Zen 4+) */
	const char *sysfs;   /* the sysfs root: "/sys" (NULL means it) */
	int kmod_kind;       /* MEMPHIS_KMOD_KIND: enum memphis__kmod_kind (config.h) */
};

/* What the chosen backend samples, as probe found it: the RUN block's keys (docs/format.md).
 * The caller zeroes it (precise_ip -1) before each probe. */
struct memphis__sampling {
	const char *weight;     /* RUN weight: "stall" (clock samples attributed from the
				 * registers), "latency" (hardware samples, each an access
				 * with its latency) */
	uint64_t period_ns;     /* time-based sources: ns between samples; 0 for hardware */
	uint64_t hw_period;     /* hardware: hw_unit between samples (the first sampling
				 * event's; hw_events has each event's); 0 time-based */
	const char *hw_unit;    /* "ops", "cycles" (IBS), "events" (PEBS: of its event) */
	unsigned ldlat;         /* PEBS load-latency threshold in cycles, 0: none */
	int precise_ip;         /* PEBS: precise_ip the kernel took; -1 not a PEBS event */
	const char *kmod_kind;  /* kmod: "clock", "ibs" or "pebs"; NULL other backends */
	const char *scope;      /* soft, kmod: "thread" (an event per thread) or "cpu" (per
				 * CPU, filtered to the process: percpu.h, the module's
				 * MEMPHISMOD_CONFIG_PER_CPU); NULL other backends */
	char hw_events[1024];   /* hardware events opened by the library, "; " between:
				 * "NAME type=T config=0x.. config1=0x.. precise_ip=P period=N" */
	char hw_notes[512];     /* what a reader of the samples must know of the events as
				 * opened ("; " between): an option refused, a skew; "" none */
	int kernel_samples;     /* soft: kernel mode is sampled too (RUN kernel_samples) */
	char kernel_why[160];   /* soft: why it is not, "" when it is or not asked */
};

struct memphis__ustack;
/* Where samples go: s->region is filled in by the callee. `u`: the sample's registers and
 * user stack, to keep as its STACKS entry (the callee then sets MPH_S_STACK), or NULL.
 * Caller holds the drain lock. */
typedef void memphis__emit_fn(struct memphis__thread *t, struct memphis_rec_sample *s,
			      const struct memphis__ustack *u);
/* Where first-touch records go (firsttouch.c buffers them). Caller holds the drain lock. */
typedef void memphis__touch_fn(const struct memphis_rec_touch *r);

struct memphis__backend {
	const char *name;
	/* 0 if usable on this machine for this process, and *out what it will sample: the
	 * weight, and the period (p->period_ns, or the nearest it supports, for time-based
	 * sources; the events and their period for hardware ones); else -errno and a
	 * one-line reason in why (*out then means nothing). */
	int (*probe)(const struct memphis__backend_params *p, struct memphis__sampling *out,
		     char *why, size_t n);
	/* Open the thread's sampling stream, disabled. 0 or -errno. */
	int (*open)(struct memphis__thread *t);
	/* Start / stop sampling of the thread. 0 or -errno. */
	int (*enable)(struct memphis__thread *t, int on);
	/* Hand every buffered sample of the thread to emit. */
	void (*read)(struct memphis__thread *t, memphis__emit_fn *emit);
	/* Release the thread's stream (after a final read). */
	void (*close)(struct memphis__thread *t);
	/* Optional, for sources that sample the whole process at once (kmod); NULL for
	 * per-thread sources. start(1) runs after every thread's enable(1) when a region
	 * opens, start(0) before the final read when it closes. With linger, start(1) also
	 * runs at a region's start while sampling is still on (a no-op but for a change of
	 * events the source saved for a program thread's call). emit: where samples go that a
	 * source must read on the way (soft per CPU reads a ring before opening it again).
	 * 0 or -errno. */
	int (*start)(int on, memphis__emit_fn *emit);
	/* Optional: hand the process's buffered samples to emit (each to its registered
	 * thread); returns the samples the source lost meanwhile (samples it can name a
	 * thread for go to that thread's r_lost instead). */
	uint64_t (*read_process)(memphis__emit_fn *emit);
	/* Optional: add(fd, ctx) for each descriptor of the process-wide source for the drain
	 * to poll (it is readable at the rings' watermark). */
	void (*poll_fds)(void (*add)(int fd, void *ctx), void *ctx);
	/* Optional: the source's rings need not wake the drain. Returns the longest, in ms,
	 * the drain may sleep between two reads without losing samples (half the time the
	 * smallest ring holds): of its process-wide rings (no poll_fds then), and of the
	 * threads' own, the smallest of which has thread_ring_bytes of data (0: none);
	 * 0: no bound. The drain then polls a thread's sample stream only where nothing else
	 * of that thread tells its exit (POLLHUP of its page-fault stream), and only for
	 * that: not for POLLIN, which its watermark raises. Caller holds drain_lock. */
	unsigned (*read_every_ms)(size_t thread_ring_bytes);
	/* Optional: the source's own page-fault stream of the whole process but the drain
	 * thread, from now on (first touch), for sources that have one: kmod's module,
	 * where perf_event_open may be refused. 0 or -errno; on 0 the drain opens no
	 * per-thread page-fault streams. Called once, by the drain's start. */
	int (*touch_start)(void);
	/* Optional (with touch_start): hand the buffered page faults to emit; returns the
	 * faults lost meanwhile. Caller holds the drain lock. */
	uint64_t (*read_touches)(memphis__touch_fn *emit);
	/* Optional (hardware backends): up to n entries into c, one per sampling event that was
	 * enabled since the previous call (its threads' or CPUs' times summed, those of threads
	 * closed meanwhile included); returns how many. Less running than enabled time: the
	 * kernel multiplexed the event with another user of the PMU, and that share of the
	 * region was not sampled. Called at a region's end, after its final read; caller holds
	 * the drain lock. */
	size_t (*coverage)(struct memphis__hw_coverage *c, size_t n);
	/* 1: sampling may stay on between regions (drain.c's linger): every sample's time is
	 * CLOCK_MONOTONIC, so those outside a region are known and dropped when read. */
	int linger;
};

#define MEMPHIS__BACKEND_DECLARE_(name) \
	extern const struct memphis__backend memphis__backend_##name;
MEMPHIS__BACKENDS(MEMPHIS__BACKEND_DECLARE_)
#undef MEMPHIS__BACKEND_DECLARE_

/* Choose per `want` (MEMPHIS_BACKEND: auto, none or a name) and probe it with p; fills
 * why (the reason for the choice) and skips (one "name: reason" line per source that
 * cannot run) for the RUN block. Returns the backend with *out filled by its probe, or
 * NULL when none can run (then `why` holds the one line to print). */
const struct memphis__backend *memphis__backend_select(const char *want,
						       const struct memphis__backend_params *p,
						       struct memphis__sampling *out, char *why, size_t why_n,
						       char *skips, size_t skips_n);

/* memphis__backend_select over a table of n backends (tests give fake ones). */
const struct memphis__backend *memphis__backend_choose(const struct memphis__backend *const *table,
						       size_t n, const char *want,
						       const struct memphis__backend_params *p,
						       struct memphis__sampling *out, char *why, size_t why_n,
						       char *skips, size_t skips_n);

#endif /* MEMPHIS_BACKEND_H */
