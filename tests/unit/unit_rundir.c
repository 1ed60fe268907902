/* tests/unit/unit_rundir.c - the run-directory reader of memphis-report (post/run/rundir.c):
 * samples read up to a damaged block, the damage message (file, offset, block, count),
 * unknown blocks skipped, a newer format refused, SAMPLES of layout version 1 (56-byte
 * records of format 1 runs), 2 and 3 (compact: common/samples3.c, its edge cases and every
 * fault it rejects) read alike; STACKS layout 2's DELTA entries; STACKS entries found for their own batch of
 * samples and for first touches, a damaged STACKS block noted with the rest read on; and its
 * thousands separators (mr_fmt_count); blocks of every size through the read-ahead buffer;
 * PAGES records, left in the mapping of meta.mph where it is mapped. The readers map the
 * files and read() them where mapping fails: the tests of files run both ways (rundir_no_map
 * in the second pass). TAP output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/rundir.h"
#include "runfiles.h"

#include "run/rundir_impl.h"
#include "samples3.h"
#include "stacks2.h"

#include "tap.h"

static void test_reader(void)
{
	char dir[] = "/tmp/unit_rundir.XXXXXX", path[600], err[512];
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
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));   /* 16 + 640 */
	put_block(f, 200, "unknown", 7);                   /* skipped; 23 bytes, misaligns */
	put_block(f, MPH_BLK_SAMPLES, smp, 3 * sizeof(smp[0])); /* at 719 */
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));   /* at 927: damaged below */
	fclose(f);
	f = fopen(path, "r+b");
	if (!f)
		return;
	fseek(f, 927 + 16 + 5, SEEK_SET);
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
	ok(run->ndamage == 1 && strstr(run->damage[0], "cpu001.mph: offset 927: checksum mismatch in "
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

/* A format 1 cpu file (SAMPLES layout 1, 56-byte records) next to a format 2 one (layout
 * 2, 64 bytes): every field of both comes back, ins_lat 0 for layout 1. */
static void test_versions(void)
{
	char dir[] = "/tmp/unit_rundir.XXXXXX", path[600], err[512];
	unsigned char v1[3][MEMPHIS_SAMPLE_V1_SIZE];
	struct memphis_rec_sample v2[2], got[5], want[5];
	struct memphis_rec_file rf = { 1, MPH_FILE_SAMPLES, 0, 1, 0 };
	struct mr_run *run = NULL;
	struct mr_sample_iter *it;
	const struct memphis_rec_sample *s;
	size_t ngot = 0, n;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "versions: temp dir");
		return;
	}
	write_meta(dir, 0);
	memset(want, 0, sizeof(want));
	for (int i = 0; i < 5; i++) {
		want[i] = (struct memphis_rec_sample){
			.time = 1000u + (uint64_t)i, .ip = 0x401000u + (uint64_t)i,
			.addr = 0x7f0000001000u + 64u * (uint64_t)i, .sampled_ip = 0x401004u + (uint64_t)i,
			.data_src = i < 3 ? 0 : 0x10268100142ull, .tid = 77u + (uint32_t)i,
			.region = 1, .weight = i < 3 ? 1u : 0x47u + (uint32_t)i,
			.cpu = (uint16_t)i, .flags = MPH_S_EXACT | MPH_S_LOAD,
			.ins_lat = (uint16_t)(i < 3 ? 0 : 0x30 + i),
		};
	}
	for (int i = 0; i < 3; i++)
		memcpy(v1[i], &want[i], MEMPHIS_SAMPLE_V1_SIZE);
	memcpy(v2, &want[3], sizeof(v2));
	snprintf(path, sizeof(path), "%s/cpu000.mph", dir);
	f = fopen(path, "wb");
	if (!f)
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
	put_block_v(f, MPH_BLK_SAMPLES, 1, v1, sizeof(v1));
	put_block_v(f, MPH_BLK_SAMPLES, 1, v1, MEMPHIS_SAMPLE_V1_SIZE + 8); /* not whole: damage */
	fclose(f);
	rf.format_version = 2;
	rf.cpu = 1;
	snprintf(path, sizeof(path), "%s/cpu001.mph", dir);
	f = fopen(path, "wb");
	if (!f)
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
	put_block_v(f, MPH_BLK_SAMPLES, 2, v2, sizeof(v2));
	put_block_v(f, MPH_BLK_SAMPLES, 4, v2, sizeof(v2));     /* a future layout: skipped */
	fclose(f);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "versions: open (%s)", err);
	if (!run)
		return;
	ok(mr_samples_begin(run, &it) == 0, "versions: begin");
	while ((n = mr_samples_next(it, &s)) > 0) {
		for (size_t i = 0; i < n && ngot < 5; i++)
			got[ngot++] = s[i];
	}
	mr_samples_end(it);
	ok(ngot == 5, "versions: 3 layout 1 and 2 layout 2 samples (%zu)", ngot);
	for (size_t i = 0; i < ngot; i++)
		ok(!memcmp(&got[i], &want[i], sizeof(got[i])),
		   "versions: sample %zu (layout %d) has every field, ins_lat %u", i, i < 3 ? 1 : 2,
		   (unsigned)got[i].ins_lat);
	ok(run->ndamage == 1 && strstr(run->damage[0], "cpu000.mph: offset 224: SAMPLES block of 64 bytes is not "
						    "a whole number of 56-byte records"),
	   "versions: a layout 1 block of a partial record is damage (%s)",
	   run->ndamage ? run->damage[0] : "none");
	ok(run->unknown_blocks == 1, "versions: the layout 4 block was skipped (%" PRIu64 ")",
	   run->unknown_blocks);
	mr_run_close(run);
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
}

