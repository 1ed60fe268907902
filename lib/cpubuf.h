/* lib/cpubuf.h - the samples of each CPU waiting for their SAMPLES block of cpuNNN.mph,
 * with their STACKS entries, and what each CPU's file got in the open region. drain.c's:
 * every call under the drain lock. */
#ifndef MEMPHIS_CPUBUF_H
#define MEMPHIS_CPUBUF_H

#include <stdint.h>

#include "memphis/format.h"

struct memphis__thread;
struct memphis__ustack;

/* Room for the buffers of every configured CPU (each allocated at its first sample).
 * 0 or -ENOMEM. */
int memphis__cpubuf_start(void);
/* Append s to the buffer of s->cpu, with u as its STACKS entry when given (s flagged
 * MPH_S_STACK when it is kept); the buffer is written when full. A sample that cannot be
 * kept (a CPU beyond the configured ones, no memory) or whose block the writer refused is
 * counted in *dropped. */
void memphis__cpubuf_add(struct memphis__thread *t, struct memphis_rec_sample *s,
			 const struct memphis__ustack *u, uint64_t *dropped);
/* Write every CPU's buffered samples (refused ones counted in *dropped). */
void memphis__cpubuf_flush(uint64_t *dropped);
/* The CPU_SAMPLES block of region `seq`: the samples each CPU's file got since the last
 * one, written after their last SAMPLES block. */
void memphis__cpubuf_region_end(uint32_t seq);

#endif /* MEMPHIS_CPUBUF_H */
