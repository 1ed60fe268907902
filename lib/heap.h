/* lib/heap.h - heap objects: the interposed allocator (malloc and its siblings, exported)
 * records allocations (the small ones sampled) and their frees; the records are owned here, under the heap lock, until
 * the drain takes them. Below it: self only (every file that allocates stands on it). */
#ifndef MEMPHIS_HEAP_H
#define MEMPHIS_HEAP_H

#include <stddef.h>
#include <stdint.h>

/* Allocations under this many bytes are sampled (1 in `every` of memphis__heap_init on
 * average, 1: all); larger ones are always recorded. */
#define MEMPHIS__HEAP_SAMPLE_BELOW 4096u

/* Resolve the real allocator and start recording allocations of at least `heap_min` bytes
 * with `depth` call-site frames (1..MEMPHIS_MAX_FRAMES), the small ones 1 in `every` and,
 * when memphis__heapmap_init made the site map, the others too when the map does not know
 * them already (lib/heapmap.h); their frees are not recorded. */
void memphis__heap_init(int depth, uint64_t heap_min, unsigned every);
/* Before memphis__heap_init, or instead of it in a process that is placed but not
 * profiled (place.h): the real allocator found, chains of callsite_depth frames. */
void memphis__heap_set_depth(int callsite_depth);
/* Carry out the placement plan for block p of size bytes allocated from site (mmap.c). */
void memphis__heap_place(void *p, size_t size, const void *site);
/* Receives one block's worth of records: `type` MPH_BLK_ALLOCS or MPH_BLK_FREES. */
typedef void memphis__heap_write_fn(uint16_t type, const void *recs, size_t len);
/* Hand every buffered record to write, oldest first per stream, the partly filled chunks
 * included, and release them. Returns the records dropped since the last call (writer
 * too slow or no memory). */
uint64_t memphis__heap_flush(memphis__heap_write_fn *write);
/* The recording of allocations made elsewhere (lib/mmap.c): sampling does not apply.
 * Whether allocations and frees are recorded now: recording (not before memphis__heap_init,
 * after memphis__heap_stop or in a fork child) and the calling thread is not in the
 * library. memphis__heap_wanted: and an allocation of `size` bytes is not under heap_min. */
int memphis__heap_recording(void);
int memphis__heap_wanted(uint64_t size);
struct memphis_rec_alloc;
/* Fill *r for an allocation of `size` bytes at p of `kind` (enum memphis_alloc_kind), made
 * from return address `site` (the interposer's __builtin_return_address(0)): now, this
 * thread, site and the frames above it. Call it inside the library (memphis__enter). */
void memphis__heap_describe(struct memphis_rec_alloc *r, const void *p, uint64_t size, int kind,
			    const void *site);
/* Append allocation record r, or the free (now, this thread) of the block at addr; dropped
 * and counted when the writer is too far behind. errno is kept. */
void memphis__heap_put_alloc(const struct memphis_rec_alloc *r);
void memphis__heap_put_free(uint64_t addr);
/* Count one allocation left unrecorded (a table was full): it is reported with the drops. */
void memphis__heap_unrecorded(void);
/* Stop recording (library shutdown, before the last flush); later allocations are not
 * tracked. */
void memphis__heap_stop(void);

#endif /* MEMPHIS_HEAP_H */
