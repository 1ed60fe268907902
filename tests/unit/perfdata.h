/* tests/unit/perfdata.h - what the replay tests (tests/unit/unit_replay*.c) need around perf: a
 * reader of perf.data files (header, attrs with their ids, the data section's records), a
 * command's output captured, and perf itself found. Test code, not a library: it reads the
 * "PERFILE2" file format of tools/perf/Documentation/perf.data-file-format.txt only as far
 * as the tests need (no pipe mode, no byte swapping, no feature sections). Static
 * functions; include once per test. */
#ifndef MEMPHIS_TESTS_PERFDATA_H
#define MEMPHIS_TESTS_PERFDATA_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PD_MAX_ATTR 8

struct pd_attr {
	struct perf_event_attr attr; /* the file's attr, zero beyond its size */
	uint64_t *ids;               /* the sample ids that name this attr (malloc'd) */
	size_t nids;
};

struct pd_file {
	unsigned char *buf;          /* the whole file (malloc'd) */
	size_t len;
	unsigned nattr;
	struct pd_attr attr[PD_MAX_ATTR];
	uint64_t data_off, data_size;
	int id_pos;                  /* u64 index of the id after a sample's header, -1: none */
};

/* One record of the data section, copied to 8-byte-aligned storage, as a ring reader hands
 * records over (records in the file are at 8-byte offsets, but not of an aligned buffer). */
union pd_record {
	struct perf_event_header h;
	uint64_t u[65536 / 8];
};

