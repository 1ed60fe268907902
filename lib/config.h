/* lib/config.h - settings from the environment, read once at library start by api.c, which
 * hands the pieces each part needs down as arguments. Never rewritten after the read. */
#ifndef MEMPHIS_CONFIG_H
#define MEMPHIS_CONFIG_H

#include <stdint.h>

#include "memphis/format.h"

/* MEMPHIS_KMOD_KIND: what the kmod backend asks /dev/memphismod for. auto: IBS op, else
 * PEBS load latency, where the module's caps offer them, else the cpu clock. */
enum memphis__kmod_kind {
	MEMPHIS__KMOD_AUTO = 0, MEMPHIS__KMOD_CLOCK, MEMPHIS__KMOD_IBS, MEMPHIS__KMOD_PEBS
};
#define MEMPHIS__KMOD_KIND_NAMES { "auto", "clock", "ibs", "pebs" } /* enum order */

/* MEMPHIS_SCOPE: the soft sampler's (and the page-fault stream's) or the kmod module's
 * events per thread, or per CPU filtered to the process (percpu.h, MEMPHISMOD_CONFIG_PER_CPU);
 * auto: per CPU where the kernel (the module) allows it and the CPUs are not crowded. */
enum memphis__scope { MEMPHIS__SCOPE_AUTO = 0, MEMPHIS__SCOPE_THREAD, MEMPHIS__SCOPE_CPU };
#define MEMPHIS__SCOPE_NAMES { "auto", "thread", "cpu" } /* enum order */

struct memphis__config {
	char backend[16];        /* MEMPHIS_BACKEND: auto (default) or a name of backend/names.h */
	uint64_t period_ns;      /* MEMPHIS_PERIOD: 1ms default; "250us", "100000ns", "2ms" */
	int first_touch;         /* MEMPHIS_FIRST_TOUCH: boolean, 1 default */
	int scope;               /* MEMPHIS_SCOPE: enum memphis__scope, auto default */
	int kernel;              /* MEMPHIS_KERNEL: boolean, 1 default: sample kernel mode too
				  * where the kernel allows it (soft) */
	int callsite_depth;      /* MEMPHIS_CALLSITE_DEPTH: 1..MEMPHIS_MAX_FRAMES, default 4 */
	unsigned stack_bytes;    /* MEMPHIS_STACK_BYTES: user stack kept with samples and first
				  * touches outside the executable or on the stack; a multiple
				  * of 8 up to 8192, default 1024, 0 = none (lib/stack.h) */
	uint64_t heap_min;       /* MEMPHIS_HEAP_MIN: smallest allocation tracked, default 0 */
	unsigned heap_sample;    /* MEMPHIS_HEAP_SAMPLE: allocations under 4 KiB recorded 1 in
				  * this many, default 64; 1 records all */
	int heap_map;            /* MEMPHIS_HEAP_MAP: boolean, 1 default: the small allocations
				  * not sampled are recorded when the site map does not know
				  * them (lib/heapmap.h) */
	char output[4096];       /* MEMPHIS_OUTPUT: run directory path, "" = default name */
	int64_t max_bytes;       /* MEMPHIS_MAX_BYTES: the run directory's size cap; -1 unset
				  * (the writer's default, writer.h), 0 none, else >= 1 MiB */
	unsigned format;         /* MEMPHIS_FORMAT: the run's format version, 3 (default:
				  * MEMPHIS_FORMAT_VERSION) or 2, for an older memphis-report */
	char auto_region[4096];  /* MEMPHIS_REGION: whole-run region (launcher), cut to a
				  * region name's length by memphis_mark_named like any name */
	int verbose;             /* MEMPHIS_VERBOSE: 0..3 (larger acts as 3), default 0 */
	int disabled;            /* MEMPHIS_DISABLE: boolean, 1 = load but do nothing */
	long launched_pid;       /* MEMPHIS_LAUNCHED: the pid `memphis run` started (its own,
				  * kept by exec); other processes that inherit the preload are
				  * not profiled unless `children`; 0 = no launcher */
	int children;            /* MEMPHIS_CHILDREN: boolean, profile those processes too */
	int profile;             /* MEMPHIS_PROFILE: boolean, 1 default; 0 with MEMPHIS_PLACE
				  * (`memphis apply` without --profile): placed, not profiled */
	/* hardware backends (ibs, pebs) */
	char event[512];         /* MEMPHIS_EVENT: libpfm4 event names, comma-separated, for
				  * pebs; "" = the CPU's defaults */
	unsigned ldlat;          /* MEMPHIS_LDLAT: PEBS load-latency threshold, 3..65535, 30 */
	uint64_t hw_period;      /* MEMPHIS_HW_PERIOD: events between hardware samples, 0 =
				  * the backend's default (pebs 10007/20011, ibs 0x20000) */
	int ibs_cnt_ctl;         /* MEMPHIS_IBS_CNT_CTL: boolean, 1 = count ops, 0 = cycles */
	int ibs_l3missonly;      /* MEMPHIS_IBS_L3MISSONLY: boolean, 0 default */
	int kmod_kind;           /* MEMPHIS_KMOD_KIND: enum memphis__kmod_kind, auto default */
	/* counted per region (counters.c, numastat.c) */
	char papi_events[1024];  /* MEMPHIS_PAPI_EVENTS: PAPI event names, comma-separated;
				  * "" (default) = PAPI is not initialised */
	int numa_counters;       /* MEMPHIS_NUMA_COUNTERS: boolean, 0 default: the kernel's
				  * NUMA counters and numa_maps per region */
};

/* The shortest and longest sampling periods (MEMPHIS_PERIOD), in ns and as written in the
 * messages and documentation. */
/* Below 100 us the sampling interrupts cost more than the program (measured on a 2-vCPU
 * VM: 50 us 1.7-1.9x, 20 us 6.6-17x, 10 us 150-550x the unprofiled time; 100 us 1.4-1.5x). */
#define MEMPHIS__PERIOD_MIN_NS 100000ull
#define MEMPHIS__PERIOD_MIN_TEXT "100us"
#define MEMPHIS__PERIOD_MAX_NS 10000000000ull

/* MEMPHIS_STACK_BYTES: its default and its largest value (perf allows more; 8 KiB is
 * already many frames, and every kept record costs its size on disk). */
#define MEMPHIS__STACK_BYTES_DEFAULT 1024u
#define MEMPHIS__STACK_BYTES_MAX 8192u

/* Parse the environment into *c (defaults for absent values; each invalid value gets one
 * line, always shown, naming the variable, the value and what is used instead) and set
 * the logger's verbosity from MEMPHIS_VERBOSE first, so that the other messages obey it.
 * Never fails. */
void memphis__config_read(struct memphis__config *c);
/* Parse a period such as "1ms", "250us", "100000" (ns) into ns; -EINVAL if malformed
 * (a sign, nan, inf, hexadecimal, an unknown unit) or outside the periods above. */
int memphis__parse_period(const char *s, uint64_t *ns);
/* The smallest MEMPHIS_MAX_BYTES but 0: under it the run's first blocks would meet it. */
#define MEMPHIS__MAX_BYTES_MIN (1ull << 20)

/* Parse a boolean: 1/0, yes/no, true/false, on/off in any case. 0 or -EINVAL. */
int memphis__parse_bool(const char *s, int *v);

#endif /* MEMPHIS_CONFIG_H */
