/* post/rundir.c - reading a memphis run directory: framed blocks, validation, metadata,
 * streamed samples. See rundir.h for the contract. */
#include "rundir.h"

#include <dirent.h>
#include <errno.h>
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

/* One file being read block by block. */
struct blockfile {
	int fd;
	const char *name;   /* file name for messages */
	uint64_t off;       /* offset of the next block header */
	uint64_t blocks;    /* complete blocks read */
	unsigned char *buf; /* payload of the last block */
	size_t cap;
};

enum { BF_BLOCK = 1, BF_EOF = 0, BF_DAMAGE = -1, BF_IOERR = -2 };

const char *mr_block_name(unsigned type)
{
	static const char *const names[] = {
		[MPH_BLK_FILE] = "FILE", [MPH_BLK_RUN] = "RUN", [MPH_BLK_TOPOLOGY] = "TOPOLOGY",
		[MPH_BLK_MAPS] = "MAPS", [MPH_BLK_THREADS] = "THREADS", [MPH_BLK_ALLOCS] = "ALLOCS",
		[MPH_BLK_FREES] = "FREES", [MPH_BLK_FIRST_TOUCH] = "FIRST_TOUCH",
		[MPH_BLK_REGION] = "REGION", [MPH_BLK_LOSS] = "LOSS", [MPH_BLK_PAGES] = "PAGES",
		[MPH_BLK_NOTE] = "NOTE", [MPH_BLK_SAMPLES] = "SAMPLES", [MPH_BLK_END] = "END",
		[MPH_BLK_TLS] = "TLS",
	};
	static __thread char other[24];

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(other, sizeof(other), "type %u", type);
	return other;
}

