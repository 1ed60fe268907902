/* tests/unit_report.c - unit tests of memphis-report's pieces: the heap index over time
 * (reuse after free, nesting, millions of objects), the page-home map (region, first touch,
 * fallback), the JSON writer's escaping and the run-directory reader's damage messages.
 * Table-driven where it fits; TAP output. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <memphis/format.h>

#include "crc32c.h"
#include "heap.h"
#include "json.h"
#include "pages.h"
#include "rundir.h"

static int n_test, n_fail;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++n_test);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	n_fail += !cond;
}

static void test_heap(void)
{
	/* addr, size, t_alloc; frees below */
	struct memphis_rec_alloc al[] = {
		{ .time = 10, .addr = 0x1000, .size = 0x100 },  /* 0: freed at 20 */
		{ .time = 30, .addr = 0x1000, .size = 0x80 },   /* 1: same address, reused */
		{ .time = 5, .addr = 0x2000, .size = 0x1000 },  /* 2: big, never freed */
		{ .time = 40, .addr = 0x5000, .size = 0x10 },   /* 3: reuse without a free: ends at 50 */
		{ .time = 50, .addr = 0x5000, .size = 0x20 },   /* 4 */
		{ .time = 1, .addr = 0x10000, .size = 0x100000 }, /* 5: huge, freed at 2 */
		{ .time = 3, .addr = 0x10100, .size = 0x10 },   /* 6: inside 5's old range */
	};
	struct memphis_rec_free fr[] = { { .time = 20, .addr = 0x1000 }, { .time = 2, .addr = 0x10000 },
					 { .time = 99, .addr = 0xdead } };
	static const struct {
		uint64_t addr, t;
		int want; /* record index, -1 none */
		const char *what;
	} cases[] = {
		{ 0x1000, 15, 0, "live object at its start" },
		{ 0x10ff, 15, 0, "live object at its last byte" },
		{ 0x1100, 15, -1, "one past the end" },
		{ 0x1010, 25, -1, "after its free, before the reuse" },
		{ 0x1010, 35, 1, "the reusing allocation" },
		{ 0x1090, 35, -1, "beyond the smaller reuse" },
		{ 0x1000, 5, -1, "before the first allocation" },
		{ 0x2fff, 100, 2, "never freed object, late" },
		{ 0x5008, 45, 3, "reuse without free: older one before" },
		{ 0x5018, 55, 4, "reuse without free: newer one after" },
		{ 0x5008, 55, 4, "reuse without free: same byte, newer" },
		{ 0x10100, 4, 6, "small object inside a freed big one" },
		{ 0x20000, 4, -1, "freed big object's range later" },
		{ 0x20000, 1, 5, "big object while live" },
	};
	struct mr_heap h;

	ok(mr_heap_build(&h, al, sizeof(al) / sizeof(al[0]), fr, sizeof(fr) / sizeof(fr[0])) == 0,
	   "heap: build");
	ok(h.unmatched_frees == 1, "heap: one free without allocation (%zu)", h.unmatched_frees);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mr_heap_obj *o = mr_heap_find(&h, cases[i].addr, cases[i].t);
		int got = o ? (int)o->rec : -1;
		ok(got == cases[i].want, "heap: %s (0x%" PRIx64 " at %" PRIu64 "): %d, want %d",
		   cases[i].what, cases[i].addr, cases[i].t, got, cases[i].want);
	}
	mr_heap_free(&h);

	/* a million objects, each address reused 4 times over time */
	{
		size_t n = 1000000;
		struct memphis_rec_alloc *a = calloc(n, sizeof(*a));
		struct memphis_rec_free *f = calloc(n, sizeof(*f));
		struct timespec t0, t1;
		size_t bad = 0;
		double ns;

		if (!a || !f) {
			ok(0, "heap: allocate the big case");
			return;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t slot = i / 4, gen = i % 4;
			a[i] = (struct memphis_rec_alloc){ .time = gen * 100 + 1, .addr = 0x100000 + slot * 64,
							   .size = 48 };
			f[i] = (struct memphis_rec_free){ .time = gen * 100 + 50, .addr = 0x100000 + slot * 64 };
		}
		ok(mr_heap_build(&h, a, n, f, n) == 0, "heap: build 1,000,000 objects");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i = 0; i < n; i++) {
			uint64_t slot = (i * 7919) % (n / 4), gen = i % 4;
			const struct mr_heap_obj *o = mr_heap_find(&h, 0x100000 + slot * 64 + 8, gen * 100 + 10);
			bad += !o || o->rec != slot * 4 + gen;
			bad += mr_heap_find(&h, 0x100000 + slot * 64 + 8, gen * 100 + 60) != NULL;
			bad += mr_heap_find(&h, 0x100000 + slot * 64 + 50, gen * 100 + 10) != NULL;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (3.0 * (double)n);
		ok(bad == 0, "heap: 3,000,000 lookups among 1,000,000 reused objects right (%zu wrong)", bad);
		printf("# heap lookup among 1,000,000 objects: %.0f ns\n", ns);
		mr_heap_free(&h);
		free(a);
		free(f);
	}
}

/* Write one framed block. */
static void put_block(FILE *f, uint16_t type, const void *p, uint32_t n)
{
	struct memphis_block b = { MEMPHIS_BLOCK_MAGIC, type, 1, n, mph_crc32c(0, p, n) };

	fwrite(&b, sizeof(b), 1, f);
	fwrite(p, 1, n, f);
}

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
		put_block(f, MPH_BLK_PAGES, &r0, sizeof(r0));
		put_block(f, MPH_BLK_PAGES, &r2, sizeof(r2));
	}
	fclose(f);
}

