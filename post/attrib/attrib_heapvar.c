/* post/attrib/attrib_heapvar.c - heap objects named by the variable that receives the pointer
 * (issue 16 item 2): the recorded frames of an allocation are followed outward from its
 * naming frame with heapvar's store analysis; a function that returns the pointer is a
 * wrapper ("via f"), the first frame that stores it (a static, a member of one, a local
 * in the frame or in a register) names it. */
#include "attrib_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/allocsite.h"
#include "binary/demangle.h"
#include "binary/heapvar.h"
#include "binary/heapvar_dwarf.h"
#include "binary/layout.h"
#include "hash.h"

/* What one frame does with the pointer its call returned. */
enum recv_kind { RECV_NONE = 0, RECV_VAR, RECV_RETURN };

struct recv {
	enum recv_kind kind;
	char *name;          /* RECV_VAR: "g", "g.m", "main::m" (object prefix for libraries) */
	const char *how;     /* RECV_VAR: "global", "static", "function static", "member",
			      * "local" */
	int arg_reg;         /* >= 0: stored through (a member of) the object the argument in
			      * this register (DWARF number) points to, of arg_size bytes */
	uint64_t arg_size;
	/* RECV_VAR of a static or a path: where the pointer went, whose pointee type lays
	 * the objects out (attrib_heap_layout); where.nstep 0: not known */
	struct mr_hv_path where;
	uint64_t where_var;  /* the static it starts at, 0: none */
	uint32_t where_obj;
	struct mr_hvdw_query local; /* RECV_VAR of a local: where it is (local.pc 0: none) */
};

struct attrib_hv {
	struct mph_u64map by_ret;   /* runtime return address -> index in recv */
	struct mph_u64map var_recv; /* heap variable's key (var_by_key's: its id changes at the
				     * end of a parallel pass) -> index in recv of its receiver */
	struct recv *recv;
	size_t nrecv, caprecv;
	struct mr_hvdw **dw;        /* [object]: its libdw handle, NULL when unread */
	unsigned char *dw_tried;
	size_t ndw;
};

void attrib_heapvar_free(struct mr_attrib *a)
{
	struct attrib_hv *h = a->hv;

	if (!h)
		return;
	for (size_t i = 0; i < h->nrecv; i++)
		free(h->recv[i].name);
	for (size_t i = 0; i < h->ndw; i++)
		mr_hvdw_close(h->dw[i]);
	mph_u64map_free(&h->by_ret);
	mph_u64map_free(&h->var_recv);
	free(h->recv);
	free(h->dw);
	free(h->dw_tried);
	free(h);
	a->hv = NULL;
}

/* a->hv, made on first use; NULL when out of memory. */
static struct attrib_hv *hv_of(struct mr_attrib *a)
{
	struct attrib_hv *h = a->hv;

	if (h)
		return h;
	h = calloc(1, sizeof(*h));
	if (!h || mph_u64map_init(&h->by_ret, 64) || mph_u64map_init(&h->var_recv, 16)) {
		if (h)
			mph_u64map_free(&h->by_ret);
		free(h);
		return NULL;
	}
	return a->hv = h;
}

struct mr_hvdw *attrib_obj_dw(struct mr_attrib *a, uint32_t oi)
{
	struct attrib_hv *h = hv_of(a);

	if (!h)
		return NULL;
	if (oi >= h->ndw) {
		size_t n = a->nobj > oi ? a->nobj : oi + 1;
		struct mr_hvdw **d = realloc(h->dw, n * sizeof(*d));
		unsigned char *t;

		if (!d)
			return NULL;
		h->dw = d;
		t = realloc(h->dw_tried, n);
		if (!t)
			return NULL;
		h->dw_tried = t;
		memset(h->dw + h->ndw, 0, (n - h->ndw) * sizeof(*d));
		memset(h->dw_tried + h->ndw, 0, n - h->ndw);
		h->ndw = n;
	}
	if (!h->dw_tried[oi]) {
		h->dw_tried[oi] = 1;
		if (mr_hvdw_open(a->obj[oi].file ? a->obj[oi].file : a->obj[oi].path, &h->dw[oi]))
			h->dw[oi] = NULL;
	}
	return h->dw[oi];
}

