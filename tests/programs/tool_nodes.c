/* tests/programs/tool_nodes.c - a run directory made on this one-node host, its CPUs spread over N
 * nodes as if the machine had them: the same samples, the pages where they were (node 0),
 * so that every sample of a CPU of another node is remote. For the reports of real
 * programs on several nodes without the hardware (tests/report/t_compare_collide.sh: compare of
 * such a report with itself).
 *   tool_nodes SRC DST N   DST (created) gets every file of SRC; meta.mph's TOPOLOGY
 *                          block says N nodes, CPU i on node (i + 1) mod N (CPU 0, where
 *                          a lone thread usually runs, is not on its pages' node 0: its
 *                          samples are remote), distances 10 on the diagonal and 20
 *                          elsewhere; every other block as it is.
 * Exit status 0, or 1 with a message. */
#include <stdint.h>

#include "rewrite.h"

/* The TOPOLOGY payload of ncpus CPUs over nnodes nodes into out (its length returned). */
static uint32_t topology(uint32_t ncpus, uint32_t nnodes, unsigned char *out)
{
	struct memphis_rec_topology t = { ncpus, nnodes };
	size_t off = sizeof(t);

	memcpy(out, &t, sizeof(t));
	for (uint32_t c = 0; c < ncpus; c++, off += 4) {
		int32_t node = (int32_t)((c + 1) % nnodes);
		memcpy(out + off, &node, 4);
	}
	for (uint32_t i = 0; i < nnodes * nnodes; i++, off += 4) {
		uint32_t dist = i / nnodes == i % nnodes ? 10 : 20;
		memcpy(out + off, &dist, 4);
	}
	return (uint32_t)off;
}

/* rewrite_block_fn: a TOPOLOGY block for *(uint32_t *)arg nodes. */
static int block(FILE *out, const struct memphis_block *h, const unsigned char *payload, void *arg)
{
	uint32_t nnodes = *(const uint32_t *)arg;
	struct memphis_rec_topology t;
	unsigned char *p;

	if (h->type != MPH_BLK_TOPOLOGY || h->length < sizeof(t))
		return 0;
	memcpy(&t, payload, sizeof(t));
	if (t.ncpus > 65536)
		return -1;
	p = malloc(sizeof(t) + 4 * (size_t)t.ncpus + 4 * (size_t)nnodes * nnodes);
	if (!p)
		return -1;
	rewrite_put(out, h->type, h->version, p, topology(t.ncpus, nnodes, p));
	free(p);
	return 1;
}

int main(int argc, char **argv)
{
	long nnodes = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
	uint32_t n = (uint32_t)nnodes;

	if (argc != 4 || nnodes < 1 || nnodes > 64) {
		fprintf(stderr, "usage: tool_nodes SRC DST N   (N: 1 to 64 nodes)\n");
		return 1;
	}
	return rewrite_dir("tool_nodes", argv[1], argv[2], block, &n);
}
