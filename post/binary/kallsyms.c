/* post/binary/kallsyms.c - kernel text symbols from a kallsyms file (see kallsyms.h). */
#include "kallsyms.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "search.h"

static int by_addr(const void *x, const void *y)
{
	const struct mr_ksym *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Append name to k->names, its offset into *off. 0 or -ENOMEM. */
static int add_name(struct mr_kallsyms *k, size_t *cap, const char *name, uint32_t *off)
{
	size_t len = strlen(name) + 1;

	if (k->names_len + len > *cap) {
		size_t nc = *cap ? *cap * 2 : 1 << 16;
		char *nn;

		while (nc < k->names_len + len)
			nc *= 2;
		if (nc > UINT32_MAX || !(nn = realloc(k->names, nc)))
			return -ENOMEM;
		k->names = nn;
		*cap = nc;
	}
	memcpy(k->names + k->names_len, name, len);
	*off = (uint32_t)k->names_len;
	k->names_len += len;
	return 0;
}

/* name without a compiler clone's suffix ("update_sd_lb_stats.constprop.0": the function
 * the kernel's source has), cut in place. */
static const char *source_name(char *name)
{
	char *src = strchr(name, '.') ? mr_demangle_function(name) : NULL;

	if (src) {
		snprintf(name, strlen(name) + 1, "%s", src);
		free(src);
	}
	return name;
}

/* A line of kallsyms, "ADDR TYPE NAME[\t[MODULE]]", as sscanf's "%x %c %255s" takes it (a
 * longer name cut), by hand: sscanf cost a report of a run with kernel samples a fifth of
 * its fixed cost (121 k lines here). 1 with *addr, *type and name; 0 for another line. */
static int parse_line(const char *p, uint64_t *addr, char *type, char name[256])
{
	uint64_t a = 0;
	size_t n = 0;
	int digits = 0;

	for (;; p++, digits++) {
		unsigned d = *p >= '0' && *p <= '9'   ? (unsigned)(*p - '0')
			     : *p >= 'a' && *p <= 'f' ? (unsigned)(*p - 'a' + 10)
			     : *p >= 'A' && *p <= 'F' ? (unsigned)(*p - 'A' + 10)
						      : 16u;
		if (d == 16)
			break;
		if (digits == 16)
			return 0; /* more than 64 bits */
		a = a << 4 | d;
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
	while (n < 255 && *p && *p != ' ' && *p != '\t' && *p != '\n')
		name[n++] = *p++;
	name[n] = '\0';
	*addr = a;
	return n > 0;
}

int mr_kallsyms_load(struct mr_kallsyms *k, const char *path)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, ncap = 0;
	char line[512], name[256], type;
	uint64_t addr, last = 0;
	int rc = 0, sorted = 1;

	memset(k, 0, sizeof(*k));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_line(line, &addr, &type, name) || !addr ||
		    !strchr("tTwW", type))
			continue;
		if (k->n == cap) {
			size_t nc = cap ? cap * 2 : 4096;
			struct mr_ksym *ns = realloc(k->sym, nc * sizeof(*ns));

			if (!ns) {
				rc = -ENOMEM;
				break;
			}
			k->sym = ns;
			cap = nc;
		}
		if ((rc = add_name(k, &ncap, source_name(name), &k->sym[k->n].name)) < 0)
			break;
		k->sym[k->n++].addr = addr;
		sorted &= addr >= last;
		last = addr;
	}
	fclose(f);
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
	free(k->sym);
	free(k->names);
	memset(k, 0, sizeof(*k));
}

long mr_kallsyms_find(const struct mr_kallsyms *k, uint64_t ip)
{
	size_t i = mph_upper_bound(k->sym, k->n, sizeof(*k->sym), offsetof(struct mr_ksym, addr), ip);

	return i ? (long)i - 1 : -1;
}

const char *mr_kallsyms_name(const struct mr_kallsyms *k, size_t i)
{
	return i < k->n ? k->names + k->sym[i].name : "";
}