/* The variable a static store to vaddr `to` of object oi names, into r. */
static void static_recv(struct mr_attrib *a, uint32_t oi, uint64_t to, struct recv *r)
{
	struct obj *o = &a->obj[oi];
	const struct mr_var *mv = mr_debuginfo_var_at(o->di, to);
	struct mr_hvdw *dw;
	int rc;
	char path[256] = "";

	if (!mv || mv->tls || mv->descriptor || !mv->name)
		return;
	/* a struct's first member too: "g.first"; no name when DWARF says no pointer is there
	 * (what %rax held was no pointer: an int that a libc function returned) */
	rc = (dw = attrib_obj_dw(a, oi)) ? mr_hvdw_member(dw, mv->addr, to - mv->addr, path, sizeof(path))
				  : -ENOENT;
	if (rc == -EINVAL)
		return;
	if (rc && to != mv->addr) /* inside it, where DWARF cannot say: "g+8" */
		snprintf(path, sizeof(path), "+%" PRIu64, to - mv->addr);
	else if (rc)
		path[0] = '\0';
	if ((o->is_exe ? asprintf(&r->name, "%s%s", mv->name, path)
		       : asprintf(&r->name, "%s:%s%s", o->base, mv->name, path)) < 0) {
		r->name = NULL;
		return;
	}
	r->kind = RECV_VAR;
	r->how = path[0] ? "member" : mr_var_kind_name(mv->kind);
	r->where = (struct mr_hv_path){ .root = MR_HV_ROOT_STATIC, .at = to, .nstep = 1 };
	r->where_var = mv->addr;
	r->where_obj = oi;
}

/* r->name: "FUNC::NAME" of object oi (OBJ:FUNC::NAME outside the executable), FUNC as the
 * user wrote it (an OpenMP region's outlined function, a C++ name: mr_demangle_function);
 * NAME alone for FUNC "" (a class's member, "Mesh::m_x"). */
static void local_name(struct mr_attrib *a, uint32_t oi, const char *func, const char *name,
		       struct recv *r)
{
	struct obj *o = &a->obj[oi];
	char *src = func[0] ? mr_demangle_function(func) : NULL;
	const char *f = src ? src : func;

	/* func "": a member named by its class ("Mesh::m_x") */
	if ((o->is_exe ? asprintf(&r->name, "%s%s%s", f, f[0] ? "::" : "", name)
		       : asprintf(&r->name, "%s:%s%s%s", o->base, f, f[0] ? "::" : "", name)) < 0)
		r->name = NULL;
	free(src);
	if (!r->name)
		return;
	r->kind = RECV_VAR;
	r->how = f[0] ? "local" : "member";
}

/* The local of the frame an event names (FRAME or REG events), into r. */
static void local_recv(struct mr_attrib *a, uint32_t oi, const struct mr_hv_event *e,
		       struct recv *r)
{
	const char *func;
	char name[512];
	struct mr_hvdw_query q = {
		.where = e->kind == MR_HV_FRAME ? MR_HVDW_FRAME
			 : e->kind == MR_HV_THROUGH ? MR_HVDW_THROUGH : MR_HVDW_REG,
		.pc = e->pc, .end = e->end, .reg = e->reg, .off = e->off,
		.slot_reg = e->slot_reg, .slot_off = e->slot_off,
	};

	if (mr_hvdw_local(attrib_obj_dw(a, oi), &q, name, sizeof(name), &func) == 0) {
		local_name(a, oi, func, name, r);
		r->local = q;
		r->where_obj = oi;
	}
}

/* The path of a PATH event of object oi into r: the variable it starts at and the steps. */
static void path_recv(struct mr_attrib *a, uint32_t oi, const struct mr_hv_event *e,
		      struct recv *r)
{
	struct obj *o = &a->obj[oi];
	const struct mr_var *mv = NULL;
	const char *func;
	char path[512];
	int rc;

