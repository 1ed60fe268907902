/* lib/internal.h - how the files of libmemphis stand on each other.
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
 *   config.c  perf.c  code_ip.c -> code.c, decode.c
 *   heap.c                 the interposed allocator: every file that allocates stands on it
 *   fd.c -> io.c           the library's own descriptors (high numbers, checked before
 *                          use, a share); the I/O thread, whose descriptor table holds
 *                          every file the library opens while the program runs
 *   self.c  log.c          leaves: tid, clock, in-library flag; the logger
 *   ../common/             below everything: CRC, maps parser, u64 set and map, search
 *
 * Threads of the profiled process call in through the public functions, the interposed
 * allocator and pthread_create; one drain thread empties every thread's buffers; one I/O
 * thread opens, reads and writes the library's files for them all. Locks, in the order
 * they may nest, each owned by what it protects: region lock (region.c) -> drain lock
 * (drain.c) -> registry lock (thread.c) -> heap lock (heap.c); the I/O thread's call lock
 * under any of them; the writer's lock, taken in the I/O thread, is innermost.
 */
#ifndef MEMPHIS_INTERNAL_H
#define MEMPHIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define MEMPHIS__HIDDEN __attribute__((visibility("hidden")))

#endif /* MEMPHIS_INTERNAL_H */
