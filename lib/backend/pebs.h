/* lib/backend/pebs.h - the Intel PEBS backend's event plan, apart from the backend so that
 * tests build it against libpfm4 tables of other CPUs (LIBPFM_ENCODE_INACTIVE=1 and a
 * "skx::" prefix) and fake sysfs trees. Below it: hwset. */
#ifndef MEMPHIS_PEBS_H
#define MEMPHIS_PEBS_H

#include <stddef.h>
#include <stdint.h>

#include "hwset.h"
#include "memphis/format.h"
#include "perf_ring.h"

#define MEMPHIS__PEBS_LOAD_PERIOD 10007u  /* prime: PEBS periods are not randomised */
#define MEMPHIS__PEBS_STORE_PERIOD 20011u
#define MEMPHIS__PEBS_AUX_CONFIG 0x8203u  /* mem-loads-aux: event 0x03, umask 0x82 */

struct memphis__pebs_opts {
	const char *sysfs;   /* sysfs root */
	const char *events;  /* MEMPHIS_EVENT or NULL/"": the defaults */
	const char *prefix;  /* libpfm4 PMU prefix for the default names ("skx::"), or "" */
	unsigned ldlat;      /* load-latency threshold, cycles (>= 1) */
	uint64_t period;     /* 0: the prime defaults above */
	int weight_struct;   /* PERF_SAMPLE_WEIGHT_STRUCT (1) or PERF_SAMPLE_WEIGHT (0) */
	int precise;         /* precise_ip of the sampling events (0..3) */
};

/* The events PEBS sampling needs on this machine: load latency and precise stores on the
 * core PMU (both PMUs on hybrid CPUs: cpu_core and cpu_atom from sysfs, each thread's
 * events on both), the mem-loads-aux leader ahead of the loads where sysfs offers it.
 * Event names go through libpfm4; the hybrid PMUs' defaults, which Debian 12's libpfm4
 * 4.13 lacks, come from sysfs's mem-loads/mem-stores aliases. 0, or -errno with the one
 * line in why (-ENOENT: no load-latency event for this CPU). */
int memphis__pebs_plan(const struct memphis__pebs_opts *o, struct memphis__hw_plan *p,
		       char *why, size_t n);

/* Open plan p on the calling thread and close it again: 0 when every event opened, else
 * the first refusal's -errno and its index in *failed. A parameter of
 * memphis__pebs_choose, so that tests pass a fake kernel. */
typedef int memphis__pebs_try_fn(const struct memphis__hw_plan *p, int *failed, void *ctx);
/* The plan this kernel takes, found with try: the highest precise_ip (3 to 1; 0 only
 * where every sampling event is a software or tracepoint one: without PEBS a load-latency
 * or precise-store sample has no data address or source), PERF_SAMPLE_WEIGHT_STRUCT
 * before WEIGHT; an event's own ":precise=N" (MEMPHIS_EVENT) caps it. o->precise and
 * o->weight_struct tell the choice. 0, or the first refusal's -errno with the one line
 * (memphis__hw_why with paranoid) in why. */
int memphis__pebs_choose(struct memphis__pebs_opts *o, memphis__pebs_try_fn *try, void *ctx,
			 struct memphis__hw_plan *p, int paranoid, char *why, size_t n);

/* One PEBS sample (of an event of kind, MEMPHIS__HW_*) into s: the address when it is a
 * user one (4096 to MEMPHIS_USER_ADDR_END: MPH_S_EXACT | MPH_S_HWADDR, else
 * MPH_S_NOADDR), load or store from the data source (include/memphis/hwdecode.h), else
 * from the event's kind, the hardware's remote flag, the latencies. */
void memphis__pebs_sample(const struct memphis__perf_sample *ps, unsigned kind,
			  struct memphis_rec_sample *s);

#endif /* MEMPHIS_PEBS_H */
