/* lib/topology.h - where things live, written into the run: CPUs and nodes, home nodes of
 * pages, the maps snapshot. Below it: writer, tls, self. */
#ifndef MEMPHIS_TOPOLOGY_H
#define MEMPHIS_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

/* Write the TOPOLOGY block. */
void memphis__topology_write(void);
/* Home nodes of `n` pages into a PAGES block for `region`. */
void memphis__pages_write(uint32_t region, const uint64_t *pages, size_t n);
/* Write a MAPS block with the current /proc/self/maps, then the TLS block. */
void memphis__maps_write(void);

#endif /* MEMPHIS_TOPOLOGY_H */
