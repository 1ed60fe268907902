/* lib/topology.c - where things live: CPU -> node, node distances, page -> home node
 * (move_pages(2) with nodes == NULL only queries) and the maps snapshots. On a machine
 * without NUMA support everything is node 0, and still recorded. */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <numa.h>
#include <numaif.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "memphis/format.h"
#include "self.h"
#include "tls.h"
#include "topology.h"
#include "writer.h"

#define PAGE_BATCH 512 /* bounded stack use: print() may run on a small thread stack */

void memphis__topology_write(void)
{
	struct memphis_rec_topology h;
	int32_t *cpu_node;
	uint32_t *dist;
	int numa = numa_available() >= 0;

	h.ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	h.nnodes = numa ? (uint32_t)numa_max_node() + 1 : 1;
	memphis__enter(); /* libnuma allocates too */
	cpu_node = calloc(h.ncpus, sizeof(*cpu_node));
	dist = calloc((size_t)h.nnodes * h.nnodes, sizeof(*dist));
	if (cpu_node && dist) {
		for (uint32_t c = 0; c < h.ncpus; c++) {
			int n = numa ? numa_node_of_cpu((int)c) : 0;
			cpu_node[c] = n < 0 ? 0 : n;
		}
		for (uint32_t i = 0; i < h.nnodes; i++)
			for (uint32_t j = 0; j < h.nnodes; j++)
				dist[i * h.nnodes + j] = numa ? (uint32_t)numa_distance((int)i, (int)j)
							      : (i == j ? 10 : 20);
		size_t lc = h.ncpus * sizeof(*cpu_node), ld = (size_t)h.nnodes * h.nnodes * sizeof(*dist);
		char *buf = malloc(sizeof(h) + lc + ld);
		if (buf) {
			memcpy(buf, &h, sizeof(h));
			memcpy(buf + sizeof(h), cpu_node, lc);
			memcpy(buf + sizeof(h) + lc, dist, ld);
			memphis__writer_block(-1, MPH_BLK_TOPOLOGY, buf, sizeof(h) + lc + ld);
			free(buf);
		}
	}
	free(cpu_node);
	free(dist);
	memphis__leave();
}

void memphis__pages_write(uint32_t region, const uint64_t *pages, size_t n)
{
	void *addr[PAGE_BATCH];
	int status[PAGE_BATCH];
	struct memphis_rec_page rec[PAGE_BATCH];

	for (size_t i = 0; i < n; i += PAGE_BATCH) {
		size_t m = n - i < PAGE_BATCH ? n - i : PAGE_BATCH;
		struct memphis_rec_pages_hdr h = { memphis__now(), region, (uint32_t)m };
		for (size_t k = 0; k < m; k++)
			addr[k] = (void *)(uintptr_t)pages[i + k];
		if (move_pages(0, (unsigned long)m, addr, NULL, status, 0) < 0) {
			int err = errno == ENOSYS ? 0 : -errno; /* no NUMA support: all node 0 */
			for (size_t k = 0; k < m; k++)
				status[k] = err;
		}
		for (size_t k = 0; k < m; k++)
			rec[k] = (struct memphis_rec_page){ pages[i + k], status[k], 0 };
		memphis__writer_block2(-1, MPH_BLK_PAGES, &h, sizeof(h), rec, m * sizeof(rec[0]));
	}
}

/* memphis__dl_changes() when the last MAPS block was written. */
static uint64_t maps_dl_seen;

static int dl_count(struct dl_phdr_info *info, size_t size, void *data)
{
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		*(uint64_t *)data = info->dlpi_adds + info->dlpi_subs;
	return 1; /* the counters are the same in every entry: one is enough */
}

/* Contract in topology.h. */
uint64_t memphis__dl_changes(void)
{
	uint64_t n = 0;

	dl_iterate_phdr(dl_count, &n);
	return n;
}

/* Contract in topology.h. */
int memphis__maps_poll(void)
{
	if (memphis__dl_changes() == __atomic_load_n(&maps_dl_seen, __ATOMIC_RELAXED))
		return 0;
	memphis__maps_write();
	return 1;
}

void memphis__maps_write(void)
{
	size_t cap = 65536, len = 8;
	char *buf;
	struct memphis__fdid id;
	int fd;
	uint64_t now = memphis__now();

	__atomic_store_n(&maps_dl_seen, memphis__dl_changes(), __ATOMIC_RELAXED);
	memphis__enter();
	fd = memphis__open("/proc/self/maps", O_RDONLY, &id);
	buf = malloc(cap);
	if (fd < 0 || !buf)
		goto out;
	memcpy(buf, &now, 8);
	for (;;) {
		if (len == cap) {
			char *n = realloc(buf, cap * 2);
			if (!n)
				goto out;
			buf = n;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	memphis__writer_block(-1, MPH_BLK_MAPS, buf, len);
	memphis__tls_write(); /* TLS layout changes with the maps (dlopen) */
out:
	memphis__fd_close(&fd, &id);
	free(buf);
	memphis__leave();
}
