/* tests/unit/runfiles.h - small run-directory files for the unit tests: framed blocks
 * (include/memphis/format.h) and a meta.mph with a RUN block and, on request, PAGES
 * blocks for regions 1 and 2. Static functions; include once per test. */
#ifndef MEMPHIS_TESTS_RUNFILES_H
#define MEMPHIS_TESTS_RUNFILES_H

#include <errno.h>
#include <stdio.h>

#include "crc32c.h"
#include <memphis/format.h>

/* Write one framed block of layout version `version`. */
static void put_block_v(FILE *f, uint16_t type, uint16_t version, const void *p, uint32_t n)
{
	struct memphis_block b = { MEMPHIS_BLOCK_MAGIC, type, version, n, mph_crc32c(0, p, n) };

	fwrite(&b, sizeof(b), 1, f);
	fwrite(p, 1, n, f);
}

/* Write one framed block in the layout this tree writes (SAMPLES 2, the rest 1). */
static void put_block(FILE *f, uint16_t type, const void *p, uint32_t n)
{
	put_block_v(f, type, type == MPH_BLK_SAMPLES ? 2 : 1, p, n);
}

/* DIR/meta.mph: FILE and RUN blocks, and with_pages: PAGES blocks of regions 0 and 2 (three
 * pages each), then of regions 3, 3, 4 and 5 (one page each). */
static void write_meta(const char *dir, int with_pages)
{
	char path[512];
	FILE *f;
	struct memphis_rec_file rf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_META, -1, 1, 0 };
	const char run[] = "exe=/bin/true\npage_size=4096\n";

	snprintf(path, sizeof(path), "%s/meta.mph", dir);
	f = fopen(path, "wb");
	if (!f)
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
	put_block(f, MPH_BLK_RUN, run, sizeof(run) - 1);
	if (with_pages) {
		struct {
			struct memphis_rec_pages_hdr h;
			struct memphis_rec_page p[3];
		} r0 = { { 1, 0, 3 }, { { 0x1000, 0, 0 }, { 0x2000, 1, 0 }, { 0x3000, -ENOENT, 0 } } },
		  r2 = { { 2, 2, 3 }, { { 0x1000, 1, 0 }, { 0x2000, 1, 0 }, { 0x9000, 0, 0 } } };
		struct {
			struct memphis_rec_pages_hdr h;
			struct memphis_rec_page p[1];
		} one[] = { { { 3, 3, 1 }, { { 0x1000, 1, 0 } } }, { { 4, 3, 1 }, { { 0x1000, 0, 0 } } },
			    { { 5, 4, 1 }, { { 0xa000, 1, 0 } } }, { { 6, 5, 1 }, { { 0xa000, 0, 0 } } } };
		put_block(f, MPH_BLK_PAGES, &r0, sizeof(r0));
		put_block(f, MPH_BLK_PAGES, &r2, sizeof(r2));
		for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
			put_block(f, MPH_BLK_PAGES, &one[i], sizeof(one[i]));
	}
	fclose(f);
}

#endif /* MEMPHIS_TESTS_RUNFILES_H */
