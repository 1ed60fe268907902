/* lib/backend/perf_ring.h - the records of a perf ring buffer as the hardware backends
 * (pebs.c, ibs.c) read them: PERF_RECORD_SAMPLE parsed by the event's sample_type in the
 * kernel's field order, and the loss and throttle records counted. The ring itself (mmap,
 * data_head/data_tail, records that wrap the end) is lib/perf.c's memphis__ring_drain,
 * shared with the soft backend. Pure functions: no state, no system calls. Below it:
 * nothing but <linux/perf_event.h>. */
#ifndef MEMPHIS_PERF_RING_H
#define MEMPHIS_PERF_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The sample_type bits memphis__perf_sample_parse understands; others make it fail
 * (READ, BRANCH_STACK, REGS_*, STACK_USER, AUX: their size depends on more than the type). */
#define MEMPHIS__PERF_SAMPLE_KNOWN                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |        \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |         \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT |   \
	 PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION |          \
	 PERF_SAMPLE_PHYS_ADDR | PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |             \
	 PERF_SAMPLE_CODE_PAGE_SIZE)

/* One PERF_RECORD_SAMPLE; fields the sample_type lacks are 0. */
struct memphis__perf_sample {
	uint64_t id;          /* IDENTIFIER or ID */
	uint64_t ip, time, addr, stream_id, period;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;    /* bytes at raw (the payload after the u32 size) */
	const void *raw;      /* inside the record: valid while it is */
	uint64_t weight;      /* WEIGHT, or WEIGHT_STRUCT's whole u64 */
	uint32_t lat;         /* WEIGHT: the weight; WEIGHT_STRUCT: var1_dw (access latency) */
	uint16_t ins_lat;     /* WEIGHT_STRUCT: var2_w (instruction latency; IBS: tag to retire) */
	uint64_t data_src, transaction, phys_addr, cgroup, data_page_size, code_page_size;
};

/* Parse a PERF_RECORD_SAMPLE of len bytes written for an event with this sample_type.
 * 0, or -EINVAL when the record is not a sample, is shorter than its fields, or the type
 * has a bit outside MEMPHIS__PERF_SAMPLE_KNOWN. */
int memphis__perf_sample_parse(const void *rec, size_t len, uint64_t sample_type,
			       struct memphis__perf_sample *s);

/* What the kernel said it could not deliver, summed over records. */
struct memphis__perf_losses {
	uint64_t lost;        /* PERF_RECORD_LOST: samples dropped, ring full */
	uint64_t lost_samples;/* PERF_RECORD_LOST_SAMPLES: dropped before the ring (PEBS, AUX) */
	uint64_t throttle, unthrottle; /* PERF_RECORD_THROTTLE / _UNTHROTTLE records */
};

/* Classify one ring record: returns its type (PERF_RECORD_*), having added a loss or
 * throttle record to *l; -1 for a record too short for its type. Records are parsed as
 * written without sample_id_all (memphis never sets it). */
int memphis__perf_record_count(const void *rec, size_t len, struct memphis__perf_losses *l);

#endif /* MEMPHIS_PERF_RING_H */
