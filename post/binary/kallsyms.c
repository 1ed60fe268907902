/* post/binary/kallsyms.c - kernel text symbols from a kallsyms file (see kallsyms.h). */
#include "kallsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/outfile.h"
#include "bigmem.h"
#include "crc32c.h"
#include "demangle.h"
#include "hash.h"
#include "search.h"

static int by_addr(const void *x, const void *y)
{
	const struct mr_ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The first capacity of the symbols (2 MiB) and of their names (4 MiB): a kernel of 121 k
 * text symbols and 3 MB of names fits, on three huge pages instead of 1,250 small ones
 * filled one fault at a time, and without copies as the arrays grow. Kept from the DWARF
 * reader's child (mph_big_alloc_nofork): they are filled by a thread of their own while
 * it is forked. */
#define SYMS_FIRST ((size_t)1 << 17)
#define NAMES_FIRST ((size_t)4 << 20)

/* Append the len bytes at name and a NUL to k->names, its offset into *off. 0 or
 * -ENOMEM. */
static int add_name(struct mr_kallsyms *k, const char *name, size_t len, uint32_t *off)
{
	if (k->names_len + len + 1 > k->names_cap) {
		size_t nc = k->names_cap ? k->names_cap * 2 : NAMES_FIRST;
		char *nn;

		while (nc < k->names_len + len + 1)
			nc *= 2;
		if (nc > UINT32_MAX || !(nn = mph_big_realloc_nofork(k->names, k->names_cap, nc)))
			return -ENOMEM;
		k->names = nn;
		k->names_cap = nc;
	}
	memcpy(k->names + k->names_len, name, len);
	k->names[k->names_len + len] = '\0';
	*off = (uint32_t)k->names_len;
	k->names_len += len + 1;
	return 0;
}

/* A hexadecimal digit's value plus 1 by its byte, 0 for any other byte. */
static const unsigned char hex1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The value of the 8 hexadecimal digits at p (the first the most significant) into *v: 1,
 * or 0 when one of the bytes is no such digit. In a few operations on all 8 at once
 * instead of a table lookup and a shift a digit. */
static int hex8(const char *p, uint32_t *v)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t x, d, l, digit, letter, nib;

	memcpy(&x, p, 8); /* little-endian: p[0] in the low byte */
	if (x & high)
		return 0;
	d = x ^ 0x30 * ones;                  /* '0'..'9' -> 0..9 */
	digit = ~(d + (0x80 - 10) * ones) & high;
	l = (x | 0x20 * ones) ^ 0x60 * ones; /* 'a'..'f', 'A'..'F' -> 1..6 */
	letter = (l + 0x7f * ones) & ~(l + (0x80 - 7) * ones) & high;
	if ((digit | letter) != high)
		return 0;
	nib = (x & 0x0f * ones) + (letter >> 7) * 9;
	/* bytes (first digit lowest) into one number, first digit highest */
	nib = (nib & 0x000f000f000f000full) << 4 | (nib & 0x0f000f000f000f00ull) >> 8;
	nib = (nib & 0x000000ff000000ffull) << 8 | (nib & 0x00ff000000ff0000ull) >> 16;
	*v = (uint32_t)((nib & 0xffff) << 16 | (nib >> 32 & 0xffff));
	return 1;
}

/* A line of kallsyms, "ADDR TYPE NAME[\t[MODULE]]" up to its '\n' at nl, as sscanf's
 * "%x %c %255s" takes it (a longer name cut), by hand: sscanf cost a report of a run with
 * kernel samples a fifth of its fixed cost (121 k lines here), tests of each byte's class
 * 400 instructions a line more. 1 with *addr, *type and the name (*name, *len: in the
 * line); 0 for another line. */
static int parse_line(const char *p, const char *nl, uint64_t *addr, char *type, const char **name,
		      size_t *len)
{
	uint64_t a = 0;
	uint32_t hi, lo;
	size_t n;
	int digits = 0;
	unsigned d;

	/* the usual line: 16 digits and a space */
	if (nl - p > 16 && hex8(p, &hi) && hex8(p + 8, &lo) && p[16] == ' ') {
		a = (uint64_t)hi << 32 | lo;
		p += 16;
		digits = 16;
	}
	for (; (d = hex1[(unsigned char)*p]) != 0; p++, digits++) {
		if (digits == 16)
			return 0; /* more than 64 bits */
		a = a << 4 | (d - 1);
	}
	if (!digits || (*p != ' ' && *p != '\t'))
		return 0;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '\n')
		return 0;
	*type = *p++;
	while (*p == ' ' || *p == '\t')
		p++;
	*name = p;
	n = strcspn(p, " \t\n"); /* the line ends in '\n' */
	*addr = a;
	*len = n < 255 ? n : 255;
	return n > 0;
}

