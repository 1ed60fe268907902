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
#include "io.h"
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

/* A posted query: the region and the count, then the pages. */
struct pages_call {
	uint32_t region;
	size_t n;
};

static long pages_in_io(void *arg)
{
	struct pages_call *c = arg;

	memphis__pages_write(c->region, (const uint64_t *)(c + 1), c->n);
	return 0;
}

void memphis__pages_post(uint32_t region, const uint64_t *pages, size_t n)
{
	struct pages_call c = { region, n };
	struct iovec iov[2] = { { &c, sizeof(c) }, { (void *)pages, n * sizeof(pages[0]) } };

	if (memphis__io_post(pages_in_io, iov, 2) == -EAGAIN)
		memphis__pages_write(region, pages, n);
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
	uint64_t now = memphis__now();
	char *text;

	__atomic_store_n(&maps_dl_seen, memphis__dl_changes(), __ATOMIC_RELAXED);
	memphis__enter();
	text = memphis__slurp("/proc/self/maps");
	if (text) {
		memphis__writer_block2(-1, MPH_BLK_MAPS, &now, sizeof(now), text, strlen(text));
		memphis__tls_write(); /* TLS layout changes with the maps (dlopen) */
	}
	free(text);
	memphis__leave();
}
