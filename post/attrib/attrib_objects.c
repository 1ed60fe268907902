/* post/attrib/attrib_objects.c - the ELF objects named by the maps snapshots: one entry per
 * file, its debug information opened on first use, and its spans (where it lies) per
 * snapshot, looked up by address and time. */
#include "attrib_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/allocsite.h"
#include "binary/debuginfo.h"
#include "maps.h"
#include "run/heap.h"
#include "run/pages.h"
#include "search.h"
#include "u64map.h"

const char *attrib_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The name a shared object is known by: its basename with the version cut after the first
 * number that follows ".so." ("libgomp.so.1.0.0" -> "libgomp.so.1", as its soname). */
static char *object_name(const char *path)
{
	char *n = strdup(attrib_base_name(path));
	char *so = n ? strstr(n, ".so.") : NULL;

	if (so) {
		char *p = so + 4;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p > so + 4)
			*p = '\0';
	}
	return n;
}

/* Hand the warning of unreadable object i to the context holding the lock, the first time
 * that context needs the object: the pass's warnings are put in order by where each
 * context needed what (mr_attrib_warn_fn). */
static void tell_unreadable(struct mr_attrib *a, uint32_t i)
{
	struct mr_attrib_ctx *c = a->holder;

	if (i >= c->cap_told) {
		size_t nc = a->nobj > i ? a->nobj : i + 1;
		unsigned char *nt = realloc(c->told, nc);

		if (!nt) {
			c->oom = 1;
			return;
		}
		memset(nt + c->cap_told, 0, nc - c->cap_told);
		c->told = nt;
		c->cap_told = nc;
	}
	if (!c->told[i]) {
		c->told[i] = 1;
		c->warn(c->warn_arg, a->obj[i].unreadable);
	}
}

/* Open the debug information of object i once. Returns it or NULL (warning recorded: in
 * run->warnings, or with a context holding the lock that has a warn function, told to
 * each such context that needs the object). */
struct mr_debuginfo *attrib_obj_di(struct mr_attrib *a, uint32_t i)
{
	struct obj *o = &a->obj[i];
	char err[512];
	int rc;

	if (!o->tried) {
		o->tried = 1;
		/* libmemphis: its code and data are set apart by its segments alone */
		rc = o->is_self ? mr_debuginfo_open_symbols(o->file, &o->di, err, sizeof(err))
				: mr_debuginfo_open(o->file, &o->di, err, sizeof(err));
		if (rc == -ENOEXEC && !o->is_exe) {
			/* a data file mapped by the program or its libraries: expected, no
			 * warning (its bytes are data: attrib_file_var) */
			o->di = NULL;
			o->data_file = 1;
		} else if (rc < 0) {
			o->di = NULL;
			if (!a->holder || !a->holder->warn)
				mr_run_add_warning(a->run, "cannot read %s: %s; its code and data "
						   "stay unresolved", o->file, err);
			else if (asprintf(&o->unreadable, "cannot read %s: %s; its code and data "
					  "stay unresolved", o->file, err) < 0)
				o->unreadable = NULL;
		} else {
			mr_debuginfo_load_base(o->di, &o->v0, &o->o0);
			if (o->runtime_code)
				mr_debuginfo_code_by_symbols(o->di);
		}
		if (o->di || !a->holder || !a->holder->warn)
			return o->di;
	}
	if (!o->di && o->unreadable && a->holder && a->holder->warn)
		tell_unreadable(a, i);
	return o->di;
}

/* The kernel writes a newline of a path in /proc/PID/maps as \012 and nothing else
 * escaped, so "\012" is ambiguous: when no file has the path as written, read it as the
 * newline it most likely was (in place). */
