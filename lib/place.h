/* lib/place.h - the placement layer of `memphis apply` (docs/apply.md): the plan that
 * `memphis-report plan` wrote, carried out with mbind(2) before the first touch. Variables
 * of static storage are placed at the start; a heap or mmap call site's objects as they are
 * allocated (heap.c and mmap.c hand each allocation of at least memphis__place_min bytes
 * with its call chain). It never harms the program: an mbind refused stops placing (one
 * line), the program runs on unplaced. Below it: self, log. */
#ifndef MEMPHIS_PLACE_H
#define MEMPHIS_PLACE_H

#include <stdint.h>

/* Allocations of fewer bytes are not looked at; 0: no call site to place (the heap path
 * then costs one load). */
extern uint64_t memphis__place_min;

/* Read plan (the text of MEMPHIS_PLACE), place the variables of static storage of the
 * executable (bias: its load address minus its vaddrs), keep the call sites. Returns the
 * number of variables in the plan, or -EINVAL with one line printed for a damaged plan
 * (nothing is placed then). */
int memphis__place_init(const char *plan, uint64_t bias);
/* Whether a call site's allocation may be in the plan: site (the interposer's return
 * address) when every planned site's first frame is in the executable. Cheap: no unwind. */
int memphis__place_site_wanted(uint64_t site);
/* Place [addr, addr + size), allocated from the call chain frames[0 .. n) (runtime
 * addresses), when a planned site matches it. */
void memphis__place_block(uint64_t addr, uint64_t size, const uint64_t *frames, uint32_t n);
/* No more placing (a fork child: its allocations are not the planned program's). */
void memphis__place_stop(void);
/* One line per planned variable on stderr (what was placed, how many bytes; a site never
 * reached; a refusal), and the same as "place=" lines into out (RUN keys, docs/format.md),
 * at most len bytes; returns the bytes written there. Once: a second call says nothing. */
size_t memphis__place_report(char *out, size_t len);

#endif /* MEMPHIS_PLACE_H */
