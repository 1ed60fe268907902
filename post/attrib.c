/* post/attrib.c - attribution of samples to variables, source lines and page homes.
 * See attrib.h for the order of attribution and the contract. */
#include "attrib.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allocsite.h"
#include "debuginfo.h"
#include "heap.h"
#include "u64map.h"
#include "maps.h"
#include "search.h"
#include "pages.h"

#define IPC_BITS 16
#define NOT_YET UINT32_MAX

/* One ELF object seen in the maps. */
struct obj {
	char *path;               /* as in the maps */
	char *file;               /* file read (differs for the executable with --exe) */
	char *base;               /* basename of path cut to its soname form, for names */
	struct mr_debuginfo *di;  /* NULL until opened or when unreadable */
	int tried;
	int is_exe;
	uint64_t v0, o0;          /* lowest PT_LOAD vaddr and its file offset */
};

/* Where one object lies in one snapshot: [lo, hi) (its bss included). */
struct span {
	uint64_t lo, hi;
	uint64_t bias;            /* runtime address - vaddr, valid once the object is open */
	uint64_t base_start, base_off; /* the mapping with the lowest file offset */
	uint32_t obj;
	int bias_known;
};

struct snap {
	struct mph_maps maps;
	struct span *span;        /* sorted by lo */
	size_t nspan;
};

/* Direct-mapped per-ip cache of the last resolutions made for that instruction: its line,
 * up to IPC_WAYS data ranges (an instruction often walks a few objects: one stack or TLS
 * block per thread) and the last page. */
#define IPC_WAYS 4
struct ipc_range {
	uint64_t lo, hi, t0, t1;  /* var holds for addresses in [lo,hi) at times in [t0,t1) */
	uint32_t tid;             /* ... and only for this thread when non-zero */
	uint32_t var;
};

struct ipc {
	uint64_t ip;
	uint32_t line;
	uint32_t region;
	uint64_t page;
	int32_t pnode;
	uint8_t valid, nrange, next, has_page;
	struct ipc_range r[IPC_WAYS];
};

struct range {
	uint64_t lo, hi, t0, t1;
	uint32_t tid;
	int valid;
};

struct mr_attrib {
	struct mr_run *run;
	char *exe_path;             /* RUN exe (or --exe) */
	char exe_bid[128];

	struct obj *obj;
	size_t nobj;
	struct mph_u64map obj_by_path; /* hash of path -> index */
	uint32_t exe_obj;           /* index of the executable, NOT_YET if not in the maps */
	uint64_t exe_tls;           /* roundup(tls memsz, align) of the executable */
	struct tlsmod {
		int64_t off;            /* block at fs_base + off */
		uint64_t memsz;
		uint32_t obj;
	} *tls;                     /* static TLS blocks of the modules (TLS records, else the exe's) */
	size_t ntls;
	int64_t tls_lo;             /* lowest off: static TLS is [fs_base + tls_lo, fs_base) */

	struct snap *snap;          /* sorted by time */
	size_t nsnap;

	struct mr_heap heap;
	uint32_t *site_var;         /* per ALLOCS record: variable id of its call site */
	struct mr_heap stacks;      /* thread stacks over time (records: struct stackrec) */
	uint32_t *stack_index;      /* per stack record: thread index */
	struct mph_u64map thread_by_tid; /* tid -> index in run->threads of its last START */

	struct mr_varinfo *vars;
	size_t nvars, capvars;
	struct mph_u64map var_by_key;

	char **lines;
	size_t nlines, caplines;
	struct mph_u64map line_by_hash;
	struct mph_u64map line_by_ip;

	struct mr_pagemap pages;
	struct ipc *cache;
};