	if (e->path.root == MR_HV_ROOT_STATIC) {
		mv = mr_debuginfo_var_at(o->di, e->path.at);
		if (!mv || mv->tls || mv->descriptor || !mv->name)
			return;
	}
	rc = mr_hvdw_path(attrib_obj_dw(a, oi), &e->path, mv ? mv->addr : 0, path, sizeof(path), &func);
	if (rc)
		return;
	r->where = e->path;
	r->where_var = mv ? mv->addr : 0;
	r->where_obj = oi;
	if (!mv) {
		local_name(a, oi, func, path, r);
		return;
	}
	if ((o->is_exe ? asprintf(&r->name, "%s%s", mv->name, path)
		       : asprintf(&r->name, "%s:%s%s", o->base, mv->name, path)) < 0) {
		r->name = NULL;
		return;
	}
	r->kind = RECV_VAR;
	r->how = "member";
}

/* The code read around a return address: jumps back and forth stay inside; from the
 * function's start when it is at most FUNC_BEFORE bytes before (heapvar.h: the paths held
 * at the call) */
#define WINDOW_BEFORE 512
#define WINDOW_AFTER 3584
#define FUNC_BEFORE 16384

/* mr_heapvar_scan over the code of object oi around ret_vaddr (read from its file).
 * Returns the count of events, 0 when the code cannot be read. */
static size_t follow(struct mr_attrib *a, uint32_t oi, uint64_t ret_vaddr,
		     struct mr_hv_event *ev, size_t max)
{
	struct mr_debuginfo *d = a->obj[oi].di;
	struct mr_hvdw *dw = attrib_obj_dw(a, oi);
	uint64_t func = 0, base = ret_vaddr > WINDOW_BEFORE ? ret_vaddr - WINDOW_BEFORE : 0;
	size_t bytes;
	uint8_t *buf;
	ssize_t n;
	size_t k = 0;

	if (dw && mr_hvdw_func_start(dw, ret_vaddr - 1, &func) == 0 && func < ret_vaddr &&
	    ret_vaddr - func <= FUNC_BEFORE && func < base)
		base = func;
	bytes = (size_t)(ret_vaddr - base) + WINDOW_AFTER;
	buf = malloc(bytes);
	n = buf ? mr_debuginfo_code(d, base, buf, bytes) : -1;
	if (n <= 0 && buf) { /* the segment starts after base: read from ret_vaddr itself */
		base = ret_vaddr;
		n = mr_debuginfo_code(d, base, buf, WINDOW_AFTER);
	}
	if (n > 0)
		k = mr_heapvar_scan(buf, (size_t)n, base, func, ret_vaddr, ev, max);
	free(buf);
	return k;
}

/* What the code at return address ret (time t) does with the pointer: stored to a
 * static (first), returned, or held by a local (last). */
static struct recv analyse(struct mr_attrib *a, uint64_t ret, uint64_t t)
{
	struct mr_hv_event ev[MR_HV_MAX_EVENTS];
	struct recv r = { RECV_NONE, NULL, NULL, -1, 0, { 0 }, 0, 0, { 0 } };
	uint64_t t0, t1;
	struct span *sp = ret ? attrib_span_at(a, ret - 1, t, &t0, &t1) : NULL;
	size_t n;

	if (!sp || !a->obj[sp->obj].di)
		return r;
	n = follow(a, sp->obj, ret - sp->bias, ev, MR_HV_MAX_EVENTS);
	for (size_t i = 0; i < n && r.kind == RECV_NONE; i++)
		if (ev[i].kind == MR_HV_STATIC)
			static_recv(a, sp->obj, ev[i].addr, &r);
	for (size_t i = 0; i < n && r.kind == RECV_NONE; i++)
		if (ev[i].kind == MR_HV_RETURN &&
		    mr_hvdw_returns(attrib_obj_dw(a, sp->obj), ev[i].pc) != 0) /* void: rax is stale */
			r.kind = RECV_RETURN;
	for (size_t i = 0; i < n && r.kind == RECV_NONE; i++)
		if (ev[i].kind == MR_HV_FRAME || ev[i].kind == MR_HV_REG ||
		    ev[i].kind == MR_HV_THROUGH)
			local_recv(a, sp->obj, &ev[i], &r);
		else if (ev[i].kind == MR_HV_PATH)
			path_recv(a, sp->obj, &ev[i], &r);
	for (size_t i = 0; i < n && r.arg_reg < 0; i++)
		if (ev[i].kind == MR_HV_PATH && ev[i].path.root == MR_HV_ROOT_ARG &&
		    mr_hvdw_arg_size(attrib_obj_dw(a, sp->obj), &ev[i].path, &r.arg_size) == 0)
			r.arg_reg = ev[i].path.reg;
	return r;
}

