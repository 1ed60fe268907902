/* lib/numastat.c - the kernel's NUMA counters over a region (contracts in numastat.h).
 * Everything is read from text files the kernel formats; a counter missing at either end
 * (an older kernel, no NUMA support) is not written. */
#include <dirent.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd.h"
#include "io.h"
#include "memphis/format.h"
#include "numastat.h"
#include "self.h"
#include "writer.h"

static const char *const node_keys[] = { "numa_hit", "numa_miss", "numa_foreign",
					 "interleave_hit", "local_node", "other_node" };
static const char *const vm_keys[] = { "numa_pages_migrated", "pgmigrate_success" };
#define NNODE_KEYS (sizeof(node_keys) / sizeof(node_keys[0]))
#define NVM_KEYS (sizeof(vm_keys) / sizeof(vm_keys[0]))

/* A thread's numa_pages_migrated. */
struct task_mig {
	uint32_t tid;
	uint64_t pages;
};

/* Counter values at one moment; have[] says which were read. */
struct snap {
	uint32_t nnodes;            /* highest node id + 1 */
	uint64_t *node;             /* [nnodes * NNODE_KEYS] */
	unsigned char *node_have;
	uint64_t vm[NVM_KEYS];
	unsigned char vm_have[NVM_KEYS];
	struct task_mig *task;      /* threads whose sched file has numa_pages_migrated */
	size_t ntask;
};

static int enabled;             /* set once at start */
static struct snap start_;      /* at the open region's start (region lock) */

void memphis__numastat_enable(int on)
{
	enabled = on;
}

/* Highest node id + 1 (libnuma, as the TOPOLOGY block counts them), 0 without NUMA. */
static uint32_t count_nodes(void)
{
	return numa_available() < 0 ? 0 : (uint32_t)numa_max_node() + 1;
}

/* Read "key value" lines of path: the values of keys[0 .. nkeys) into v[], have[] set. */
static void read_keys(const char *path, const char *const *keys, size_t nkeys, uint64_t *v,
		      unsigned char *have)
{
	FILE *f = memphis__fopen(path);
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sp = strchr(line, ' '), *num;

		if (!sp)
			continue;
		*sp = '\0';
		num = sp + 1 + strspn(sp + 1, " :"); /* "key value", or sched's "key   :   value" */
		for (size_t k = 0; k < nkeys; k++)
			if (!strcmp(line, keys[k])) {
				v[k] = strtoull(num, NULL, 10);
				have[k] = 1;
			}
	}
	fclose(f);
}

/* Every thread's numa_pages_migrated (/proc/self/task/TID/sched: kernels with NUMA
 * balancing) into s->task. */
