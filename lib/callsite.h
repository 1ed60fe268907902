/* lib/callsite.h - an allocation's call-site chain: the return addresses above the site
 * (MEMPHIS_CALLSITE_DEPTH frames in all), unwound once per chain and then read back from
 * the stack (lib/callsite.c). Below it: self only. */
#ifndef MEMPHIS_CALLSITE_H
#define MEMPHIS_CALLSITE_H

#include <stdint.h>

#include "memphis/format.h"

/* Fill r->frames[1 .. depth) with the return addresses above r->frames[0] (the site, the
 * interposer's return address), as many as the stack has, and r->nframes; returns the
 * chain's key (memphis__callsite_key, kept with the chain). cfa: the CFA of the calling
 * function (__builtin_dwarf_cfa()), above which the stack is read. offs[k], k >= 1: where
 * frames[k] lies on the stack, as a distance from cfa, checked to lie on this thread's
 * stack; offs[0] UINT64_MAX when unknown (a chain the unwinder gave that the stack does
 * not hold where it says). Inside the library (self.h: memphis__enter): the unwinder may
 * allocate on its first use. */
uint64_t memphis__callsite_chain(struct memphis_rec_alloc *r, uint64_t cfa, int depth,
				 uint64_t *offs);
/* A 64-bit key of r->frames[0 .. r->nframes): two chains of one key are taken as one. */
uint64_t memphis__callsite_key(const struct memphis_rec_alloc *r);

#endif /* MEMPHIS_CALLSITE_H */
