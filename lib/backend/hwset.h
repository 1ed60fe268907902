/* lib/backend/hwset.h - what the hardware backends (pebs.c, ibs.c) share besides the record
 * parser (perf_ring.h): the PMUs as sysfs describes them, a plan of perf events (a group
 * leader, load and store events, one PMU or two on hybrid CPUs) opened per thread into the
 * thread's one ring, and the one line that says why the kernel refused an event. The sysfs
 * root is an argument everywhere ("/sys" in the library, a fake tree in the tests).
 * Below it: perf, fd, log. */
#ifndef MEMPHIS_HWSET_H
#define MEMPHIS_HWSET_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perf.h"

/* ---- sysfs: /sys/bus/event_source/devices/PMU/ type, format/, events/, caps/ ---- */

/* A format term ("config:19", "config1:0-11", "config:0-7,32-35"): attr field and bits. */
struct memphis__pmu_term {
	int field;        /* 0 config, 1 config1, 2 config2 (config3 is newer than Debian 12's uapi) */
	uint64_t mask;    /* the bits, in field order (low to high) */
};

/* The PMU's dynamic type, or -errno (-ENOENT: no such PMU). */
int memphis__pmu_type(const char *sysfs, const char *pmu);
/* 1 when PMU has the file rel ("events/mem-loads-aux", "caps/zen4_ibs_extensions"). */
int memphis__pmu_has(const char *sysfs, const char *pmu, const char *rel);
/* Read the term's format file. 0, -ENOENT (no such term), -EINVAL (unreadable syntax). */
int memphis__pmu_term(const char *sysfs, const char *pmu, const char *name,
		      struct memphis__pmu_term *t);
/* Parse a format string as sysfs writes it. 0 or -EINVAL. */
int memphis__pmu_term_parse(const char *s, struct memphis__pmu_term *t);
/* Scatter value's low bits into the term's bits of the attr (other bits kept).
 * -ERANGE when value does not fit. */
int memphis__pmu_term_set(struct perf_event_attr *a, const struct memphis__pmu_term *t,
			  uint64_t value);
/* Encode the PMU's sysfs event alias events/NAME ("event=0xcd,umask=0x1,ldlat=3") into
 * a->config* through its format terms; a->type = the PMU's type. 0 or -errno. */
int memphis__pmu_alias(const char *sysfs, const char *pmu, const char *name,
		       struct perf_event_attr *a);
/* Set one named term of PMU in the attr (as memphis__pmu_term + _set). 0 or -errno. */
int memphis__pmu_set(const char *sysfs, const char *pmu, const char *name,
		     struct perf_event_attr *a, uint64_t value);

/* ---- a plan of events and its per-thread instance ---- */

#define MEMPHIS__HW_MAX 8
/* What an event's samples are. */
enum { MEMPHIS__HW_COUNT = 0, /* counts only: a group leader such as mem-loads-aux */
       MEMPHIS__HW_LOAD = 1, MEMPHIS__HW_STORE = 2, MEMPHIS__HW_ANY = 3 };

struct memphis__hw_event {
	struct perf_event_attr attr;
	int leader;       /* index of its group leader in the plan (earlier), -1: none */
	unsigned kind;    /* MEMPHIS__HW_* */
	char name[96];    /* for messages: "cpu_core/MEM_TRANS_RETIRED:LOAD_LATENCY" */
};

struct memphis__hw_plan {
	unsigned n;
	struct memphis__hw_event ev[MEMPHIS__HW_MAX];
};

/* A plan's events opened for one thread (or CPU): every sampling event writes into one
 * ring (PERF_EVENT_IOC_SET_OUTPUT), the first one's; samples carry PERF_SAMPLE_ID to tell
 * which. Owned by the backend (thread->backend_state). */
struct memphis__hw_set {
	unsigned n;
	int fd[MEMPHIS__HW_MAX];      /* -1: not open (refused, or its leader was) */
	struct memphis__fdid fid[MEMPHIS__HW_MAX];
	uint64_t id[MEMPHIS__HW_MAX];
	unsigned kind[MEMPHIS__HW_MAX];
	int ring;                     /* index of the event that owns the ring, -1 none */
	/* each event's TOTAL_TIME_ENABLED and _RUNNING at the last memphis__hw_set_times */
	uint64_t t_enabled[MEMPHIS__HW_MAX], t_running[MEMPHIS__HW_MAX];
};

