/* post/run/rundir_blocks.c - reading a file of framed blocks (include/memphis/format.h)
 * one block at a time (header checks, payload, CRC-32C), and what every reader of them
 * needs: the run's damage and warning messages, paths, counts for messages. */
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

#include "base/infile.h"
#include "crc32c.h"

const char *mr_block_name(unsigned type)
{
	static const char *const names[] = {
		[MPH_BLK_FILE] = "FILE", [MPH_BLK_RUN] = "RUN", [MPH_BLK_TOPOLOGY] = "TOPOLOGY",
		[MPH_BLK_MAPS] = "MAPS", [MPH_BLK_THREADS] = "THREADS", [MPH_BLK_ALLOCS] = "ALLOCS",
		[MPH_BLK_FREES] = "FREES", [MPH_BLK_FIRST_TOUCH] = "FIRST_TOUCH",
		[MPH_BLK_REGION] = "REGION", [MPH_BLK_LOSS] = "LOSS", [MPH_BLK_PAGES] = "PAGES",
		[MPH_BLK_NOTE] = "NOTE", [MPH_BLK_SAMPLES] = "SAMPLES", [MPH_BLK_END] = "END",
		[MPH_BLK_TLS] = "TLS", [MPH_BLK_COUNTERS] = "COUNTERS", [MPH_BLK_STACKS] = "STACKS",
		[MPH_BLK_CPU_SAMPLES] = "CPU_SAMPLES", [MPH_BLK_THREAD_CPU] = "THREAD_CPU",
	};
	static __thread char other[24];

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	snprintf(other, sizeof(other), "type %u", type);
	return other;
}

const char *mr_counter_source_name(unsigned source)
{
	static const char *const names[] = {
		[MPH_CTR_PAPI] = "papi", [MPH_CTR_NUMASTAT] = "numastat", [MPH_CTR_VMSTAT] = "vmstat",
		[MPH_CTR_NUMA_MAPS] = "numa_maps", [MPH_CTR_TASK] = "task",
	};

	return source < sizeof(names) / sizeof(names[0]) ? names[source] : NULL;
}

int rundir_open_file(const char *path)
{
	return mr_in_open(path, MR_IN_MAX_RUN, MR_IN_NOFOLLOW);
}

const char *rundir_open_strerror(int rc)
{
	if (rc == -ELOOP)
		return "a symbolic link (not followed: a run directory holds only regular files)";
	return mr_in_strerror(rc, MR_IN_MAX_RUN);
}

/* Read exactly n bytes of bf unless EOF comes first, through its read-ahead buffer: a
 * meta.mph holds thousands of small blocks (a REGION, LOSS and PAGES block per region),
 * two read() calls each without it. The buffer starts at 4 KiB (opening a cpu file reads
 * its FILE block only) and doubles up to 256 KiB. Returns bytes read, or -1 on an I/O
 * error. */
static ssize_t bf_read(struct blockfile *bf, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		size_t have = bf->ra_len - bf->ra_pos, k = n - got < have ? n - got : have;
		bool direct;
		ssize_t r;

		if (k) {
			memcpy((char *)p + got, bf->ra + bf->ra_pos, k);
			bf->ra_pos += k;
			got += k;
			continue;
		}
		if (bf->ra_cap < (256u << 10) && bf->ra_len == bf->ra_cap) {
			size_t nc = bf->ra_cap ? bf->ra_cap * 2 : 4096;
			unsigned char *nr = realloc(bf->ra, nc);

			if (nr) {
				bf->ra = nr;
				bf->ra_cap = nc;
			}
		}
		/* a payload larger than the buffer goes straight into place */
		direct = !bf->ra_cap || n - got >= bf->ra_cap;
		r = direct ? read(bf->fd, (char *)p + got, n - got) : read(bf->fd, bf->ra, bf->ra_cap);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		if (direct) {
			got += (size_t)r;
		} else {
			bf->ra_pos = 0;
			bf->ra_len = (size_t)r;
		}
	}
	return (ssize_t)got;
}

void rundir_bf_free(struct blockfile *bf)
{
	free(bf->buf);
	free(bf->ra);
	bf->buf = bf->ra = NULL;
	bf->cap = bf->ra_cap = bf->ra_pos = bf->ra_len = 0;
}

/* bf->buf large enough for len bytes and a NUL. 0 or -ENOMEM. */
static int bf_reserve(struct blockfile *bf, size_t len)
{
	size_t ncap = bf->cap ? bf->cap : 65536;
	unsigned char *nb;

	if (len + 1u <= bf->cap)
		return 0;
	while (ncap < len + 1u)
		ncap *= 2;
	nb = realloc(bf->buf, ncap);
	if (!nb)
		return -ENOMEM;
	bf->buf = nb;
	bf->cap = ncap;
	return 0;
}

/* A file that ends inside a block header, after `have` of its bytes: BF_DAMAGE, why in
 * what. */
