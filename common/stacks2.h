/* common/stacks2.h - STACKS layout version 2's MPH_STACK_DELTA entries
 * (include/memphis/format.h): built by the library (and the tools) against a base entry,
 * applied by the readers. Neither allocates; apply checks every byte it reads. */
#ifndef MPH_STACKS2_H
#define MPH_STACKS2_H

#include <stddef.h>
#include <stdint.h>

#include "memphis/format.h"

/* The longest stack an entry holds: MEMPHIS_STACK_BYTES's largest (readers accept more). */
#define MPH_STK2_WORDS_MAX (65536u / 8)

/* Bytes of the DELTA entry of e (its registers, `bytes`) against `base` (its registers,
 * `base_bytes`), both of e->stack_len bytes padded with zeros to 8; written to out unless
 * NULL (the caller sizes out by a first call), with base_index. */
size_t mph_stk2_delta(const struct memphis_rec_stack *e, const unsigned char *bytes,
		      const struct memphis_rec_stack *base, const unsigned char *base_bytes,
		      uint32_t base_index, unsigned char *out);

/* What picks an entry's base: its thread, stack_len and stack pointer (regs[7]). */
struct mph_stk2_key {
	uint64_t sp;
	uint32_t tid, len;
};

/* The base for a DELTA of the entry of key e among n earlier OWN entries of its buffer, of
 * keys own[0 .. n): the last of e's thread and stack_len at e's stack pointer, else the
 * last of its thread and stack_len; -1 when none. (A thread that waits at two depths in
 * turn has its stack at one depth shifted against the other's, which no DELTA gives.) */
long mph_stk2_base(const struct mph_stk2_key *own, size_t n, const struct mph_stk2_key *e);

/* The DELTA entry at p (avail bytes) read: *d its header, *size its bytes. 0, or -EINVAL
 * with *why (static text) when it does not fit avail or is inconsistent in itself. */
int mph_stk2_parse(const unsigned char *p, size_t avail, struct memphis_rec_stack_delta *d,
		   size_t *size, const char **why);

/* Apply the DELTA entry at p (parsed by mph_stk2_parse) to a copy of its base: out_hdr and
 * out_bytes (stack_len rounded up to 8) must hold the base's header and bytes; the given
 * registers and words replace theirs, time, tid and kind are the entry's, reserved 0. */
void mph_stk2_apply(const unsigned char *p, const struct memphis_rec_stack_delta *d,
		    struct memphis_rec_stack *out_hdr, unsigned char *out_bytes);

#endif /* MPH_STACKS2_H */