/* Append one STACKS entry (kind, tid, time, IP register ip, len stack bytes of `bytes`,
 * stack_len claimed) to buf at *n. */
static void put_entry(unsigned char *buf, size_t *n, uint16_t kind, uint32_t tid, uint64_t time,
		      uint64_t ip, const char *bytes, uint32_t len, uint32_t claimed)
{
	struct memphis_rec_stack e = { .time = time, .tid = tid, .kind = kind,
				       .stack_len = claimed };

	e.regs[8] = ip;
	e.regs[7] = 0x7ffd0000;
	memcpy(buf + *n, &e, sizeof(e));
	memset(buf + *n + sizeof(e), 0, (len + 7) & ~7u);
	memcpy(buf + *n + sizeof(e), bytes, len);
	*n += sizeof(e) + ((len + 7) & ~7u);
}

static void test_stacks(void)
{
	char dir[] = "/tmp/unit_rundir.XXXXXX", path[600], err[512], cmd[700];
	struct memphis_rec_file rf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_SAMPLES, 0, 1, 0 };
	struct memphis_rec_file mf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_META, -1, 1, 0 };
	struct memphis_rec_sample smp[3] = {
		{ .time = 100, .tid = 5, .flags = MPH_S_STACK },
		{ .time = 200, .tid = 5, .flags = MPH_S_STACK },
		{ .time = 300, .tid = 5, .flags = MPH_S_STACK }, /* its entry is missing */
	};
	struct memphis_rec_touch tch[4] = {
		{ .time = 50, .tid = 7, .ip = 0x1234, .flags = MPH_TOUCH_STACK },
		{ .time = 60, .tid = 7, .ip = 0x1234 }, /* not flagged: no entry looked up */
		{ .time = 70, .tid = 7, .ip = 0x1234, .flags = MPH_TOUCH_STACK }, /* shares 50's */
		{ .time = 80, .tid = 7, .ip = 0x5678, .flags = MPH_TOUCH_STACK }, /* another IP */
	};
	unsigned char buf[4096];
	size_t n = 0, got = 0, found = 0, k;
	const struct memphis_rec_sample *s;
	const struct memphis_rec_stack *e;
	const uint8_t *b;
	struct mr_run *run = NULL;
	struct mr_sample_iter *it;
	FILE *f;

	if (!mkdtemp(dir)) {
		ok(0, "stacks: temp dir");
		return;
	}
	snprintf(path, sizeof(path), "%s/meta.mph", dir);
	if (!(f = fopen(path, "wb")))
		return;
	put_block(f, MPH_BLK_FILE, &mf, sizeof(mf));
	put_block(f, MPH_BLK_RUN, "exe=/bin/true\n", 14);
	put_entry(buf, &n, MPH_STACK_TOUCH, 7, 50, 0x1234, "touch", 5, 5);
	put_entry(buf, &n, MPH_STACK_SAMPLE, 7, 60, 0x99, "", 0, 0);
	put_block(f, MPH_BLK_STACKS, buf, (uint32_t)n);    /* at 88 */
	put_block(f, MPH_BLK_FIRST_TOUCH, tch, sizeof(tch));
	put_block(f, MPH_BLK_STACKS, buf, 100);            /* a cut entry: damaged */
	put_block(f, MPH_BLK_FIRST_TOUCH, tch, sizeof(tch));
	k = (size_t)ftell(f);
	fclose(f);

	snprintf(path, sizeof(path), "%s/cpu000.mph", dir);
	if (!(f = fopen(path, "wb")))
		return;
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));       /* 40 bytes */
	n = 0;
	put_entry(buf, &n, MPH_STACK_SAMPLE, 5, 100, 0xabc, "abcdefghijkl", 12, 12);
	put_entry(buf, &n, MPH_STACK_SAMPLE, 5, 200, 0xdef, "", 0, 0);
	put_entry(buf, &n, MPH_STACK_TOUCH, 5, 300, 0xfff, "", 0, 0); /* a touch's: not matched */
	put_block(f, MPH_BLK_STACKS, buf, (uint32_t)n);    /* at 40 */
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));
	n = 0;
	put_entry(buf, &n, MPH_STACK_SAMPLE, 5, 300, 0x300, "", 0, 4096); /* claims too much */
	put_block(f, MPH_BLK_STACKS, buf, (uint32_t)n);
	put_block(f, MPH_BLK_SAMPLES, smp, sizeof(smp));   /* none of the first batch's entries */
	fclose(f);

	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "stacks: open (%s)", err);
	if (!run)
		return;
	e = mr_run_touch_stack(run, &run->touches[0], &b);
	ok(run->ntouches == 8 && e && e->regs[8] == 0x1234 && e->stack_len == 5 && !memcmp(b, "touch", 5),
	   "stacks: a first touch's entry found (%zu touches)", run->ntouches);
	ok(!mr_run_touch_stack(run, &run->touches[1], &b) && !b,
	   "stacks: an unflagged touch has none");
	ok(mr_run_touch_stack(run, &run->touches[2], &b) == e && b,
	   "stacks: a later touch of the thread at the same IP shares its last entry");
	ok(!mr_run_touch_stack(run, &run->touches[3], &b) && !b,
	   "stacks: ... not one at another IP");
	ok(run->ndamage == 1 && strstr(run->damage[0], "meta.mph: offset ") &&
	   strstr(run->damage[0], "STACKS block") && strstr(run->damage[0], "entries before it were kept"),
	   "stacks: a damaged STACKS block of meta.mph noted, the blocks after it read (%s, %zu bytes)",
	   run->ndamage ? run->damage[0] : "none", k);
	ok(mr_samples_begin(run, &it) == 0, "stacks: begin");
	for (int batch = 0; (n = mr_samples_next(it, &s)) > 0; batch++) {
		for (size_t i = 0; i < n; i++) {
			e = mr_samples_stack(it, &s[i], &b);
			got++;
			if (!e)
				continue;
			found++;
			if (batch == 0 && i == 0)
				ok(e->regs[8] == 0xabc && e->stack_len == 12 && !memcmp(b, "abcdefghijkl", 12),
				   "stacks: a sample's entry holds its registers and bytes");
			if (batch == 0 && i == 1)
				ok(e->regs[8] == 0xdef && e->stack_len == 0, "stacks: an empty stack");
		}
	}
	mr_samples_end(it);
	ok(got == 6 && found == 2, "stacks: 6 samples, 2 entries: none for another kind, another "
	   "batch or a missing one (%zu, %zu)", got, found);
	ok(run->ndamage == 2 && strstr(run->damage[1], "cpu000.mph: offset ") &&
	   strstr(run->damage[1], "claims 4096 stack bytes, beyond the block"),
	   "stacks: a damaged STACKS block of a cpu file noted with file and offset (%s)",
	   run->ndamage > 1 ? run->damage[1] : "none");
	ok(run->cpus[0].stack_blocks == 2 && run->cpus[0].stacks == 3,
	   "stacks: counts per file (%" PRIu64 " blocks, %" PRIu64 " entries)",
	   run->cpus[0].stack_blocks, run->cpus[0].stacks);
	ok(mr_samples_begin(run, &it) == 0, "stacks: a second pass");
	while (mr_samples_next(it, &s) > 0)
		;
	mr_samples_end(it);
	ok(run->ndamage == 2, "stacks: ... notes the damaged block no second time (%zu messages)",
	   run->ndamage);
	mr_run_close(run);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
}

