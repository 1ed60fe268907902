/* tests/tool_v1.c - a run directory of format 2 rewritten as format 1 (the layout of
 * include/memphis/format.h before SAMPLES layout version 2), so that a memphis-report of
 * format 1 can read what today's library wrote: t_identity.sh compares that old report's
 * output with today's.
 *   tool_v1 SRC DST   DST (created) gets every file of SRC: FILE blocks with
 *                     format_version 1, SAMPLES blocks of layout 2 as layout 1 (the first
 *                     56 bytes of each record, new checksum), every other block as it is.
 * From the first block it cannot parse (damage) to the end, a file is copied unchanged.
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
	fprintf(stderr, "tool_v1: %s: %s: %s\n", what, path, strerror(errno ? errno : EIO));
	return 1;
}

static void put(FILE *f, uint16_t type, uint16_t version, const void *p, uint32_t n)
{
	struct memphis_block h = { MEMPHIS_BLOCK_MAGIC, type, version, n, mph_crc32c(0, p, n) };

	fwrite(&h, sizeof(h), 1, f);
	fwrite(p, 1, n, f);
}

/* Rewrite the file bytes buf[0..len) into out. */
static void convert(const unsigned char *buf, size_t len, FILE *out)
{
	size_t off = 0;

	while (len - off >= sizeof(struct memphis_block)) {
		struct memphis_block h;
		unsigned char *p;

		memcpy(&h, buf + off, sizeof(h));
		if (h.magic != MEMPHIS_BLOCK_MAGIC || h.length > len - off - sizeof(h) ||
		    mph_crc32c(0, buf + off + sizeof(h), h.length) != h.crc)
			break;
		p = malloc(h.length ? h.length : 1);
		if (!p)
			break;
		memcpy(p, buf + off + sizeof(h), h.length);
		if (h.type == MPH_BLK_FILE && h.length >= sizeof(struct memphis_rec_file)) {
			((struct memphis_rec_file *)p)->format_version = 1;
			put(out, h.type, h.version, p, h.length);
		} else if (h.type == MPH_BLK_SAMPLES && h.version == 2 &&
			   h.length % sizeof(struct memphis_rec_sample) == 0) {
			size_t n = h.length / sizeof(struct memphis_rec_sample);
			for (size_t i = 0; i < n; i++)
				memmove(p + i * MEMPHIS_SAMPLE_V1_SIZE,
					p + i * sizeof(struct memphis_rec_sample), MEMPHIS_SAMPLE_V1_SIZE);
			put(out, h.type, 1, p, (uint32_t)(n * MEMPHIS_SAMPLE_V1_SIZE));
		} else {
			fwrite(buf + off, 1, sizeof(h) + h.length, out);
		}
		free(p);
		off += sizeof(h) + h.length;
	}
	fwrite(buf + off, 1, len - off, out);
}

int main(int argc, char **argv)
{
	DIR *d;
	struct dirent *e;
	char src[4096], dst[4096];

	if (argc != 3) {
		fprintf(stderr, "usage: tool_v1 SRC DST\n");
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
		convert(buf, (size_t)st.st_size, out);
		free(buf);
		fclose(in);
		if (fclose(out))
			return fail("write", dst);
	}
	closedir(d);
	return 0;
}
