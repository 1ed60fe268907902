/* post/run/rundir.c - reading a memphis run directory (see rundir.h for the contract): open
 * and close, the cpu files, metadata lookups. The pieces are listed in rundir_impl.h. */
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
#include "search.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The index behind mr_run_region: seq << 32 | index of each region, sorted (by seq, ties
 * in file order). 0 or -ENOMEM. */
static int index_regions(struct mr_run *run)
{
	if (!run->nregions)
		return 0;
	if (run->nregions > UINT32_MAX)
		return -ENOMEM;
	run->region_by_seq = malloc(run->nregions * sizeof(*run->region_by_seq));
	if (!run->region_by_seq)
		return -ENOMEM;
	for (size_t i = 0; i < run->nregions; i++)
		run->region_by_seq[i] = (uint64_t)run->regions[i].seq << 32 | i;
	qsort(run->region_by_seq, run->nregions, sizeof(*run->region_by_seq), cmp_u64);
	return 0;
}

static int cmp_cpufile(const void *a, const void *b)
{
	const struct mr_cpufile *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Open a cpu file and read its FILE block. Returns the fd (positioned after it) with
 * bf->off set, -1 when the file cannot be read (damage recorded), or -2 on a future
 * format version (message in err) or out of memory. */
int rundir_open_cpufile(struct mr_run *run, struct mr_cpufile *cf, struct blockfile *bf,
			mr_sample_note_fn *note, void *arg, char *err, size_t errlen)
{
	struct memphis_block h;
	struct memphis_rec_file f;
	char what[256];
	int r;

	bf->fd = rundir_open_file(cf->path);
	bf->name = cf->name;
	bf->off = 0;
	bf->blocks = 0;
	bf->ra_pos = bf->ra_len = 0;
	if (bf->fd < 0) {
		int e = bf->fd;

		bf->fd = -1;
		if (!cf->damaged && rundir_note(run, note, arg, 1, "%s: cannot open: %s", cf->name,
						rundir_open_strerror(e)))
			return -ENOMEM;
		cf->damaged = 1;
		return -ENODATA;
	}
	posix_fadvise(bf->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r = rundir_bf_next(bf, &h, what, sizeof(what));
	if (r == BF_BLOCK && (h.type != MPH_BLK_FILE || h.length < sizeof(f))) {
		snprintf(what, sizeof(what), "first block is %s, not FILE", mr_block_name(h.type));
		r = BF_DAMAGE;
	}
	if (r == BF_BLOCK) {
		memcpy(&f, bf->buf, sizeof(f));
		if (f.format_version > MEMPHIS_FORMAT_VERSION) {
			snprintf(err, errlen, "%s: written in format version %" PRIu32 "; this "
				 "memphis-report reads version %u and older: use a newer memphis-report",
				 cf->name, f.format_version, MEMPHIS_FORMAT_VERSION);
			close(bf->fd);
			bf->fd = -1;
			return -EPROTO;
		}
		rundir_bf_done(bf, &h);
		return 0;
	}
	if (!cf->damaged) {
		int m;
		if (r == BF_EOF)
			m = rundir_note(run, note, arg, 1, "%s: empty file; 0 samples read",
					cf->name);
		else
			m = rundir_note(run, note, arg, 1, "%s: offset 0: %s; 0 samples read "
					"before it", cf->name, what);
		if (m) {
			close(bf->fd);
			bf->fd = -1;
			return -ENOMEM;
		}
	}
	cf->damaged = 1;
	close(bf->fd);
	bf->fd = -1;
	return -ENODATA;
}

/* Find and pre-check cpuNNN.mph files. Returns 0 or -errno with err set. */
static int scan_cpufiles(struct mr_run *run, char *err, size_t errlen)
{
	DIR *d = opendir(run->dir);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		snprintf(err, errlen, "%s: %s", run->dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		unsigned cpu;
		char tail[8] = "";
		struct mr_cpufile cf = { 0 };
		struct stat st;

		if (sscanf(de->d_name, "cpu%u%7s", &cpu, tail) != 2 || strcmp(tail, ".mph"))
			continue;
		cf.cpu = (int)cpu;
		cf.name = strdup(de->d_name);
		cf.path = rundir_path_join(run->dir, de->d_name);
		if (!cf.name || !cf.path ||
		    rundir_append(&run->cpus, &run->ncpufiles, &cf, 1, sizeof(cf))) {
			free(cf.name);
			free(cf.path);
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (lstat(run->cpus[run->ncpufiles - 1].path, &st) == 0)
			run->cpus[run->ncpufiles - 1].size = (uint64_t)st.st_size;
	}
	if (run->ncpufiles)
		qsort(run->cpus, run->ncpufiles, sizeof(*run->cpus), cmp_cpufile);
	for (size_t i = 0; i < run->ncpufiles; i++) {
		struct blockfile bf = { .fd = -1 };
		int r = rundir_open_cpufile(run, &run->cpus[i], &bf, NULL, NULL, err, errlen);

		rundir_bf_free(&bf);
		if (r == -EPROTO || r == -ENOMEM) {
			rc = r;
			if (r == -ENOMEM)
				snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (r == 0)
			close(bf.fd);
	}
out:
	closedir(d);
	return rc;
}

/* What meta.mph says the cpu files hold (CPU_SAMPLES records: per region and file, the
 * samples handed to the writer) set as each file's expected count; a file it names that
 * is not there is damage, named with those samples and regions. A run of a library
 * before these records says only its regions' totals: no cpu file at all, when they
 * count samples written, is damage too. 0 or -ENOMEM. */
static int expected_samples(struct mr_run *run)
{
	/* the CPUs without a file: samples, first and last region each */
	struct missing {
		uint32_t cpu, first, last;
		uint64_t n;
	} *miss = NULL;
	size_t nmiss = 0, k;
	uint64_t written = 0;
	char a[32], regs[48];
	int rc = 0;

	for (size_t i = 0; i < run->ncpu_samples; i++) {
		const struct memphis_rec_cpu_samples *r = &run->cpu_samples[i];
		struct missing m = { r->cpu, r->region, r->region, r->samples };

		for (k = 0; k < run->ncpufiles && run->cpus[k].cpu != (int)r->cpu; k++)
			;
		if (k < run->ncpufiles) {
			run->cpus[k].expected += r->samples;
			continue;
		}
		for (k = 0; k < nmiss && miss[k].cpu != r->cpu; k++)
			;
		if (k == nmiss) {
			if (rundir_append(&miss, &nmiss, &m, 1, sizeof(m))) {
				free(miss);
				return -ENOMEM;
			}
			continue;
		}
		miss[k].n += r->samples;
		miss[k].first = r->region < miss[k].first ? r->region : miss[k].first;
		miss[k].last = r->region > miss[k].last ? r->region : miss[k].last;
	}
	for (k = 0; k < nmiss && !rc; k++) {
		if (miss[k].first == miss[k].last)
			snprintf(regs, sizeof(regs), "region %" PRIu32, miss[k].first);
		else
			snprintf(regs, sizeof(regs), "regions %" PRIu32 "-%" PRIu32, miss[k].first,
				 miss[k].last);
		rc = mr_run_add_damage(run, MEMPHIS_CPU_FILE_FMT ": missing; meta.mph says %s "
				       "samples of %s were written to it", miss[k].cpu,
				       mr_fmt_count(a, miss[k].n), regs);
	}
	free(miss);
	if (rc || run->ncpu_samples || run->ncpufiles || mr_run_write_error(run))
		return rc;
	for (size_t i = 0; i < run->nregions; i++)
		if (run->regions[i].samples > run->regions[i].dropped)
			written += run->regions[i].samples - run->regions[i].dropped;
	if (written && mr_run_add_damage(run, "no cpuNNN.mph file, though meta.mph's regions count "
					 "%s samples written to them", mr_fmt_count(a, written)) < 0)
		return -ENOMEM;
	return 0;
}

int mr_run_open(const char *dir, struct mr_run **out, char *err, size_t errlen)
{
	struct mr_run *run = calloc(1, sizeof(*run));
	struct stat st;
	int rc;

	err[0] = '\0';
	*out = NULL;
	if (!run) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	run->dir = strdup(dir);
	if (!run->dir) {
		free(run);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (stat(dir, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto fail;
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = -ENOTDIR;
		snprintf(err, errlen, "%s: not a directory (expected a memphis run directory)", dir);
		goto fail;
	}
	mr_in_owner_of(dir, &run->owner);
	rc = rundir_read_meta(run, err, errlen);
	if (rc)
		goto fail;
	rc = index_regions(run);
	if (rc) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	rc = scan_cpufiles(run, err, errlen);
	if (rc)
		goto fail;
	if ((rc = expected_samples(run))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	*out = run;
	return 0;
fail:
	mr_run_close(run);
	return rc;
}

void mr_run_close(struct mr_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->nkv; i++) {
		free(run->kv[i].key);
		free(run->kv[i].value);
	}
	for (size_t i = 0; i < run->nmaps; i++)
		free(run->maps[i].text);
	for (size_t i = 0; i < run->npages; i++)
		if (!run->pages[i].mapped)
			free((void *)run->pages[i].raw);
	mr_run_drop_heap_records(run); /* their buffers; before the mapping goes */
	if (run->meta_map)
		munmap((void *)run->meta_map, run->meta_msize);
	for (size_t i = 0; i < run->nnotes; i++)
		free(run->notes[i].text);
	for (size_t i = 0; i < run->ntls; i++)
		free(run->tls[i].path);
	free(run->tls);
	rundir_stacks_free(run->touch_stacks);
	free(run->cpu_samples);
	free(run->thread_cpu);
	for (size_t i = 0; i < run->ncpufiles; i++) {
		free(run->cpus[i].name);
		free(run->cpus[i].path);
	}
	for (size_t i = 0; i < run->ndamage; i++)
		free(run->damage[i]);
	for (size_t i = 0; i < run->nwarnings; i++)
		free(run->warnings[i]);
	free(run->kv);
	free(run->cpu_node);
	free(run->distance);
	free(run->maps);
	free(run->threads);
	free(run->alloc_recs);
	free(run->free_recs);
	free(run->touches);
	free(run->regions);
	free(run->region_by_seq);
	free(run->counters);
	free(run->losses);
	free(run->pages);
	free(run->notes);
	free(run->cpus);
	free(run->damage);
	free(run->warnings);
	free(run->dir);
	free(run);
}

void mr_run_recs_release(struct mr_run *run, struct mr_recs *r)
{
	if (!r->raw)
		return;
	if (!r->mapped)
		free((void *)r->raw);
	else if (run->meta_map)
		rundir_drop_pages(r->raw, r->len);
	r->raw = NULL;
}

void mr_run_drop_heap_records(struct mr_run *run)
{
	for (size_t i = 0; i < run->nalloc_recs; i++)
		mr_run_recs_release(run, &run->alloc_recs[i]);
	for (size_t i = 0; i < run->nfree_recs; i++)
		mr_run_recs_release(run, &run->free_recs[i]);
}

const char *mr_run_get(const struct mr_run *run, const char *key)
{
	for (size_t i = run->nkv; i-- > 0;)
		if (!strcmp(run->kv[i].key, key))
			return run->kv[i].value;
	return NULL;
}

uint64_t mr_run_get_u64(const struct mr_run *run, const char *key, uint64_t dflt)
{
	const char *v = mr_run_get(run, key);
	char *end;
	unsigned long long x;

	if (!v || !*v)
		return dflt;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end)
		return dflt;
	return x;
}

int mr_run_realtime(const struct mr_run *run, uint64_t t, uint64_t *ns)
{
	uint64_t rt = mr_run_get_u64(run, "start_realtime", 0);
	uint64_t mono = run->have_meta_file ? run->meta_file.start_time : 0;

	if (!rt || !mono)
		return -ENOENT;
	*ns = rt + (t > mono ? t - mono : 0);
	return t < mono ? -ERANGE : 0;
}

int mr_run_cpu_node(const struct mr_run *run, unsigned cpu)
{
	if (!run->have_topology || cpu >= run->ncpus)
		return -1;
	return run->cpu_node[cpu];
}

const struct memphis_rec_region *mr_run_region(const struct mr_run *run, uint32_t seq)
{
	/* the first entry of seq: the count of those below it */
	size_t i = seq ? mph_upper_bound(run->region_by_seq, run->nregions,
					 sizeof(*run->region_by_seq), 0, ((uint64_t)seq << 32) - 1)
		       : 0;

	if (i < run->nregions && run->region_by_seq[i] >> 32 == seq)
		return &run->regions[(uint32_t)run->region_by_seq[i]];
	return NULL;
}