/* meta.mph through the read-ahead buffer (4 KiB growing to 256 KiB): thousands of small
 * NOTE blocks whose frames straddle every buffer boundary, and NOTE payloads larger than
 * the buffer (read past it) between them; every block comes back whole and in order. */
static void test_readahead(void)
{
	enum { SMALL = 3000, BIG = 300000 };
	static const char XS[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; /* 37 */
	char dir[] = "/tmp/unit_rundir.XXXXXX", path[600], err[512];
	struct memphis_rec_file rf = { MEMPHIS_FORMAT_VERSION, MPH_FILE_META, -1, 1, 0 };
	const char run_kv[] = "exe=/bin/true\n";
	struct mr_run *run = NULL;
	char *big = malloc(8 + BIG + 1), small[64];
	size_t bad = 0;
	FILE *f;

	if (!big || !mkdtemp(dir)) {
		ok(0, "read-ahead: temp dir");
		free(big);
		return;
	}
	snprintf(path, sizeof(path), "%s/meta.mph", dir);
	f = fopen(path, "wb");
	if (!f) {
		free(big);
		return;
	}
	put_block(f, MPH_BLK_FILE, &rf, sizeof(rf));
	put_block(f, MPH_BLK_RUN, run_kv, sizeof(run_kv) - 1);
	memset(big, 0, 8);
	memset(big + 8, 'b', BIG);
	for (int i = 0; i < SMALL; i++) {
		int n;

		memset(small, 0, 8);
		n = snprintf(small + 8, sizeof(small) - 8, "note %d %.*s", i, i % 37, XS);
		put_block(f, MPH_BLK_NOTE, small, (uint32_t)(8 + n));
		if (i == 1 || i == 1500)
			put_block(f, MPH_BLK_NOTE, big, 8 + BIG);
	}
	fclose(f);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "read-ahead: open (%s)", err);
	if (run) {
		size_t k = 0;

		ok(run->nnotes == SMALL + 2 && run->ndamage == 0,
		   "read-ahead: %zu notes of %d, %zu damaged", run->nnotes, SMALL + 2, run->ndamage);
		for (int i = 0; i < SMALL && k < run->nnotes; i++) {
			char want[64];

			snprintf(want, sizeof(want), "note %d %.*s", i, i % 37, XS);
			bad += strcmp(run->notes[k++].text, want) != 0;
			if ((i == 1 || i == 1500) && k < run->nnotes)
				bad += strlen(run->notes[k++].text) != BIG;
		}
		ok(bad == 0, "read-ahead: every note whole and in order (%zu wrong)", bad);
		mr_run_close(run);
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path)) {
	}
	free(big);
}

