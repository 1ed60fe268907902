/* post/binary/debuginfo_strings.c - error messages, growable arrays, the string arena and the
 * interner of struct mr_debuginfo (see debuginfo_impl.h). */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "hash.h"
#include "search.h"

/* Format "path: message" into c->err. Returns rc (a -errno) for `return di_fail(...)`. */
int di_fail(struct di_ctx *c, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err || !c->errlen)
		return rc;
	n = snprintf(c->err, c->errlen, "%s: ", c->d->path ? c->d->path : "?");
	if (n < 0 || (size_t)n >= c->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- memory: growable arrays, a string arena, an interner ---- */

/* Make room for one more element in *p (n used, *cap allocated). 0 or -ENOMEM. */
int di_grow(void **p, size_t *cap, size_t n, size_t elsz)
{
	size_t ncap;
	void *q;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	q = realloc(*p, ncap * elsz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/* Copy s[0..len) NUL-terminated into the arena. NULL on ENOMEM. */
static const char *arena_strdup(struct mr_debuginfo *d, const char *s, size_t len)
{
	struct chunk *ch = d->arena;
	char *r;

	if (!ch || ch->cap - ch->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;

		ch = malloc(sizeof(*ch) + cap);
		if (!ch)
			return NULL;
		ch->used = 0;
		ch->cap = cap;
		ch->next = d->arena;
		d->arena = ch;
	}
	r = ch->data + ch->used;
	memcpy(r, s, len);
	r[len] = '\0';
	ch->used += len + 1;
	return r;
}

/* The one arena copy of s[0..len) (equal strings share a pointer). NULL on ENOMEM. */
const char *di_intern_n(struct mr_debuginfo *d, const char *s, size_t len)
{
	uint64_t h = mph_fnv1a(s, len);
	size_t i;

	if (d->nstrs * 2 >= d->capstrs) {
		size_t ncap = d->capstrs ? d->capstrs * 2 : 1024;
		const char **t = calloc(ncap, sizeof(*t));
		uint64_t *th = malloc(ncap * sizeof(*th));

		if (!t || !th) {
			free(t);
			free(th);
			return NULL;
		}
		for (size_t k = 0; k < d->capstrs; k++) {
			if (!d->strs[k])
				continue;
			i = d->strh[k] & (ncap - 1);
			while (t[i])
				i = (i + 1) & (ncap - 1);
			t[i] = d->strs[k];
			th[i] = d->strh[k];
		}
		free(d->strs);
		free(d->strh);
		d->strs = t;
		d->strh = th;
		d->capstrs = ncap;
	}
	i = h & (d->capstrs - 1);
	while (d->strs[i]) {
		if (d->strh[i] == h && !strncmp(d->strs[i], s, len) && d->strs[i][len] == '\0')
			return d->strs[i];
		i = (i + 1) & (d->capstrs - 1);
	}
	d->strs[i] = arena_strdup(d, s, len);
	if (!d->strs[i])
		return NULL;
	d->strh[i] = h;
	d->nstrs++;
	return d->strs[i];
}

const char *di_intern(struct mr_debuginfo *d, const char *s)
{
	return di_intern_n(d, s, strlen(s));
}

/* 1 if address lo lies in a PT_LOAD segment (an executable one if exec): drops code and
 * data the linker discarded (their DWARF addresses were resolved to 0 or a tombstone). */
int di_in_segment(const struct mr_debuginfo *d, uint64_t lo, int exec)
{
	if (!lo)
		return 0;
	for (size_t i = 0; i < d->nsegs; i++)
		if (lo >= d->segs[i].lo && lo < d->segs[i].hi && (!exec || d->segs[i].exec))
			return 1;
	return 0;
}
