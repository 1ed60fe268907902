/* lib/topology.c - where things live: CPU -> node, node distances, page -> home node
 * (move_pages(2) with nodes == NULL only queries) and the maps snapshots. On a machine
 * without NUMA support everything is node 0, and still recorded. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
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
#define TIERS "/sys/devices/virtual/memory_tiering"

/* The number in file path (a sysfs attribute) into "%llu", else "-", into out. */
static void sys_number(const char *path, char *out, size_t len)
{
	char *t = memphis__slurp(path), *end;
	unsigned long long v;

	snprintf(out, len, "-");
	if (!t)
		return;
	errno = 0;
	v = strtoull(t, &end, 10);
	if (!errno && end != t)
		snprintf(out, len, "%llu", v);
	free(t);
}

/* The kernel's memory tier of each node (memory_tierK/nodelist) into tier[0 .. nnodes),
 * -1 where none says (a kernel before 6.1, no NUMA). */
static void node_tiers(int32_t *tier, uint32_t nnodes)
{
	DIR *d = memphis__opendir(TIERS);
	struct dirent *e;
	char path[512];

	for (uint32_t n = 0; n < nnodes; n++)
		tier[n] = -1;
	while (d && (e = readdir(d))) {
		struct bitmask *m;
		char *list;
		long k;

		if (strncmp(e->d_name, "memory_tier", 11) || (k = strtol(e->d_name + 11, NULL, 10)) < 0)
			continue;
		snprintf(path, sizeof(path), TIERS "/%s/nodelist", e->d_name);
		if (!(list = memphis__slurp(path)))
			continue;
		list[strcspn(list, "\n")] = 0;
		m = list[0] ? numa_parse_nodestring_all(list) : NULL;
		for (uint32_t n = 0; m && n < nnodes; n++)
			if (numa_bitmask_isbitset(m, n))
				tier[n] = (int32_t)k;
		if (m)
			numa_bitmask_free(m);
		free(list);
	}
	if (d)
		closedir(d);
}

/* A RUN block of `node` keys (docs/format.md): per node its CPUs, memory tier, the HMAT
 * figures of its best initiators (access0) and its memory at start. */
static void nodes_write(const int32_t *cpu_node, uint32_t ncpus, uint32_t nnodes)
{
	static const char *const hmat[] = { "read_latency", "write_latency", "read_bandwidth",
					    "write_bandwidth" };
	size_t len = (size_t)nnodes * 160 + 1, used = 0;
	char *text = malloc(len), v[4][32], path[256];
	int32_t *tier = malloc(nnodes * sizeof(*tier));

	if (text && tier) {
		node_tiers(tier, nnodes);
		for (uint32_t n = 0; n < nnodes && used < len; n++) {
			long long total, free_b = -1;
			uint32_t cpus = 0;

			for (uint32_t c = 0; c < ncpus; c++)
				cpus += cpu_node[c] == (int32_t)n;
			for (int k = 0; k < 4; k++) {
				snprintf(path, sizeof(path),
					 "/sys/devices/system/node/node%u/access0/initiators/%s", n, hmat[k]);
				sys_number(path, v[k], sizeof(v[k]));
			}
			total = numa_node_size64((int)n, &free_b);
			used += (size_t)snprintf(text + used, len - used,
						 "node=%u\t%u\t%d\t%s\t%s\t%s\t%s\t%lld\t%lld\n", n, cpus,
						 tier[n], v[0], v[1], v[2], v[3], total, total < 0 ? -1 : free_b);
		}
		if (used < len)
			memphis__writer_block(-1, MPH_BLK_RUN, text, used);
	}
	free(text);
	free(tier);
}

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
		if (numa)
			nodes_write(cpu_node, h.ncpus, h.nnodes);
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