/* PAGES blocks after a text block of odd length (their records not 8-byte aligned in the
 * file): every record read back, in place when the file is mapped. */
static void test_pages(void)
{
	char dir[] = "/tmp/unit_rundir.XXXXXX", err[512];
	struct mr_run *run = NULL;

	if (!mkdtemp(dir)) {
		ok(0, "pages: temp dir");
		return;
	}
	write_meta(dir, 1);
	ok(mr_run_open(dir, &run, err, sizeof(err)) == 0, "pages: open (%s)", err);
	if (run) {
		struct memphis_rec_page a = run->npages == 6 ? mr_pages_at(&run->pages[0], 2)
							     : (struct memphis_rec_page){ 0 };
		struct memphis_rec_page b = run->npages == 6 ? mr_pages_at(&run->pages[1], 0)
							     : (struct memphis_rec_page){ 0 };

		ok(run->npages == 6 && run->pages[1].hdr.region == 2 && run->pages[1].hdr.count == 3,
		   "pages: six blocks, their headers (%zu)", run->npages);
		ok(a.page == 0x3000 && a.node == -ENOENT && b.page == 0x1000 && b.node == 1,
		   "pages: records read whole (0x%llx %d, 0x%llx %d)", (unsigned long long)a.page,
		   a.node, (unsigned long long)b.page, b.node);
		ok(run->npages && run->pages[0].mapped == !rundir_no_map,
		   "pages: %s", rundir_no_map ? "copied when the file is read" : "left in the mapping");
		mr_run_close(run);
	}
	snprintf(err, sizeof(err), "rm -rf %s", dir);
	if (system(err)) {
	}
}

/* Encode n records, decode them back: equal, in at most MPH_S3_BOUND(n) bytes. Returns
 * the encoded length (0 on failure). */
