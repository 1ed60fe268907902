/* post/run/rundir_meta.c - meta.mph: each block validated and stored into struct mr_run
 * (RUN keys, topology, maps snapshots, threads, allocations, regions, pages, notes, TLS). */
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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc32c.h"

/* The room an array of n records has: the power of two at or above n (0 for none). */
static size_t room(size_t n)
{
	size_t r = 1;

	while (r < n && r <= SIZE_MAX / 2)
		r *= 2;
	return n ? r : 0;
}

int rundir_append(void *arrp, size_t *n, const void *src, size_t cnt, size_t sz)
{
	void **arr = arrp;
	size_t want = *n + cnt;

	if (cnt == 0)
		return 0;
	/* grown by doubling: meta.mph holds a REGION, LOSS and PAGES block per region, and
	 * growing by the records of each block copied the array again and again */
	if (!*arr || room(want) > room(*n)) {
		void *na;

		if (want < *n || room(want) > SIZE_MAX / sz)
			return -ENOMEM;
		na = realloc(*arr, room(want) * sz);
		if (!na)
			return -ENOMEM;
		*arr = na;
	}
	memcpy((char *)*arr + *n * sz, src, cnt * sz);
	*n = want;
	return 0;
}

/* Undo the RUN block's escapes in place: \\ is a backslash, \n a newline. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (*s == '\\' && (s[1] == 'n' || s[1] == '\\'))
			*out++ = *++s == 'n' ? '\n' : '\\';
		else
			*out++ = *s;
	}
	*out = '\0';
}

/* Every meta_* parser below stores one meta.mph block of its type into run. p is the
 * payload copied to bf->buf (aligned, text ended by a NUL); inplace is the payload left in
 * run's mapping by meta_next (not aligned), or NULL. meta_block has checked that FILE came
 * first and the layout version of the types up to STACKS. */
typedef int meta_parse_fn(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
			  const unsigned char *inplace, char *what, size_t wlen);

/* RUN: the "key=value\n" lines of p, appended to run->kv; after the key escape=c (written
 * first by libraries that escape) values are unescaped, older runs are read as they are.
 * Lines without '=' are skipped. 0 or -ENOMEM. */
