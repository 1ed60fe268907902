/* post/run/rundir_samples.c - the sample stream: the cpu files read one after another
 * (rundir_bf_view), their SAMPLES blocks checked and handed out as record arrays (layout
 * version 2 where they were read; version 1, 56-byte records of format 1 runs, and version
 * 3, the compact records of format 3, converted into a buffer), with the entries of the
 * STACKS blocks written before each (mr_samples_stack). */
#include "rundir_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "samples3.h"

struct mr_sample_iter {
	struct mr_run *run;
	size_t file;          /* index of the current cpu file */
	size_t end;           /* index after the last cpu file of this pass */
	mr_sample_note_fn *note; /* where damage and warnings go; NULL: into run */
	void *note_arg;
	uint64_t unknown;     /* with note: unknown blocks, added to run by mr_samples_end */
	struct blockfile bf;  /* fd < 0 when no file is open */
	struct memphis_rec_sample *conv; /* version 1 and 3 records as version 2 */
	size_t conv_cap;      /* records conv holds */
	struct mr_stacks *stk;  /* STACKS entries read since the last SAMPLES block */
	int stk_batch;        /* stk holds the entries of the batch handed out last */
};

/* Record size of a SAMPLES block of layout `version`, 0 for a version not known here. */
static size_t sample_size(uint16_t version)
{
	return version == 2 ? sizeof(struct memphis_rec_sample)
	       : version == 1 ? MEMPHIS_SAMPLE_V1_SIZE : 0;
}

/* it->conv with room for n records. 0 or -ENOMEM. */
static int conv_room(struct mr_sample_iter *it, size_t n)
{
	if (n > it->conv_cap) {
		struct memphis_rec_sample *nc = realloc(it->conv, n * sizeof(*nc));
		if (!nc)
			return -ENOMEM;
		it->conv = nc;
		it->conv_cap = n;
	}
	return 0;
}

/* The records of a layout 3 payload (len bytes, at file offset `at`) decoded into
 * it->conv: 0 and *n; -EINVAL with `what` naming the record, field and file offset of the
 * fault; -ENOMEM. */
static int decode_v3(struct mr_sample_iter *it, const unsigned char *p, size_t len, uint64_t at,
		     size_t *n, char *what, size_t wlen)
{
	struct mph_s3_error e;
	char rec[48] = "";

	if (mph_s3_count(p, len, n, &e) == 0) {
		if (conv_room(it, *n ? *n : 1))
			return -ENOMEM;
		if (mph_s3_decode(p, len, it->conv, *n, &e) == 0)
			return 0;
	}
	if (e.rec != SIZE_MAX)
		snprintf(rec, sizeof(rec), "record %zu: ", e.rec);
	snprintf(what, wlen, "SAMPLES block of layout 3: %s%s at byte %" PRIu64 " of the file", rec,
		 e.msg, at + e.off);
	return -EINVAL;
}

/* Version 1 records (the first MEMPHIS_SAMPLE_V1_SIZE bytes of each) into it->conv, with
 * the version 2 fields 0. Returns the array, or NULL when out of memory. */
static const struct memphis_rec_sample *convert_v1(struct mr_sample_iter *it,
						   const unsigned char *p, size_t n)
{
	if (conv_room(it, n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		memset(&it->conv[i], 0, sizeof(it->conv[i]));
		memcpy(&it->conv[i], p + i * MEMPHIS_SAMPLE_V1_SIZE, MEMPHIS_SAMPLE_V1_SIZE);
	}
	return it->conv;
}

/* The next block of the file (rundir_bf_view), its payload copied to bf->buf (from
 * malloc: aligned) when it is not 8-byte aligned. */
static int next_block(struct mr_sample_iter *it, struct memphis_block *h,
		      const unsigned char **payload, char *what, size_t wlen)
{
	int r = rundir_bf_view(&it->bf, h, payload, what, wlen);

	if (r == BF_BLOCK && (uintptr_t)*payload % 8) {
		if (rundir_bf_hold(&it->bf, *payload, h->length)) {
			snprintf(what, wlen, "out of memory for a %" PRIu32 "-byte block", h->length);
			return BF_IOERR;
		}
		*payload = it->bf.buf;
	}
	return r;
}

int mr_samples_begin_files(struct mr_run *run, size_t first, size_t end, mr_sample_note_fn *note,
			   void *arg, struct mr_sample_iter **out)
{
	struct mr_sample_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it)
		return -ENOMEM;
	it->run = run;
	it->bf.fd = -1;
	it->end = end < run->ncpufiles ? end : run->ncpufiles;
	it->file = first < it->end ? first : it->end;
	it->note = note;
	it->note_arg = arg;
	for (size_t i = it->file; i < it->end; i++) {
		run->cpus[i].samples = 0;
		run->cpus[i].stack_blocks = run->cpus[i].stacks = run->cpus[i].stack_bytes = 0;
	}
	*out = it;
	return 0;
}

