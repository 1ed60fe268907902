/* tests/unit/unit_pages.c - the page-home map of memphis-report (post/run/pages.c): a region's
 * own PAGES answer over the first-touch home, unknown (-errno) nodes, pages only another
 * region knows, a region's last record of a page winning; pages far apart.
 * Table-driven; TAP output. */
#include <stdio.h>
#include <stdlib.h>

#include "run/pages.h"
#include "run/rundir.h"
#include "runfiles.h"

#include "tap.h"

static void test_pages(void)
{
	char dir[] = "/tmp/unit_pages.XXXXXX";
	struct mr_run *run = NULL;
	struct mr_pagemap pm = { 0 };
	char err[256];
	static const struct {
		uint32_t region;
		uint64_t addr;
		int want;
		const char *what;
	} cases[] = {
		{ 1, 0x1008, 0, "region without pages: the first-touch home" },
		{ 2, 0x1008, 1, "region's own answer where it differs (page moved)" },
		{ 2, 0x2fff, 1, "region agrees with first touch" },
		{ 1, 0x3000, -1, "a -errno node is unknown" },
		{ 1, 0x9000, 0, "page only another region knows" },
		{ 0, 0x7000, -1, "page nobody knows" },
		{ 3, 0x1008, 0, "region's last record wins, where it agrees with first touch" },
		{ 2, 0x1008, 1, "after a later region agreed: still the region's own" },
		{ 4, 0xa000, 1, "page no first touch knows: the region's own answer" },
		{ 1, 0xa000, 0, "page no first touch knows: the last region's answer" },
		{ 5, 0xa000, 0, "page no first touch knows: the last region itself" },
	};

	if (!mkdtemp(dir)) {
		ok(0, "pages: temp dir");
		return;
	}
	write_meta(dir, 1);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "pages: open a run with PAGES blocks (%s)", err);
	if (!run)
		return;
	ok(mr_pagemap_build(&pm, run) == 0, "pages: build the map");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int got = mr_pagemap_node(&pm, cases[i].region, cases[i].addr);
		ok(got == cases[i].want, "pages: %s: %d, want %d", cases[i].what, got, cases[i].want);
	}
	/* mr_pagemap_home: the answer of every region, or VARIES where regions differ */
	static const struct {
		uint64_t addr;
		int want;
	} homes[] = { { 0x1008, MR_PAGEMAP_VARIES }, { 0x2fff, 1 },
		      { 0x3000, -1 }, { 0x9000, 0 }, { 0x7000, -1 }, { 0xa000, MR_PAGEMAP_VARIES } };
	for (size_t i = 0; i < sizeof(homes) / sizeof(homes[0]); i++) {
		int home = mr_pagemap_home(&pm, homes[i].addr), same = 1;

		for (uint32_t region = 0; region <= 5 && home != MR_PAGEMAP_VARIES; region++)
			same = same && mr_pagemap_node(&pm, region, homes[i].addr) == home;
		ok(home == homes[i].want && same, "pages: home of %#llx: %d, want %d%s",
		   (unsigned long long)homes[i].addr, home, homes[i].want,
		   same ? "" : " (a region says otherwise)");
	}
	mr_pagemap_free(&pm);
	mr_run_close(run);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
}

/* Pages far apart, in the map's chunks of 512 pages: both sides of a chunk's edge, the top
 * of the user address space, a page at 2^48 (no page there: unknown), records that go
 * back to a chunk seen before, and a region's own answer in another chunk; with 4 KiB
 * and 64 KiB pages, and with one chunk at most (the other pages in the map). */
static void test_chunks(unsigned page_size, size_t chunk_max)
{
	char dir[] = "/tmp/unit_pages.XXXXXX", path[600], run_text[64], err[256];
	uint64_t ps = page_size, edge = 512 * ps, top = 0x800000000000ull - ps;
	struct {
		struct memphis_rec_pages_hdr h;
		struct memphis_rec_page p[6];
	} r0 = { { 1, 0, 6 }, { { edge - ps, 1, 0 }, { edge, 0, 0 }, { top, 1, 0 }, { ps, 0, 0 },
				 { 1ull << 48, 1, 0 }, { edge + ps, 1, 0 } } };
	struct {
		struct memphis_rec_pages_hdr h;
		struct memphis_rec_page p[1];
	} r2 = { { 2, 2, 1 }, { { edge, 1, 0 } } };
	struct memphis_rec_file rf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_META, -1, 1, 0 };
	struct mr_pagemap pm = { .chunk_max = chunk_max };
	struct mr_run *run = NULL;
	FILE *f;
	int n;

	if (!mkdtemp(dir)) {
		ok(0, "chunks: temp dir");
		return;
	}
	snprintf(path, sizeof(path), "%s/meta.mph", dir);
	n = snprintf(run_text, sizeof(run_text), "exe=/bin/true\npage_size=%u\n", page_size);
	f = fopen(path, "wb");
	if (f) {
		put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
		put_block(f, MPH_BLK_RUN, run_text, (uint32_t)n);
		put_block(f, MPH_BLK_PAGES, &r0, sizeof(r0));
		put_block(f, MPH_BLK_PAGES, &r2, sizeof(r2));
		fclose(f);
	}
	if (mr_run_open(dir, &run, err, sizeof(err)) || mr_pagemap_build(&pm, run)) {
		ok(0, "chunks: open and build (%s)", err);
	} else {
		int got[] = { mr_pagemap_node(&pm, 0, edge - 1), mr_pagemap_node(&pm, 0, edge),
			      mr_pagemap_node(&pm, 2, edge + 8), mr_pagemap_node(&pm, 0, top + ps - 1),
			      mr_pagemap_node(&pm, 0, ps), mr_pagemap_node(&pm, 0, 0),
			      mr_pagemap_node(&pm, 0, 1ull << 48), mr_pagemap_node(&pm, 0, edge + ps),
			      mr_pagemap_node(&pm, 0, edge + 2 * ps), mr_pagemap_home(&pm, edge) };
		int want[] = { 1, 0, 1, 1, 0, -1, -1, 1, -1, MR_PAGEMAP_VARIES };
		int right = 0;

		for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++)
			right += got[i] == want[i];
		ok(right == (int)(sizeof(got) / sizeof(got[0])) && pm.entries == 6 &&
		   pm.chunks.n == (chunk_max ? chunk_max : 3) && pm.far.count == (chunk_max ? 3 : 0),
		   "chunks of %u-byte pages, at most %zu: %d of %zu homes right, %llu records, "
		   "%zu chunks, %zu pages in the map", page_size, chunk_max, right,
		   sizeof(got) / sizeof(got[0]), (unsigned long long)pm.entries, pm.chunks.n,
		   pm.far.count);
	}
	mr_pagemap_free(&pm);
	mr_run_close(run);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path)) {
	}
}

int main(void)
{
	test_pages();
	test_chunks(4096, 0);
	test_chunks(65536, 0);
	test_chunks(4096, 1); /* the second and third chunks' pages in the map */
	return tap_done();
}