char *mr_fmt_count(char *buf, uint64_t v)
{
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	int o = 0;

	for (int i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

/* Read exactly n bytes unless EOF comes first. Returns bytes read, or -1 on an I/O error. */
static ssize_t read_full(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Read the next framed block of bf into hdr and bf->buf. Returns BF_BLOCK, BF_EOF at a
 * clean end of file, or BF_DAMAGE / BF_IOERR with a message (without the file name and
 * offset, which the caller adds: the block starts at bf->off) in what. */
static int bf_next(struct blockfile *bf, struct memphis_block *hdr, char *what, size_t wlen)
{
	ssize_t r = read_full(bf->fd, hdr, sizeof(*hdr));

	if (r == 0)
		return BF_EOF;
	if (r < 0) {
		snprintf(what, wlen, "read error: %s", strerror(errno));
		return BF_IOERR;
	}
	if ((size_t)r < sizeof(*hdr)) {
		snprintf(what, wlen, "truncated block header (%zd of %zu bytes)", r, sizeof(*hdr));
		return BF_DAMAGE;
	}
	if (hdr->magic != MEMPHIS_BLOCK_MAGIC) {
		snprintf(what, wlen, "bad block magic 0x%08" PRIx32 " (not a block boundary)",
			 hdr->magic);
		return BF_DAMAGE;
	}
	if (hdr->length > MEMPHIS_MAX_PAYLOAD) {
		snprintf(what, wlen, "%s block claims %" PRIu32 " payload bytes (limit %u)",
			 mr_block_name(hdr->type), hdr->length, MEMPHIS_MAX_PAYLOAD);
		return BF_DAMAGE;
	}
	if (hdr->length + 1u > bf->cap) {
		size_t ncap = bf->cap ? bf->cap : 65536;
		while (ncap < hdr->length + 1u)
			ncap *= 2;
		unsigned char *nb = realloc(bf->buf, ncap);
		if (!nb) {
			snprintf(what, wlen, "out of memory for a %" PRIu32 "-byte block", hdr->length);
			return BF_IOERR;
		}
		bf->buf = nb;
		bf->cap = ncap;
	}
	r = read_full(bf->fd, bf->buf, hdr->length);
	if (r < 0) {
		snprintf(what, wlen, "read error: %s", strerror(errno));
		return BF_IOERR;
	}
	if ((size_t)r < hdr->length) {
		snprintf(what, wlen, "truncated %s block (%zd of %" PRIu32 " payload bytes)",
			 mr_block_name(hdr->type), r, hdr->length);
		return BF_DAMAGE;
	}
	if (mph_crc32c_fast(bf->buf, hdr->length) != hdr->crc) {
		snprintf(what, wlen, "checksum mismatch in %s block", mr_block_name(hdr->type));
		return BF_DAMAGE;
	}
	bf->buf[hdr->length] = '\0'; /* text payloads become C strings */
	return BF_BLOCK;
}

/* Advance past the block just read. */
static void bf_done(struct blockfile *bf, const struct memphis_block *hdr)
{
	bf->off += sizeof(*hdr) + hdr->length;
	bf->blocks++;
}

static int vadd_msg(char ***arr, size_t *n, const char *fmt, va_list ap)
{
	char *s = NULL;
	char **na;

	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	na = realloc(*arr, (*n + 1) * sizeof(*na));
	if (!na) {
		free(s);
		return -ENOMEM;
	}
	na[(*n)++] = s;
	*arr = na;
	return 0;
}

int mr_run_add_damage(struct mr_run *run, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vadd_msg(&run->damage, &run->ndamage, fmt, ap);
	va_end(ap);
	return rc;
}

int mr_run_add_warning(struct mr_run *run, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vadd_msg(&run->warnings, &run->nwarnings, fmt, ap);
	va_end(ap);
	return rc;
}

/* Append cnt records of size sz to the array *arr of *n records. Returns 0 or -ENOMEM. */
static int append(void *arrp, size_t *n, const void *src, size_t cnt, size_t sz)
{
	void **arr = arrp;
	void *na;

	if (cnt == 0)
		return 0;
	na = realloc(*arr, (*n + cnt) * sz);
	if (!na)
		return -ENOMEM;
	memcpy((char *)na + *n * sz, src, cnt * sz);
	*arr = na;
	*n += cnt;
	return 0;
}

/* Parse the "key=value\n" lines of a RUN block. Returns 0 or -ENOMEM. */
static int parse_run(struct mr_run *run, char *text)
{
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');
		struct mr_kv kv;

		if (!eq)
			continue;
		*eq = '\0';
		kv.key = strdup(line);
		kv.value = strdup(eq + 1);
		if (!kv.key || !kv.value || append(&run->kv, &run->nkv, &kv, 1, sizeof(kv))) {
			free(kv.key);
			free(kv.value);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Check that a record-array payload is a whole number of records; describe it if not. */
static int check_array(const struct memphis_block *h, size_t recsz, char *what, size_t wlen)
{
	if (h->length % recsz == 0)
		return 0;
	snprintf(what, wlen, "%s block of %" PRIu32 " bytes is not a whole number of %zu-byte records",
		 mr_block_name(h->type), h->length, recsz);
	return -EINVAL;
}

/* Parse a TLS block: memphis_rec_tls entries, each followed by its path padded to 8
 * bytes. A module seen again (same path) is updated. Returns 0, -EINVAL (what set) or
 * -ENOMEM. */
static int parse_tls(struct mr_run *run, const struct memphis_block *h, const unsigned char *p,
		     char *what, size_t wlen)
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
		} else if (append(&run->tls, &run->ntls, &m, 1, sizeof(m))) {
			free(m.path);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Store one validated meta.mph block into run. Returns 0, -EINVAL with `what` set when the
 * block's content is inconsistent (treated as damage), -EPROTO for a future format
 * version (message in what), or -ENOMEM. */
static int meta_block(struct mr_run *run, const struct memphis_block *h, unsigned char *p,
		      char *what, size_t wlen)
{
	uint32_t len = h->length;

	if (h->type != MPH_BLK_FILE && !run->have_meta_file) {
		snprintf(what, wlen, "first block is %s, not FILE", mr_block_name(h->type));
		return -EINVAL;
	}
	if (h->type >= MPH_BLK_FILE && h->type <= MPH_BLK_TLS && h->version != 1) {
		run->unknown_blocks++;
		return mr_run_add_warning(run, "%s: skipped a %s block of layout version %u "
					  "(this memphis-report knows version 1)",
					  MEMPHIS_META_FILE, mr_block_name(h->type), h->version);
	}
	switch (h->type) {
	case MPH_BLK_FILE:
		if (len < sizeof(run->meta_file)) {
			snprintf(what, wlen, "FILE block too short (%" PRIu32 " bytes)", len);
			return -EINVAL;
		}
		memcpy(&run->meta_file, p, sizeof(run->meta_file));
		if (run->meta_file.format_version > MEMPHIS_FORMAT_VERSION) {
			snprintf(what, wlen, "written in format version %" PRIu32 "; this memphis-report "
				 "reads version %u and older: use a newer memphis-report",
				 run->meta_file.format_version, MEMPHIS_FORMAT_VERSION);
			return -EPROTO;
		}
		if (run->meta_file.kind != MPH_FILE_META) {
			snprintf(what, wlen, "FILE block says this is not a metadata file (kind %" PRIu32 ")",
				 run->meta_file.kind);
			return -EINVAL;
		}
		run->have_meta_file = 1;
		return 0;
	case MPH_BLK_RUN:
		return parse_run(run, (char *)p);
	case MPH_BLK_TOPOLOGY: {
		struct memphis_rec_topology t;
		uint64_t need;

		if (len < sizeof(t)) {
			snprintf(what, wlen, "TOPOLOGY block too short (%" PRIu32 " bytes)", len);
			return -EINVAL;
		}
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
	case MPH_BLK_MAPS: {
		struct mr_maps_snap s;

		if (len < 8) {
			snprintf(what, wlen, "MAPS block too short (%" PRIu32 " bytes)", len);
			return -EINVAL;
		}
		memcpy(&s.time, p, 8);
		s.len = len - 8;
		s.text = malloc(s.len + 1);
		if (!s.text)
			return -ENOMEM;
		memcpy(s.text, p + 8, s.len);
		s.text[s.len] = '\0';
		if (append(&run->maps, &run->nmaps, &s, 1, sizeof(s))) {
			free(s.text);
			return -ENOMEM;
		}
		return 0;
	}
	case MPH_BLK_THREADS:
		if (check_array(h, sizeof(*run->threads), what, wlen))
			return -EINVAL;
		return append(&run->threads, &run->nthreads, p, len / sizeof(*run->threads),
			      sizeof(*run->threads));
	case MPH_BLK_ALLOCS:
		if (check_array(h, sizeof(*run->allocs), what, wlen))
			return -EINVAL;
		return append(&run->allocs, &run->nallocs, p, len / sizeof(*run->allocs),
			      sizeof(*run->allocs));
	case MPH_BLK_FREES:
		if (check_array(h, sizeof(*run->frees), what, wlen))
			return -EINVAL;
		return append(&run->frees, &run->nfrees, p, len / sizeof(*run->frees),
			      sizeof(*run->frees));
	case MPH_BLK_FIRST_TOUCH:
		if (check_array(h, sizeof(*run->touches), what, wlen))
			return -EINVAL;
		return append(&run->touches, &run->ntouches, p, len / sizeof(*run->touches),
			      sizeof(*run->touches));
	case MPH_BLK_LOSS:
		if (check_array(h, sizeof(*run->losses), what, wlen))
			return -EINVAL;
		return append(&run->losses, &run->nlosses, p, len / sizeof(*run->losses),
			      sizeof(*run->losses));
	case MPH_BLK_REGION: {
		struct memphis_rec_region r;

		if (len != sizeof(r)) {
			snprintf(what, wlen, "REGION block of %" PRIu32 " bytes (expected %zu)", len,
				 sizeof(r));
			return -EINVAL;
		}
		memcpy(&r, p, sizeof(r));
		r.name[MEMPHIS_NAME_MAX - 1] = '\0';
		return append(&run->regions, &run->nregions, &r, 1, sizeof(r));
	}
	case MPH_BLK_PAGES: {
		struct mr_pages pg;

		if (len < sizeof(pg.hdr)) {
			snprintf(what, wlen, "PAGES block too short (%" PRIu32 " bytes)", len);
			return -EINVAL;
		}
		memcpy(&pg.hdr, p, sizeof(pg.hdr));
		if (sizeof(pg.hdr) + (uint64_t)pg.hdr.count * sizeof(*pg.page) != len) {
			snprintf(what, wlen, "PAGES block of %" PRIu32 " bytes does not hold %" PRIu32
				 " pages", len, pg.hdr.count);
			return -EINVAL;
		}
		pg.page = malloc((size_t)pg.hdr.count * sizeof(*pg.page) + 1);
		if (!pg.page)
			return -ENOMEM;
		memcpy(pg.page, p + sizeof(pg.hdr), (size_t)pg.hdr.count * sizeof(*pg.page));
		if (append(&run->pages, &run->npages, &pg, 1, sizeof(pg))) {
			free(pg.page);
			return -ENOMEM;
		}
		return 0;
	}
	case MPH_BLK_NOTE: {
		struct mr_note nt;

		if (len < 8) {
			snprintf(what, wlen, "NOTE block too short (%" PRIu32 " bytes)", len);
			return -EINVAL;
		}
		memcpy(&nt.time, p, 8);
		nt.text = strdup((char *)p + 8);
		if (!nt.text)
			return -ENOMEM;
		nt.text[strcspn(nt.text, "\n")] = '\0';
		if (append(&run->notes, &run->nnotes, &nt, 1, sizeof(nt))) {
			free(nt.text);
			return -ENOMEM;
		}
		return 0;
	}
	case MPH_BLK_TLS:
		return parse_tls(run, h, p, what, wlen);
	case MPH_BLK_END:
		run->meta_clean_end = 1;
		return 0;
	case MPH_BLK_SAMPLES:
		run->unknown_blocks++;
		return mr_run_add_warning(run, "%s: skipped a SAMPLES block (samples belong in cpuNNN.mph)",
					  MEMPHIS_META_FILE);
	default:
		run->unknown_blocks++;
		return 0;
	}
}

static char *path_join(const char *dir, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* Read meta.mph. Returns 0 (damage recorded in run), or -errno with err set. */
static int read_meta(struct mr_run *run, char *err, size_t errlen)
{
	struct blockfile bf = { .fd = -1, .name = MEMPHIS_META_FILE };
	char *path = path_join(run->dir, MEMPHIS_META_FILE);
	struct memphis_block h;
	char what[256];
	int rc = 0, r;

	if (!path)
		return -ENOMEM;
	bf.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (bf.fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			snprintf(err, errlen, "%s: no %s: not a memphis run directory, or the run "
				 "wrote nothing (was the program linked with -lmemphis?)",
				 run->dir, MEMPHIS_META_FILE);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		free(path);
		return rc;
	}
	while ((r = bf_next(&bf, &h, what, sizeof(what))) == BF_BLOCK) {
		int m = meta_block(run, &h, bf.buf, what, sizeof(what));
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
		if (m == -EINVAL) {
			r = BF_DAMAGE;
			break;
		}
		bf_done(&bf, &h);
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
	} else if (!run->meta_clean_end) {
		if (mr_run_add_warning(run, "%s: no END block after %" PRIu64 " bytes: the run did "
				       "not finish cleanly (killed?); all complete blocks were read",
				       MEMPHIS_META_FILE, bf.off))
			rc = -ENOMEM;
	}
	run->meta_blocks = bf.blocks;
out:
	if (rc == -ENOMEM && !err[0])
		snprintf(err, errlen, "out of memory");
	close(bf.fd);
	free(bf.buf);
	free(path);
	return rc;
}

static int cmp_cpufile(const void *a, const void *b)
{
	const struct mr_cpufile *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* Open a cpu file and read its FILE block. Returns the fd (positioned after it) with
 * bf->off set, -1 when the file cannot be read (damage recorded), or -2 on a future
 * format version (message in err) or out of memory. */
static int open_cpufile(struct mr_run *run, struct mr_cpufile *cf, struct blockfile *bf,
			char *err, size_t errlen)
{
	struct memphis_block h;
	struct memphis_rec_file f;
	char what[256];
	int r;

	bf->fd = open(cf->path, O_RDONLY | O_CLOEXEC);
	bf->name = cf->name;
	bf->off = 0;
	bf->blocks = 0;
	if (bf->fd < 0) {
		if (!cf->damaged && mr_run_add_damage(run, "%s: cannot open: %s", cf->name,
						      strerror(errno)))
			return -2;
		cf->damaged = 1;
		return -1;
	}
	posix_fadvise(bf->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	r = bf_next(bf, &h, what, sizeof(what));
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
			return -2;
		}
		bf_done(bf, &h);
		return bf->fd;
	}
	if (!cf->damaged) {
		int m;
		if (r == BF_EOF)
			m = mr_run_add_damage(run, "%s: empty file; 0 samples read", cf->name);
		else
			m = mr_run_add_damage(run, "%s: offset 0: %s; 0 samples read before it",
					      cf->name, what);
		if (m) {
			close(bf->fd);
			return -2;
		}
	}
	cf->damaged = 1;
	close(bf->fd);
	return -1;
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
		cf.path = path_join(run->dir, de->d_name);
		if (!cf.name || !cf.path ||
		    append(&run->cpus, &run->ncpufiles, &cf, 1, sizeof(cf))) {
			free(cf.name);
			free(cf.path);
			rc = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (stat(run->cpus[run->ncpufiles - 1].path, &st) == 0)
			run->cpus[run->ncpufiles - 1].size = (uint64_t)st.st_size;
	}
	if (run->ncpufiles)
		qsort(run->cpus, run->ncpufiles, sizeof(*run->cpus), cmp_cpufile);
	for (size_t i = 0; i < run->ncpufiles; i++) {
		struct blockfile bf = { .fd = -1 };
		int fd = open_cpufile(run, &run->cpus[i], &bf, err, errlen);

		free(bf.buf);
		if (fd == -2) {
			rc = err[0] ? -EPROTO : -ENOMEM;
			if (!err[0])
				snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (fd >= 0)
			close(fd);
	}
out:
	closedir(d);
	return rc;
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
	rc = read_meta(run, err, errlen);
	if (rc)
		goto fail;
	rc = scan_cpufiles(run, err, errlen);
	if (rc)
		goto fail;
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
		free(run->pages[i].page);
	for (size_t i = 0; i < run->nnotes; i++)
		free(run->notes[i].text);
	for (size_t i = 0; i < run->ntls; i++)
		free(run->tls[i].path);
	free(run->tls);
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
	free(run->allocs);
	free(run->frees);
	free(run->touches);
	free(run->regions);
	free(run->losses);
	free(run->pages);
	free(run->notes);
	free(run->cpus);
	free(run->damage);
	free(run->warnings);
	free(run->dir);
	free(run);
}

void mr_run_drop_heap_records(struct mr_run *run)
{
	free(run->allocs);
	free(run->frees);
	run->allocs = NULL;
	run->frees = NULL;
	run->nallocs = run->nfrees = 0;
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

int mr_run_cpu_node(const struct mr_run *run, unsigned cpu)
{
	if (!run->have_topology || cpu >= run->ncpus)
		return -1;
	return run->cpu_node[cpu];
}

const struct memphis_rec_region *mr_run_region(const struct mr_run *run, uint32_t seq)
{
	for (size_t i = 0; i < run->nregions; i++)
		if (run->regions[i].seq == seq)
			return &run->regions[i];
	return NULL;
}

struct mr_sample_iter {
	struct mr_run *run;
	size_t file;          /* index of the current cpu file */
	struct blockfile bf;  /* fd < 0 when no file is open */
	const unsigned char *map; /* the whole file mapped, NULL: read() it */
	size_t msize;
	size_t released;      /* bytes of the mapping given back (RSS stays flat) */
};

/* The next block of a mapped file, like bf_next (payload in *payload, inside the mapping,
 * or copied to bf->buf when it is not 8-byte aligned). */
static int mem_next(struct mr_sample_iter *it, struct memphis_block *h,
		    const unsigned char **payload, char *what, size_t wlen)
{
	struct blockfile *bf = &it->bf;
	uint64_t off = bf->off, left = it->msize > off ? it->msize - off : 0;
	const unsigned char *p;

	if (left == 0)
		return BF_EOF;
	if (left < sizeof(*h)) {
		snprintf(what, wlen, "truncated block header (%" PRIu64 " of %zu bytes)", left, sizeof(*h));
		return BF_DAMAGE;
	}
	memcpy(h, it->map + off, sizeof(*h));
	if (h->magic != MEMPHIS_BLOCK_MAGIC) {
		snprintf(what, wlen, "bad block magic 0x%08" PRIx32 " (not a block boundary)", h->magic);
		return BF_DAMAGE;
	}
	if (h->length > MEMPHIS_MAX_PAYLOAD) {
		snprintf(what, wlen, "%s block claims %" PRIu32 " payload bytes (limit %u)",
			 mr_block_name(h->type), h->length, MEMPHIS_MAX_PAYLOAD);
		return BF_DAMAGE;
	}
	if (left - sizeof(*h) < h->length) {
		snprintf(what, wlen, "truncated %s block (%" PRIu64 " of %" PRIu32 " payload bytes)",
			 mr_block_name(h->type), left - sizeof(*h), h->length);
		return BF_DAMAGE;
	}
	p = it->map + off + sizeof(*h);
	if (mph_crc32c_fast(p, h->length) != h->crc) {
		snprintf(what, wlen, "checksum mismatch in %s block", mr_block_name(h->type));
		return BF_DAMAGE;
	}
	if ((uintptr_t)p % 8) {
		if (h->length + 1u > bf->cap) {
			unsigned char *nb = realloc(bf->buf, h->length + 1u);
			if (!nb) {
				snprintf(what, wlen, "out of memory for a %" PRIu32 "-byte block", h->length);
				return BF_IOERR;
			}
			bf->buf = nb;
			bf->cap = h->length + 1u;
		}
		memcpy(bf->buf, p, h->length);
		p = bf->buf;
	}
	*payload = p;
	return BF_BLOCK;
}

int mr_samples_begin(struct mr_run *run, struct mr_sample_iter **out)
{
	struct mr_sample_iter *it = calloc(1, sizeof(*it));

	*out = NULL;
	if (!it)
		return -ENOMEM;
	it->run = run;
	it->bf.fd = -1;
	for (size_t i = 0; i < run->ncpufiles; i++)
		run->cpus[i].samples = 0;
	*out = it;
	return 0;
}

/* Close the current file of the iterator and move to the next one. */
static void iter_next_file(struct mr_sample_iter *it)
{
	if (it->map)
		munmap((void *)it->map, it->msize);
	it->map = NULL;
	if (it->bf.fd >= 0)
		close(it->bf.fd);
	it->bf.fd = -1;
	it->file++;
}

size_t mr_samples_next(struct mr_sample_iter *it, const struct memphis_rec_sample **recs)
{
	struct mr_run *run = it->run;
	char what[256], n[32], err[256];
	const unsigned char *payload;

	while (it->file < run->ncpufiles) {
		struct mr_cpufile *cf = &run->cpus[it->file];
		struct memphis_block h;
		int r;

		if (it->bf.fd < 0) {
			err[0] = '\0';
			struct stat st;

			if (open_cpufile(run, cf, &it->bf, err, sizeof(err)) < 0) {
				it->file++;
				continue;
			}
			cf->clean_end = 0;
			/* map the file: no copy of the samples; read() when mapping fails */
			if (fstat(it->bf.fd, &st) == 0 && st.st_size > 0) {
				void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, it->bf.fd, 0);
				if (m != MAP_FAILED) {
					it->map = m;
					it->released = 0;
					it->msize = (size_t)st.st_size;
					madvise(m, it->msize, MADV_SEQUENTIAL);
				}
			}
		}
		/* give back what was consumed, so resident memory stays flat in the samples */
		if (it->map && it->bf.off - it->released >= (8u << 20)) {
			size_t upto = (size_t)it->bf.off & ~(size_t)4095;
			madvise((void *)(it->map + it->released), upto - it->released, MADV_DONTNEED);
			it->released = upto;
		}
		payload = NULL;
		r = it->map ? mem_next(it, &h, &payload, what, sizeof(what))
			    : bf_next(&it->bf, &h, what, sizeof(what));
		if (r == BF_BLOCK && !payload)
			payload = it->bf.buf;
		if (r == BF_EOF) {
			if (!cf->clean_end && !cf->damaged) {
				mr_run_add_warning(run, "%s: no END block after %" PRIu64 " bytes: the run did "
						   "not close this file cleanly; %s samples read", cf->name,
						   it->bf.off, mr_fmt_count(n, cf->samples));
				cf->damaged = 1;
			}
			iter_next_file(it);
			continue;
		}
		if (r == BF_BLOCK && h.type == MPH_BLK_SAMPLES && h.version == 1 &&
		    check_array(&h, sizeof(**recs), what, sizeof(what)))
			r = BF_DAMAGE;
		if (r != BF_BLOCK) {
			if (!cf->damaged)
				mr_run_add_damage(run, "%s: offset %" PRIu64 ": %s; %s samples read before it",
						  cf->name, it->bf.off, what, mr_fmt_count(n, cf->samples));
			cf->damaged = 1;
			iter_next_file(it);
			continue;
		}
		bf_done(&it->bf, &h);
		if (h.type == MPH_BLK_END) {
			cf->clean_end = 1;
			continue;
		}
		if (h.type != MPH_BLK_SAMPLES || h.version != 1 || h.length == 0) {
			if (h.type != MPH_BLK_SAMPLES && h.type != MPH_BLK_NOTE)
				run->unknown_blocks++;
			continue;
		}
		*recs = (const struct memphis_rec_sample *)payload;
		cf->samples += h.length / sizeof(**recs);
		return h.length / sizeof(**recs);
	}
	return 0;
}

void mr_samples_end(struct mr_sample_iter *it)
{
	if (!it)
		return;
	if (it->map)
		munmap((void *)it->map, it->msize);
	if (it->bf.fd >= 0)
		close(it->bf.fd);
	free(it->bf.buf);
	free(it);
}
