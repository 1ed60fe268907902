/* lib/internal.h - how the files of libmemphis stand on each other, and the u64 set.
 * Nothing here is public API; each noun has its own header (one per .c, or code.h /
 * backend/backend.h for a noun in several files).
 *
 * Layers: a file calls only files further down this picture (or to the right of an
 * arrow on its own line); `nm` + `tsort` over the objects finds no loop. The few upcalls
 * go through function pointers that the upper layer hands down: the registry's hooks
 * (thread.c -> drain.c), the backends' emit function and the heap's write function (both
 * given by drain.c), the chosen backend (api.c -> drain.c).
 *
 *   api.c                  lifecycle (enum), configuration, run information, public API
 *   region.c               the open region: name, number, REGION record, region lock
 *   drain.c                drain thread, sample buffers, sampling switch, region counters
 *   backend/select.c       -> backend/soft.c, backend/kmod.c -> backend/kmod_record.c
 *   firsttouch.c           page-fault streams and their records
 *   thread.c               the thread registry, pthread_create
 *   topology.c -> tls.c    nodes, page homes, maps and TLS snapshots
 *   writer.c               the run directory, NOTE blocks
 *   config.c  perf.c  code_ip.c -> code.c, decode.c  u64set.c
 *   heap.c                 the interposed allocator: every file that allocates stands on it
 *   self.c  log.c  fd.c    leaves: tid, clock, in-library flag; the logger; the library's
 *                          own descriptors (high numbers, checked before use, a share)
 *
 * Threads of the profiled process call in through the public functions, the interposed
 * allocator and pthread_create; one drain thread empties every thread's buffers. Locks,
 * in the order they may nest, each owned by what it protects: region lock (region.c) ->
 * drain lock (drain.c) -> registry lock (thread.c) -> heap lock (heap.c); the writer's
 * lock is innermost.
 */
#ifndef MEMPHIS_INTERNAL_H
#define MEMPHIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define MEMPHIS__HIDDEN __attribute__((visibility("hidden")))

/* ---- u64set.c: a growing set of 64-bit keys (UINT64_MAX cannot be stored) ----
 * Callers allocate as the library (inside memphis__enter/leave). */
struct memphis__u64set {
	uint64_t *slot; /* key + 1 per used slot, 0 = free */
	size_t cap, n;
};
/* Add key: 1 if it was new, 0 if already there, -ENOMEM (the key is then not stored). */
int memphis__u64set_add(struct memphis__u64set *s, uint64_t key);
/* The keys as a malloc'ed array of *n (NULL on allocation failure); the set is emptied. */
uint64_t *memphis__u64set_take(struct memphis__u64set *s, size_t *n);

#endif /* MEMPHIS_INTERNAL_H */