static uint64_t __attribute__((unused)) pd_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The whole file into *buf (malloc'd). 0, or -1 with errno. */
static int __attribute__((unused)) pd_slurp(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	*buf = NULL;
	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0 ||
	    !(*buf = malloc((size_t)n + 1)) || fread(*buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(*buf);
		*buf = NULL;
		return -1;
	}
	fclose(f);
	*len = (size_t)n;
	return 0;
}

static void __attribute__((unused)) pd_close(struct pd_file *f)
{
	for (unsigned i = 0; i < f->nattr; i++)
		free(f->attr[i].ids);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

/* perf's position of the sample id (evsel.c __evsel__calc_id_pos): first with IDENTIFIER,
 * else after whichever of IP, TID, TIME and ADDR the type has; -1 without ID. */
static int __attribute__((unused)) pd_id_pos(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
	       !!(st & PERF_SAMPLE_ADDR);
}

/* Read a perf.data file: header (magic "PERFILE2", its size, the attr entry size, the attrs
 * and data sections), then each attr entry (perf_event_attr of attr.size bytes, then the
 * file section of its ids). 0, or -1 with why in err. */
static int __attribute__((unused)) pd_open(struct pd_file *f, const char *path, char *err, size_t n)
{
	uint64_t attr_size, attrs_off, attrs_size;

	memset(f, 0, sizeof(*f));
	if (pd_slurp(path, &f->buf, &f->len) < 0) {
		snprintf(err, n, "%s: cannot read", path);
		return -1;
	}
	if (f->len < 104 || memcmp(f->buf, "PERFILE2", 8) != 0 || pd_u64(f->buf + 8) != 104) {
		snprintf(err, n, "%s: not a perf.data file of 104-byte header (magic PERFILE2)", path);
		goto fail;
	}
	attr_size = pd_u64(f->buf + 16);
	attrs_off = pd_u64(f->buf + 24);
	attrs_size = pd_u64(f->buf + 32);
	f->data_off = pd_u64(f->buf + 40);
	f->data_size = pd_u64(f->buf + 48);
	if (attr_size < 64 + 16 || attrs_size % attr_size || attrs_size / attr_size > PD_MAX_ATTR ||
	    attrs_off > f->len || attrs_size > f->len - attrs_off || f->data_off > f->len ||
	    f->data_size > f->len - f->data_off) {
		snprintf(err, n, "%s: header sections out of the file", path);
		goto fail;
	}
	f->nattr = (unsigned)(attrs_size / attr_size);
	for (unsigned i = 0; i < f->nattr; i++) {
		const unsigned char *e = f->buf + attrs_off + i * attr_size;
		struct pd_attr *a = &f->attr[i];
		uint32_t sz;
		uint64_t ids_off, ids_size;

		memcpy(&sz, e + 4, 4);
		if (sz == 0)
			sz = PERF_ATTR_SIZE_VER0;
		if (sz + 16 != attr_size) {
			snprintf(err, n, "%s: attr %u of %u bytes in entries of %llu", path, i, sz,
				 (unsigned long long)attr_size);
			goto fail;
		}
		memcpy(&a->attr, e, sz < sizeof(a->attr) ? sz : sizeof(a->attr));
		ids_off = pd_u64(e + sz);
		ids_size = pd_u64(e + sz + 8);
		if (ids_off > f->len || ids_size > f->len - ids_off || ids_size % 8) {
			snprintf(err, n, "%s: ids of attr %u out of the file", path, i);
			goto fail;
		}
		a->nids = ids_size / 8;
		a->ids = malloc(ids_size ? ids_size : 1);
		if (!a->ids) {
			snprintf(err, n, "out of memory");
			goto fail;
		}
		memcpy(a->ids, f->buf + ids_off, ids_size);
	}
	f->id_pos = f->nattr ? pd_id_pos(f->attr[0].attr.sample_type) : -1;
	return 0;
fail:
	pd_close(f);
	return -1;
}

/* The record at *off of the data section copied into r; *off moves past it. 1, 0 at the
 * end, -1 for a record that does not fit (size under 8 or past the section's end). */
static int __attribute__((unused)) pd_next(const struct pd_file *f, uint64_t *off,
					   union pd_record *r)
{
	struct perf_event_header h;
	uint64_t end = f->data_off + f->data_size;

	if (*off < f->data_off)
		*off = f->data_off;
	if (*off >= end)
		return 0;
	if (end - *off < sizeof(h))
		return -1;
	memcpy(&h, f->buf + *off, sizeof(h));
	if (h.size < sizeof(h) || h.size > end - *off)
		return -1;
	memcpy(r, f->buf + *off, h.size);
	*off += h.size;
	return 1;
}

/* The index of the attr a sample record belongs to (by its id, at perf's position), 0 in a
 * file of one attr; -1 when its id is not in the file. */
static int __attribute__((unused)) pd_sample_attr(const struct pd_file *f, const union pd_record *r)
{
	uint64_t id;

	if (f->nattr == 1)
		return 0;
	if (f->id_pos < 0 || (size_t)(f->id_pos + 2) * 8 > r->h.size)
		return -1;
	id = r->u[1 + f->id_pos];
	for (unsigned i = 0; i < f->nattr; i++)
		for (size_t k = 0; k < f->attr[i].nids; k++)
			if (f->attr[i].ids[k] == id)
				return (int)i;
	return -1;
}

/* Run cmd with sh; its standard output into *out (malloc'd, NUL-terminated). The exit
 * status (as system()), or -1 when it could not run. */
static int __attribute__((unused)) pd_run(const char *cmd, char **out)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0, cap = 1 << 16;
	char *b = malloc(cap);

	*out = NULL;
	if (!p || !b) {
		if (p)
			pclose(p);
		free(b);
		return -1;
	}
	for (;;) {
		size_t got;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap * 2);
			if (!nb)
				break;
			b = nb;
			cap *= 2;
		}
		got = fread(b + n, 1, cap - 1 - n, p);
		if (got == 0)
			break;
		n += got;
	}
	b[n] = 0;
	*out = b;
	return pclose(p);
}

/* perf can run here. Its user and system configuration files are switched off for the
 * children (PERF_CONFIG_NOGLOBAL, PERF_CONFIG_NOSYSTEM) so that they print perf's
 * defaults, and the C locale fixes the number format. */
static int __attribute__((unused)) pd_have_perf(void)
{
	setenv("PERF_CONFIG_NOGLOBAL", "1", 1);
	setenv("PERF_CONFIG_NOSYSTEM", "1", 1);
	setenv("LC_ALL", "C", 1);
	return system("perf version > /dev/null 2>&1") == 0;
}

#endif /* MEMPHIS_TESTS_PERFDATA_H */