static int meta_run(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		    const unsigned char *inplace, char *what, size_t wlen)
{
	char *text = (char *)p;
	char *save = NULL;
	int escaped = 0;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		struct mr_kv kv;

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(line, "escape")) {
			escaped = !strcmp(eq + 1, "c");
			continue;
		}
		if (escaped)
			unescape(eq + 1);
		kv.key = strdup(line);
		kv.value = strdup(eq + 1);
		if (!kv.key || !kv.value || rundir_append(&run->kv, &run->nkv, &kv, 1, sizeof(kv))) {
			free(kv.key);
			free(kv.value);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Check that a record-array payload is a whole number of records; describe it if not. */
int rundir_check_array(const struct memphis_block *h, size_t recsz, char *what, size_t wlen)
{
	if (h->length % recsz == 0)
		return 0;
	snprintf(what, wlen, "%s block of %" PRIu32 " bytes is not a whole number of %zu-byte records",
		 mr_block_name(h->type), h->length, recsz);
	return -EINVAL;
}

/* TLS: memphis_rec_tls entries, each followed by its path padded to 8 bytes, appended to
 * run->tls; a module seen again (same path) is updated. 0, -EINVAL with `what` set, or
 * -ENOMEM. */
static int meta_tls(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		    const unsigned char *inplace, char *what, size_t wlen)
{
	size_t off = 0;

	while (off < h->length) {
		struct memphis_rec_tls r;
		struct mr_tls_mod m;
		size_t k;

		if (h->length - off < sizeof(r)) {
			snprintf(what, wlen, "TLS block: %zu stray bytes at its end", (size_t)h->length - off);
			return -EINVAL;
		}
		memcpy(&r, p + off, sizeof(r));
		off += sizeof(r);
		if (r.path_len > h->length - off || r.path_len > 4096) {
			snprintf(what, wlen, "TLS block: a path of %" PRIu32 " bytes overruns the block",
				 r.path_len);
			return -EINVAL;
		}
		m.tp_offset = r.tp_offset;
		m.memsz = r.memsz;
		m.modid = r.modid;
		m.path = strndup((const char *)p + off, r.path_len);
		if (!m.path)
			return -ENOMEM;
		off += (r.path_len + 7u) & ~7u;
		for (k = 0; k < run->ntls && strcmp(run->tls[k].path, m.path); k++)
			;
		if (k < run->ntls) {
			free(run->tls[k].path);
			run->tls[k] = m;
		} else if (rundir_append(&run->tls, &run->ntls, &m, 1, sizeof(m))) {
			free(m.path);
			return -ENOMEM;
		}
	}
	return 0;
}

/* The array of run that records of block type `type` are appended to (*arr, its count
 * *n, the record size *recsz), for the blocks that are plain record arrays. false for the
 * other types. */
static bool record_array(struct mr_run *run, unsigned type, void **arr, size_t **n,
			 size_t *recsz)
{
#define ARRAY(a, cnt) (*arr = &run->a, *n = &run->cnt, *recsz = sizeof(*run->a), true)
	switch (type) {
	case MPH_BLK_THREADS: return ARRAY(threads, nthreads);
	case MPH_BLK_FIRST_TOUCH: return ARRAY(touches, ntouches);
	case MPH_BLK_LOSS: return ARRAY(losses, nlosses);
	case MPH_BLK_COUNTERS: return ARRAY(counters, ncounters);
	default: return false;
	}
#undef ARRAY
}

/* An ALLOCS or FREES block (records of recsz bytes) added to *blocks (*nblocks of them,
 * *nrecs records in all): left in place when it is (inplace), else copied from p. 0,
 * -EINVAL with `what` set, or -ENOMEM. */
static int heap_records(const struct memphis_block *h, const unsigned char *p,
			const unsigned char *inplace, size_t recsz, struct mr_recs **blocks,
			size_t *nblocks, size_t *nrecs, char *what, size_t wlen)
{
	struct mr_recs r = { .raw = inplace, .n = h->length / recsz, .len = h->length,
			     .mapped = inplace != NULL };

	if (rundir_check_array(h, recsz, what, wlen))
		return -EINVAL;
	if (!r.n)
		return 0;
	if (!inplace) {
		unsigned char *copy = malloc(r.len);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, p, r.len);
		r.raw = copy;
	}
	if (rundir_append(blocks, nblocks, &r, 1, sizeof(r))) {
		if (!r.mapped)
			free((void *)r.raw);
		return -ENOMEM;
	}
	*nrecs += r.n;
	if (r.mapped) /* checked: not needed again before the heap's index is built */
		rundir_drop_pages(r.raw, r.len);
	return 0;
}

/* Whether block h holds fewer than min bytes; `what` then says so. */
static int too_short(const struct memphis_block *h, size_t min, char *what, size_t wlen)
{
	if (h->length >= min)
		return 0;
	snprintf(what, wlen, "%s block too short (%" PRIu32 " bytes)", mr_block_name(h->type),
		 h->length);
	return 1;
}

/* FILE: long enough, of a format version this reader knows, of the metadata kind (checked
 * in that order); sets have_meta_file. 0, -EINVAL with `what` set, or -EPROTO (message in
 * what) for a newer format. */
static int meta_file(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		     const unsigned char *inplace, char *what, size_t wlen)
{
	if (too_short(h, sizeof(run->meta_file), what, wlen))
		return -EINVAL;
	memcpy(&run->meta_file, p, sizeof(run->meta_file));
	if (run->meta_file.format_version > MEMPHIS_FORMAT_VERSION) {
		snprintf(what, wlen, "written in format version %" PRIu32 "; this memphis-report "
			 "reads version %u and older: use a newer memphis-report",
			 run->meta_file.format_version, MEMPHIS_FORMAT_VERSION);
		return -EPROTO;
	}
	if (run->meta_file.kind != MPH_FILE_META) {
		snprintf(what, wlen, "FILE block says this is not a metadata file "
			 "(kind %" PRIu32 ")", run->meta_file.kind);
		return -EINVAL;
	}
	run->have_meta_file = 1;
	return 0;
}

