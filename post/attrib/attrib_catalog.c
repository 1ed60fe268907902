/* post/attrib/attrib_catalog.c - the catalog of what attribution found: variables (heap call
 * sites, stacks, DWARF and symbol variables, constants) and source lines (code addresses
 * described as file:line), each by id. */
#include "attrib_impl.h"

#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary/allocsite.h"
#include "binary/debuginfo.h"
#include "maps.h"
#include "run/heap.h"
#include "run/pages.h"
#include "search.h"
#include "u64map.h"

const char *mr_var_kind_name(unsigned kind)
{
	static const char *const n[] = {
		[MR_VAR_GLOBAL] = "global", [MR_VAR_STATIC] = "static",
		[MR_VAR_FUNC_STATIC] = "function static", [MR_VAR_TLS] = "tls",
		[MR_VAR_SYMBOL] = "symbol", [MR_VAR_HEAP] = "heap", [MR_VAR_STACK] = "stack",
		[MR_VAR_UNKNOWN] = "unknown", [MR_VAR_LOCAL] = "local", [MR_VAR_RUNTIME] = "runtime",
	};

	return kind < sizeof(n) / sizeof(n[0]) && n[kind] ? n[kind] : "unknown";
}

/* Add a variable; returns its id, or NOT_YET when out of memory (name is then freed). */
uint32_t attrib_add_var(struct mr_attrib *a, uint64_t key, struct mr_varinfo *v)
{
	uint64_t *slot;

	if (a->nvars == a->capvars) {
		size_t nc = a->capvars ? a->capvars * 2 : 64;
		struct mr_varinfo *nv = realloc(a->vars, nc * sizeof(*nv));
		uint64_t *nk;

		if (!nv)
			goto oom;
		a->vars = nv;
		nk = realloc(a->var_keys, nc * sizeof(*nk));
		if (!nk)
			goto oom;
		a->var_keys = nk;
		a->capvars = nc;
	}
	slot = mph_u64map_put(&a->var_by_key, key, a->nvars);
	if (!slot)
		goto oom;
	a->vars[a->nvars] = *v;
	a->var_keys[a->nvars] = key;
	return (uint32_t)a->nvars++;
oom:
	free(v->name);
	free(v->decl);
	free(v->site_file);
	free(v->site_func);
	free(v->site_callers);
	free(v->site_chain);
	free(v->recv_name);
	free(v->recv_via);
	free(v->recv_from);
	return NOT_YET;
}

/* Intern a line name; returns its id (0 on out of memory: "??"). */
uint32_t attrib_intern_line(struct mr_attrib *a, const char *name)
{
	uint64_t h = mph_hash_str(name);
	uint64_t *slot = mph_u64map_get(&a->line_by_hash, h);
	char *copy;

	if (slot)
		return (uint32_t)*slot;
	if (a->nlines == a->caplines) {
		size_t nc = a->caplines ? a->caplines * 2 : 256;
		char **nl = realloc(a->lines, nc * sizeof(*nl));
		char **nf;

		if (!nl)
			return 0;
		a->lines = nl;
		nf = realloc(a->line_funcs, nc * sizeof(*nf));
		if (!nf)
			return 0;
		a->line_funcs = nf;
		a->caplines = nc;
	}
	copy = strdup(name);
	if (!copy || !mph_u64map_put(&a->line_by_hash, h, a->nlines)) {
		free(copy);
		return 0;
	}
	a->lines[a->nlines] = copy;
	a->line_funcs[a->nlines] = NULL;
	return (uint32_t)a->nlines++;
}