static size_t s3_roundtrip(const struct memphis_rec_sample *s, size_t n, const char *what)
{
	static unsigned char buf[MPH_S3_BOUND(8)];
	struct memphis_rec_sample got[8];
	struct mph_s3_error e = { 0 };
	size_t len = mph_s3_encode(s, n, buf), m = 99;
	int same;

	same = mph_s3_count(buf, len, &m, &e) == 0 && m == n &&
	       mph_s3_decode(buf, len, got, n, &e) == 0 && !memcmp(got, s, n * sizeof(*s));
	ok(same && len <= MPH_S3_BOUND(n), "layout 3: %s: %zu records in %zu bytes decode alike (%s)",
	   what, n, len, e.msg);
	return same ? len : 0;
}

/* The payload p (len bytes) is refused with a message holding `msg`. */
static void s3_bad(const unsigned char *p, size_t len, const char *msg, size_t off)
{
	struct memphis_rec_sample got[8];
	struct mph_s3_error e = { 0 };
	size_t n = 0;
	int r = mph_s3_count(p, len, &n, &e);

	if (r == 0)
		r = n <= 8 ? mph_s3_decode(p, len, got, n, &e) : -1;
	ok(r == -EINVAL && strstr(e.msg, msg) && e.off == off,
	   "layout 3: refused: %s at byte %zu (%s at %zu)", msg, off, e.msg, e.off);
}

static void test_layout3(void)
{
	struct memphis_rec_sample s[8];
	unsigned char buf[MPH_S3_BOUND(8)];
	size_t len;

	memset(s, 0, sizeof(s));
	len = s3_roundtrip(s, 0, "empty block");
	ok(len == 1, "layout 3: an empty block is its count alone (%zu bytes)", len);
	for (int i = 0; i < 4; i++)
		s[i] = (struct memphis_rec_sample){ .time = 5000000 + 1000000u * (uint64_t)i,
			.ip = 0x401000, .sampled_ip = 0x401004, .tid = 7, .region = 1, .weight = 1,
			.cpu = 3, .flags = MPH_S_NONMEM };
	len = s3_roundtrip(s, 4, "soft samples of one loop");
	{
		size_t one = s3_roundtrip(s, 1, "its first record alone");
		ok(len - one == 3 * 5, "layout 3: a repeated soft sample without address costs 5 "
		   "bytes (header 1, time 3, ip 1: %zu for 3)", len - one);
	}
	/* max u64 deltas both ways, negative deltas, an address then none */
	s[0] = (struct memphis_rec_sample){ .time = UINT64_MAX, .ip = UINT64_MAX,
		.addr = UINT64_MAX, .sampled_ip = 0, .weight = 1 };
	s[1] = (struct memphis_rec_sample){ .time = 0, .ip = 0, .addr = 1, .sampled_ip = UINT64_MAX,
		.weight = 1 };
	s[2] = (struct memphis_rec_sample){ .time = 1ull << 63, .ip = (1ull << 63) - 1,
		.addr = 0, .sampled_ip = 1ull << 63, .weight = 1 };
	s[3] = (struct memphis_rec_sample){ .time = 1, .ip = 1ull << 63, .addr = 1ull << 63,
		.sampled_ip = (1ull << 63) - 1, .weight = 1 };
	s3_roundtrip(s, 4, "max and negative deltas");
	/* every field changes, to its largest value */
	s[0] = (struct memphis_rec_sample){ .time = 1ull << 62, .ip = 1ull << 62,
		.addr = 1ull << 62, .sampled_ip = 0, .data_src = 0, .weight = 1 };
	s[1] = (struct memphis_rec_sample){ .time = 1ull << 62 ^ (1ull << 63), .ip = UINT64_MAX - (1ull << 62) + 1,
		.addr = (1ull << 63) + (1ull << 62), .sampled_ip = (1ull << 63) + 5,
		.data_src = UINT64_MAX, .tid = UINT32_MAX, .region = UINT32_MAX,
		.weight = UINT32_MAX, .cpu = UINT16_MAX, .flags = UINT16_MAX, .ins_lat = UINT16_MAX };
	len = s3_roundtrip(s, 2, "every field changes");
	{
		size_t one = s3_roundtrip(s, 1, "its first record alone");
		ok(len - one <= MPH_S3_REC_MAX, "layout 3: the record of every field is %zu bytes, "
		   "at most MPH_S3_REC_MAX", len - one);
	}
	/* faults: offsets in the payload */
	memset(s, 0, sizeof(s));
	s[0].weight = 1;
	len = mph_s3_encode(s, 1, buf); /* 01 00 00 00: count, header, time, ip */
	ok(len == 4, "layout 3: a record of zeros is 3 bytes after its count (%zu)", len);
	s3_bad(buf, len - 1, "record count 1: more than its 2 bytes can hold", 0);
	s3_bad((const unsigned char *)"\x01\x01\x00\x00", 4, "addr: the payload ends inside it", 4);
	s3_bad((const unsigned char *)"\x01\x00\x00\x80", 4, "ip: the payload ends inside it", 3);
	buf[len] = 0;
	s3_bad(buf, len + 1, "1 bytes after the last of its 1 records", 4);
	s3_bad((const unsigned char *)"\x02\x00\x00\x00", 4, "more than its 3 bytes can hold", 0);
	s3_bad((const unsigned char *)"", 0, "record count: the payload ends inside it", 0);
	s3_bad((const unsigned char *)"\x01\x00\x80\x00\x00", 5, "time: varint not in its shortest form", 2);
	/* the same with two records of zeros after it: the decoder's 8-byte path */
	s3_bad((const unsigned char *)"\x03\x00\x81\x80\x00\x00\x00\x00\x00\x00\x00\x00", 12,
	       "time: varint not in its shortest form", 2);
	s3_bad((const unsigned char *)"\x01\x00\x80\x80\x80\x80\x80\x80\x80\x80\x80\x02\x00", 13,
	       "time: varint longer than 64 bits", 2);
	s3_bad((const unsigned char *)"\x01\x80\x04\x00\x00", 5, "unknown bits", 1);
	s3_bad((const unsigned char *)"\x01\x80\x00\x00\x00", 5, "a second byte of 0", 1);
	s3_bad((const unsigned char *)"\x01\x20\x00\x00\x80\x80\x04", 7, "cpu: value 65536 beyond 16 bits", 4);
	s3_bad((const unsigned char *)"\x01\x20\x00\x00\x00", 5, "cpu: given, but unchanged", 1);
	s3_bad((const unsigned char *)"\x01\x01\x00\x00\x00", 5, "addr: 0 given as present", 1);
	s3_bad((const unsigned char *)"\x01\x40\x00\x00\x01", 5, "weight: given, but unchanged", 1);
}

