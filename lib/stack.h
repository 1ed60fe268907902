/* lib/stack.h - the user registers and the top of the user stack kept with a sample or a
 * first touch (STACKS blocks, include/memphis/format.h), for the report to unwind to the
 * first frame with source and to place stack addresses in their frame. It owns the
 * capture size (MEMPHIS_STACK_BYTES) and the executable's address range, decides which
 * records keep an entry, reads the PERF_SAMPLE_REGS_USER + PERF_SAMPLE_STACK_USER tail of
 * a perf record, and holds bounded buffers of entries that their owners (the drain per
 * CPU, firsttouch) write as one STACKS block just before the block of their records.
 * Below it: writer, self (and struct memphis__thread of thread.h). */
#ifndef MEMPHIS_STACK_H
#define MEMPHIS_STACK_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "memphis/format.h"
#include "stacks2.h"
#include "thread.h"

/* Bytes of entries one buffer holds at most before its owner must write it: 210 entries
 * of 1 KB stack, one buffer per CPU that sampled such records (and one for touches). */
#define MEMPHIS__STACK_BUF_MAX (256u << 10)

/* Set the capture size (0 = off; a multiple of 8, at most MEMPHIS__STACK_BYTES_MAX of
 * config.h, as config.c checks it) and find the executable's address range. Once, at library start,
 * before any stream is opened. */
void memphis__stack_init(unsigned bytes);
/* MEMPHIS_STACK_BYTES as set: the samples' sample_stack_user; 0 = no capture. */
unsigned memphis__stack_bytes(void);
/* The page-fault stream's sample_stack_user: MEMPHIS_STACK_BYTES, at most
 * MEMPHIS__FAULT_STACK_BYTES. A first touch needs only its runtime function's caller
 * (memset's return address lies at SP; cg's memset <- GOMP_parallel <- vector fits in 128
 * bytes), and every fault carries the capture through the ring: at 1 KB the fault rings
 * held 3 to 6 times fewer records than before the capture and t_touch lost faults. */
#define MEMPHIS__FAULT_STACK_BYTES 256u
unsigned memphis__fault_stack_bytes(void);
/* Extra bytes a perf record carries for a capture of `bytes` (abi, `nregs` registers,
 * size, stack, dyn_size) beyond the REGS_USER a record would carry anyway (`have_regs`). */
unsigned memphis__stack_record_extra(int have_regs, unsigned nregs, unsigned bytes);

/* What a perf record carried: the user registers (MEMPHIS_STACK_NREGS, perf's order) and
 * the bytes copied from SP upward. Pointers into the record: valid while it is. */
struct memphis__ustack {
	const uint64_t *regs; /* MEMPHIS_STACK_NREGS; NULL: no user registers (abi NONE) */
	const unsigned char *bytes;
	uint64_t len;         /* dyn_size: the bytes the kernel could copy */
	uint64_t some[MEMPHIS_STACK_NREGS]; /* regs of a record of fewer registers (0: not carried) */
};

/* Parse the tail of a PERF_RECORD_SAMPLE that starts at the REGS_USER abi word (`p`, `len`
 * bytes to the record's end) of an event with sample_regs_user = `mask` (a subset of
 * MEMPHIS__REGS_MASK) and sample_stack_user set (memphis__stack_bytes(), or the faults'
 * smaller size when that is not 0). 0 and *u, or -EINVAL when the tail is shorter than it
 * says. */
int memphis__stack_parse(const void *p, size_t len, uint64_t mask, struct memphis__ustack *u);

/* 1 when a record whose (attributed) instruction is `ip` keeps an entry: the capture is on
 * and ip lies outside the main executable (C, OpenMP, Fortran runtimes, any shared
 * object; the report decides about line information). */
int memphis__stack_wanted_ip(uint64_t ip);
/* 1 when the data address `addr` lies on thread t's own stack: in [stack_lo, stack_hi),
 * or from SP - 128 (the red zone) up to stack_hi (8 MiB above SP when stack_hi is
 * unknown). */
int memphis__stack_wanted_addr(const struct memphis__thread *t, uint64_t addr, uint64_t sp);

/* A signature (never 0) of what thread t's entry of u would hold for unwinding: IP, SP,
 * the callee-saved registers (BX, BP, R12-R15: what a caller's frame may still use) and
 * the stack bytes as they would be kept. Equal signatures: entries that unwind alike. */
uint64_t memphis__stack_signature(const struct memphis__thread *t, const struct memphis__ustack *u);

/* Entries waiting to be written, in the order added; at most MEMPHIS__STACK_BUF_MAX bytes.
 * Zero-initialised is empty. */
struct memphis__stackbuf {
	unsigned char *p;
	size_t n;        /* bytes used */
	size_t count;    /* entries */
	uint32_t *own;                 /* layout 2: offsets of the MPH_STACK_OWN entries, in
					* order: bases of the DELTA entries after them */
	struct mph_stk2_key *own_key;  /* and what picks one as a base */
	size_t nown;
	unsigned char *delta;          /* layout 2: where a DELTA entry is built */
	int nodelta;                   /* no DELTA entry until the buffer is written */
};

/* Append the entry of a record of `kind` (enum memphis_stack_kind) of thread t at `time`:
 * u's registers and its bytes, cut where the thread's stack ends (stack_hi), padded to 8;
 * in STACKS layout 2 (writer.h), when the thread's last MPH_STACK_OWN entry of the buffer
 * has the same stack_len and what differs from it takes at most a quarter of the bytes,
 * an MPH_STACK_DELTA entry of that (format.h).
 * 0; -ENOSPC when it does not fit next to what is buffered (write the buffer, then add);
 * -EINVAL when u has no registers; -ENOMEM. Allocates inside the library (self.h). */
int memphis__stackbuf_add(struct memphis__stackbuf *b, uint16_t kind, uint64_t time,
			  const struct memphis__thread *t, uint32_t tid,
			  const struct memphis__ustack *u);
/* Write the buffered entries as one STACKS block to meta.mph (cpu < 0) or cpuNNN.mph and
 * empty the buffer (also when the write fails). Returns 0 or the writer's -errno. */
int memphis__stackbuf_write(struct memphis__stackbuf *b, int cpu);
/* Release the buffer's memory (it stays usable, empty). */
void memphis__stackbuf_free(struct memphis__stackbuf *b);

#endif /* MEMPHIS_STACK_H */