/* TOPOLOGY: a header whose CPU and node counts are bounded and match the block's length;
 * replaces run's cpu_node and distance tables. 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_topology(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
			 const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	struct memphis_rec_topology t;
	uint64_t need;

	if (too_short(h, sizeof(t), what, wlen))
		return -EINVAL;
	memcpy(&t, p, sizeof(t));
	need = sizeof(t) + 4ull * t.ncpus + 4ull * t.nnodes * t.nnodes;
	if (t.ncpus > (1u << 20) || t.nnodes > 4096 || need != len) {
		snprintf(what, wlen, "TOPOLOGY block of %" PRIu32 " bytes does not match "
			 "%" PRIu32 " CPUs and %" PRIu32 " nodes", len, t.ncpus, t.nnodes);
		return -EINVAL;
	}
	free(run->cpu_node);
	free(run->distance);
	run->cpu_node = malloc(4ull * t.ncpus + 1);
	run->distance = malloc(4ull * t.nnodes * t.nnodes + 1);
	if (!run->cpu_node || !run->distance)
		return -ENOMEM;
	memcpy(run->cpu_node, p + sizeof(t), 4ull * t.ncpus);
	memcpy(run->distance, p + sizeof(t) + 4ull * t.ncpus, 4ull * t.nnodes * t.nnodes);
	run->ncpus = t.ncpus;
	run->nnodes = t.nnodes;
	run->have_topology = 1;
	return 0;
}

/* MAPS: a time and the text of /proc/self/maps, appended to run->maps (the text copied and
 * ended by a NUL). 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_maps(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		     const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	struct mr_maps_snap s;

	if (too_short(h, 8, what, wlen))
		return -EINVAL;
	memcpy(&s.time, p, 8);
	s.len = len - 8;
	s.text = malloc(s.len + 1);
	if (!s.text)
		return -ENOMEM;
	memcpy(s.text, p + 8, s.len);
	s.text[s.len] = '\0';
	if (rundir_append(&run->maps, &run->nmaps, &s, 1, sizeof(s))) {
		free(s.text);
		return -ENOMEM;
	}
	return 0;
}

/* THREADS, FIRST_TOUCH, LOSS, COUNTERS: a whole number of records, appended to the array
 * record_array names for the type. 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_array(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		      const unsigned char *inplace, char *what, size_t wlen)
{
	size_t *count, recsz;
	void *arr;

	/* not taken: meta_parsers gives this parser record_array's types only */
	if (!record_array(run, h->type, &arr, &count, &recsz)) {
		run->unknown_blocks++;
		return 0;
	}
	if (rundir_check_array(h, recsz, what, wlen))
		return -EINVAL;
	return rundir_append(arr, count, inplace ? inplace : p, h->length / recsz, recsz);
}

/* ALLOCS: heap_records into run->alloc_recs. 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_allocs(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		       const unsigned char *inplace, char *what, size_t wlen)
{
	return heap_records(h, p, inplace, sizeof(struct memphis_rec_alloc), &run->alloc_recs,
			    &run->nalloc_recs, &run->nallocs, what, wlen);
}

/* FREES: heap_records into run->free_recs. 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_frees(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		      const unsigned char *inplace, char *what, size_t wlen)
{
	return heap_records(h, p, inplace, sizeof(struct memphis_rec_free), &run->free_recs,
			    &run->nfree_recs, &run->nfrees, what, wlen);
}

/* REGION: exactly one record, its name ended within the field, appended to run->regions.
 * 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_region(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		       const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	struct memphis_rec_region r;

	if (len != sizeof(r)) {
		snprintf(what, wlen, "REGION block of %" PRIu32 " bytes (expected %zu)", len,
			 sizeof(r));
		return -EINVAL;
	}
	memcpy(&r, p, sizeof(r));
	r.name[MEMPHIS_NAME_MAX - 1] = '\0';
	return rundir_append(&run->regions, &run->nregions, &r, 1, sizeof(r));
}

/* PAGES: a header whose page count matches the block's length; the pages are appended to
 * run->pages, left in the mapping when they are (inplace), else copied. 0, -EINVAL with
 * `what` set, or -ENOMEM. */