int mr_samples_begin(struct mr_run *run, struct mr_sample_iter **out)
{
	return mr_samples_begin_files(run, 0, run->ncpufiles, NULL, NULL, out);
}

/* Close the current file of the iterator and move to the next one. */
static void iter_next_file(struct mr_sample_iter *it)
{
	if (it->bf.fd >= 0)
		close(it->bf.fd);
	it->bf.fd = -1;
	it->file++;
	rundir_stacks_clear(it->stk); /* entries never belong to another file's samples */
}

/* Keep the entries of a STACKS block of cpu file cf for the SAMPLES block after it; a
 * damaged one is noted (the entries before the bad one are kept) and reading goes on.
 * -ENOMEM or 0. */
static int read_stacks(struct mr_sample_iter *it, struct mr_cpufile *cf,
		       const struct memphis_block *h, const unsigned char *payload)
{
	char what[256];
	size_t before = rundir_stacks_count(it->stk);
	int r = rundir_stacks_add(&it->stk, h->version, payload, h->length, what, sizeof(what));

	cf->stacks += rundir_stacks_count(it->stk) - before;
	cf->stack_blocks++;
	cf->stack_bytes += h->length;
	if (r != -EINVAL)
		return r;
	if (cf->stacks_damaged)
		return 0;
	cf->stacks_damaged = 1;
	return rundir_note(it->run, it->note, it->note_arg, 1, "%s: offset %" PRIu64 ": %s; the "
			   "entries before it were kept", cf->name, it->bf.off, what);
}

const struct memphis_rec_stack *mr_samples_stack(struct mr_sample_iter *it,
						 const struct memphis_rec_sample *s,
						 const uint8_t **bytes)
{
	*bytes = NULL;
	if (!(s->flags & MPH_S_STACK) || !it->stk_batch)
		return NULL;
	return rundir_stacks_find(it->stk, MPH_STACK_SAMPLE, s->tid, s->time, bytes);
}

