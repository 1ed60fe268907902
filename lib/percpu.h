/* lib/percpu.h - the "cpu" sampling scope: one perf event per CPU, for every process that
 * runs there, read back for this process only.
 *
 * A per-thread clock event is switched with its thread: its timer is cancelled when the
 * thread sleeps and re-armed when it wakes, 4-6 us each time on a 2-vCPU VM (DESIGN §3.1,
 * issue 14), which a program waiting at OpenMP barriers pays at every barrier. An event of a
 * CPU is never switched. Opening one needs CAP_PERFMON (or CAP_SYS_ADMIN) or
 * kernel.perf_event_paranoid <= 0. Records of other processes are dropped when read, and
 * a fork child closes its copies of the descriptors at once (the events of a CPU would
 * otherwise live, and sample, as long as the child does). Below it: perf, fd, self. */
#ifndef MEMPHIS_PERCPU_H
#define MEMPHIS_PERCPU_H

#include <stddef.h>
#include <sys/types.h>

#include "perf.h"

/* The events of one kind on every online CPU. */
struct memphis__percpu {
	int n;                      /* rings open (CPUs online at the open) */
	int *cpu;                   /* the CPU of each */
	struct memphis__ring *ring;
	pid_t pid;                  /* the process whose records are kept */
	struct perf_event_attr *attr; /* as opened, to open a ring again */
	unsigned pages, watermark_div;
};

/* Open attr (disabled or not, as it says) on every online CPU for all processes, a ring
 * of data_pages each (memphis__ring_open's halving), for the records of process pid. The
 * attr must sample PERF_SAMPLE_IP and PERF_SAMPLE_TID, without PERF_SAMPLE_IDENTIFIER (the
 * pid is read at a fixed place). 0, or -errno with nothing left open (-EACCES/-EPERM: not
 * allowed; -EMFILE: the library's share of descriptors is too small for a ring per CPU). */
int memphis__percpu_open(struct memphis__percpu *p, const struct perf_event_attr *attr,
			 pid_t pid, unsigned data_pages, unsigned watermark_div);
/* Enable or disable every CPU's event. A ring whose descriptor the program closed is read
 * into fn (as memphis__percpu_drain does), closed and opened again. 0 or -errno (the
 * first error; the other CPUs are still switched). */
int memphis__percpu_enable(struct memphis__percpu *p, int on, memphis__record_fn fn, void *ctx);
/* Call fn for every record of every ring that is not another process's sample (samples
 * of process pid, and the loss and throttle records). Returns the records read. */
size_t memphis__percpu_drain(struct memphis__percpu *p, memphis__record_fn fn, void *ctx);
/* The rings' losses no LOST record told yet (memphis__ring_lost), of every process that
 * ran on those CPUs: a loss does not say whose sample it was. */
uint64_t memphis__percpu_lost(struct memphis__percpu *p);
/* add(fd, ctx) for every ring's descriptor that still is its event's (to poll). */
void memphis__percpu_fds(struct memphis__percpu *p, void (*add)(int fd, void *ctx), void *ctx);
/* Close every ring (after a last drain); p can be opened again. */
void memphis__percpu_close(struct memphis__percpu *p);

#endif /* MEMPHIS_PERCPU_H */