/* Entries found by (kind, tid, time) in any order of asking: two threads' interleaved,
 * two entries of one key (the one added last is the answer), a thread sharing another's
 * remembered place (tids 1 and 9), keys asked again, backwards, and absent. */
static void test_stacks_find(void)
{
	static const struct {
		uint32_t tid;
		uint64_t time, ip;
	} put[] = { { 1, 10, 0xa }, { 2, 10, 0xb }, { 1, 20, 0xc }, { 1, 20, 0xd },
		    { 2, 30, 0xe }, { 9, 20, 0xf } },
	  ask[] = { { 1, 10, 0xa }, { 1, 20, 0xd }, { 2, 10, 0xb }, { 2, 30, 0xe },
		    { 9, 20, 0xf }, { 1, 20, 0xd }, { 1, 10, 0xa }, { 1, 15, 0 }, { 2, 31, 0 },
		    { 9, 20, 0xf }, { 2, 10, 0xb } };
	unsigned char buf[16 * sizeof(struct memphis_rec_stack)];
	struct mr_stacks *st = NULL;
	const struct memphis_rec_stack *e;
	const uint8_t *bytes;
	char what[256] = "";
	size_t n = 0, right = 0;

	for (size_t i = 0; i < sizeof(put) / sizeof(put[0]); i++)
		put_entry(buf, &n, MPH_STACK_SAMPLE, put[i].tid, put[i].time, put[i].ip, "", 0, 0);
	ok(rundir_stacks_add(&st, 1, buf, n, what, sizeof(what)) == 0, "find: read (%s)", what);
	rundir_stacks_seal(st);
	for (size_t i = 0; i < sizeof(ask) / sizeof(ask[0]); i++) {
		e = rundir_stacks_find(st, MPH_STACK_SAMPLE, ask[i].tid, ask[i].time, &bytes);
		right += ask[i].ip ? e && e->regs[8] == ask[i].ip : !e;
	}
	ok(right == sizeof(ask) / sizeof(ask[0]), "find: %zu of %zu answers right", right,
	   sizeof(ask) / sizeof(ask[0]));
	rundir_stacks_free(st);
}