/* The receiver of return address ret, analysed once per address. NULL when out of
 * memory. */
static const struct recv *frame_recv(struct mr_attrib *a, uint64_t ret, uint64_t t)
{
	struct attrib_hv *h = hv_of(a);
	uint64_t *slot;

	if (!h)
		return NULL;
	slot = mph_u64map_get(&h->by_ret, ret);
	if (slot)
		return &h->recv[*slot];
	if (h->nrecv == h->caprecv) {
		size_t nc = h->caprecv ? h->caprecv * 2 : 64;
		struct recv *nr = realloc(h->recv, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		h->recv = nr;
		h->caprecv = nc;
	}
	if (!mph_u64map_put(&h->by_ret, ret, h->nrecv))
		return NULL;
	h->recv[h->nrecv] = analyse(a, ret, t);
	return &h->recv[h->nrecv++];
}

/* "file:line" and function of return address ret's call into where and func (the
 * function may be empty); false when the call has no line. */
static bool call_line(struct mr_attrib *a, uint64_t ret, uint64_t t, char *where, size_t wlen,
		      char *func, size_t flen)
{
	return attrib_describe_code(a, ret - 1, t, where, wlen, func, flen) == 1;
}

/* When return address ret's call lies in code inlined into its frame's function: the
 * inlined call's "file:line" into where and the inlined function into func, true. */
static bool inline_call(struct mr_attrib *a, uint64_t ret, uint64_t t, char *where, size_t wlen,
			char *func, size_t flen)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, ret - 1, t, &t0, &t1);
	struct mr_line ln;

	if (!sp || mr_debuginfo_inline_call(a->obj[sp->obj].di, ret - 1 - sp->bias, &ln) ||
	    !ln.function)
		return false;
	snprintf(where, wlen, "%s:%u", attrib_base_name(ln.file), ln.line);
	snprintf(func, flen, "%s", ln.function);
	return true;
}

/* When return address ret's call lies in the C++ library's code inlined into the program's
 * code: the program's "file:line" that called that code into where, true. */
static bool program_call(struct mr_attrib *a, uint64_t ret, uint64_t t, char *where, size_t wlen)
{
	uint64_t t0, t1;
	struct span *sp = attrib_span_at(a, ret - 1, t, &t0, &t1);
	struct mr_line ln;

	if (!sp || mr_debuginfo_inline_call(a->obj[sp->obj].di, ret - 1 - sp->bias, &ln) ||
	    !ln.file || strstr(ln.file, "/include/c++/"))
		return false;
	snprintf(where, wlen, "%s:%u", attrib_base_name(ln.file), ln.line);
	return true;
}

/* Append s to the list *l ('\n'-separated); false when out of memory. */
static bool append(char **l, const char *s)
{
	char *n;

	if (asprintf(&n, "%s%s%s", *l ? *l : "", *l ? "\n" : "", s) < 0)
		return false;
	free(*l);
	*l = n;
	return true;
}

/* The list l ('\n'-separated) with ", " between its entries; NULL when out of memory. */
static char *commas(const char *l)
{
	char *s = malloc(2 * strlen(l) + 1), *p = s;

	if (!s)
		return NULL;
	for (; *l; l++) {
		if (*l == '\n') {
			*p++ = ',';
			*p++ = ' ';
		} else {
			*p++ = *l;
		}
	}
	*p = '\0';
	return s;
}

/* The object whose address the call returning to ret (time t) passed in the register the
 * callee stored the pointer through (callee->arg_reg): a library function called for an
 * object, as std::vector<T>::resize for a member, stores into it. Its name into *out
 * ("Mesh::m_x", "main::v", "g.m"); false when it has none. */
static bool arg_recv(struct mr_attrib *a, uint64_t ret, uint64_t t, const struct recv *callee,
		     struct recv *out)
{
	uint64_t t0, t1, rv, func = 0, base;
	struct span *sp = ret ? attrib_span_at(a, ret - 1, t, &t0, &t1) : NULL;
	const struct mr_var *mv = NULL;
	struct mr_hvdw *dw;
	struct mr_hv_path p;
	const char *fn = NULL;
	char name[512];
	uint8_t *buf;
	ssize_t n;
	int addr_of = 0, rc = -ENOENT;