static void maps_path_unescape(char *p)
{
	char *out = p;

	if (!strstr(p, "\\012") || access(p, F_OK) == 0)
		return;
	for (const char *s = p; *s;) {
		if (!strncmp(s, "\\012", 4)) {
			*out++ = '\n';
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Is the object at path (raw: as the run wrote it; p: unescaped) libmemphis itself? The
 * run names the library's file (RUN lib, as the maps name it, and lib_name, as its TLS
 * entry does): exact, whatever the file is called, and nothing when the library was
 * linked into the executable. Runs older than those keys: a file named libmemphis.so*. */
static int obj_is_self(const struct mr_attrib *a, const char *raw, size_t len, const char *p)
{
	static const char deleted[] = " (deleted)";
	size_t n;

	if (!a->self_path)
		return !strncmp(attrib_base_name(p), "libmemphis.so", 13);
	if (!a->self_path[0])
		return 0;
	if (a->self_name && !strcmp(p, a->self_name))
		return 1;
	n = strlen(a->self_path);
	/* the maps say " (deleted)" after the file was replaced (rebuilt) during the run */
	return len >= n && !memcmp(raw, a->self_path, n) &&
	       (len == n || (len == n + sizeof(deleted) - 1 && !memcmp(raw + n, deleted, len - n)));
}

/* The runtimes whose code is never the line the user must change (soname prefixes). */
static int runtime_code(const char *base)
{
	static const char *const prefixes[] = {
		"libc.so", "libm.so", "libmvec.so", "libgomp.so", "libgfortran.so", "libquadmath.so",
		"libpthread.so", "libstdc++.so", "libgcc_s.so", "libdl.so", "ld-linux", "libomp.so",
		"libiomp5.so",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/* Index of the object for a maps path, created if new. NOT_YET when out of memory. */
uint32_t attrib_obj_for_path(struct mr_attrib *a, const char *path, size_t len)
{
	char *p = strndup(path, len);
	uint64_t h, *slot;
	struct obj *no;

	if (!p)
		return NOT_YET;
	maps_path_unescape(p);
	h = mph_hash_str(p);
	slot = mph_u64map_get(&a->obj_by_path, h);
	if (slot) {
		free(p);
		return (uint32_t)*slot;
	}
	no = realloc(a->obj, (a->nobj + 1) * sizeof(*no));
	if (!no) {
		free(p);
		return NOT_YET;
	}
	a->obj = no;
	memset(&no[a->nobj], 0, sizeof(*no));
	no[a->nobj].path = p;
	no[a->nobj].base = object_name(p);
	no[a->nobj].is_exe = !strcmp(p, a->exe_path) || (a->run && mr_run_get(a->run, "exe") &&
							   !strcmp(p, mr_run_get(a->run, "exe")));
	no[a->nobj].is_self = !no[a->nobj].is_exe && obj_is_self(a, path, len, p);
	no[a->nobj].runtime_code = !no[a->nobj].is_exe && no[a->nobj].base &&
				   runtime_code(no[a->nobj].base);
	no[a->nobj].file = strdup(no[a->nobj].is_exe ? a->exe_path : p);
	if (!no[a->nobj].file || !no[a->nobj].base || !mph_u64map_put(&a->obj_by_path, h, a->nobj)) {
		free(p);
		free(no[a->nobj].file);
		free(no[a->nobj].base);
		return NOT_YET;
	}
	return (uint32_t)a->nobj++;
}

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Build the object spans of one parsed snapshot. Returns 0 or -ENOMEM. */
int attrib_build_spans(struct mr_attrib *a, struct snap *s)
{
	struct mph_maps *m = &s->maps;

	s->span = calloc(m->n + 1, sizeof(*s->span));
	if (!s->span)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const struct mph_mapping *mp = &m->map[i];
		size_t len = strlen(mp->path);
		const char *del = " (deleted)";
		uint32_t oi;
		size_t k;

		if (mp->path[0] != '/')
			continue;
		if (len > strlen(del) && !strcmp(mp->path + len - strlen(del), del))
			len -= strlen(del);
		oi = attrib_obj_for_path(a, mp->path, len);
		if (oi == NOT_YET)
			return -ENOMEM;
		if (mp->perms[2] == 'x' && (!a->obj[oi].code_seen || m->time < a->obj[oi].code_seen))
			a->obj[oi].code_seen = m->time ? m->time : 1;
		for (k = 0; k < s->nspan && s->span[k].obj != oi; k++)
			;
		if (k == s->nspan) {
			s->span[k] = (struct span){ .lo = mp->start, .hi = mp->end, .obj = oi,
						    .base_start = mp->start, .base_off = mp->offset };
			s->nspan++;
			continue;
		}
		if (mp->start < s->span[k].lo)
			s->span[k].lo = mp->start;
		if (mp->end > s->span[k].hi)
			s->span[k].hi = mp->end;
		if (mp->offset < s->span[k].base_off) {
			s->span[k].base_off = mp->offset;
			s->span[k].base_start = mp->start;
		}
	}
	/* the bss beyond the file is the anonymous memory right after the last file page: one
	 * mapping, or several end to end where mbind gave its parts their own policies
	 * (`memphis apply` placing statics: lib/place.c) */
	for (size_t k = 0; k < s->nspan; k++) {
		const struct mph_mapping *next = mph_maps_find(m, s->span[k].hi);

		s->span[k].file_hi = s->span[k].hi;
		while (next && next->path[0] == '\0' && next->start == s->span[k].hi) {
			s->span[k].hi = next->end;
			next = mph_maps_find(m, s->span[k].hi);
		}
	}
	qsort(s->span, s->nspan, sizeof(*s->span), cmp_span);
	return 0;
}

/* The snapshot in force at time t: the last one taken at or before t, else the first. */
static struct snap *snap_at(struct mr_attrib *a, uint64_t t, uint64_t *t0, uint64_t *t1)
{
	size_t lo;

	if (!a->nsnap)
		return NULL;
	lo = mph_upper_bound(a->snap, a->nsnap, sizeof(*a->snap),
			     offsetof(struct snap, maps.time), t);
	if (lo == 0)
		lo = 1;
	*t0 = lo == 1 ? 0 : a->snap[lo - 1].maps.time;
	*t1 = lo < a->nsnap ? a->snap[lo].maps.time : UINT64_MAX;
	return &a->snap[lo - 1];
}

void attrib_warn_changed(struct mr_attrib *a)
{
	for (uint32_t i = 0; i < a->nobj; i++) {
		const struct obj *o = &a->obj[i];
		struct stat st;
		uint64_t seen, mtime;

		if (o->is_exe || !o->code_seen)
			continue;
		/* a snapshot before the run's start (not written so) takes the start's time */
		if (mr_run_realtime(a->run, o->code_seen, &seen) == -ENOENT)
			return;
		if (stat(o->file, &st) < 0)
			continue;
		mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
		if (mtime > seen)
			mr_run_add_warning(a->run, "%s was modified %.1f s after the program mapped "
					   "it: it is read as it is now, so its lines, functions "
					   "and variables may not be the run's", o->file,
					   (double)(mtime - seen) / 1e9);
	}
}

/* The span containing addr in snapshot s, or NULL. */
static struct span *span_in(struct snap *s, uint64_t addr)
{
	size_t lo = mph_upper_bound(s->span, s->nspan, sizeof(*s->span), offsetof(struct span, lo),
				    addr);

	return lo == 0 || addr >= s->span[lo - 1].hi ? NULL : &s->span[lo - 1];
}

/* The span containing addr at time t with its object open and bias known, or NULL. The
 * library writes a snapshot when it notices a dlopen/dlclose, which can be a little after
 * the fact: an address in no object of the snapshot in force but in one of the next
 * snapshot was mapped in between (the sample touched it), so the next snapshot answers.
 * [*t0, *t1) is the time the answer holds for this address. */
struct span *attrib_span_find(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *t0,
			      uint64_t *t1)
{
	struct snap *s = snap_at(a, t, t0, t1);
	struct span *sp;

	if (!s)
		return NULL;
	sp = span_in(s, addr);
	if (!sp && s + 1 < a->snap + a->nsnap)
		sp = span_in(s + 1, addr);
	return sp;
}

/* Narrow [*lo, *hi) to the gap around addr between the spans of snapshot s, as span_in
 * sees them; 0 when a span holds addr. */
static int span_gap_in(const struct snap *s, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	size_t i = mph_upper_bound(s->span, s->nspan, sizeof(*s->span), offsetof(struct span, lo),
				   addr);

	if (i > 0) {
		if (addr < s->span[i - 1].hi)
			return 0;
		*lo = s->span[i - 1].hi > *lo ? s->span[i - 1].hi : *lo;
	}
	if (i < s->nspan && s->span[i].lo < *hi)
		*hi = s->span[i].lo;
	return 1;
}

int attrib_maps_gap(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *lo, uint64_t *hi,
		    uint64_t *t0, uint64_t *t1)
{
	struct snap *s = snap_at(a, t, t0, t1);
	const struct mph_mapping *m;
	size_t i;

	*lo = 0;
	*hi = UINT64_MAX;
	if (!s) {
		*t0 = 0;
		*t1 = UINT64_MAX;
		return 1;
	}
	if (!span_gap_in(s, addr, lo, hi) ||
	    (s + 1 < a->snap + a->nsnap && !span_gap_in(s + 1, addr, lo, hi)))
		return 0;
	/* addr's mapping, or the gap between two, as mph_maps_find sees them */
	i = mph_upper_bound(s->maps.map, s->maps.n, sizeof(*s->maps.map),
			    offsetof(struct mph_mapping, start), addr);
	if (i > 0 && addr < s->maps.map[i - 1].end) {
		m = &s->maps.map[i - 1];
		*lo = m->start > *lo ? m->start : *lo;
		*hi = m->end < *hi ? m->end : *hi;
		return 1;
	}
	if (i > 0)
		*lo = s->maps.map[i - 1].end > *lo ? s->maps.map[i - 1].end : *lo;
	if (i < s->maps.n)
		*hi = s->maps.map[i].start < *hi ? s->maps.map[i].start : *hi;
	return 1;
}

const struct mph_mapping *attrib_mapping_at(struct mr_attrib *a, uint64_t addr, uint64_t t,
					    uint64_t *t0, uint64_t *t1)
{
	struct snap *s = snap_at(a, t, t0, t1);

	return s ? mph_maps_find(&s->maps, addr) : NULL;
}

struct span *attrib_span_at(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *t0,
			    uint64_t *t1)
{
	struct span *sp = attrib_span_find(a, addr, t, t0, t1);

	if (!sp)
		return NULL;
	if (!sp->bias_known) {
		struct obj *o = &a->obj[sp->obj];
		if (!attrib_obj_di(a, sp->obj))
			return NULL;
		sp->bias = sp->base_start - sp->base_off + o->o0 - o->v0;
		sp->bias_known = 1;
	}
	return sp;
}