/* Add the symbol of kallsyms line p (up to its '\n') to k when it is a text symbol with an
 * address, a compiler clone by its function's name ("update_sd_lb_stats.constprop.0": the
 * function the kernel's source has). 0 or -ENOMEM. */
static int add_line(struct mr_kallsyms *k, const char *p, const char *nl)
{
	const char *name;
	char type, buf[256];
	uint64_t addr;
	size_t len;
	int rc;

	if (!parse_line(p, nl, &addr, &type, &name, &len) || !addr || !strchr("tTwW", type))
		return 0;
	if (k->n == k->sym_cap) {
		size_t nc = k->sym_cap ? k->sym_cap * 2 : SYMS_FIRST;
		struct mr_ksym *ns = mph_big_realloc_nofork(k->sym, k->sym_cap * sizeof(*ns),
							    nc * sizeof(*ns));

		if (!ns)
			return -ENOMEM;
		k->sym = ns;
		k->sym_cap = nc;
	}
	if (memchr(name, '.', len)) {
		char *src;

		memcpy(buf, name, len);
		buf[len] = '\0';
		if ((src = mr_demangle_function(buf))) {
			snprintf(buf, sizeof(buf), "%s", src);
			free(src);
		}
		name = buf;
		len = strlen(buf);
	}
	memset(&k->sym[k->n], 0, sizeof(k->sym[k->n])); /* its padding too: the cache's bytes */
	if ((rc = add_name(k, name, len, &k->sym[k->n].name)) < 0)
		return rc;
	k->sym[k->n++].addr = addr;
	return 0;
}

/* Bytes read at once: /proc/kallsyms (12 MB here) is the kernel's text, made as it is
 * read; each line is parsed where it was read. */
#define READ_BYTES (256u << 10)

int mr_kallsyms_load(struct mr_kallsyms *k, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0, sorted = 1;
	char *buf = fd >= 0 ? malloc(READ_BYTES + 1) : NULL;
	size_t have = 0;

	memset(k, 0, sizeof(*k));
	if (fd < 0)
		return -errno;
	if (!buf)
		rc = -ENOMEM;
	while (!rc) {
		ssize_t r = read(fd, buf + have, READ_BYTES - have);
		char *p = buf, *end, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -errno;
			break;
		}
		have += (size_t)r;
		if (r == 0 && have && buf[have - 1] != '\n')
			buf[have++] = '\n'; /* the last line, without its '\n' */
		end = buf + have;
		while (!rc && (nl = memchr(p, '\n', (size_t)(end - p)))) {
			rc = add_line(k, p, nl);
			p = nl + 1;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
		if (have == READ_BYTES)
			have = 0; /* a line longer than the buffer: not a symbol's */
		if (r == 0)
			break;
	}
	close(fd);
	free(buf);
	for (size_t i = 1; i < k->n; i++)
		sorted &= k->sym[i].addr >= k->sym[i - 1].addr;
	if (!rc && !k->n)
		rc = -ENOENT;
	if (rc) {
		mr_kallsyms_free(k);
		return rc;
	}
	/* /proc/kallsyms comes sorted (its qsort was a tenth of a report's fixed cost); equal
	 * addresses stay in the file's order either way (glibc's qsort merges, stably) */
	if (!sorted)
		qsort(k->sym, k->n, sizeof(*k->sym), by_addr);
	return 0;
}

void mr_kallsyms_free(struct mr_kallsyms *k)
{
	if (k->map) {
		munmap(k->map, k->map_len);
	} else {
		mph_big_free_nofork(k->sym, k->sym_cap * sizeof(*k->sym));
		mph_big_free_nofork(k->names, k->names_cap);
	}
	memset(k, 0, sizeof(*k));
}

long mr_kallsyms_find(const struct mr_kallsyms *k, uint64_t ip)
{
	size_t i = mph_upper_bound(k->sym, k->n, sizeof(*k->sym), offsetof(struct mr_ksym, addr), ip);

	return i ? (long)i - 1 : -1;
}

long mr_kallsyms_find_cached(const struct mr_kallsyms *k, struct mr_kallsyms_cache *c,
			     uint64_t ip)
{
	struct mr_kallsyms_slot *s = &c->slot[mph_fib_slot(ip, MR_KALLSYMS_CACHE_BITS)];

	if (!s->found1 || s->ip != ip) {
		s->ip = ip;
		s->found1 = mr_kallsyms_find(k, ip) + 1;
	}
	return s->found1 - 1;
}