static const char *alloc_kind_name(unsigned k)
{
	static const char *const n[] = { "malloc", "calloc", "realloc", "memalign",
					 "posix_memalign", "aligned_alloc", "valloc", "pvalloc",
					 "reallocarray", "mmap", "mremap" };

	k &= ~(unsigned)MPH_ALLOC_F_RUN;
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
	struct span *sp = attrib_span_at(a, site - 1, t, &t0, &t1);
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
			    asprintf(&v.decl, "%s:%u", attrib_base_name(mv->file), mv->line) < 0)
				v.decl = NULL;
			id = attrib_add_var(a, vkey, &v);
			if (id == NOT_YET)
				return 0;
		}
		return mph_u64map_put(&a->var_by_key, key, id) ? id : 0;
	}
	memset(&ln, 0, sizeof(ln));
	if (mr_debuginfo_line(o->di, site - 1 - sp->bias, &ln) || !ln.file)
		return 0;
	switch (mr_allocsite_fortran(&a->run->owner, ln.file, ln.line, &obj)) {
	case MR_FSITE_TEMPORARY:
		rc = asprintf(&v.name, "<temporary at %s:%u>", attrib_base_name(ln.file), ln.line);
		break;
	case MR_FSITE_ALLOCATE:
		rc = asprintf(&v.name, "allocate%s%s%s at %s:%u%s%s", obj ? "(" : "", obj ? obj : "",
			      obj ? ")" : "", attrib_base_name(ln.file), ln.line,
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
	} else if ((id = attrib_add_var(a, vkey, &v)) == NOT_YET) {
		return 0;
	}
	return mph_u64map_put(&a->var_by_key, key, id) ? id : 0;
}

/* Is the shared object known as `base` a runtime whose frames are allocator plumbing: the
 * C++ runtime (operator new and its nothrow/aligned/array forms), libc's own wrappers
 * around malloc (strdup, fopen's buffer, ...), the unwinder, libnuma's numa_alloc_*
 * (anonymous mmaps)? Not libmemphis: its own data is never the program's. */
