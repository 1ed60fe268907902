/* tests/unit_rundir.c - the run-directory reader of memphis-report (post/rundir.c): samples read
 * up to a damaged block, the damage message (file, offset, block, count), unknown blocks
 * skipped, a newer format refused; and its thousands separators (mr_fmt_count). TAP output. */
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

int main(void)
{
	char b[32];

	test_reader();
	ok(!strcmp(mr_fmt_count(b, 1234567), "1,234,567") && !strcmp(mr_fmt_count(b, 999), "999"),
	   "thousands separators");
	return tap_done();
}
