/* lib/numastat.h - the kernel's NUMA counters over each region, written as
 * MPH_BLK_COUNTERS records at its end: per node the sysfs numastat counters (numa_hit,
 * numa_miss, numa_foreign, interleave_hit, local_node, other_node; the whole system's),
 * /proc/vmstat's numa_pages_migrated and pgmigrate_success (whole system), each thread's
 * numa_pages_migrated (/proc/self/task/TID/sched, kernels with NUMA balancing; a thread
 * that ended within the region is not counted), and the process's resident pages per node
 * from /proc/self/numa_maps at the end. Owns the values
 * read at the region's start, used only under the region lock. Below it: writer, self. */
#ifndef MEMPHIS_NUMASTAT_H
#define MEMPHIS_NUMASTAT_H

#include <stdint.h>

/* Turn the counters on (MEMPHIS_NUMA_COUNTERS; off until called). */
void memphis__numastat_enable(int on);
/* Region `seq` opened: read the counters. */
void memphis__numastat_begin(uint32_t seq);
/* Region `seq` closes: write the changes since begin and the resident pages per node. */
void memphis__numastat_end(uint32_t seq);

#endif /* MEMPHIS_NUMASTAT_H */