const char *mr_kallsyms_name(const struct mr_kallsyms *k, size_t i)
{
	return i < k->n ? k->names + k->sym[i].name : "";
}

/* The cache file: this header, the n symbols, then the names_len bytes of names. */
#define CACHE_MAGIC "MPHKSYM1"
struct cache_hdr {
	char magic[8];
	uint64_t key;
	uint64_t n, names_len;
	uint32_t crc_sym, crc_names; /* CRC-32C of the symbols, of the names */
};

/* k from the cache file at path, mapped, when it holds the symbols of key. 0, or -1 with
 * k empty. */
static int cache_read(struct mr_kallsyms *k, const char *path, uint64_t key)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), ok = 0;
	const struct cache_hdr *h;
	struct stat st;
	void *m;

	memset(k, 0, sizeof(*k));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (uint64_t)st.st_size <= sizeof(*h) ||
	    (m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	close(fd);
	madvise(m, (size_t)st.st_size, MADV_DONTFORK); /* the DWARF reader's child: none of it */
	h = m;
	if (!memcmp(h->magic, CACHE_MAGIC, 8) && h->key == key && h->n && h->names_len &&
	    h->n <= UINT32_MAX && h->names_len <= UINT32_MAX &&
	    (uint64_t)st.st_size == sizeof(*h) + h->n * sizeof(*k->sym) + h->names_len) {
		const struct mr_ksym *sym = (const void *)(h + 1);
		const char *names = (const char *)(sym + h->n);

		ok = mph_crc32c_fast(sym, h->n * sizeof(*sym)) == h->crc_sym &&
		     mph_crc32c_fast(names, h->names_len) == h->crc_names &&
		     names[h->names_len - 1] == '\0';
		for (size_t i = 0; ok && i < h->n; i++)
			ok = sym[i].name < h->names_len && (!i || sym[i].addr >= sym[i - 1].addr);
	}
	if (!ok) {
		munmap(m, (size_t)st.st_size);
		return -1;
	}
	k->sym = (struct mr_ksym *)(void *)(h + 1);
	k->names = (char *)(k->sym + h->n);
	k->n = h->n;
	k->names_len = h->names_len;
	k->map = m;
	k->map_len = (size_t)st.st_size;
	return 0;
}

/* k into the cache file at path under key, whole or not at all (mr_outfile). Best effort;
 * not under a file size limit it would pass (RLIMIT_FSIZE: the write would raise SIGXFSZ,
 * which kills). */
static void cache_write(const struct mr_kallsyms *k, const char *path, uint64_t key)
{
	struct cache_hdr h = { .key = key, .n = k->n, .names_len = k->names_len };
	size_t bytes = sizeof(h) + k->n * sizeof(*k->sym) + k->names_len;
	struct rlimit fsize;
	struct mr_outfile o;

	if ((getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
	     fsize.rlim_cur < bytes) ||
	    mr_outfile_open_private(&o, path) != MR_EXIT_OK)
		return;
	memcpy(h.magic, CACHE_MAGIC, 8);
	h.crc_sym = mph_crc32c_fast(k->sym, k->n * sizeof(*k->sym));
	h.crc_names = mph_crc32c_fast(k->names, k->names_len);
	fwrite(&h, sizeof(h), 1, o.f);
	fwrite(k->sym, sizeof(*k->sym), k->n, o.f);
	fwrite(k->names, 1, k->names_len, o.f);
	mr_outfile_close(&o); /* a short write: ferror, the copy not put in place */
}

int mr_kallsyms_load_cached(struct mr_kallsyms *k, const char *path, const char *cache,
			    uint64_t key)
{
	int rc;

	if (cache && cache_read(k, cache, key) == 0)
		return 0;
	rc = mr_kallsyms_load(k, path);
	if (!rc && cache)
		cache_write(k, cache, key);
	return rc;
}

uint64_t mr_kallsyms_key(const char *boot_id, const char *modules)
{
	uint64_t h = mph_fnv1a_more(MPH_FNV1A_SEED, boot_id, strlen(boot_id) + 1);
	FILE *f = fopen(modules, "re");
	char line[1024];

	/* "name size refcount deps state address": the use count changes as devices are
	 * opened, the symbols do not */
	while (f && fgets(line, sizeof(line), f)) {
		char name[256], addr[64];
		unsigned long size;

		if (sscanf(line, "%255s %lu %*s %*s %*s %63s", name, &size, addr) == 3) {
			h = mph_fnv1a_more(h, name, strlen(name) + 1);
			h = mph_fnv1a_more(h, &size, sizeof(size));
			h = mph_fnv1a_more(h, addr, strlen(addr) + 1);
		}
	}
	if (f)
		fclose(f);
	return h;
}
