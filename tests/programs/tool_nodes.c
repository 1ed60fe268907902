/* tests/programs/tool_nodes.c - a run directory made on this one-node host, its CPUs spread over N
 * nodes as if the machine had them: the same samples, the pages where they were (node 0),
 * so that every sample of a CPU of another node is remote. For the reports of real
 * programs on several nodes without the hardware (tests/report/t_compare_collide.sh: compare of
 * such a report with itself).
 *   tool_nodes SRC DST N [--tiers | --memory-only]
 *                          DST (created) gets every file of SRC; meta.mph's TOPOLOGY
 *                          block says N nodes, CPU i on node (i + 1) mod N (CPU 0, where
 *                          a lone thread usually runs, is not on its pages' node 0: its
 *                          samples are remote), distances 10 on the diagonal and 20
 *                          elsewhere; every other block as it is. --tiers: a RUN block of
 *                          "node" keys follows (lib/topology.c), every node with its CPUs
 *                          in memory tier 4; --memory-only: node N - 1 has no CPU (CPU i
 *                          on node (i + 1) mod (N - 1)), memory tier 5, the HMAT figures of
 *                          a CXL expander (read 300 ns, 10,240 MB/s; write 320 ns, 8,192
 *                          MB/s; the others DRAM's: 100 ns, 20,480 MB/s), and the pages of odd page number (PAGES blocks) are homed
 *                          on it: their samples are far-tier accesses; the run's own
 *                          "node" keys are dropped.
 * Exit status 0, or 1 with a message. */
#include <stdint.h>

#include "rewrite.h"

struct opts {
	uint32_t nnodes;
	int tiers, memory_only;
};

/* The node of CPU c. */
static uint32_t node_of(const struct opts *o, uint32_t c)
{
	uint32_t cpu_nodes = o->memory_only ? o->nnodes - 1 : o->nnodes;

	return (c + 1) % cpu_nodes;
}

/* The TOPOLOGY payload of ncpus CPUs over nnodes nodes into out (its length returned). */
static uint32_t topology(const struct opts *o, uint32_t ncpus, uint32_t nnodes, unsigned char *out)
{
	struct memphis_rec_topology t = { ncpus, nnodes };
	size_t off = sizeof(t);

	memcpy(out, &t, sizeof(t));
	for (uint32_t c = 0; c < ncpus; c++, off += 4) {
		int32_t node = (int32_t)node_of(o, c);
		memcpy(out + off, &node, 4);
	}
	for (uint32_t i = 0; i < nnodes * nnodes; i++, off += 4) {
		uint32_t dist = i / nnodes == i % nnodes ? 10 : 20;
		memcpy(out + off, &dist, 4);
	}
	return (uint32_t)off;
}

/* The RUN block of the nodes' "node" keys after TOPOLOGY (--tiers, --memory-only). */
static void node_keys(FILE *out, const struct opts *o, uint32_t ncpus, uint16_t version)
{
	char text[64 * 128];
	size_t used = 0;

	for (uint32_t n = 0; n < o->nnodes && used < sizeof(text) - 128; n++) {
		uint32_t cpus = 0;
		int far = o->memory_only && n == o->nnodes - 1, dram = o->memory_only && !far;

		for (uint32_t c = 0; c < ncpus; c++)
			cpus += node_of(o, c) == n;
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 "node=%u\t%u\t%d\t%s\t%s\t%s\t%s\t%lld\t%lld\n", n, cpus,
					 far ? 5 : 4, far ? "300" : dram ? "100" : "-",
					 far ? "320" : dram ? "100" : "-", far ? "10240" : dram ? "20480" : "-",
					 far ? "8192" : dram ? "20480" : "-", 1ll << 30, 1ll << 29);
	}
	rewrite_put(out, MPH_BLK_RUN, version, text, (uint32_t)used);
}

/* A PAGES block with its present pages of odd page number on node far. 1, or -1. */
static int far_pages(FILE *out, const struct memphis_block *h, const unsigned char *payload,
		     uint32_t far)
{
	struct memphis_rec_pages_hdr ph;
	unsigned char *p;

	if (h->length < sizeof(ph))
		return 0;
	memcpy(&ph, payload, sizeof(ph));
	if ((uint64_t)ph.count * sizeof(struct memphis_rec_page) > h->length - sizeof(ph))
		return 0; /* damaged: copied as it is */
	if (!(p = malloc(h->length)))
		return -1;
	memcpy(p, payload, h->length);
	for (uint32_t i = 0; i < ph.count; i++) {
		struct memphis_rec_page pg;
		size_t off = sizeof(ph) + i * sizeof(pg);

		memcpy(&pg, p + off, sizeof(pg));
		if (pg.node >= 0 && (pg.page >> 12) % 2) {
			pg.node = (int32_t)far;
			memcpy(p + off, &pg, sizeof(pg));
		}
	}
	rewrite_put(out, h->type, h->version, p, h->length);
	free(p);
	return 1;
}

/* rewrite_block_fn: a TOPOLOGY block for the opts at arg. */
static int block(FILE *out, const struct memphis_block *h, const unsigned char *payload, void *arg)
{
	const struct opts *o = arg;
	uint32_t nnodes = o->nnodes;
	struct memphis_rec_topology t;
	unsigned char *p;

	if (o->tiers && h->type == MPH_BLK_RUN && h->length >= 5 && !memcmp(payload, "node=", 5))
		return 1; /* the library's own node keys: this machine's, replaced */
	if (o->memory_only && h->type == MPH_BLK_PAGES)
		return far_pages(out, h, payload, nnodes - 1);
	if (h->type != MPH_BLK_TOPOLOGY || h->length < sizeof(t))
		return 0;
	memcpy(&t, payload, sizeof(t));
	if (t.ncpus > 65536)
		return -1;
	p = malloc(sizeof(t) + 4 * (size_t)t.ncpus + 4 * (size_t)nnodes * nnodes);
	if (!p)
		return -1;
	rewrite_put(out, h->type, h->version, p, topology(o, t.ncpus, nnodes, p));
	free(p);
	if (o->tiers)
		node_keys(out, o, t.ncpus, h->version);
	return 1;
}

int main(int argc, char **argv)
{
	long nnodes = argc == 4 || argc == 5 ? strtol(argv[3], NULL, 10) : 0;
	struct opts o = { (uint32_t)nnodes, argc == 5, argc == 5 && !strcmp(argv[4], "--memory-only") };

	if (nnodes < 1 || nnodes > 64 || (argc == 5 && strcmp(argv[4], "--tiers") && !o.memory_only) ||
	    (o.memory_only && nnodes < 2)) {
		fprintf(stderr, "usage: tool_nodes SRC DST N [--tiers | --memory-only]   (N: 1 to 64 "
			"nodes, 2 at least with --memory-only)\n");
		return 1;
	}
	return rewrite_dir("tool_nodes", argv[1], argv[2], block, &o);
}