static int truncated_header(uint64_t have, char *what, size_t wlen)
{
	snprintf(what, wlen, "truncated block header (%" PRIu64 " of %zu bytes)", have,
		 sizeof(struct memphis_block));
	return BF_DAMAGE;
}

/* A file that ends inside block hdr's payload, after `have` of its bytes: BF_DAMAGE, why
 * in what. */
static int truncated_payload(const struct memphis_block *hdr, uint64_t have, char *what,
			     size_t wlen)
{
	snprintf(what, wlen, "truncated %s block (%" PRIu64 " of %" PRIu32 " payload bytes)",
		 mr_block_name(hdr->type), have, hdr->length);
	return BF_DAMAGE;
}

/* Whether hdr can head a block (its magic, a length within the limit); else why not in
 * what. */
static bool header_ok(const struct memphis_block *hdr, char *what, size_t wlen)
{
	if (hdr->magic != MEMPHIS_BLOCK_MAGIC) {
		/* never the bytes themselves: the file may not be ours (format.md) */
		snprintf(what, wlen, "bad block magic (not a block boundary)");
		return false;
	}
	if (hdr->length > MEMPHIS_MAX_PAYLOAD) {
		snprintf(what, wlen, "%s block claims %" PRIu32 " payload bytes (limit %u)",
			 mr_block_name(hdr->type), hdr->length, MEMPHIS_MAX_PAYLOAD);
		return false;
	}
	return true;
}

/* Whether payload p of block hdr has the block's checksum; else the message in what. */
static bool payload_ok(const struct memphis_block *hdr, const unsigned char *p, char *what,
		       size_t wlen)
{
	if (mph_crc32c_fast(p, hdr->length) == hdr->crc)
		return true;
	snprintf(what, wlen, "checksum mismatch in %s block", mr_block_name(hdr->type));
	return false;
}

/* The payload of block hdr, whose header was just read, into bf->buf: BF_BLOCK, or
 * BF_DAMAGE / BF_IOERR with the message in what. */
static int read_payload(struct blockfile *bf, const struct memphis_block *hdr, char *what,
			size_t wlen)
{
	ssize_t r;

	if (bf_reserve(bf, hdr->length)) {
		snprintf(what, wlen, "out of memory for a %" PRIu32 "-byte block", hdr->length);
		return BF_IOERR;
	}
	r = bf_read(bf, bf->buf, hdr->length);
	if (r < 0) {
		snprintf(what, wlen, "read error: %s", strerror(errno));
		return BF_IOERR;
	}
	if ((size_t)r < hdr->length)
		return truncated_payload(hdr, (uint64_t)r, what, wlen);
	return BF_BLOCK;
}

/* Read the next framed block of bf into hdr and bf->buf. Returns BF_BLOCK, BF_EOF at a
 * clean end of file, or BF_DAMAGE / BF_IOERR with a message (without the file name and
 * offset, which the caller adds: the block starts at bf->off) in what. */
int rundir_bf_next(struct blockfile *bf, struct memphis_block *hdr, char *what, size_t wlen)
{
	ssize_t r = bf_read(bf, hdr, sizeof(*hdr));

	if (r == 0)
		return BF_EOF;
	if (r < 0) {
		snprintf(what, wlen, "read error: %s", strerror(errno));
		return BF_IOERR;
	}
	if ((size_t)r < sizeof(*hdr))
		return truncated_header((uint64_t)r, what, wlen);
	if (!header_ok(hdr, what, wlen))
		return BF_DAMAGE;
	int k = read_payload(bf, hdr, what, wlen);
	if (k != BF_BLOCK)
		return k;
	if (!payload_ok(hdr, bf->buf, what, wlen))
		return BF_DAMAGE;
	bf->buf[hdr->length] = '\0'; /* text payloads become C strings */
	return BF_BLOCK;
}

/* At least n bytes of bf's file in bf->ra from ra_pos (n <= RA_VIEW), what is left moved
 * to the front first, read RA_STEP at a time (more for a larger block): what a read brings
 * stays in the cache until it is checked and used (one read filling 1 MiB evicted the
 * sample pass's own tables). 1, 0 when the file ends before, -1 on an I/O error. */