	if (!sp || !a->obj[sp->obj].di || !(dw = attrib_obj_dw(a, sp->obj)))
		return false;
	rv = ret - sp->bias;
	if (mr_hvdw_func_start(dw, rv - 1, &func) || func >= rv || rv - func > FUNC_BEFORE)
		return false;
	base = func;
	buf = malloc((size_t)(rv - base));
	n = buf ? mr_debuginfo_code(a->obj[sp->obj].di, base, buf, (size_t)(rv - base)) : -1;
	if (n > 0)
		rc = mr_heapvar_arg(buf, (size_t)n, base, func, rv, callee->arg_reg, &p, &addr_of);
	free(buf);
	if (rc)
		return false;
	if (!addr_of) { /* a pointer passed: the object it points to */
		if (p.nstep >= MR_HV_MAX_STEPS)
			return false;
		p.step[p.nstep++] = (struct mr_hv_step){ 0, 0 };
	}
	if (p.root == MR_HV_ROOT_STATIC &&
	    (!(mv = mr_debuginfo_var_at(a->obj[sp->obj].di, p.at)) || mv->tls || !mv->name))
		return false;
	if (mr_hvdw_object(dw, &p, mv ? mv->addr : 0, callee->arg_size, name, sizeof(name), &fn))
		return false;
	if (fn) {
		local_name(a, sp->obj, fn, name, out);
	} else if (asprintf(&out->name, "%s%s", mv ? mv->name : "", name) >= 0) {
		out->kind = RECV_VAR;
		out->how = "member";
	} else {
		out->name = NULL;
	}
	return out->kind == RECV_VAR;
}

/* Variable id of r named by the variable receiving its pointer, the frames followed
 * outward from its naming frame idx (lib_via: the library frames skipped before it, or
 * NULL; kind: "malloc", ...), NOT_YET when no frame stores it, and for Fortran call sites
 * (allocsite names those). arg_only: the naming frame's call lies in the C++ library's
 * code inlined into it, whose stores name nothing of the program's: only an object it
 * passed to a frame below that stored the pointer into it names r. */