static bool runtime_object(const char *base)
{
	static const char *const prefixes[] = { "libstdc++.so", "libc++.so", "libc++abi.so",
						"libc.so", "libgcc_s.so", "libnuma.so" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Is the function (DWARF or symbol name) operator new / new[] in any form (mangled _Znw*,
 * _Zna*, or demangled)? */
static bool operator_new(const char *f)
{
	return !strncmp(f, "_Znw", 4) || !strncmp(f, "_Zna", 4) || !strncmp(f, "operator new", 12);
}

/* Is the file one of the C++ standard library's headers (std::allocator,
 * __gnu_cxx::new_allocator, allocator_traits, the containers' _M_allocate)? */
static bool cxx_header(const char *file)
{
	return strstr(file, "/include/c++/") != NULL;
}

/* Is the shared object known as `base` a runtime whose allocations are its own state
 * (issue 16 item 3 sets them apart): its frames name their sites, as any frame of a
 * program does, even without line information. */
static bool runtime_owner(const char *base)
{
	static const char *const prefixes[] = { "libgomp.so", "libomp.so", "libiomp5.so",
						"libgfortran.so", "libmpi", "libopen-" };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* What the return address of an allocation's call stack is (cached per address in
 * var_by_key under tag 6: the value is the enum). FRAME_LIBRARY: a call in a shared
 * library without line information (not a runtime_owner): the site is named by the first
 * frame with a line after it, the library's frames kept as detail (issue 16 item 5). */
enum frame_kind { FRAME_ALLOCATOR = 1, FRAME_PROGRAM, FRAME_INLINED_ALLOCATOR, FRAME_LIBRARY };

/* The kind of return address ret at time t: FRAME_ALLOCATOR in a runtime object
 * (runtime_object), in operator new, or in code of the C++ library's headers;
 * FRAME_INLINED_ALLOCATOR for such header code inlined into a function of the program that
 * has a line of its own before it (mr_debuginfo_own_line); else FRAME_PROGRAM. */
static enum frame_kind frame_kind(struct mr_attrib *a, uint64_t ret, uint64_t t)
{
	uint64_t key = (ret & ((1ull << 60) - 1)) | (6ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	enum frame_kind k = FRAME_PROGRAM;
	uint64_t t0, t1;
	struct span *sp;
	struct mr_line ln;
	const struct obj *o;

	if (slot)
		return (enum frame_kind)*slot;
	sp = ret ? attrib_span_at(a, ret - 1, t, &t0, &t1) : NULL;
	if (sp) {
		o = &a->obj[sp->obj];
		mr_debuginfo_line(o->di, ret - 1 - sp->bias, &ln);
		if ((!o->is_exe && runtime_object(o->base)) || (ln.function && operator_new(ln.function)))
			k = FRAME_ALLOCATOR;
		else if (ln.file && cxx_header(ln.file))
			k = mr_debuginfo_own_line(o->di, ret - 1 - sp->bias, cxx_header, &ln) == 0
				    ? FRAME_INLINED_ALLOCATOR : FRAME_ALLOCATOR;
		else if (!o->is_exe && !o->is_self && (!ln.file || !ln.line) && !runtime_owner(o->base))
			k = FRAME_LIBRARY;
	}
	mph_u64map_put(&a->var_by_key, key, k);
	return k;
}

/* The frame of ALLOCS record r that names it: the first (innermost) that is not an
 * allocator frame; the outermost recorded when all are; past library frames
 * (FRAME_LIBRARY) when a later frame is the program's (*lib: the first library frame,
 * else UINT32_MAX). 0 when none. *kind: its kind. */
static uint64_t naming_frame(struct mr_attrib *a, const struct memphis_rec_alloc *r,
			     enum frame_kind *kind, uint32_t *idx, uint32_t *lib)
{
	uint32_t n = r->nframes < MEMPHIS_MAX_FRAMES ? r->nframes : MEMPHIS_MAX_FRAMES;
	uint32_t i = 0, k;
	enum frame_kind kk = FRAME_PROGRAM;

	*kind = FRAME_PROGRAM;
	*idx = 0;
	*lib = UINT32_MAX;
	if (!n)
		return 0;
	while ((*kind = frame_kind(a, r->frames[i], r->time)) == FRAME_ALLOCATOR && i + 1 < n)
		i++;
	for (k = i; *kind == FRAME_LIBRARY && k + 1 < n; k++)
		if ((kk = frame_kind(a, r->frames[k + 1], r->time)) != FRAME_LIBRARY &&
		    kk != FRAME_ALLOCATOR)
			break;
	if (*kind == FRAME_LIBRARY && k + 1 < n && kk != FRAME_LIBRARY && kk != FRAME_ALLOCATOR) {
		*lib = i;
		i = k + 1;
		*kind = kk;
	}
	*idx = i;
	return r->frames[i];
}

/* The library frames [lib, idx) of r described ("libfoo.so:make_buf"), '\n'-separated,
 * into buf (empty when there are none). */
static void library_frames(struct mr_attrib *a, const struct memphis_rec_alloc *r, uint32_t lib,
			   uint32_t idx, char *buf, size_t len)
{
	char w[512];
	size_t pos = 0;

	buf[0] = '\0';
	for (uint32_t k = lib; k < idx && pos < len; k++) {
		attrib_describe_code(a, r->frames[k] - 1, r->time, w, sizeof(w), NULL, 0);
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", pos ? "\n" : "", w);
	}
}

/* v->site_chain: each recorded frame's return address as a vaddr of the executable
 * ("%llx"), "-" for a frame elsewhere, space-separated: `memphis apply` matches an
 * allocation's chain against it (post/plan.c). Best effort, as attrib_site_parts. */
static void site_chain(struct mr_attrib *a, const struct memphis_rec_alloc *r,
		       struct mr_varinfo *v)
{
	uint32_t n = r->nframes < MEMPHIS_MAX_FRAMES ? r->nframes : MEMPHIS_MAX_FRAMES;
	char buf[MEMPHIS_MAX_FRAMES * 20];
	size_t pos = 0;

	for (uint32_t k = 0; k < n; k++) {
		uint64_t t0, t1;
		struct span *sp = attrib_span_at(a, r->frames[k] - 1, r->time, &t0, &t1);

		if (sp && sp->bias_known && a->obj[sp->obj].is_exe)
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s%" PRIx64,
						k ? " " : "", r->frames[k] - sp->bias);
		else
			pos += (size_t)snprintf(buf + pos, sizeof(buf) - pos, "%s-", k ? " " : "");
	}
	v->site_chain = strdup(buf);
}

/* The structured site of a heap variable (compare matches sites across rebuilds by it):
 * file, line and function of the naming frame from where/func as attrib_describe_code
 * gave them, and the functions of the recorded frames after frame idx. Best effort: out
 * of memory leaves the fields NULL. */
void attrib_site_parts(struct mr_attrib *a, const struct memphis_rec_alloc *r, uint32_t idx,
		       const char *where, const char *func, struct mr_varinfo *v)
{
	uint32_t n = r->nframes < MEMPHIS_MAX_FRAMES ? r->nframes : MEMPHIS_MAX_FRAMES;
	const char *colon = strrchr(where, ':');
	char w[512], f[256];
	size_t len = 0;
	FILE *m;

	if (!colon || !func[0] || !(v->site_line = (unsigned)strtoul(colon + 1, NULL, 10)))
		return;
	v->site_file = strndup(where, (size_t)(colon - where));
	v->site_func = strdup(func);
	m = open_memstream(&v->site_callers, &len);
	if (!m)
		return;
	for (uint32_t k = idx + 1; k < n; k++) {
		attrib_describe_code(a, r->frames[k] - 1, r->time, w, sizeof(w), f, sizeof(f));
		fprintf(m, "%s%s", k > idx + 1 ? "\n" : "", f[0] ? f : "??");
	}
	if (fclose(m)) {
		free(v->site_callers);
		v->site_callers = NULL;
	}
	site_chain(a, r, v);
}

int attrib_own_line(struct mr_attrib *a, uint64_t ret, uint64_t t, char *where, size_t wlen,
		    char *func, size_t flen)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, ret - 1, t, &t0, &t1);
	struct mr_line ln;

	if (!sp || mr_debuginfo_own_line(a->obj[sp->obj].di, ret - 1 - sp->bias, cxx_header, &ln) ||
	    !ln.file)
		return -ENOENT;
	snprintf(where, wlen, "%s:%u", attrib_base_name(ln.file), ln.line);
	snprintf(func, flen, "%s", ln.function ? ln.function : "");
	return 0;
}