#define RA_VIEW (1u << 20)
#define RA_STEP (128u << 10)
static int ra_have(struct blockfile *bf, size_t n)
{
	size_t want = n > RA_STEP ? n : RA_STEP;

	if (bf->ra_len - bf->ra_pos >= n)
		return 1;
	if (bf->ra_pos) {
		memmove(bf->ra, bf->ra + bf->ra_pos, bf->ra_len - bf->ra_pos);
		bf->ra_len -= bf->ra_pos;
		bf->ra_pos = 0;
	}
	if (bf->ra_cap < want) {
		unsigned char *nr = realloc(bf->ra, want);

		if (!nr)
			return -1;
		bf->ra = nr;
		bf->ra_cap = want;
	}
	while (bf->ra_len < n) {
		ssize_t r = read(bf->fd, bf->ra + bf->ra_len, want - bf->ra_len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		bf->ra_len += (size_t)r;
	}
	return 1;
}

int rundir_bf_view(struct blockfile *bf, struct memphis_block *hdr, const unsigned char **payload,
		   char *what, size_t wlen)
{
	int h = ra_have(bf, sizeof(*hdr)), k;

	*payload = NULL;
	if (h < 0 || (h == 0 && bf->ra_len - bf->ra_pos == 0)) {
		if (h == 0)
			return BF_EOF;
		snprintf(what, wlen, "read error: %s", strerror(errno));
		return BF_IOERR;
	}
	if (h == 0)
		return truncated_header(bf->ra_len - bf->ra_pos, what, wlen);
	memcpy(hdr, bf->ra + bf->ra_pos, sizeof(*hdr));
	if (!header_ok(hdr, what, wlen))
		return BF_DAMAGE;
	if (sizeof(*hdr) + hdr->length > RA_VIEW) { /* rare: rundir_bf_next's copy */
		bf->ra_pos += sizeof(*hdr);
		k = read_payload(bf, hdr, what, wlen);
		if (k != BF_BLOCK)
			return k;
		*payload = bf->buf;
	} else {
		k = ra_have(bf, sizeof(*hdr) + hdr->length);
		if (k < 0) {
			snprintf(what, wlen, "read error: %s", strerror(errno));
			return BF_IOERR;
		}
		if (k == 0)
			return truncated_payload(hdr, bf->ra_len - bf->ra_pos - sizeof(*hdr), what,
						 wlen);
		*payload = bf->ra + bf->ra_pos + sizeof(*hdr);
		bf->ra_pos += sizeof(*hdr) + hdr->length;
	}
	if (!payload_ok(hdr, *payload, what, wlen))
		return BF_DAMAGE;
	return BF_BLOCK;
}

int rundir_mem_next(struct blockfile *bf, const unsigned char *map, size_t size,
		    struct memphis_block *hdr, const unsigned char **payload, char *what, size_t wlen)
{
	uint64_t off = bf->off, left = size > off ? size - off : 0;
	const unsigned char *p;

	if (left == 0)
		return BF_EOF;
	if (left < sizeof(*hdr))
		return truncated_header(left, what, wlen);
	memcpy(hdr, map + off, sizeof(*hdr));
	if (!header_ok(hdr, what, wlen))
		return BF_DAMAGE;
	if (left - sizeof(*hdr) < hdr->length)
		return truncated_payload(hdr, left - sizeof(*hdr), what, wlen);
	p = map + off + sizeof(*hdr);
	if (!payload_ok(hdr, p, what, wlen))
		return BF_DAMAGE;
	*payload = p;
	return BF_BLOCK;
}

int rundir_bf_hold(struct blockfile *bf, const unsigned char *p, size_t len)
{
	if (bf_reserve(bf, len))
		return -ENOMEM;
	memcpy(bf->buf, p, len);
	bf->buf[len] = '\0';
	return 0;
}

void rundir_drop_pages(const unsigned char *p, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)p + len) & ~(uintptr_t)(page - 1);

	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

int rundir_no_map;

const unsigned char *rundir_map_file(int fd, size_t *size)
{
	struct stat st;
	void *m;

	*size = 0;
	if (rundir_no_map || fstat(fd, &st) < 0 || st.st_size <= 0)
		return NULL;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	return m;
}

/* Advance past the block just read. */
void rundir_bf_done(struct blockfile *bf, const struct memphis_block *hdr)
{
	bf->off += sizeof(*hdr) + hdr->length;
	bf->blocks++;
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

int rundir_note(struct mr_run *run, mr_sample_note_fn *note, void *arg, int damage,
		const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (note) {
		note(arg, damage, msg);
		return 0;
	}
	return damage ? mr_run_add_damage(run, "%s", msg) : mr_run_add_warning(run, "%s", msg);
}

char *rundir_path_join(const char *dir, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	return p;
}

/* Contract in rundir.h. */
int mr_run_walk_blocks(const struct mr_run *run, const char *name, mr_block_fn *fn, void *arg,
		       char *what, size_t wlen)
{
	struct blockfile bf = { .fd = -1, .name = name };
	struct memphis_block h;
	const unsigned char *payload;
	char why[256];
	char *path = rundir_path_join(run->dir, name);
	int r;

	if (!path) {
		snprintf(what, wlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	bf.fd = rundir_open_file(path);
	free(path);
	if (bf.fd < 0) {
		snprintf(what, wlen, "%s: %s", name, rundir_open_strerror(bf.fd));
		return bf.fd;
	}
	while ((r = rundir_bf_view(&bf, &h, &payload, why, sizeof(why))) == BF_BLOCK) {
		fn(arg, bf.off, &h, payload);
		rundir_bf_done(&bf, &h);
	}
	if (r != BF_EOF)
		snprintf(what, wlen, "%s: offset %" PRIu64 ": %s", name, bf.off, why);
	close(bf.fd);
	rundir_bf_free(&bf);
	return r == BF_EOF ? 0 : -EINVAL;
}
