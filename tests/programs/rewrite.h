/* tests/programs/rewrite.h - what the tools that rewrite a run directory share (tool_v1,
 * tool_nodes): DST made from SRC file by file, each file's framed blocks walked in order, a
 * block either rewritten by the tool or copied as it is, and from the first block that does
 * not parse (damage) to the end the file copied unchanged. Static functions; include once
 * per tool. */
#ifndef MEMPHIS_TESTS_REWRITE_H
#define MEMPHIS_TESTS_REWRITE_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "crc32c.h"
#include <memphis/format.h>

/* A block's rewrite: 1 when it wrote the block to out itself, 0 to have it copied as it is,
 * -1 on failure. payload: h->length bytes. */
typedef int rewrite_block_fn(FILE *out, const struct memphis_block *h, const unsigned char *payload,
			     void *arg);

/* Write one framed block. */
static void rewrite_put(FILE *f, uint16_t type, uint16_t version, const void *p, uint32_t n)
{
	struct memphis_block h = { MEMPHIS_BLOCK_MAGIC, type, version, n, mph_crc32c(0, p, n) };

	fwrite(&h, sizeof(h), 1, f);
	fwrite(p, 1, n, f);
}

/* The file bytes buf[0..len) into out, each block through fn. 0, or -1 where fn failed. */
static int rewrite_file(const unsigned char *buf, size_t len, FILE *out, rewrite_block_fn *fn,
			void *arg)
{
	size_t off = 0;

	while (len - off >= sizeof(struct memphis_block)) {
		struct memphis_block h;
		int rc;

		memcpy(&h, buf + off, sizeof(h));
		if (h.magic != MEMPHIS_BLOCK_MAGIC || h.length > len - off - sizeof(h) ||
		    mph_crc32c(0, buf + off + sizeof(h), h.length) != h.crc)
			break;
		rc = fn(out, &h, buf + off + sizeof(h), arg);
		if (rc < 0)
			return -1;
		if (rc == 0)
			fwrite(buf + off, 1, sizeof(h) + h.length, out);
		off += sizeof(h) + h.length;
	}
	fwrite(buf + off, 1, len - off, out);
	return 0;
}

static int rewrite_fail(const char *tool, const char *what, const char *path)
{
	fprintf(stderr, "%s: %s: %s: %s\n", tool, what, path, strerror(errno ? errno : EIO));
	return 1;
}

/* DST (created) gets every regular file of SRC through rewrite_file. Exit status 0, or 1
 * with a message that names tool, what failed and the file. */
static int rewrite_dir(const char *tool, const char *src_dir, const char *dst_dir,
		       rewrite_block_fn *fn, void *arg)
{
	char src[4096], dst[4096];
	struct dirent *e;
	DIR *d;

	if (mkdir(dst_dir, 0755) < 0)
		return rewrite_fail(tool, "mkdir", dst_dir);
	d = opendir(src_dir);
	if (!d)
		return rewrite_fail(tool, "opendir", src_dir);
	while ((e = readdir(d))) {
		FILE *in, *out;
		unsigned char *buf;
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", src_dir, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", dst_dir, e->d_name);
		if (stat(src, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		in = fopen(src, "rb");
		out = fopen(dst, "wb");
		buf = malloc((size_t)st.st_size + 1);
		if (!in || !out || !buf || fread(buf, 1, (size_t)st.st_size, in) != (size_t)st.st_size)
			return rewrite_fail(tool, "copy", src);
		if (rewrite_file(buf, (size_t)st.st_size, out, fn, arg))
			return rewrite_fail(tool, "convert", src);
		free(buf);
		fclose(in);
		if (fclose(out))
			return rewrite_fail(tool, "write", dst);
	}
	closedir(d);
	return 0;
}

#endif