/* Name "KIND at FILE:LINE in FUNCTION" for a program function into which the C++ library's
 * allocator code was inlined (FRAME_INLINED_ALLOCATOR): the function's own line before it. */
static int inlined_site_name(struct mr_attrib *a, const struct memphis_rec_alloc *r,
			     uint64_t site, char **name)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, site - 1, r->time, &t0, &t1);
	struct mr_line ln;

	if (!sp || mr_debuginfo_own_line(a->obj[sp->obj].di, site - 1 - sp->bias, cxx_header, &ln))
		return -1;
	return asprintf(name, "%s at %s:%u in %s", alloc_kind_name(r->kind),
			attrib_base_name(ln.file), ln.line, ln.function);
}

/* Variable id of the call site `site` (naming frame idx, library frames from lib) of
 * ALLOCS record r (created on first sight). One variable per site and allocation kind: a
 * line whose skipped runtime frames both malloc and mmap (libnuma's numa_alloc_onnode) has
 * two objects, each named by its own kind. Sites are user addresses (below 2^56), so the
 * kind fits in bits 56-59. */
static uint32_t site_named(struct mr_attrib *a, const struct memphis_rec_alloc *r, uint64_t site,
			   enum frame_kind kind, uint32_t idx, const char *libs)
{
	uint64_t key = (site & ((1ull << 56) - 1)) | ((uint64_t)(r->kind & 0xf) << 56) | (1ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_HEAP };
	char where[512], func[256], *via = NULL;
	int rc;