static int meta_pages(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		      const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	const unsigned char *src = inplace ? inplace : p;
	struct mr_pages pg;

	if (too_short(h, sizeof(pg.hdr), what, wlen))
		return -EINVAL;
	memcpy(&pg.hdr, src, sizeof(pg.hdr));
	if (sizeof(pg.hdr) + (uint64_t)pg.hdr.count * sizeof(struct memphis_rec_page) != len) {
		snprintf(what, wlen, "PAGES block of %" PRIu32 " bytes does not hold %" PRIu32
			 " pages", len, pg.hdr.count);
		return -EINVAL;
	}
	/* left in the mapping where it can be: a run of many regions holds megabytes of
	 * them, and a copy of each costs its allocation and page faults */
	pg.mapped = inplace != NULL;
	if (inplace) {
		pg.raw = src + sizeof(pg.hdr);
	} else {
		unsigned char *copy = malloc(len - sizeof(pg.hdr) + 1);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, src + sizeof(pg.hdr), len - sizeof(pg.hdr));
		pg.raw = copy;
	}
	if (rundir_append(&run->pages, &run->npages, &pg, 1, sizeof(pg))) {
		if (!pg.mapped)
			free((void *)pg.raw);
		return -ENOMEM;
	}
	return 0;
}

/* NOTE: a time and one line of text, appended to run->notes; the notes of unsampled
 * threads and of dropped records also become warnings. 0, -EINVAL with `what` set, or
 * -ENOMEM. */
static int meta_note(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		     const unsigned char *inplace, char *what, size_t wlen)
{
	struct mr_note nt;

	if (too_short(h, 8, what, wlen))
		return -EINVAL;
	memcpy(&nt.time, p, 8);
	nt.text = strdup((char *)p + 8);
	if (!nt.text)
		return -ENOMEM;
	nt.text[strcspn(nt.text, "\n")] = '\0';
	if (rundir_append(&run->notes, &run->nnotes, &nt, 1, sizeof(nt))) {
		free(nt.text);
		return -ENOMEM;
	}
	/* the library could not sample some threads: every figure leaves them out */
	if (!strncmp(nt.text, "not sampled: ", 13))
		return mr_run_add_warning(run, "%s; the figures cover the other threads only",
					  nt.text);
	/* the library stopped at a limit: what it left unwritten, per kind */
	if (!strncmp(nt.text, "dropped: ", 9))
		return mr_run_add_warning(run, "%s", nt.text);
	return 0;
}

/* SAMPLES belong in cpuNNN.mph: counted as unknown, with a warning. 0 or -ENOMEM. */
static int meta_samples(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
			const unsigned char *inplace, char *what, size_t wlen)
{
	run->unknown_blocks++;
	return mr_run_add_warning(run, "%s: skipped a SAMPLES block (samples belong in cpuNNN.mph)",
				  MEMPHIS_META_FILE);
}

/* END: the file was closed cleanly; its payload is not read. Returns 0. */
static int meta_end(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		    const unsigned char *inplace, char *what, size_t wlen)
{
	run->meta_clean_end = 1;
	return 0;
}

/* STACKS: its entries added to run->touch_stacks (those before a bad one are kept) and
 * counted, read from the mapping when they are there. 0, -EINVAL with `what` set (the
 * framing holds: the caller reads on), or -ENOMEM, as rundir_stacks_add. */
static int meta_stacks(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		       const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	size_t before = rundir_stacks_count(run->touch_stacks);
	int r = rundir_stacks_add(&run->touch_stacks, h->version, inplace ? inplace : p, len,
				  what, wlen);

	run->meta_stack_blocks++;
	run->meta_stacks += rundir_stacks_count(run->touch_stacks) - before;
	run->meta_stack_bytes += len;
	return r;
}

/* CPU_SAMPLES, THREAD_CPU: record arrays of their own, from format 2 on, appended to
 * run->cpu_samples or run->thread_cpu. A layout version other than 1 is counted as
 * unknown, without a warning. 0, -EINVAL with `what` set, or -ENOMEM. */
static int meta_cpu_arrays(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
			   const unsigned char *inplace, char *what, size_t wlen)
{
	uint32_t len = h->length;
	bool cs = h->type == MPH_BLK_CPU_SAMPLES;
	size_t sz = cs ? sizeof(*run->cpu_samples) : sizeof(*run->thread_cpu);

	if (h->version != 1) {
		run->unknown_blocks++;
		return 0;
	}
	if (rundir_check_array(h, sz, what, wlen))
		return -EINVAL;
	return cs ? rundir_append(&run->cpu_samples, &run->ncpu_samples,
				  inplace ? inplace : p, len / sz, sz)
		  : rundir_append(&run->thread_cpu, &run->nthread_cpu,
				  inplace ? inplace : p, len / sz, sz);
}

