/* lib/backend/ibs.h - the AMD IBS op backend's attr and sample decoding, apart from the
 * backend so that tests build them against a fake sysfs ibs_op directory and records
 * made from published register values. Below it: hwset, perf_ring. */
#ifndef MEMPHIS_IBS_H
#define MEMPHIS_IBS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwset.h"
#include "memphis/format.h"
#include "perf_ring.h"

#define MEMPHIS__IBS_PERIOD 0x20000u   /* ops (cnt_ctl) or cycles between samples */
#define MEMPHIS__IBS_PERIOD_MIN 0x90u  /* the kernel's op minimum; low nibble must be 0 */

struct memphis__ibs_opts {
	const char *sysfs;
	uint64_t period;     /* 0: MEMPHIS__IBS_PERIOD */
	int cnt_ctl;         /* count dispatched ops (1) or cycles (0) */
	int l3missonly;      /* only ops that missed L3 (Zen 4+: caps/zen4_ibs_extensions) */
	uint64_t kernel_fields; /* ADDR|DATA_SRC|WEIGHT(_STRUCT) asked beside RAW, or 0 (the
	                         * library: memphis__ibs_sample never reads them, see W1 in
	                         * ibs.c; tests lay out records of a kernel asked for them) */
};

/* The period the kernel takes for want: low nibble cleared, at least MIN (0: the
 * default). No maximum: the kernel splits a longer one. */
uint64_t memphis__ibs_period(uint64_t want);
/* The ibs_op event: type and format bits (cnt_ctl, l3missonly, swfilt) from sysfs, the
 * period, sample_type IP|TID|TIME|ID|CPU|RAW plus o->kernel_fields. One event, kind ANY.
 * *notes gets, "; " between, what was asked and cannot be had (l3missonly before Zen 4)
 * and what the user must know to read the samples (l3missonly's period skew), "" if
 * nothing. 0, or -ENOENT with why (no ibs_op PMU). */
int memphis__ibs_plan(const struct memphis__ibs_opts *o, struct memphis__hw_plan *p,
		      char *notes, size_t notes_n, char *why, size_t n);
/* Open plan p for thread tid (cpu -1) or CPU cpu (tid -1) and close it again: 0 or the
 * kernel's -errno. A parameter of memphis__ibs_choose, so that tests pass a fake kernel. */
typedef int memphis__ibs_try_fn(const struct memphis__hw_plan *p, pid_t tid, int cpu,
				void *ctx);
/* The ibs_op event this kernel takes, found with try: the plan per thread; per CPU
 * (*per_cpu 1) when the kernel has no per-task IBS (EINVAL or EOPNOTSUPP per thread,
 * before 6.2); when cnt_ctl went to its hardware bit for want of sysfs's format/cnt_ctl
 * and the kernel refuses it (EINVAL: no IBS_CAPS_OPCNT), once more without it:
 * o->cnt_ctl is then 0 (the period counts cycles) and notes say so. notes as
 * memphis__ibs_plan's, plus that. 0, or -errno with the one line (memphis__hw_why with
 * paranoid) in why. */
int memphis__ibs_choose(struct memphis__ibs_opts *o, memphis__ibs_try_fn *try, void *ctx,
			struct memphis__hw_plan *p, int *per_cpu, char *notes, size_t notes_n,
			int paranoid, char *why, size_t n);
/* One IBS op sample into out: address, direction, data source and latencies, all from
 * the raw registers (sample_type must have PERF_SAMPLE_RAW), decoded by include/memphis/
 * hwdecode.h's memphis_ibs_raw_decode with the CPU's family and model (CPUID; 0, 0:
 * unknown), which honours every validity bit and erratum #1293 and gives the kernel's
 * 6.6+ data-source convention whatever the running kernel. Fields the kernel filled
 * besides RAW (DATA_SRC, ADDR, WEIGHT) are never read: 6.1-6.5 encode DATA_SRC the old
 * way. An op whose RIP the hardware marks invalid (RipInvalid, with caps RipInvalidChk)
 * keeps its address but no instruction: ip 0, sampled_ip the interrupted ip the kernel
 * gives instead (not the op's). User addresses are those below MEMPHIS_USER_ADDR_END.
 * Returns 1 to keep; 0 to drop: no registers, not a valid op sample (En/Val), not a
 * load or store, or a kernel instruction (memphis samples user code only). */
int memphis__ibs_sample(const struct memphis__perf_sample *ps, uint64_t sample_type,
			unsigned family, unsigned model, struct memphis_rec_sample *out);

/* Per CPU: the samples of every CPU's ring, one ring after the other, into thread order:
 * by tid, and each thread's by time (its samples come from several CPUs' rings, whose
 * order is not the thread's order of events). */
void memphis__ibs_sort(struct memphis_rec_sample *s, size_t n);

#endif /* MEMPHIS_IBS_H */