	if (slot)
		return (uint32_t)*slot;
	if (site && (rc = (int)fortran_site(a, site, r->time, key)))
		return (uint32_t)rc;
	if (libs[0] && asprintf(&via, " (via %s)", libs) < 0)
		return 0;
	for (char *p = via; p && (p = strchr(p, '\n'));)
		*p = ','; /* more than one library frame: "a,b" */
	if (!site) {
		rc = asprintf(&v.name, "%s at <unknown call site>", alloc_kind_name(r->kind));
	} else if (kind == FRAME_INLINED_ALLOCATOR && inlined_site_name(a, r, site, &v.name) >= 0) {
		rc = 0;
	} else if (attrib_describe_code(a, site - 1, r->time, where, sizeof(where), func, sizeof(func))) {
		rc = func[0] ? asprintf(&v.name, "%s at %s in %s%s", alloc_kind_name(r->kind), where,
					func, via ? via : "")
			     : asprintf(&v.name, "%s at %s%s", alloc_kind_name(r->kind), where,
					via ? via : "");
		if (rc >= 0)
			attrib_site_parts(a, r, idx, where, func, &v);
	} else {
		rc = func[0] ? asprintf(&v.name, "%s in %s", alloc_kind_name(r->kind), func)
			     : asprintf(&v.name, "%s at %s", alloc_kind_name(r->kind), where);
	}
	free(via);
	if (rc < 0)
		return 0;
	return attrib_add_var(a, key, &v) == NOT_YET ? 0 : (uint32_t)(a->nvars - 1);
}

void attrib_alloc_site(struct mr_attrib *a, const struct memphis_rec_alloc *r,
		       struct alloc_site *s)
{
	enum frame_kind kind;
	uint32_t lib;

	s->site = naming_frame(a, r, &kind, &s->idx, &lib);
	s->fkind = kind;
	s->inlined = kind == FRAME_INLINED_ALLOCATOR;
	s->alloc = alloc_kind_name(r->kind);
	s->libs[0] = '\0';
	if (lib != UINT32_MAX)
		library_frames(a, r, lib, s->idx, s->libs, sizeof(s->libs));
}

uint32_t attrib_site_var(struct mr_attrib *a, const struct memphis_rec_alloc *r,
			 const struct alloc_site *s)
{
	return site_named(a, r, s->site, (enum frame_kind)s->fkind, s->idx, s->libs);
}

/* Variable id for a stack of thread index idx. */
uint32_t attrib_stack_var(struct mr_attrib *a, uint32_t idx)
{
	uint64_t key = (uint64_t)idx | (2ull << 60);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_STACK };
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	if (asprintf(&v.name, "<stack of thread %u>", idx) < 0)
		return 0;
	id = attrib_add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Variable id for a debuginfo variable of object oi. */
uint32_t attrib_dwarf_var(struct mr_attrib *a, uint32_t oi, const struct mr_var *mv)
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
	if (mv->scope) {
		v.scope = mv->scope;
		v.base_name = mv->base;
	}
	if (mv->file && mv->line && asprintf(&v.decl, "%s:%u", attrib_base_name(mv->file), mv->line) < 0)
		v.decl = NULL;
	id = attrib_add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Variable id for the unnamed read-only data of object oi: the literal constants compilers
 * keep in .rodata without a symbol (gfortran -O2 loads every real constant from there). */
/* The variable of object oi under key tag | oi, named "<WHAT NAME>" (NAME the object's),
 * kind static, made on first use; 0 when out of memory. */
static uint32_t object_var(struct mr_attrib *a, uint32_t oi, uint64_t tag, const char *what)
{
	uint64_t key = (uint64_t)oi | tag;
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_STATIC, .object = a->obj[oi].path };
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	if (asprintf(&v.name, "<%s %s>", what, a->obj[oi].base) < 0)
		return 0;
	id = attrib_add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

uint32_t attrib_constants_var(struct mr_attrib *a, uint32_t oi)
{
	return object_var(a, oi, 6ull << 60, "read-only data of");
}