/* The parser of each block type meta.mph holds; a type without one is counted as unknown. */
static meta_parse_fn *const meta_parsers[] = {
	[MPH_BLK_FILE] = meta_file,
	[MPH_BLK_RUN] = meta_run,
	[MPH_BLK_TOPOLOGY] = meta_topology,
	[MPH_BLK_MAPS] = meta_maps,
	[MPH_BLK_THREADS] = meta_array,
	[MPH_BLK_ALLOCS] = meta_allocs,
	[MPH_BLK_FREES] = meta_frees,
	[MPH_BLK_FIRST_TOUCH] = meta_array,
	[MPH_BLK_REGION] = meta_region,
	[MPH_BLK_LOSS] = meta_array,
	[MPH_BLK_PAGES] = meta_pages,
	[MPH_BLK_NOTE] = meta_note,
	[MPH_BLK_SAMPLES] = meta_samples,
	[MPH_BLK_END] = meta_end,
	[MPH_BLK_TLS] = meta_tls,
	[MPH_BLK_COUNTERS] = meta_array,
	[MPH_BLK_STACKS] = meta_stacks,
	[MPH_BLK_CPU_SAMPLES] = meta_cpu_arrays,
	[MPH_BLK_THREAD_CPU] = meta_cpu_arrays,
};

/* Store one validated meta.mph block into run: FILE first, then each block of a known
 * layout version by its type's parser. Returns 0, -EINVAL with `what` set when the block's
 * content is inconsistent (treated as damage), -EPROTO for a future format version
 * (message in what), or -ENOMEM. */
static int meta_block(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		      const unsigned char *inplace, char *what, size_t wlen)
{
	if (h->type != MPH_BLK_FILE && !run->have_meta_file) {
		snprintf(what, wlen, "first block is %s, not FILE", mr_block_name(h->type));
		return -EINVAL;
	}
	/* CPU_SAMPLES and THREAD_CPU check their version themselves, without a warning */
	if (h->type >= MPH_BLK_FILE && h->type <= MPH_BLK_STACKS && h->version != 1 &&
	    !(h->type == MPH_BLK_STACKS && h->version == 2)) {
		run->unknown_blocks++;
		return mr_run_add_warning(run, "%s: skipped a %s block of layout version %u "
					  "(this memphis-report knows version 1%s)",
					  MEMPHIS_META_FILE, mr_block_name(h->type), h->version,
					  h->type == MPH_BLK_STACKS ? " and 2" : "");
	}
	if (h->type < sizeof(meta_parsers) / sizeof(meta_parsers[0]) && meta_parsers[h->type])
		return meta_parsers[h->type](run, h, p, inplace, what, wlen);
	run->unknown_blocks++;
	return 0;
}

/* Contract in rundir.h. */
const char *mr_run_write_error(const struct mr_run *run)
{
	for (size_t i = 0; i < run->nnotes; i++)
		if (!strncmp(run->notes[i].text, "write error: ", 13))
			return run->notes[i].text;
	return NULL;
}

/* The next block of meta.mph, like rundir_bf_next. From run's mapping of the file when it
 * has one: the payloads of PAGES, STACKS and record arrays are left there (*inplace, not
 * aligned: they are read with memcpy), every other payload copied to bf->buf as
 * rundir_bf_next leaves it (aligned, text ended by a NUL). The blocks left in place are
 * nearly all of a run's metadata: 240 MB of a run of a million allocations, copied once
 * more for nothing. */
static int meta_next(struct mr_run *run, struct blockfile *bf, struct memphis_block *h,
		     const unsigned char **inplace, char *what, size_t wlen)
{
	const unsigned char *p;
	size_t *count, recsz;
	void *arr;
	int r;

	*inplace = NULL;
	if (!run->meta_map)
		return rundir_bf_next(bf, h, what, wlen);
	r = rundir_mem_next(bf, run->meta_map, run->meta_msize, h, &p, what, wlen);
	if (r != BF_BLOCK)
		return r;
	if (h->type == MPH_BLK_PAGES || h->type == MPH_BLK_STACKS || h->type == MPH_BLK_ALLOCS ||
	    h->type == MPH_BLK_FREES || record_array(run, h->type, &arr, &count, &recsz)) {
		*inplace = p;
		return r;
	}
	if (rundir_bf_hold(bf, p, h->length)) {
		snprintf(what, wlen, "out of memory for a %" PRIu32 "-byte block", h->length);
		return BF_IOERR;
	}
	return r;
}