/* STACKS layout 2: a DELTA entry is found whole (its registers and words over its base's);
 * a DELTA of no earlier own entry, or whose word map does not count its words, is damage. */
static void test_stacks2(void)
{
	unsigned char p[4096], want[64], *q;
	struct memphis_rec_stack e = { .time = 10, .tid = 5, .kind = MPH_STACK_SAMPLE,
				       .stack_len = 60 }, f;
	struct memphis_rec_stack_delta d;
	struct mr_stacks *st = NULL;
	const struct memphis_rec_stack *got;
	const uint8_t *bytes;
	char what[256] = "";
	size_t n, dn;

	for (int i = 0; i < 17; i++)
		e.regs[i] = 0x1000u + (uint64_t)i;
	memset(want, 0, sizeof(want));
	for (int i = 0; i < 60; i++)
		want[i] = (unsigned char)i;
	memcpy(p, &e, sizeof(e));
	memcpy(p + sizeof(e), want, 64);
	n = sizeof(e) + 64;
	f = e;
	f.time = 11;
	f.regs[8] = 0x5678;
	f.regs[16] = 0x9abc;
	want[8] = 0xee;
	want[59] = 0xdd;
	dn = mph_stk2_delta(&f, want, &e, p + sizeof(e), 0, p + n);
	ok(dn == sizeof(d) + 2 * 8 + 8 + 2 * 8, "stacks 2: a DELTA of 2 registers and 2 words is "
	   "%zu bytes", dn);
	n += dn;
	ok(rundir_stacks_add(&st, 2, p, n, what, sizeof(what)) == 0, "stacks 2: read (%s)", what);
	rundir_stacks_seal(st);
	got = rundir_stacks_find(st, MPH_STACK_SAMPLE, 5, 11, &bytes);
	ok(got && got->time == 11 && !memcmp(got->regs, f.regs, sizeof(f.regs)) &&
	   got->stack_len == 60 && got->reserved == 0 && got->reserved2 == 0 && bytes &&
	   !memcmp(bytes, want, 64), "stacks 2: a DELTA entry reads as its whole entry");
	got = rundir_stacks_find(st, MPH_STACK_SAMPLE, 5, 10, &bytes);
	ok(got && got->regs[8] == 0x1008 && bytes && bytes[8] == 8,
	   "stacks 2: ... and its base is unchanged");
	rundir_stacks_clear(st);
	q = p + sizeof(e) + 64;
	memcpy(&d, q, sizeof(d));
	d.base = 1;
	memcpy(q, &d, sizeof(d));
	ok(rundir_stacks_add(&st, 2, p, n, what, sizeof(what)) == -EINVAL &&
	   strstr(what, "DELTA of entry 1") && rundir_stacks_count(st) == 1,
	   "stacks 2: a DELTA of no earlier own entry is damage, the one before kept (%s)", what);
	rundir_stacks_clear(st);
	d.base = 0;
	memcpy(q, &d, sizeof(d));
	q[sizeof(d) + 16] ^= 4; /* the word map: a third word */
	ok(rundir_stacks_add(&st, 2, p, n, what, sizeof(what)) == -EINVAL &&
	   strstr(what, "word map does not count its words"),
	   "stacks 2: a word map that does not count the words given is damage (%s)", what);
	rundir_stacks_free(st);
}

int main(void)
{
	char b[32];

	for (rundir_no_map = 0; rundir_no_map < 2; rundir_no_map++) {
		printf("# the files %s\n", rundir_no_map ? "read (mmap refused)" : "mapped");
		test_reader();
		test_readahead();
		test_pages();
	}
	rundir_no_map = 0;
	test_versions();
	test_stacks();
	/* both decoders: PEXT's where this CPU has it */
	mph_s3_decoder_pext(0);
	test_layout3();
	if (mph_s3_decoder_pext(1))
		test_layout3();
	else
		ok(1, "layout 3 by PEXT # SKIP this CPU has no BMI2");
	mph_s3_decoder_pext(-1);
	test_stacks2();
	test_stacks_find();
	ok(!strcmp(mr_fmt_count(b, 1234567), "1,234,567") && !strcmp(mr_fmt_count(b, 999), "999"),
	   "thousands separators");
	return tap_done();
}