uint32_t attrib_file_var(struct mr_attrib *a, uint32_t oi)
{
	return object_var(a, oi, 0xbull << 60, "mapped file");
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

const char *mr_attrib_line_function(const struct mr_attrib *a, uint32_t id)
{
	return id < a->nlines ? a->line_funcs[id] : NULL;
}

size_t mr_attrib_nlines(const struct mr_attrib *a)
{
	return a->nlines;
}

/* Format the source position of runtime address pc as "file:line" (or a fallback) into
 * buf. Returns 1 if a file:line was found, 0 otherwise. */
int attrib_describe_code(struct mr_attrib *a, uint64_t pc, uint64_t t, char *buf, size_t len,
			 char *func, size_t flen)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, pc, t, &t0, &t1);
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
		snprintf(buf, len, "%s:%u", attrib_base_name(ln.file), ln.line);
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

/* Line id of runtime address ip at time t; [*t0, *t1) is when the answer holds (the same
 * address can be another object's code after a dlclose/dlopen). Cached per object and
 * file-relative address, so a library reloaded elsewhere shares its answers. */
uint32_t attrib_code_at(struct mr_attrib *a, uint64_t ip, uint64_t t, uint64_t *t0,
			uint64_t *t1)
{
	struct span *sp;
	uint64_t key, *slot, rel;
	char buf[512], func[256];
	uint32_t id;

	*t0 = 0;
	*t1 = UINT64_MAX;
	sp = attrib_span_at(a, ip, t, t0, t1);
	if (!sp)
		return 0;
	rel = ip - sp->bias;
	key = ((uint64_t)sp->obj + 1) << 48 ^ rel;
	if (sp->obj >= 0xffff || rel >> 48)
		key = 0; /* no exact key: not cached */
	slot = key ? mph_u64map_get(&a->line_by_ip, key) : NULL;
	if (slot)
		return (uint32_t)*slot;
	attrib_describe_code(a, ip, t, buf, sizeof(buf), func, sizeof(func));
	id = strcmp(buf, "??") ? attrib_intern_line(a, buf) : 0;
	if (id && func[0] && !a->line_funcs[id])
		a->line_funcs[id] = strdup(func); /* NULL when out of memory: not known */
	if (key)
		mph_u64map_put(&a->line_by_ip, key, id);
	return id;
}

uint32_t mr_attrib_code(struct mr_attrib *a, uint64_t ip, uint64_t t)
{
	uint64_t t0, t1;
	uint32_t id;

	pthread_mutex_lock(&a->lock);
	id = attrib_code_at(a, ip, t, &t0, &t1);
	pthread_mutex_unlock(&a->lock);
	return id;
}

uint32_t mr_attrib_touch_code(struct mr_attrib *a, struct mr_touch_cache *tc, uint64_t ip,
			      uint64_t t)
{
	if (tc->line_ok && tc->ip == ip && t >= tc->lt0 && t < tc->lt1)
		return tc->line;
	pthread_mutex_lock(&a->lock);
	tc->line = attrib_code_at(a, ip, t, &tc->lt0, &tc->lt1);
	pthread_mutex_unlock(&a->lock);
	tc->ip = ip;
	tc->line_ok = 1;
	return tc->line;
}

/* The order of ids [id0, n) by first use in the pass: the first context (in order) that
 * used an id, then its position there; ids no context used last, by id. */
struct first_use {
	size_t ctx;
	uint64_t pos;
	uint32_t id;
};