size_t mr_samples_next(struct mr_sample_iter *it, const struct memphis_rec_sample **recs)
{
	struct mr_run *run = it->run;
	char what[256], n[32], err[256];
	const unsigned char *payload;
	size_t n_recs;

	if (it->stk_batch) { /* the last batch's entries go with it */
		rundir_stacks_clear(it->stk);
		it->stk_batch = 0;
	}
	while (it->file < it->end) {
		struct mr_cpufile *cf = &run->cpus[it->file];
		struct memphis_block h;
		int r;

		if (it->bf.fd < 0) {
			err[0] = '\0';
			if (rundir_open_cpufile(run, cf, &it->bf, it->note, it->note_arg, err,
						sizeof(err)) < 0) {
				it->file++;
				continue;
			}
			cf->clean_end = 0;
		}
		r = next_block(it, &h, &payload, what, sizeof(what));
		if (r == BF_EOF && !cf->damaged && cf->samples < cf->expected) {
			char e[32];

			rundir_note(run, it->note, it->note_arg, 1, "%s: %s samples after %" PRIu64
				    " bytes, of the %s meta.mph says were written to it: the rest "
				    "are missing", cf->name, mr_fmt_count(n, cf->samples), it->bf.off,
				    mr_fmt_count(e, cf->expected));
			cf->damaged = 1;
		}
		if (r == BF_EOF) {
			if (!cf->clean_end && !cf->damaged) {
				rundir_note(run, it->note, it->note_arg, 0, "%s: no END block after %"
					    PRIu64 " bytes: the run did not close this file cleanly; %s "
					    "samples read", cf->name, it->bf.off,
					    mr_fmt_count(n, cf->samples));
				cf->damaged = 1;
			}
			iter_next_file(it);
			continue;
		}
		if (r == BF_BLOCK && h.type == MPH_BLK_SAMPLES && sample_size(h.version) &&
		    rundir_check_array(&h, sample_size(h.version), what, sizeof(what)))
			r = BF_DAMAGE;
		if (r != BF_BLOCK) {
			if (!cf->damaged)
				rundir_note(run, it->note, it->note_arg, 1, "%s: offset %" PRIu64
					    ": %s; %s samples read before it", cf->name, it->bf.off,
					    what, mr_fmt_count(n, cf->samples));
			cf->damaged = 1;
			iter_next_file(it);
			continue;
		}
		if (h.type == MPH_BLK_STACKS && (h.version == 1 || h.version == 2) &&
		    read_stacks(it, cf, &h, payload) == -ENOMEM) {
			rundir_note(run, it->note, it->note_arg, 1, "%s: out of memory for a "
				    "%" PRIu32 "-byte STACKS block", cf->name, h.length);
			cf->damaged = 1;
			iter_next_file(it);
			continue;
		}
		rundir_bf_done(&it->bf, &h);
		if (h.type == MPH_BLK_END) {
			cf->clean_end = 1;
			continue;
		}
		if (h.type == MPH_BLK_STACKS && (h.version == 1 || h.version == 2))
			continue;
		if (h.type == MPH_BLK_SAMPLES && h.version == 3) {
			r = decode_v3(it, payload, h.length, it->bf.off - h.length, &n_recs, what,
				      sizeof(what));
			if (r == -ENOMEM) {
				rundir_note(run, it->note, it->note_arg, 1, "%s: out of memory for a "
					    "%" PRIu32 "-byte SAMPLES block", cf->name, h.length);
				cf->damaged = 1;
				iter_next_file(it);
				continue;
			}
			if (r < 0) {
				/* the framing holds: this block's samples are the only loss */
				if (!cf->damaged)
					rundir_note(run, it->note, it->note_arg, 1, "%s: offset %" PRIu64
						    ": %s; %s samples read before it, the blocks "
						    "after it are read on", cf->name,
						    it->bf.off - h.length - sizeof(h), what,
						    mr_fmt_count(n, cf->samples));
				cf->damaged = 1;
				continue;
			}
			if (n_recs == 0)
				continue;
			*recs = it->conv;
			cf->samples += n_recs;
			rundir_stacks_seal(it->stk);
			it->stk_batch = 1;
			return n_recs;
		}
		if (h.type != MPH_BLK_SAMPLES || !sample_size(h.version) || h.length == 0) {
			if ((h.type != MPH_BLK_SAMPLES || !sample_size(h.version)) &&
			    h.type != MPH_BLK_NOTE)
				it->unknown++;
			continue;
		}
		n_recs = h.length / sample_size(h.version);
		if (h.version == 1) {
			payload = (const unsigned char *)convert_v1(it, payload, n_recs);
			if (!payload) {
				rundir_note(run, it->note, it->note_arg, 1, "%s: out of memory for %s "
					    "samples of layout version 1", cf->name,
					    mr_fmt_count(what, n_recs));
				cf->damaged = 1;
				iter_next_file(it);
				continue;
			}
		}
		*recs = (const struct memphis_rec_sample *)payload;
		cf->samples += n_recs;
		rundir_stacks_seal(it->stk);
		it->stk_batch = 1;
		return n_recs;
	}
	return 0;
}

void mr_samples_end(struct mr_sample_iter *it)
{
	if (!it)
		return;
	it->run->unknown_blocks += it->unknown;
	if (it->bf.fd >= 0)
		close(it->bf.fd);
	rundir_bf_free(&it->bf);
	free(it->conv);
	rundir_stacks_free(it->stk);
	free(it);
}
