/* lib/backend/pebs.h - the Intel PEBS backend's event plan, apart from the backend so that
 * tests build it against libpfm4 tables of other CPUs (LIBPFM_ENCODE_INACTIVE=1 and a
 * "skx::" prefix) and fake sysfs trees. Below it: hwset. */
#ifndef MEMPHIS_PEBS_H
#define MEMPHIS_PEBS_H

#include <stddef.h>
#include <stdint.h>

#include "hwset.h"

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

#endif /* MEMPHIS_PEBS_H */