static void read_tasks(struct snap *s)
{
	DIR *d = memphis__opendir("/proc/self/task");
	struct dirent *e;
	size_t cap = 0;

	if (!d)
		return;
	while ((e = readdir(d))) {
		static const char *const key[] = { "numa_pages_migrated" };
		char path[64];
		uint64_t v = 0;
		unsigned char have = 0;
		long tid = atol(e->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/sched", tid);
		read_keys(path, key, 1, &v, &have);
		if (!have)
			continue;
		if (s->ntask == cap) {
			struct task_mig *n = realloc(s->task, (cap ? cap * 2 : 16) * sizeof(*n));
			if (!n)
				break;
			s->task = n;
			cap = cap ? cap * 2 : 16;
		}
		s->task[s->ntask++] = (struct task_mig){ (uint32_t)tid, v };
	}
	memphis__closedir(d);
}

static void snap_free(struct snap *s)
{
	free(s->task);
	free(s->node);
	free(s->node_have);
	memset(s, 0, sizeof(*s));
}

/* Read every counter into *s (inside the library); run in the I/O thread (io.h), which
 * holds the /proc/self/task directory it lists. */
static long snap_read(void *arg)
{
	struct snap *s = arg;

	memset(s, 0, sizeof(*s));
	s->nnodes = count_nodes();
	if (s->nnodes) {
		s->node = calloc((size_t)s->nnodes * NNODE_KEYS, sizeof(*s->node));
		s->node_have = calloc((size_t)s->nnodes * NNODE_KEYS, 1);
		if (!s->node || !s->node_have)
			snap_free(s);
	}
	for (uint32_t n = 0; n < s->nnodes; n++) {
		char path[80];

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/numastat", n);
		read_keys(path, node_keys, NNODE_KEYS, s->node + n * NNODE_KEYS,
			  s->node_have + n * NNODE_KEYS);
	}
	read_keys("/proc/vmstat", vm_keys, NVM_KEYS, s->vm, s->vm_have);
	read_tasks(s);
	return 0;
}

void memphis__numastat_begin(uint32_t seq)
{
	(void)seq;
	if (!enabled)
		return;
	memphis__enter();
	snap_free(&start_);
	memphis__io_read(snap_read, &start_);
	memphis__leave();
}

/* Resident pages per node (in base pages) of /proc/self/numa_maps, added into pages[n]
 * for nodes below n. Returns 0, or -1 when the file cannot be read. */
static int numa_maps_pages(uint64_t *pages, uint32_t n)
{
	FILE *f = memphis__fopen("/proc/self/numa_maps");
	long base = sysconf(_SC_PAGESIZE);
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) > 0) {
		uint64_t kb = (uint64_t)base / 1024, mult;
		char *p, *save = NULL;

		p = strstr(line, "kernelpagesize_kB=");
		if (p)
			kb = strtoull(p + 18, NULL, 10);
		mult = base > 0 && kb * 1024 >= (uint64_t)base ? kb * 1024 / (uint64_t)base : 1;
		for (p = strtok_r(line, " \n", &save); p; p = strtok_r(NULL, " \n", &save)) {
			char *eq;
			unsigned long node;

			if (p[0] != 'N' || p[1] < '0' || p[1] > '9')
				continue;
			node = strtoul(p + 1, &eq, 10);
			if (*eq == '=' && node < n)
				pages[node] += strtoull(eq + 1, NULL, 10) * mult;
		}
	}
	free(line);
	fclose(f);
	return 0;
}

static struct memphis_rec_counter rec(uint32_t seq, uint16_t source, int node, const char *name,
				      uint64_t value)
{
	struct memphis_rec_counter c = { .region = seq, .source = source, .node = node,
					 .cpu = -1, .value = value };

	snprintf(c.name, sizeof(c.name), "%s", name);
	return c;
}

void memphis__numastat_end(uint32_t seq)
{
	struct snap now;
	struct memphis_rec_counter *c;
	uint64_t *pages;
	size_t n = 0;
	uint32_t nn;

	if (!enabled)
		return;
	memphis__enter();
	memphis__io_read(snap_read, &now);
	nn = now.nnodes < start_.nnodes ? now.nnodes : start_.nnodes;
	c = calloc((size_t)nn * (NNODE_KEYS + 1) + NVM_KEYS + now.ntask + 1, sizeof(*c));
	pages = calloc((size_t)nn + 1, sizeof(*pages));
	if (!c || !pages)
		goto out;
	for (uint32_t node = 0; node < nn; node++)
		for (size_t k = 0; k < NNODE_KEYS; k++) {
			size_t i = node * NNODE_KEYS + k;

			if (now.node_have[i] && start_.node_have[i])
				c[n++] = rec(seq, MPH_CTR_NUMASTAT, (int)node, node_keys[k],
					     now.node[i] - start_.node[i]);
		}
	for (size_t k = 0; k < NVM_KEYS; k++)
		if (now.vm_have[k] && start_.vm_have[k])
			c[n++] = rec(seq, MPH_CTR_VMSTAT, -1, vm_keys[k], now.vm[k] - start_.vm[k]);
	for (size_t i = 0; i < now.ntask; i++) {
		uint64_t base = 0; /* a thread that started within the region: from its start */

		for (size_t j = 0; j < start_.ntask; j++)
			if (start_.task[j].tid == now.task[i].tid)
				base = start_.task[j].pages;
		c[n] = rec(seq, MPH_CTR_TASK, -1, "numa_pages_migrated", now.task[i].pages - base);
		c[n++].tid = now.task[i].tid;
	}
	if (nn && numa_maps_pages(pages, nn) == 0)
		for (uint32_t node = 0; node < nn; node++)
			c[n++] = rec(seq, MPH_CTR_NUMA_MAPS, (int)node, "resident_pages", pages[node]);
	if (n)
		memphis__writer_block(-1, MPH_BLK_COUNTERS, c, n * sizeof(*c));
out:
	free(pages);
	free(c);
	snap_free(&now);
	snap_free(&start_);
	memphis__leave();
}