const char *mr_var_kind_name(unsigned kind)
{
	static const char *const n[] = {
		[MR_VAR_GLOBAL] = "global", [MR_VAR_STATIC] = "static",
		[MR_VAR_FUNC_STATIC] = "function static", [MR_VAR_TLS] = "tls",
		[MR_VAR_SYMBOL] = "symbol", [MR_VAR_HEAP] = "heap", [MR_VAR_STACK] = "stack",
		[MR_VAR_UNKNOWN] = "unknown",
	};

	return kind < sizeof(n) / sizeof(n[0]) ? n[kind] : "unknown";
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* The name a shared object is known by: its basename with the version cut after the first
 * number that follows ".so." ("libgomp.so.1.0.0" -> "libgomp.so.1", as its soname). */
static char *object_name(const char *path)
{
	char *n = strdup(base_name(path));
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

/* Add a variable; returns its id, or NOT_YET when out of memory (name is then freed). */
static uint32_t add_var(struct mr_attrib *a, uint64_t key, struct mr_varinfo *v)
{
	uint64_t *slot;

	if (a->nvars == a->capvars) {
		size_t nc = a->capvars ? a->capvars * 2 : 64;
		struct mr_varinfo *nv = realloc(a->vars, nc * sizeof(*nv));
		if (!nv)
			goto oom;
		a->vars = nv;
		a->capvars = nc;
	}
	slot = mph_u64map_put(&a->var_by_key, key, a->nvars);
	if (!slot)
		goto oom;
	a->vars[a->nvars] = *v;
	return (uint32_t)a->nvars++;
oom:
	free(v->name);
	free(v->decl);
	return NOT_YET;
}

/* Intern a line name; returns its id (0 on out of memory: "??"). */
static uint32_t intern_line(struct mr_attrib *a, const char *name)
{
	uint64_t h = mph_hash_str(name);
	uint64_t *slot = mph_u64map_get(&a->line_by_hash, h);
	char *copy;

	if (slot)
		return (uint32_t)*slot;
	if (a->nlines == a->caplines) {
		size_t nc = a->caplines ? a->caplines * 2 : 256;
		char **nl = realloc(a->lines, nc * sizeof(*nl));
		if (!nl)
			return 0;
		a->lines = nl;
		a->caplines = nc;
	}
	copy = strdup(name);
	if (!copy || !mph_u64map_put(&a->line_by_hash, h, a->nlines)) {
		free(copy);
		return 0;
	}
	a->lines[a->nlines] = copy;
	return (uint32_t)a->nlines++;
}

/* Open the debug information of object i once. Returns it or NULL (warning recorded). */
static struct mr_debuginfo *obj_di(struct mr_attrib *a, uint32_t i)
{
	struct obj *o = &a->obj[i];
	char err[512];

	if (o->tried)
		return o->di;
	o->tried = 1;
	if (mr_debuginfo_open(o->file, &o->di, err, sizeof(err)) < 0) {
		o->di = NULL;
		mr_run_add_warning(a->run, "cannot read %s: %s; its code and data stay unresolved",
				   o->file, err);
		return NULL;
	}
	mr_debuginfo_load_base(o->di, &o->v0, &o->o0);
	return o->di;
}

/* Index of the object for a maps path, created if new. NOT_YET when out of memory. */
static uint32_t obj_for_path(struct mr_attrib *a, const char *path, size_t len)
{
	char *p = strndup(path, len);
	uint64_t h, *slot;
	struct obj *no;

	if (!p)
		return NOT_YET;
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
static int build_spans(struct mr_attrib *a, struct snap *s)
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
		oi = obj_for_path(a, mp->path, len);
		if (oi == NOT_YET)
			return -ENOMEM;
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
	/* the bss beyond the file is an anonymous mapping right after the last file page */
	for (size_t k = 0; k < s->nspan; k++) {
		const struct mph_mapping *next = mph_maps_find(m, s->span[k].hi);
		if (next && next->path[0] == '\0' && next->start == s->span[k].hi)
			s->span[k].hi = next->end;
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

/* The span containing addr at time t with its object open and bias known, or NULL. */
static struct span *span_at(struct mr_attrib *a, uint64_t addr, uint64_t t, uint64_t *t0,
			    uint64_t *t1)
{
	struct snap *s = snap_at(a, t, t0, t1);
	size_t lo;
	struct span *sp;

	if (!s)
		return NULL;
	lo = mph_upper_bound(s->span, s->nspan, sizeof(*s->span), offsetof(struct span, lo), addr);
	if (lo == 0 || addr >= s->span[lo - 1].hi)
		return NULL;
	sp = &s->span[lo - 1];
	if (!sp->bias_known) {
		struct obj *o = &a->obj[sp->obj];
		if (!obj_di(a, sp->obj))
			return NULL;
		sp->bias = sp->base_start - sp->base_off + o->o0 - o->v0;
		sp->bias_known = 1;
	}
	return sp;
}

/* Format the source position of runtime address pc as "file:line" (or a fallback) into
 * buf. Returns 1 if a file:line was found, 0 otherwise. */
static int describe_code(struct mr_attrib *a, uint64_t pc, uint64_t t, char *buf, size_t len,
			 char *func, size_t flen)
{
	uint64_t t0, t1;
	struct span *sp = span_at(a, pc, t, &t0, &t1);
	struct mr_line ln;
	struct obj *o;

	if (func)
		func[0] = '\0';
	if (!sp) {
		snprintf(buf, len, "??");
		return 0;
	}
	o = &a->obj[sp->obj];
	memset(&ln, 0, sizeof(ln));
	if (mr_debuginfo_line(o->di, pc - sp->bias, &ln) == 0 && ln.file && ln.line) {
		snprintf(buf, len, "%s:%u", base_name(ln.file), ln.line);
		if (func && ln.function)
			snprintf(func, flen, "%s", ln.function);
		return 1;
	}
	if (func && ln.function)
		snprintf(func, flen, "%s", ln.function);
	if (ln.function)
		snprintf(buf, len, "%s%s%s", o->is_exe ? "" : o->base, o->is_exe ? "" : ":",
			 ln.function);
	else
		snprintf(buf, len, "%s+0x%" PRIx64, o->base, pc - sp->bias);
	return 0;
}

uint32_t mr_attrib_code(struct mr_attrib *a, uint64_t ip, uint64_t t)
{
	uint64_t *slot = mph_u64map_get(&a->line_by_ip, ip);
	char buf[512];
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	describe_code(a, ip, t, buf, sizeof(buf), NULL, 0);
	id = strcmp(buf, "??") ? intern_line(a, buf) : 0;
	mph_u64map_put(&a->line_by_ip, ip, id);
	return id;
}

static const char *alloc_kind_name(unsigned k)
{
	static const char *const n[] = { "malloc", "calloc", "realloc", "memalign",
					 "posix_memalign", "aligned_alloc", "valloc" };

	return k < sizeof(n) / sizeof(n[0]) ? n[k] : "alloc";
}

/* Fortran names for the heap objects of call site `site` (key: the site's key), 0 if it
 * has none: the variable whose static descriptor the code after the call stores the
 * pointer into ("mod::var", all sites of one variable share one entry); else, from the
 * source line of a Fortran call site, an ALLOCATE statement ("allocate(x, y) at f.f90:12
 * in sub", one entry for all its calls) or a compiler temporary ("<temporary at
 * f.f90:12>", one per statement). */
static uint32_t fortran_site(struct mr_attrib *a, uint64_t site, uint64_t t, uint64_t key)
{
	uint64_t t0, t1, to, vkey, *slot;
	struct span *sp = span_at(a, site - 1, t, &t0, &t1);
	struct mr_varinfo v = { .kind = MR_VAR_HEAP };
	const struct mr_var *mv;
	const char *obj;
	struct mr_line ln;
	struct obj *o;
	uint32_t id;
	int rc;

	if (!sp)
		return 0;
	o = &a->obj[sp->obj];
	to = mr_allocsite_store(o->di, site - sp->bias);
	mv = to ? mr_debuginfo_var_at(o->di, to) : NULL;
	if (mv && mv->descriptor && mv->addr == to && mv->name) {
		vkey = ((uint64_t)(uintptr_t)mv & ((1ull << 60) - 1)) | (4ull << 60);
		slot = mph_u64map_get(&a->var_by_key, vkey);
		if (slot) {
			id = (uint32_t)*slot;
		} else {
			v.object = o->path;
			rc = o->is_exe ? asprintf(&v.name, "%s", mv->name)
				       : asprintf(&v.name, "%s:%s", o->base, mv->name);
			if (rc < 0)
				return 0;
			if (mv->file && mv->line &&
			    asprintf(&v.decl, "%s:%u", base_name(mv->file), mv->line) < 0)
				v.decl = NULL;
			id = add_var(a, vkey, &v);
			if (id == NOT_YET)
				return 0;
		}
		return mph_u64map_put(&a->var_by_key, key, id) ? id : 0;
	}
	memset(&ln, 0, sizeof(ln));
	if (mr_debuginfo_line(o->di, site - 1 - sp->bias, &ln) || !ln.file)
		return 0;
	switch (mr_allocsite_fortran(ln.file, ln.line, &obj)) {
	case MR_FSITE_TEMPORARY:
		rc = asprintf(&v.name, "<temporary at %s:%u>", base_name(ln.file), ln.line);
		break;
	case MR_FSITE_ALLOCATE:
		rc = asprintf(&v.name, "allocate%s%s%s at %s:%u%s%s", obj ? "(" : "", obj ? obj : "",
			      obj ? ")" : "", base_name(ln.file), ln.line,
			      ln.function ? " in " : "", ln.function ? ln.function : "");
		break;
	default:
		return 0;
	}
	if (rc < 0)
		return 0;
	/* the call sites of one statement (allocate(a(n), b(n)): one malloc each) share it */
	vkey = (mph_hash_str(v.name) & ((1ull << 60) - 1)) | (5ull << 60);
	slot = mph_u64map_get(&a->var_by_key, vkey);
	if (slot) {
		free(v.name);
		id = (uint32_t)*slot;
	} else if ((id = add_var(a, vkey, &v)) == NOT_YET) {
		return 0;
	}
	return mph_u64map_put(&a->var_by_key, key, id) ? id : 0;
}

/* Variable id of the call site of ALLOCS record r (created on first sight). */
static uint32_t site_var(struct mr_attrib *a, const struct memphis_rec_alloc *r)
{
	uint64_t site = r->nframes ? r->frames[0] : 0;
	uint64_t key = (site & ((1ull << 60) - 1)) | (1ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_HEAP };
	char where[512], func[256];
	int rc;

	if (slot)
		return (uint32_t)*slot;
	if (site && (rc = (int)fortran_site(a, site, r->time, key)))
		return (uint32_t)rc;
	if (!site) {
		rc = asprintf(&v.name, "%s at <unknown call site>", alloc_kind_name(r->kind));
	} else if (describe_code(a, site - 1, r->time, where, sizeof(where), func, sizeof(func))) {
		rc = func[0] ? asprintf(&v.name, "%s at %s in %s", alloc_kind_name(r->kind), where, func)
			     : asprintf(&v.name, "%s at %s", alloc_kind_name(r->kind), where);
	} else {
		rc = func[0] ? asprintf(&v.name, "%s in %s", alloc_kind_name(r->kind), func)
			     : asprintf(&v.name, "%s at %s", alloc_kind_name(r->kind), where);
	}
	if (rc < 0)
		return 0;
	return add_var(a, key, &v) == NOT_YET ? 0 : (uint32_t)(a->nvars - 1);
}

/* Variable id for a stack of thread index idx. */
static uint32_t stack_var(struct mr_attrib *a, uint32_t idx)
{
	uint64_t key = (uint64_t)idx | (2ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_STACK };
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	if (asprintf(&v.name, "<stack of thread %u>", idx) < 0)
		return 0;
	id = add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Variable id for a debuginfo variable of object oi. */
static uint32_t dwarf_var(struct mr_attrib *a, uint32_t oi, const struct mr_var *mv)
{
	uint64_t key = ((uint64_t)(uintptr_t)mv & ((1ull << 60) - 1)) | (3ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct obj *o = &a->obj[oi];
	struct mr_varinfo v = { .object = o->path, .lo = mv->addr, .hi = mv->addr + mv->size,
				.bytes = mv->size };
	uint32_t id;
	int rc;

	if (slot)
		return (uint32_t)*slot;
	v.kind = mv->kind <= MR_VAR_SYMBOL ? mv->kind : MR_VAR_SYMBOL;
	/* a Fortran array's descriptor: the array's own name goes to its data (fortran_site) */
	rc = o->is_exe ? asprintf(&v.name, "%s%s", mv->name ? mv->name : "?",
				  mv->descriptor ? " (descriptor)" : "")
		       : asprintf(&v.name, "%s:%s%s", o->base, mv->name ? mv->name : "?",
				  mv->descriptor ? " (descriptor)" : "");
	if (rc < 0)
		return 0;
	if (mv->file && mv->line && asprintf(&v.decl, "%s:%u", base_name(mv->file), mv->line) < 0)
		v.decl = NULL;
	id = add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Variable id for the unnamed read-only data of object oi: the literal constants compilers
 * keep in .rodata without a symbol (gfortran -O2 loads every real constant from there). */
static uint32_t constants_var(struct mr_attrib *a, uint32_t oi)
{
	uint64_t key = (uint64_t)oi | (6ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_STATIC, .object = a->obj[oi].path };
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	if (asprintf(&v.name, "<read-only data of %s>", a->obj[oi].base) < 0)
		return 0;
	id = add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Full data attribution with the validity of the answer in *rg (rg->valid = 0: do not
 * cache). The TLS block of the sample's thread is tried before the stacks: glibc puts the
 * static TLS of a thread at the top of its stack mapping, inside [stack_lo, stack_hi). */
static uint32_t data_resolve(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid,
			     struct range *rg)
{
	const struct mr_heap_obj *ho;
	uint64_t *ti;
	uint64_t t0, t1;
	struct span *sp;

	rg->valid = 0;
	if (!addr)
		return 0;
	ho = mr_heap_find(&a->heap, addr, t);
	if (ho) {
		*rg = (struct range){ ho->addr, ho->end, ho->t0, ho->t1, 0, 1 };
		return a->site_var[ho->rec];
	}
	ti = a->ntls ? mph_u64map_get(&a->thread_by_tid, tid) : NULL;
	if (ti) {
		uint64_t fs = a->run->threads[*ti].fs_base;
		if (fs && addr < fs && addr >= fs + (uint64_t)a->tls_lo) {
			for (size_t i = 0; i < a->ntls; i++) {
				uint64_t blk = fs + (uint64_t)a->tls[i].off;
				struct mr_debuginfo *di;
				const struct mr_var *mv;

				if (addr < blk || addr >= blk + a->tls[i].memsz)
					continue;
				di = obj_di(a, a->tls[i].obj);
				mv = di ? mr_debuginfo_tls_var_at(di, addr - blk) : NULL;
				if (!mv)
					return 0;
				*rg = (struct range){ blk + mv->addr, blk + mv->addr + (mv->size ? mv->size : 1),
						      0, UINT64_MAX, tid, 1 };
				return dwarf_var(a, a->tls[i].obj, mv);
			}
			return 0; /* static TLS between the modules' blocks */
		}
	}
	ho = mr_heap_find(&a->stacks, addr, t);
	if (ho) {
		*rg = (struct range){ ho->addr, ho->end, ho->t0, ho->t1, 0, 1 };
		/* the cached range must not cover a TLS block inside the stack */
		for (size_t i = 0; i < a->run->nthreads && a->ntls; i++) {
			uint64_t fs = a->run->threads[i].fs_base, lo = fs + (uint64_t)a->tls_lo;
			if (!fs || fs <= rg->lo || lo >= rg->hi)
				continue;
			if (addr < lo)
				rg->hi = lo;
			else if (addr >= fs)
				rg->lo = fs;
		}
		return stack_var(a, a->stack_index[ho->rec]);
	}
	sp = span_at(a, addr, t, &t0, &t1);
	if (sp) {
		const struct mr_var *mv = mr_debuginfo_var_at(a->obj[sp->obj].di, addr - sp->bias);
		unsigned f;

		if (mv) {
			*rg = (struct range){ sp->bias + mv->addr,
					      sp->bias + mv->addr + (mv->size ? mv->size : 1), t0, t1, 0, 1 };
			return dwarf_var(a, sp->obj, mv);
		}
		f = mr_debuginfo_segment(a->obj[sp->obj].di, addr - sp->bias);
		if (f && !(f & MR_SEG_W))
			return constants_var(a, sp->obj);
	}
	return 0;
}

uint32_t mr_attrib_data(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid)
{
	struct range rg;

	return data_resolve(a, addr, t, tid, &rg);
}

int mr_attrib_page_node(struct mr_attrib *a, uint32_t region, uint64_t addr)
{
	return mr_pagemap_node(&a->pages, region, addr);
}

void mr_attrib_sample(struct mr_attrib *a, const struct memphis_rec_sample *s, int use_addr,
		      struct mr_resolved *r)
{
	struct ipc *c = &a->cache[mph_fib_slot(s->ip, IPC_BITS)];
	uint64_t page;
	unsigned k;

	if (!c->valid || c->ip != s->ip) {
		c->ip = s->ip;
		c->line = mr_attrib_code(a, s->ip, s->time);
		c->valid = 1;
		c->nrange = 0;
		c->next = 0;
		c->has_page = 0;
	}
	r->line = c->line;
	r->var = 0;
	r->page_node = -1;
	r->same_page = 0;
	if (!use_addr || !s->addr)
		return;
	for (k = 0; k < c->nrange; k++) {
		const struct ipc_range *cr = &c->r[k];
		if (s->addr >= cr->lo && s->addr < cr->hi && s->time >= cr->t0 && s->time < cr->t1 &&
		    (!cr->tid || cr->tid == s->tid))
			break;
	}
	if (k < c->nrange) {
		r->var = c->r[k].var;
	} else {
		struct range rg;
		r->var = data_resolve(a, s->addr, s->time, s->tid, &rg);
		if (rg.valid) {
			struct ipc_range *cr = &c->r[c->next];
			*cr = (struct ipc_range){ rg.lo, rg.hi, rg.t0, rg.t1, rg.tid, r->var };
			c->next = (uint8_t)((c->next + 1) % IPC_WAYS);
			if (c->nrange < IPC_WAYS)
				c->nrange++;
		}
	}
	page = s->addr & ~(a->pages.page_size - 1);
	if (c->has_page && c->page == page && c->region == s->region) {
		r->page_node = c->pnode;
		r->same_page = 1;
	} else {
		r->page_node = mr_attrib_page_node(a, s->region, s->addr);
		c->page = page;
		c->region = s->region;
		c->pnode = r->page_node;
		c->has_page = 1;
	}
}

const struct mr_varinfo *mr_attrib_var(const struct mr_attrib *a, uint32_t id)
{
	return id < a->nvars ? &a->vars[id] : &a->vars[0];
}

size_t mr_attrib_nvars(const struct mr_attrib *a)
{
	return a->nvars;
}

const char *mr_attrib_line(const struct mr_attrib *a, uint32_t id)
{
	return id < a->nlines ? a->lines[id] : "??";
}

size_t mr_attrib_nlines(const struct mr_attrib *a)
{
	return a->nlines;
}

int mr_attrib_thread_index(const struct mr_attrib *a, uint32_t tid)
{
	uint64_t *ti = mph_u64map_get(&a->thread_by_tid, tid);

	return ti ? (int)a->run->threads[*ti].index : -1;
}

uint64_t mr_attrib_page_size(const struct mr_attrib *a)
{
	return a->pages.page_size;
}

const char *mr_attrib_exe(const struct mr_attrib *a)
{
	return a->exe_path;
}

const char *mr_attrib_exe_build_id(const struct mr_attrib *a)
{
	return a->exe_bid;
}

static int cmp_snap(const void *x, const void *y)
{
	const struct snap *a = x, *b = y;

	return (a->maps.time > b->maps.time) - (a->maps.time < b->maps.time);
}

/* Thread stacks as an index over time: one pseudo-allocation per thread start, "freed" at
 * its exit; the main thread's [stack] mapping when no range was recorded for it. */
static int build_stacks(struct mr_attrib *a)
{
	struct mr_run *run = a->run;
	size_t n = run->nthreads + a->nsnap;
	struct memphis_rec_alloc *al = calloc(n + 1, sizeof(*al));
	struct memphis_rec_free *fr = calloc(n + 1, sizeof(*fr));
	size_t na = 0, nf = 0;
	int main_has = 0, rc = -ENOMEM;

	a->stack_index = calloc(n + 1, sizeof(*a->stack_index));
	if (!al || !fr || !a->stack_index)
		goto out;
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct memphis_rec_thread *t = &run->threads[i];
		if (t->event == MPH_THREAD_START && t->stack_hi > t->stack_lo) {
			al[na] = (struct memphis_rec_alloc){ .time = 0, .addr = t->stack_lo,
							     .size = t->stack_hi - t->stack_lo };
			/* a thread's stack is its own from the start of the run; reuse by a later
			 * thread is ordered by the start times */
			al[na].time = t->time;
			a->stack_index[na++] = t->index;
			main_has |= t->index == 0;
		} else if (t->event == MPH_THREAD_EXIT && t->stack_hi > t->stack_lo) {
			fr[nf++] = (struct memphis_rec_free){ .time = t->time, .addr = t->stack_lo };
		}
	}
	for (size_t i = 0; i < a->nsnap && !main_has; i++) {
		const struct mph_maps *m = &a->snap[i].maps;
		for (size_t k = 0; k < m->n; k++) {
			if (strcmp(m->map[k].path, "[stack]"))
				continue;
			al[na] = (struct memphis_rec_alloc){ .time = 0, .addr = m->map[k].start,
							     .size = m->map[k].end - m->map[k].start };
			a->stack_index[na++] = 0;
			main_has = 1;
			break;
		}
	}
	/* a thread's START time may follow its first samples slightly: start every stack at 0
	 * unless its range was used by an earlier thread */
	for (size_t i = 0; i < na; i++) {
		int reused = 0;
		for (size_t k = 0; k < na && !reused; k++)
			reused = k != i && al[k].addr == al[i].addr && al[k].time < al[i].time;
		if (!reused)
			al[i].time = 0;
		if (na > 4096)
			break; /* quadratic guard: keep recorded start times */
	}
	rc = mr_heap_build(&a->stacks, al, na, fr, nf);
out:
	free(al);
	free(fr);
	return rc;
}

/* Open the executable and check its build-id against the run's. */
static int open_exe(struct mr_attrib *a, const struct mr_attrib_opts *o, char *err, size_t errlen)
{
	const char *run_exe = mr_run_get(a->run, "exe");
	const char *run_bid = mr_run_get(a->run, "build_id");
	struct mr_debuginfo *di = NULL;
	char derr[512];
	int rc;

	if (!o->exe && (!run_exe || !*run_exe)) {
		snprintf(err, errlen, "the run does not name its executable (no RUN key exe): "
			 "give it with --exe PATH");
		return -ENOENT;
	}
	a->exe_path = strdup(o->exe ? o->exe : run_exe);
	if (!a->exe_path)
		return -ENOMEM;
	if (access(a->exe_path, R_OK) < 0) {
		rc = -errno;
		snprintf(err, errlen, "executable %s: %s: the report needs the binary that ran; "
			 "point to it with --exe PATH", a->exe_path, strerror(errno));
		return rc;
	}
	rc = mr_debuginfo_open(a->exe_path, &di, derr, sizeof(derr));
	if (rc < 0) {
		snprintf(err, errlen, "executable %s: %s", a->exe_path, derr);
		return rc;
	}
	snprintf(a->exe_bid, sizeof(a->exe_bid), "%s", mr_debuginfo_build_id(di));
	if (run_bid && *run_bid && strcasecmp(run_bid, a->exe_bid)) {
		if (!o->force) {
			snprintf(err, errlen, "executable %s has build-id %s but the run was made by "
				 "build-id %s: it was rebuilt since, so its symbols would be wrong; "
				 "use the binary that ran (--exe PATH) or --force", a->exe_path,
				 a->exe_bid[0] ? a->exe_bid : "(none)", run_bid);
			mr_debuginfo_close(di);
			return -ESTALE;
		}
		mr_run_add_warning(a->run, "executable %s has build-id %s, the run's was %s: "
				   "--force given, symbols may be wrong", a->exe_path,
				   a->exe_bid[0] ? a->exe_bid : "(none)", run_bid);
	}
	/* keep it: the maps entry of the executable will use it */
	a->exe_obj = obj_for_path(a, run_exe && *run_exe ? run_exe : a->exe_path,
				  strlen(run_exe && *run_exe ? run_exe : a->exe_path));
	if (a->exe_obj == NOT_YET) {
		mr_debuginfo_close(di);
		return -ENOMEM;
	}
	a->obj[a->exe_obj].is_exe = 1;
	a->obj[a->exe_obj].di = di;
	a->obj[a->exe_obj].tried = 1;
	mr_debuginfo_load_base(di, &a->obj[a->exe_obj].v0, &a->obj[a->exe_obj].o0);
	{
		uint64_t memsz = 0, align = 0;
		mr_debuginfo_tls(di, &memsz, &align);
		if (align < 1)
			align = 1;
		a->exe_tls = memsz ? (memsz + align - 1) / align * align : 0;
	}
	return 0;
}

/* The static TLS blocks: from the run's TLS records, else the executable's alone (its block
 * ends at fs_base). Returns 0 or -ENOMEM. */
static int build_tls(struct mr_attrib *a)
{
	struct mr_run *run = a->run;
	size_t n = run->ntls ? run->ntls : 1;

	a->tls = calloc(n, sizeof(*a->tls));
	if (!a->tls)
		return -ENOMEM;
	for (size_t i = 0; i < run->ntls; i++) {
		uint32_t oi;

		if (run->tls[i].tp_offset >= 0 || !run->tls[i].memsz)
			continue; /* not a static block below fs_base */
		if (!run->tls[i].path[0] || run->tls[i].modid == 1) {
			/* the executable (the dynamic linker names it "") */
			if (a->exe_obj == NOT_YET)
				continue;
			oi = a->exe_obj;
		} else {
			oi = obj_for_path(a, run->tls[i].path, strlen(run->tls[i].path));
			if (oi == NOT_YET)
				return -ENOMEM;
		}
		a->tls[a->ntls++] = (struct tlsmod){ run->tls[i].tp_offset, run->tls[i].memsz, oi };
	}
	if (!run->ntls && a->exe_tls && a->exe_obj != NOT_YET)
		a->tls[a->ntls++] = (struct tlsmod){ -(int64_t)a->exe_tls, a->exe_tls, a->exe_obj };
	a->tls_lo = 0;
	for (size_t i = 0; i < a->ntls; i++)
		if (a->tls[i].off < a->tls_lo)
			a->tls_lo = a->tls[i].off;
	return 0;
}

int mr_attrib_open(struct mr_run *run, const struct mr_attrib_opts *o, struct mr_attrib **out,
		   char *err, size_t errlen)
{
	struct mr_attrib *a = calloc(1, sizeof(*a));
	struct mr_varinfo unk = { .kind = MR_VAR_UNKNOWN };
	int rc = -ENOMEM;

	*out = NULL;
	err[0] = '\0';
	if (!a)
		goto oom;
	a->run = run;
	a->exe_obj = NOT_YET;
	if (mph_u64map_init(&a->obj_by_path, 64) || mph_u64map_init(&a->var_by_key, 256) ||
	    mph_u64map_init(&a->line_by_hash, 1024) || mph_u64map_init(&a->line_by_ip, 4096) ||
	    mph_u64map_init(&a->thread_by_tid, 64) || mr_pagemap_build(&a->pages, run))
		goto oom;
	a->cache = calloc(1u << IPC_BITS, sizeof(*a->cache));
	if (!a->cache)
		goto oom;
	unk.name = strdup("<unknown>");
	if (!unk.name || add_var(a, UINT64_MAX - 1, &unk) != 0)
		goto oom;
	if (intern_line(a, "??") != 0)
		goto oom;
	rc = open_exe(a, o, err, errlen);
	if (rc)
		goto fail;
	rc = -ENOMEM;
	a->snap = calloc(run->nmaps + 1, sizeof(*a->snap));
	if (!a->snap)
		goto oom;
	for (size_t i = 0; i < run->nmaps; i++) {
		if (mph_maps_parse(run->maps[i].text, run->maps[i].time, &a->snap[i].maps))
			goto oom;
		a->nsnap++;
	}
	qsort(a->snap, a->nsnap, sizeof(*a->snap), cmp_snap);
	for (size_t i = 0; i < a->nsnap; i++)
		if (build_spans(a, &a->snap[i]))
			goto oom;
	if (!a->nsnap) {
		/* no maps: a fixed-address executable still resolves with bias 0 */
		struct obj *eo = &a->obj[a->exe_obj];
		mr_run_add_warning(run, "no MAPS snapshot in the run: only a fixed-address "
				   "executable's globals and code can be resolved");
		if (!mr_debuginfo_is_pic(eo->di)) {
			a->snap = realloc(a->snap, sizeof(*a->snap));
			if (!a->snap)
				goto oom;
			memset(a->snap, 0, sizeof(*a->snap));
			a->snap[0].span = calloc(1, sizeof(*a->snap[0].span));
			if (!a->snap[0].span)
				goto oom;
			a->snap[0].span[0] = (struct span){ .lo = 0, .hi = UINT64_MAX, .obj = a->exe_obj,
							    .bias_known = 1 };
			a->snap[0].nspan = 1;
			a->nsnap = 1;
		}
	}
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].event == MPH_THREAD_START &&
		    !mph_u64map_put(&a->thread_by_tid, run->threads[i].tid, i))
			goto oom;
	for (size_t i = 0; i < run->nthreads; i++) {
		uint64_t *v = run->threads[i].event == MPH_THREAD_START
				      ? mph_u64map_get(&a->thread_by_tid, run->threads[i].tid) : NULL;
		if (v)
			*v = i; /* the last START of a reused tid wins */
	}
	if (mr_heap_build(&a->heap, run->allocs, run->nallocs, run->frees, run->nfrees))
		goto oom;
	a->site_var = malloc((run->nallocs + 1) * sizeof(*a->site_var));
	if (!a->site_var)
		goto oom;
	for (size_t i = 0; i < run->nallocs; i++) {
		uint32_t id = site_var(a, &run->allocs[i]);
		a->site_var[i] = id;
		a->vars[id].objects++;
		a->vars[id].bytes += run->allocs[i].size;
	}
	if (build_stacks(a) || build_tls(a))
		goto oom;
	*out = a;
	return 0;
oom:
	snprintf(err, errlen, "out of memory preparing the attribution");
	rc = -ENOMEM;
fail:
	mr_attrib_close(a);
	return rc;
}

void mr_attrib_close(struct mr_attrib *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nobj; i++) {
		mr_debuginfo_close(a->obj[i].di);
		free(a->obj[i].path);
		free(a->obj[i].file);
		free(a->obj[i].base);
	}
	for (size_t i = 0; i < a->nsnap; i++) {
		mph_maps_free(&a->snap[i].maps);
		free(a->snap[i].span);
	}
	for (size_t i = 0; i < a->nvars; i++) {
		free(a->vars[i].name);
		free(a->vars[i].decl);
	}
	for (size_t i = 0; i < a->nlines; i++)
		free(a->lines[i]);
	mr_heap_free(&a->heap);
	mr_heap_free(&a->stacks);
	mph_u64map_free(&a->obj_by_path);
	mph_u64map_free(&a->var_by_key);
	mph_u64map_free(&a->line_by_hash);
	mph_u64map_free(&a->line_by_ip);
	mph_u64map_free(&a->thread_by_tid);
	mr_pagemap_free(&a->pages);
	free(a->obj);
	free(a->snap);
	free(a->vars);
	free(a->lines);
	free(a->site_var);
	free(a->tls);
	free(a->stack_index);
	free(a->cache);
	free(a->exe_path);
	free(a);
}