/* Read meta.mph. Returns 0 (damage recorded in run), or -errno with err set. */
int rundir_read_meta(struct mr_run *run, char *err, size_t errlen)
{
	struct blockfile bf = { .fd = -1, .name = MEMPHIS_META_FILE };
	char *path = rundir_path_join(run->dir, MEMPHIS_META_FILE);
	const unsigned char *inplace;
	struct memphis_block h;
	char what[256];
	int rc = 0, r;

	if (!path)
		return -ENOMEM;
	bf.fd = rundir_open_file(path);
	if (bf.fd < 0) {
		rc = bf.fd;
		if (rc == -ENOENT)
			snprintf(err, errlen, "%s: no %s: not a memphis run directory, or the run "
				 "wrote nothing (was the program linked with -lmemphis?)",
				 run->dir, MEMPHIS_META_FILE);
		else
			snprintf(err, errlen, "%s: %s", path, rundir_open_strerror(rc));
		free(path);
		return rc;
	}
	/* mapped, as the cpu files are: no copy of what is kept in place */
	run->meta_map = rundir_map_file(bf.fd, &run->meta_msize);
	while ((r = meta_next(run, &bf, &h, &inplace, what, sizeof(what))) == BF_BLOCK) {
		int m = meta_block(run, &h, bf.buf, inplace, what, sizeof(what));
		if (m == -ENOMEM) {
			snprintf(err, errlen, "out of memory reading %s", path);
			rc = -ENOMEM;
			goto out;
		}
		if (m == -EPROTO) {
			snprintf(err, errlen, "%s: %s", MEMPHIS_META_FILE, what);
			rc = -EPROTO;
			goto out;
		}
		if (m == -EINVAL && h.type == MPH_BLK_STACKS) {
			/* its entries are the only loss: the framing holds, read on */
			if (mr_run_add_damage(run, "%s: offset %" PRIu64 ": %s; the entries before "
					      "it were kept", MEMPHIS_META_FILE, bf.off, what)) {
				rc = -ENOMEM;
				goto out;
			}
		} else if (m == -EINVAL) {
			r = BF_DAMAGE;
			break;
		}
		rundir_bf_done(&bf, &h);
	}
	if (r == BF_IOERR) {
		snprintf(err, errlen, "%s: offset %" PRIu64 ": %s", path, bf.off, what);
		rc = -EIO;
		goto out;
	}
	if (!run->have_meta_file) {
		if (r == BF_EOF)
			snprintf(err, errlen, "%s: empty file: the run wrote no metadata", path);
		else
			snprintf(err, errlen, "%s: offset %" PRIu64 ": %s; nothing readable before it",
				 path, bf.off, what);
		rc = -EINVAL;
		goto out;
	}
	if (r == BF_DAMAGE) {
		char n[32];
		if (mr_run_add_damage(run, "%s: offset %" PRIu64 ": %s; %s blocks read before it",
				      MEMPHIS_META_FILE, bf.off, what, mr_fmt_count(n, bf.blocks)))
			rc = -ENOMEM;
	} else if (!run->meta_clean_end && mr_run_write_error(run)) {
		if (mr_run_add_warning(run, "%s: no END block after %" PRIu64 " bytes: the run did "
				       "not finish cleanly, the library stopped writing it (%s); all "
				       "complete blocks were read", MEMPHIS_META_FILE, bf.off,
				       mr_run_write_error(run)))
			rc = -ENOMEM;
	} else if (!run->meta_clean_end) {
		if (mr_run_add_warning(run, "%s: no END block after %" PRIu64 " bytes: the run did "
				       "not finish cleanly (the program was killed or ended without "
				       "the library's shutdown); all complete blocks were read",
				       MEMPHIS_META_FILE, bf.off))
			rc = -ENOMEM;
	}
	run->meta_blocks = bf.blocks;
	rundir_stacks_seal(run->touch_stacks);
out:
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	close(bf.fd);
	rundir_bf_free(&bf);
	free(path);
	return rc;
}
