/* lib/heapmap.h - the site map: which call-site chain owns each byte of the small blocks,
 * so that a small allocation need not be recorded when the report would name its bytes right
 * without it (issue 41 item 4). The report names an address by the latest allocation record
 * that covers it (post/run/heap.h), freed or not when under 4 KiB; an allocation of
 * [p, p + n) from call-site chain K is then already named when the latest record covering
 * each of its bytes is one from K. The map answers that from the records themselves: every
 * record is noted here as the library appends it (memphis__heap_put_alloc). Below it:
 * callsite (the chains' keys) and self. */
#ifndef MEMPHIS_HEAPMAP_H
#define MEMPHIS_HEAPMAP_H

#include <stdint.h>

struct memphis_rec_alloc;

/* Make the map's tables (raw anonymous mappings, their pages touched as used). 0, or
 * -ENOMEM: the map is off, memphis__heapmap_known answers 0. */
int memphis__heapmap_init(void);
/* Whether the map is on. */
int memphis__heapmap_on(void);
/* 1 when the latest record noted over each byte of [p, p + size) is one from a chain of
 * this key (memphis__callsite_key); 0 when unsure. size under 4 KiB. Lock-free. */
int memphis__heapmap_known(uint64_t p, uint64_t size, uint64_t key);
/* Note record r (once appended): a block under 4 KiB makes its chain the owner of the bytes
 * it covers; a larger one ends the ownership of every block noted before over its pages.
 * Lock-free; a record noted from two threads at once over the same bytes is one the
 * allocator could not have made (two live blocks overlapping). */
void memphis__heapmap_note(const struct memphis_rec_alloc *r);

#endif /* MEMPHIS_HEAPMAP_H */