static int cmp_first_use(const void *x, const void *y)
{
	const struct first_use *a = x, *b = y;

	if (a->ctx != b->ctx)
		return a->ctx < b->ctx ? -1 : 1;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* map[old id] = new id for ids below n: ids below id0 keep theirs, the others in the order
 * of their first use (var: the variables' first uses, else the lines'). NULL when out of
 * memory. */
static uint32_t *first_use_map(struct mr_attrib_ctx *const *ctx, size_t nctx, int var,
			       size_t id0, size_t n)
{
	uint32_t *map = malloc((n + 1) * sizeof(*map));
	struct first_use *fu = calloc(n - id0 + 1, sizeof(*fu));

	if (!map || !fu) {
		free(map);
		free(fu);
		return NULL;
	}
	for (size_t id = 0; id < n; id++)
		map[id] = (uint32_t)id;
	for (size_t id = id0; id < n; id++) {
		struct first_use *f = &fu[id - id0];

		*f = (struct first_use){ nctx, 0, (uint32_t)id };
		for (size_t k = 0; k < nctx && f->ctx == nctx; k++) {
			const uint64_t *first = var ? ctx[k]->var_first : ctx[k]->line_first;
			size_t cap = var ? ctx[k]->cap_var : ctx[k]->cap_line;

			if (id < cap && first[id])
				*f = (struct first_use){ k, first[id], (uint32_t)id };
		}
	}
	qsort(fu, n - id0, sizeof(*fu), cmp_first_use);
	for (size_t i = 0; i < n - id0; i++)
		map[fu[i].id] = (uint32_t)(id0 + i);
	free(fu);
	return map;
}

/* The values of m (all of them line ids) at or above id0, through map. */
static void rename_values(struct mph_u64map *m, const uint32_t *map, size_t id0, size_t n)
{
	for (size_t i = 0; i <= m->mask; i++)
		if (m->slot[i].key != MPH_U64MAP_EMPTY && m->slot[i].val >= id0 && m->slot[i].val < n)
			m->slot[i].val = map[m->slot[i].val];
}

/* Variables [id0, nvars) were renumbered through map (var_by_key holds other values too,
 * such as frame kinds, and aliases only of ids made before a pass): their own keys. */
static void rename_vars(struct mr_attrib *a, const uint32_t *map, size_t id0)
{
	uint64_t *keys = a->var_keys;

	for (size_t id = id0; id < a->nvars; id++) {
		uint64_t *slot = mph_u64map_get(&a->var_by_key, keys[id]);

		if (slot)
			*slot = map[id];
	}
}

int mr_attrib_pass_end(struct mr_attrib *a, struct mr_attrib_ctx *const *ctx, size_t n,
		       size_t nvars0, size_t nlines0, uint32_t **var_map, uint32_t **line_map)
{
	struct mr_varinfo *vars = malloc((a->nvars + 1) * sizeof(*vars));
	uint64_t *keys = malloc((a->nvars + 1) * sizeof(*keys));
	char **lines = malloc((a->nlines + 1) * sizeof(*lines));
	uint32_t *vm = first_use_map(ctx, n, 1, nvars0, a->nvars);
	uint32_t *lm = first_use_map(ctx, n, 0, nlines0, a->nlines);
	int oom = 0;

	for (size_t k = 0; k < n; k++)
		oom |= ctx[k]->oom;
	*var_map = vm;
	*line_map = lm;
	if (!vars || !keys || !lines || !vm || !lm || oom) {
		free(vars);
		free(keys);
		free(lines);
		return -ENOMEM;
	}
	rename_vars(a, vm, nvars0);
	for (size_t id = 0; id < a->nvars; id++)
		vars[vm[id]] = a->vars[id];
	memcpy(a->vars, vars, a->nvars * sizeof(*vars));
	for (size_t id = 0; id < a->nvars; id++)
		keys[vm[id]] = a->var_keys[id];
	memcpy(a->var_keys, keys, a->nvars * sizeof(*keys));
	for (size_t id = 0; id < a->nlines; id++)
		lines[lm[id]] = a->lines[id];
	memcpy(a->lines, lines, a->nlines * sizeof(*lines));
	for (size_t id = 0; id < a->nlines; id++)
		lines[lm[id]] = a->line_funcs[id];
	memcpy(a->line_funcs, lines, a->nlines * sizeof(*lines));
	free(vars);
	free(keys);
	free(lines);
	rename_values(&a->line_by_hash, lm, nlines0, a->nlines);
	rename_values(&a->line_by_ip, lm, nlines0, a->nlines);
	return 0;
}