static uint32_t receiver_var(struct mr_attrib *a, const struct memphis_rec_alloc *r,
			     uint32_t idx, const char *lib_via, const char *kind, bool arg_only)
{
	uint32_t n = r->nframes < MEMPHIS_MAX_FRAMES ? r->nframes : MEMPHIS_MAX_FRAMES;
	struct mr_varinfo v = { .kind = MR_VAR_HEAP };
	char where[512], func[256], from[512], f[256], file[512], inl[512] = "";
	const struct recv *rc = NULL, *below;
	struct recv argr = { RECV_NONE, NULL, NULL, -1, 0, { 0 }, 0, 0, { 0 } };
	const char *colon;
	char *via = NULL, *list = NULL;
	uint64_t key, *slot;
	uint32_t k, id;
	int len;

	if (idx >= n || !call_line(a, r->frames[idx], r->time, where, sizeof(where), func,
				   sizeof(func)))
		return NOT_YET;
	/* the library's code inlined there: the program's line that called it (m_x.resize(n)
	 * in an inlined constructor), else the program's own line it came from */
	if (arg_only && !program_call(a, r->frames[idx], r->time, where, sizeof(where)))
		attrib_own_line(a, r->frames[idx], r->time, where, sizeof(where), func, sizeof(func));
	colon = strrchr(where, ':');
	snprintf(file, sizeof(file), "%.*s", colon ? (int)(colon - where) : 0, where);
	if (mr_allocsite_is_fortran(file))
		return NOT_YET; /* Fortran objects keep allocsite's names (fortran_site) */
	if (lib_via && !append(&via, lib_via))
		return NOT_YET;
	/* the call inside code inlined into the frame's function (a template wrapper):
	 * "via Allocate<double>, from LINE" as for a wrapper's own frame */
	if (!arg_only && inline_call(a, r->frames[idx], r->time, inl, sizeof(inl), f, sizeof(f)) &&
	    !append(&via, f))
		goto none;
	/* a frame below (a library's, skipped for the name) stored it into the object the
	 * naming frame's call passed: that object ("Mesh::m_x" for m_x.resize(n)) */
	below = idx > 0 ? frame_recv(a, r->frames[idx - 1], r->time) : NULL;
	if (below && below->arg_reg >= 0 && arg_recv(a, r->frames[idx], r->time, below, &argr))
		rc = &argr;
	else if (arg_only)
		goto none;
	for (k = idx; k < n && rc != &argr; k++) {
		rc = frame_recv(a, r->frames[k], r->time);
		if (!rc || rc->kind != RECV_RETURN)
			break;
		attrib_describe_code(a, r->frames[k] - 1, r->time, from, sizeof(from), f, sizeof(f));
		if (!append(&via, f[0] ? f : from))
			goto none;
	}
	if (k >= n || !rc || rc->kind != RECV_VAR ||
	    !call_line(a, r->frames[k], r->time, from, sizeof(from), f, sizeof(f)))
		goto none;
	list = via ? commas(via) : NULL;
	if (via && !list)
		goto none;
	/* "x (malloc at cg.c:74 via vector, from cg.c:152)"; "a (malloc at cg.c:90)" */
	if (k == idx && inl[0])
		snprintf(from, sizeof(from), "%s", inl);
	len = asprintf(&v.name, "%s (%s at %s%s%s%s%s)", rc->name, kind, where, list ? " via " : "",
		       list ? list : "", k > idx || inl[0] ? ", from " : "",
		       k > idx || inl[0] ? from : "");
	free(list);
	if (len < 0)
		goto none;
	key = (mph_hash_str(v.name) & ((1ull << 60) - 1)) | (7ull << 60);
	slot = mph_u64map_get(&a->var_by_key, key);
	if (slot) {
		free(v.name);
		free(via);
		free(argr.name);
		return (uint32_t)*slot;
	}
	attrib_site_parts(a, r, idx, where, func, &v);
	v.recv_name = strdup(rc->name);
	v.recv_how = rc->how;
	v.recv_via = via;
	v.recv_from = k > idx || inl[0] ? strdup(from) : NULL;
	id = attrib_add_var(a, key, &v);
	if (id != NOT_YET && rc != &argr && (rc->where.nstep || rc->local.pc)) /* its layout */
		mph_u64map_put(&a->hv->var_recv, key, (uint64_t)(rc - a->hv->recv));
	free(argr.name);
	return id;
none:
	free(via);
	free(argr.name);
	return NOT_YET;
}

uint32_t attrib_heap_var(struct mr_attrib *a, const struct memphis_rec_alloc *r)
{
	uint32_t n = r->nframes < MEMPHIS_MAX_FRAMES ? r->nframes : MEMPHIS_MAX_FRAMES;
	uint64_t h = mph_hash64(r->kind + 1u), key, *slot;
	struct alloc_site s;
	uint32_t id = NOT_YET;

	/* objects of one site that land in different variables differ in their frames */
	for (uint32_t i = 0; i < n; i++)
		h = mph_hash64(h ^ r->frames[i]);
	key = (h & ((1ull << 60) - 1)) | (8ull << 60);
	slot = mph_u64map_get(&a->var_by_key, key);
	if (slot)
		return (uint32_t)*slot;
	attrib_alloc_site(a, r, &s);
	/* posix_memalign returns its pointer through memory, %rax holds a status */
	if (s.site && r->kind != MPH_ALLOC_POSIX_MEMALIGN)
		id = receiver_var(a, r, s.idx, s.libs[0] ? s.libs : NULL, s.alloc, s.inlined);
	if (id == NOT_YET)
		id = attrib_site_var(a, r, &s);
	mph_u64map_put(&a->var_by_key, key, id); /* out of memory: only not cached */
	return id;
}

int attrib_heap_layout(struct mr_attrib *a, uint32_t var, struct mr_layout **out)
{
	const uint64_t *k = a->hv && var < a->nvars ? mph_u64map_get(&a->hv->var_recv,
								      a->var_keys[var]) : NULL;
	const struct recv *r = k ? &a->hv->recv[*k] : NULL;

	*out = NULL;
	if (!r)
		return -ENOENT;
	if (r->local.pc)
		return mr_layout_local(attrib_obj_dw(a, r->where_obj), &r->local, out);
	return mr_layout_pointee(attrib_obj_dw(a, r->where_obj), &r->where, r->where_var, out);
}
