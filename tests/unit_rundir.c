/* tests/unit_rundir.c - the run-directory reader of memphis-report (post/rundir.c): samples read
 * up to a damaged block, the damage message (file, offset, block, count), unknown blocks
 * skipped, a newer format refused, SAMPLES of layout version 1 (56-byte records of format 1
 * runs) and 2 read alike; and its thousands separators (mr_fmt_count). TAP output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rundir.h"
#include "runfiles.h"

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
	put_block_v(f, MPH_BLK_SAMPLES, 3, v2, sizeof(v2));     /* a future layout: skipped */
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
	ok(run->unknown_blocks == 1, "versions: the layout 3 block was skipped (%" PRIu64 ")",
	   run->unknown_blocks);
	mr_run_close(run);
	{
		char cmd[700];
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
}

int main(void)
{
	char b[32];

	test_reader();
	test_versions();
	ok(!strcmp(mr_fmt_count(b, 1234567), "1,234,567") && !strcmp(mr_fmt_count(b, 999), "999"),
	   "thousands separators");
	return tap_done();
}
