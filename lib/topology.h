/* lib/topology.h - where things live, written into the run: CPUs and nodes, home nodes of
 * pages, the maps snapshot. Below it: writer, io, tls, self. */
#ifndef MEMPHIS_TOPOLOGY_H
#define MEMPHIS_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

/* Write the TOPOLOGY block. */
void memphis__topology_write(void);
/* Home nodes of `n` pages into a PAGES block for `region`. */
void memphis__pages_write(uint32_t region, const uint64_t *pages, size_t n);
/* The same, asked and written by the I/O thread on a copy of pages (io.h), or here where
 * nothing can be posted: a print does not wait for the query (move_pages) and its block. */
void memphis__pages_post(uint32_t region, const uint64_t *pages, size_t n);
/* Write a MAPS block with the current /proc/self/maps, then the TLS block. */
void memphis__maps_write(void);
/* The number of shared-object loads plus unloads so far (dl_iterate_phdr's dlpi_adds +
 * dlpi_subs): changes with every dlopen/dlclose that maps or unmaps an object. Takes the
 * dynamic linker's list lock briefly: call with none of the library's locks held. */
uint64_t memphis__dl_changes(void);
/* Write a MAPS block (memphis__maps_write) if objects were loaded or unloaded since the
 * last one. Returns 1 if it wrote one, else 0. Same locking rule. The snapshot follows
 * the dlopen/dlclose by at most the time between two calls; the report looks an address
 * that is in no object of a snapshot up in the next one. */
int memphis__maps_poll(void);

#endif /* MEMPHIS_TOPOLOGY_H */
