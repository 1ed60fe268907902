/* tests/tool_nodes.c - a run directory made on this one-node host, its CPUs spread over N
 * nodes as if the machine had them: the same samples, the pages where they were (node 0),
 * so that every sample of a CPU of another node is remote. For the reports of real
 * programs on several nodes without the hardware (tests/t_compare_collide.sh: compare of
 * such a report with itself).
 *   tool_nodes SRC DST N   DST (created) gets every file of SRC; meta.mph's TOPOLOGY
 *                          block says N nodes, CPU i on node (i + 1) mod N (CPU 0, where
 *                          a lone thread usually runs, is not on its pages' node 0: its
 *                          samples are remote), distances 10 on the diagonal and 20
 *                          elsewhere; every other block as it is.
 * Exit status 0, or 1 with a message. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32c.h"
#include <memphis/format.h>

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "tool_nodes: %s: %s: %s\n", what, path, strerror(errno ? errno : EIO));
	return 1;
}

static void put(FILE *f, uint16_t type, uint16_t version, const void *p, uint32_t n)
{
	struct memphis_block h = { MEMPHIS_BLOCK_MAGIC, type, version, n, mph_crc32c(0, p, n) };

	fwrite(&h, sizeof(h), 1, f);
	fwrite(p, 1, n, f);
}

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

/* Copy the file bytes buf[0..len) into out with its TOPOLOGY blocks rewritten. */
static int convert(const unsigned char *buf, size_t len, uint32_t nnodes, FILE *out)
{
	size_t off = 0;

	while (len - off >= sizeof(struct memphis_block)) {
		struct memphis_block h;
		struct memphis_rec_topology t;

		memcpy(&h, buf + off, sizeof(h));
		if (h.magic != MEMPHIS_BLOCK_MAGIC || h.length > len - off - sizeof(h) ||
		    mph_crc32c(0, buf + off + sizeof(h), h.length) != h.crc)
			break;
		if (h.type == MPH_BLK_TOPOLOGY && h.length >= sizeof(t)) {
			unsigned char *p;

			memcpy(&t, buf + off + sizeof(h), sizeof(t));
			if (t.ncpus > 65536)
				return -1;
			p = malloc(sizeof(t) + 4 * (size_t)t.ncpus + 4 * (size_t)nnodes * nnodes);
			if (!p)
				return -1;
			put(out, h.type, h.version, p, topology(t.ncpus, nnodes, p));
			free(p);
		} else {
			fwrite(buf + off, 1, sizeof(h) + h.length, out);
		}
		off += sizeof(h) + h.length;
	}
	fwrite(buf + off, 1, len - off, out);
	return 0;
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	char src[4096], dst[4096];
	long nnodes = argc == 4 ? strtol(argv[3], NULL, 10) : 0;

	if (argc != 4 || nnodes < 1 || nnodes > 64) {
		fprintf(stderr, "usage: tool_nodes SRC DST N   (N: 1 to 64 nodes)\n");
		return 1;
	}
	if (mkdir(argv[2], 0755) < 0)
		return fail("mkdir", argv[2]);
	d = opendir(argv[1]);
	if (!d)
		return fail("opendir", argv[1]);
	while ((e = readdir(d))) {
		FILE *in, *out;
		unsigned char *buf;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", argv[1], e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", argv[2], e->d_name);
		if (stat(src, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		in = fopen(src, "rb");
		out = fopen(dst, "wb");
		buf = malloc((size_t)st.st_size + 1);
		if (!in || !out || !buf || fread(buf, 1, (size_t)st.st_size, in) != (size_t)st.st_size)
			return fail("copy", src);
		if (convert(buf, (size_t)st.st_size, (uint32_t)nnodes, out))
			return fail("convert", src);
		free(buf);
		fclose(in);
		if (fclose(out))
			return fail("write", dst);
	}
	closedir(d);
	return 0;
}