/* Open the plan's events for thread tid (cpu -1) or for CPU cpu (tid -1) into ring r, with
 * data_pages of ring (halved while the locked-memory limit refuses). Events open disabled,
 * with read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (memphis__hw_set_times);
 * an event the kernel refuses is left out when another sampling event opened (logged).
 * 0, or the first refusal's -errno when no sampling event opened (*failed = its index). */
int memphis__hw_set_open(struct memphis__hw_set *s, struct memphis__ring *r,
			 const struct memphis__hw_plan *p, pid_t tid, int cpu, unsigned data_pages,
			 int *failed);
/* Enable (on) or disable every open event. 0 or the first -errno (-EBADF: the program
 * closed a descriptor; the caller reopens). */
int memphis__hw_set_enable(struct memphis__hw_set *s, struct memphis__ring *r, int on);
/* Add to enabled[i] and running[i] the ns each open sampling event i of s (r: its ring)
 * was enabled and on the PMU since the previous call (its TOTAL_TIME_ENABLED and
 * _RUNNING, read(2)). running below enabled: the kernel multiplexed the event (another
 * user of the PMU: another IBS user, other counters; or, on hybrid CPUs, the thread ran on
 * the other core type). An event whose descriptor the program closed adds nothing. */
void memphis__hw_set_times(struct memphis__hw_set *s, struct memphis__ring *r,
			   uint64_t *enabled, uint64_t *running);
/* The kind of the event with this PERF_SAMPLE_ID, MEMPHIS__HW_ANY when unknown. */
unsigned memphis__hw_set_kind(const struct memphis__hw_set *s, uint64_t id);
/* Close every event and unmap the ring; accepts a closed set. */
void memphis__hw_set_close(struct memphis__hw_set *s, struct memphis__ring *r);

/* The plan's events and encodings for the RUN block's hw_events key, "; " between:
 * "NAME type=T config=0x.. config1=0x.. precise_ip=P period=N" (period 0: a counting
 * leader), cut at n - 1 bytes. Also sets *period to the first sampling event's period. */
void memphis__hw_plan_describe(const struct memphis__hw_plan *p, char *buf, size_t n,
			       uint64_t *period);

/* ---- coverage: how much of the time the events were enabled they sampled ---- */

/* How long one sampling event was enabled, and on the PMU, over a region (its
 * TOTAL_TIME_ENABLED / _RUNNING summed over its threads or CPUs). */
struct memphis__hw_coverage {
	char name[96];          /* the event's name, as in the plan (and hw_events) */
	uint64_t enabled_ns, running_ns;
};

/* A backend's sums per plan event since the last memphis__hw_times_take. Added to and
 * taken atomically: a thread's set closes (and adds its last times) under the registry
 * lock while the drain takes the sums. */
struct memphis__hw_times {
	uint64_t enabled[MEMPHIS__HW_MAX], running[MEMPHIS__HW_MAX];
};

/* Add set s's times since its previous reading (memphis__hw_set_times) into t. */
void memphis__hw_times_add(struct memphis__hw_times *t, struct memphis__hw_set *s,
			   struct memphis__ring *r);
/* Take t's sums (leaving 0) into up to n entries of c, one per event of p that was
 * enabled, named after it; returns how many. */
size_t memphis__hw_times_take(struct memphis__hw_times *t, const struct memphis__hw_plan *p,
			      struct memphis__hw_coverage *c, size_t n);

/* ---- why ---- */

/* What the refused event asked for, to tell the causes that share an errno apart. */
enum { MEMPHIS__HW_WHY_PHYS = 1,   /* it asked for PERF_SAMPLE_PHYS_ADDR */
       MEMPHIS__HW_WHY_KERNEL = 2, /* it cannot exclude kernel samples (IBS) */
       MEMPHIS__HW_WHY_CPU = 4 };  /* it was opened per CPU, not per thread */

/* The one line for a refused hardware event: the cause (from -err and what) and what to
 * do, naming backend and event. paranoid: kernel.perf_event_paranoid (memphis__paranoid). */
void memphis__hw_why(int err, const char *backend, const char *event, int paranoid,
		     unsigned what, char *why, size_t n);
/* kernel.perf_event_paranoid, or 2 (the default) when unreadable. */
int memphis__paranoid(void);

#endif /* MEMPHIS_HWSET_H */