static void test_pages(void)
{
	char dir[] = "/tmp/unit_report.XXXXXX";
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
	mr_pagemap_free(&pm);
	mr_run_close(run);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
}

static void test_reader(void)
{
	char dir[] = "/tmp/unit_report.XXXXXX", path[600], err[512];
	struct mr_run *run = NULL;
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	struct memphis_rec_sample smp[10];
	struct memphis_rec_file rf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_SAMPLES, 1, 1, 0 };
	size_t got = 0, n;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "reader: temp dir");
		return;
	}
	write_meta(dir, 0);
	memset(smp, 0, sizeof(smp));
	snprintf(path, sizeof(path), "%s/cpu001.mph", dir);
	f = fopen(path, "wb");
	if (!f)
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));       /* 40 bytes */
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));   /* 16 + 560 */
	put_block(f, 200, "unknown", 7);                   /* skipped; 23 bytes, misaligns */
	put_block(f, MPH_BLK_SAMPLES, smp, 3 * sizeof(smp[0])); /* at 639 */
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));   /* at 823: damaged below */
	fclose(f);
	f = fopen(path, "r+b");
	if (!f)
		return;
	fseek(f, 823 + 16 + 5, SEEK_SET);
	fputc(0x55, f);
	fclose(f);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "reader: open (%s)", err);
	if (!run)
		return;
	ok(mr_samples_begin(run, &it) == 0, "reader: begin");
	while ((n = mr_samples_next(it, &s)) > 0)
		got += n;
	mr_samples_end(it);
	ok(got == 13, "reader: 13 samples before the damage (%zu)", got);
	ok(run->ndamage == 1 && strstr(run->damage[0], "cpu001.mph: offset 823: checksum mismatch in "
						    "SAMPLES block; 13 samples read before it"),
	   "reader: damage message names file, offset, block and count (%s)",
	   run->ndamage ? run->damage[0] : "none");
	ok(run->unknown_blocks == 1, "reader: the unknown block was skipped (%" PRIu64 ")",
	   run->unknown_blocks);
	mr_run_close(run);

	/* a FILE block of a newer format is refused */
	rf.format_version = MEMPHIS_FORMAT_VERSION + 1;
	f = fopen(path, "wb");
	if (!f)
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
	fclose(f);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == -EPROTO && strstr(err, "format version"),
	   "reader: newer format version refused (%s)", err);
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
}

static void test_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct mr_json j;

	if (!f) {
		ok(0, "json: memstream");
		return;
	}
	mr_json_init(&j, f);
	mr_json_obj(&j);
	mr_json_key(&j, "s");
	mr_json_str(&j, "a\"b\\c\nd\te\x01" "f/\xc3\xa9");
	mr_json_key(&j, "n");
	mr_json_u64(&j, UINT64_MAX);
	mr_json_key(&j, "a");
	mr_json_arr(&j);
	mr_json_arr_end(&j);
	mr_json_key(&j, "z");
	mr_json_null(&j);
	mr_json_obj_end(&j);
	fclose(f);
	ok(strstr(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001f/\xc3\xa9\"") != NULL, "json: string escaping");
	ok(strstr(buf, "18446744073709551615") != NULL, "json: full uint64");
	ok(strstr(buf, "\"a\": []") != NULL, "json: empty array");
	ok(strstr(buf, "\"z\": null\n}") != NULL, "json: commas and closing");
	free(buf);
}

/* One string through mr_json_write_string, in a malloc'd buffer (NULL on failure). */
static char *json_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	mr_json_write_string(f, s);
	fclose(f);
	return buf;
}

/* JSON text must be valid UTF-8 (issue 11): a region name cut inside a character, stray
 * bytes, overlong forms and surrogates become U+FFFD; well-formed UTF-8 passes through. */
static void test_json_utf8(void)
{
	static const struct { const char *in, *out, *what; } cases[] = {
		{ "ab\xc3\xa9", "\"ab\xc3\xa9\"", "2-byte character kept" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"", "3- and 4-byte kept" },
		{ "name\xc3", "\"name\\ufffd\"", "cut after a lead byte" },
		{ "x\xe2\x82", "\"x\\ufffd\\ufffd\"", "cut inside a 3-byte character" },
		{ "\x80z", "\"\\ufffdz\"", "stray continuation byte" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong form" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "surrogate" },
		{ "\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "above U+10FFFF" },
		{ "\xff", "\"\\ufffd\"", "0xff" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = json_string(cases[i].in);
		ok(got && !strcmp(got, cases[i].out), "json utf-8: %s", cases[i].what);
		free(got);
	}
}

static void test_crc(void)
{
	static const size_t sizes[] = { 0, 1, 7, 4095, 4096, 4097, 229376, 229381, 1 << 20 };
	unsigned char *buf = malloc((1 << 20) + 16);
	uint32_t x = 12345;
	size_t bad = 0;

	if (!buf) {
		ok(0, "crc: buffer");
		return;
	}
	for (size_t i = 0; i < (1 << 20) + 16; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t off = 0; off < 3; off++)
			bad += mph_crc32c_fast(buf + off, sizes[i]) != mph_crc32c(0, buf + off, sizes[i]);
	ok(bad == 0, "crc: three-stream CRC-32C equals mph_crc32c (%zu differ)", bad);
	ok(mph_crc32c_fast("123456789", 9) == 0xe3069283u, "crc: check value of \"123456789\"");
	free(buf);
}

int main(void)
{
	char b[32];

	test_crc();
	test_heap();
	test_pages();
	test_reader();
	test_json();
	test_json_utf8();
	ok(!strcmp(mr_fmt_count(b, 1234567), "1,234,567") && !strcmp(mr_fmt_count(b, 999), "999"),
	   "thousands separators");
	printf("1..%d\n", n_test);
	return n_fail != 0;
}
