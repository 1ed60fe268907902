/* post/attrib/attrib_runtime.c - the runtimes' own data and wait loops in attribution (see
 * runtime.h for what counts): one variable per runtime, of kind MR_VAR_RUNTIME, for the
 * heap objects a runtime allocates for itself, its objects' static and TLS data and, for
 * libc, heap memory in no recorded allocation; and per instruction whether it is in a
 * runtime's wait loop. */
#include "attrib_impl.h"

#include <stdlib.h>
#include <string.h>

#include "binary/debuginfo.h"
#include "binary/pollloop.h"
#include "binary/runtime.h"
#include "maps.h"
#include "u64map.h"

/* var_by_key tags (bits 60-63) of this file: the runtime variables, and per allocator
 * caller address its runtime variable or 0 (tags 7, 8 and 12 are other branches' of
 * issue 16: heap variables by their receiving variable, stack locals) */
#define TAG_RUNTIME_VAR (13ull << 60)
#define TAG_ALLOC_CALLER (14ull << 60)
#define LOW60 ((1ull << 60) - 1)

uint32_t attrib_runtime_var(struct mr_attrib *a, unsigned rt)
{
	uint64_t key = (uint64_t)rt | TAG_RUNTIME_VAR;
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct mr_varinfo v = { .kind = MR_VAR_RUNTIME };
	uint32_t id;

	if (slot)
		return (uint32_t)*slot;
	v.name = strdup(mr_runtime_label(rt));
	if (!v.name)
		return 0;
	id = attrib_add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* The runtime of object oi, MR_RT_NONE for the executable and libmemphis. */
static enum mr_runtime obj_runtime(const struct mr_attrib *a, uint32_t oi)
{
	const struct obj *o = &a->obj[oi];

	return o->is_exe || o->is_self ? MR_RT_NONE : mr_runtime_of_object(o->base);
}

uint32_t attrib_alloc_runtime(struct mr_attrib *a, const struct memphis_rec_alloc *r)
{
	uint64_t ret = r->nframes ? r->frames[0] : 0;
	uint64_t key = (ret & LOW60) | TAG_ALLOC_CALLER, t0, t1;
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct span *sp;
	enum mr_runtime rt;
	struct mr_line ln;
	uint32_t id = 0;

	if (slot)
		return (uint32_t)*slot;
	sp = ret ? attrib_span_at(a, ret - 1, r->time, &t0, &t1) : NULL;
	rt = sp ? obj_runtime(a, sp->obj) : MR_RT_NONE;
	if (rt != MR_RT_NONE) {
		memset(&ln, 0, sizeof(ln));
		mr_debuginfo_line(a->obj[sp->obj].di, ret - 1 - sp->bias, &ln);
		if (mr_runtime_owns_alloc(rt, ln.function))
			id = attrib_runtime_var(a, rt);
	}
	mph_u64map_put(&a->var_by_key, key, id);
	return id;
}

uint32_t attrib_span_runtime(struct mr_attrib *a, struct span *sp, uint64_t addr, uint64_t t0,
			     uint64_t t1, struct range *rg)
{
	enum mr_runtime rt = obj_runtime(a, sp->obj);
	uint64_t lo = sp->lo, hi = sp->file_hi;

	if (rt == MR_RT_NONE)
		return 0;
	if (addr >= sp->file_hi) {
		/* the anonymous mapping after the file's: only as far as its bss reaches */
		if (!mr_debuginfo_segment_range(a->obj[sp->obj].di, addr - sp->bias, &lo, &hi))
			return 0;
		lo = lo + sp->bias > sp->file_hi ? lo + sp->bias : sp->file_hi;
		hi = hi + sp->bias < sp->hi ? hi + sp->bias : sp->hi;
		if (addr < lo || addr >= hi)
			return 0;
	}
	*rg = (struct range){ lo, hi, t0, t1, 0, 1 };
	return attrib_runtime_var(a, rt);
}

uint32_t attrib_tls_runtime(struct mr_attrib *a, uint32_t oi)
{
	enum mr_runtime rt = obj_runtime(a, oi);

	return rt == MR_RT_NONE ? 0 : attrib_runtime_var(a, rt);
}

uint32_t attrib_unknown_runtime(struct mr_attrib *a, uint64_t addr, uint64_t t, struct range *rg)
{
	uint64_t t0, t1;
	const struct mph_mapping *m;

	rg->valid = 0; /* recorded objects lie in the same mapping: unknown_gap
			* (attrib_resolve.c) finds where the answer holds */
	if (a->heap_sampled)
		return 0;
	m = attrib_mapping_at(a, addr, t, &t0, &t1);
	if (!m || m->perms[1] != 'w')
		return 0;
	if (!(m->path_len == 6 && !memcmp(m->path, "[heap]", 6)) && (m->inode || m->path_len))
		return 0;
	return attrib_runtime_var(a, MR_RT_C);
}

/* code_kind of the instruction at rel in di, at ip, in the program's own code. */
static uint64_t program_code_kind(struct mr_debuginfo *di, uint64_t rel, uint64_t ip)
{
	uint8_t code[2 * MR_POLL_MAX_BYTES + 16];
	uint64_t lo = rel > MR_POLL_MAX_BYTES ? rel - MR_POLL_MAX_BYTES : 0;
	ssize_t n = mr_debuginfo_code(di, lo, code, sizeof(code));
	size_t at = (size_t)(rel - lo), head;
	uint64_t k = MR_RT_NONE;

	if (n <= (ssize_t)at)
		return k;
	if (mr_poll_fence(code + at, (size_t)n - at))
		k |= MR_WAIT_FENCE;
	if (mr_poll_loop(code, (size_t)n, at, &head))
		k |= MR_WAIT_POLL | (ip - (at - head)) << 16;
	return k;
}

/* What instruction ip at time t is, as mr_attrib_ctx.waits keeps it: the runtime whose
 * code holds it (MR_RT_NONE: none) | CODE_WAIT when that is a wait loop: a wait function
 * by name, else a spin loop in the code bytes. In the program's own code (pollloop.h):
 * MR_WAIT_FENCE for a fence, MR_WAIT_POLL with the loop's first instruction (an ip) in
 * bits 16-63 for a poll loop. Under a->lock. */
#define CODE_WAIT 0x100u
#define CODE_FLAGS 0xffffu
static uint64_t code_kind(struct mr_attrib *a, uint64_t ip, uint64_t t)
{
	uint8_t code[64 + MR_RUNTIME_SPIN_BYTES + 2];
	uint64_t t0, t1, rel, lo;
	struct span *sp = attrib_span_at(a, ip, t, &t0, &t1);
	enum mr_runtime rt = sp ? obj_runtime(a, sp->obj) : MR_RT_NONE;
	struct mr_debuginfo *di;
	struct mr_line ln;
	ssize_t n;

	if (!sp || a->obj[sp->obj].is_self)
		return MR_RT_NONE;
	di = a->obj[sp->obj].di;
	rel = ip - sp->bias;
	if (rt == MR_RT_NONE)
		return program_code_kind(di, rel, ip);
	memset(&ln, 0, sizeof(ln));
	mr_debuginfo_line(di, rel, &ln);
	if (ln.function && mr_runtime_wait_function(rt, ln.function))
		return rt | CODE_WAIT;
	lo = rel > 64 ? rel - 64 : 0;
	n = mr_debuginfo_code(di, lo, code, sizeof(code));
	if (n > (ssize_t)(rel - lo) && mr_runtime_spin_code(code, (size_t)n, (size_t)(rel - lo)))
		return rt | CODE_WAIT;
	return rt;
}

/* code_kind_ctx's miss: code_kind of ip, cached in c, and in a for the other contexts
 * (each worker of a report meets the same instructions; code_kind reads their code from the
 * object's file). Out of line: the hit, asked for every sample, then saves no registers. */
static __attribute__((noinline)) uint64_t code_kind_miss(struct mr_attrib_ctx *c, uint64_t ip,
							 uint64_t t)
{
	struct mr_attrib *a = c->a;
	uint64_t *v, k;

	if (!c->waits.slot && mph_u64map_init(&c->waits, 64))
		return MR_RT_NONE;
	pthread_mutex_lock(&a->lock);
	a->holder = c;
	v = ip != MPH_U64MAP_EMPTY ? mph_u64map_get(&a->code_kinds, ip) : NULL;
	k = v ? *v : code_kind(a, ip, t);
	if (!v && ip != MPH_U64MAP_EMPTY)
		mph_u64map_put(&a->code_kinds, ip, k);
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	if (ip != MPH_U64MAP_EMPTY)
		mph_u64map_put(&c->waits, ip, k);
	return k;
}

/* code_kind of ip, cached in c. */
static inline uint64_t code_kind_ctx(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t)
{
	uint64_t *v = c->waits.slot && ip != MPH_U64MAP_EMPTY ? mph_u64map_get(&c->waits, ip)
							      : NULL;

	return v ? *v : code_kind_miss(c, ip, t);
}

unsigned attrib_wait_kind(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t)
{
	unsigned k = (unsigned)(code_kind_ctx(c, ip, t) & CODE_FLAGS);

	if (k & CODE_WAIT)
		return k & 0xffu;
	return k & (MR_WAIT_FENCE | MR_WAIT_POLL);
}

uint64_t mr_attrib_poll_head(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t)
{
	uint64_t k = code_kind_ctx(c, ip, t);

	return k & MR_WAIT_POLL ? k >> 16 : 0;
}

int mr_attrib_runtime_loaded(const struct mr_attrib *a, unsigned rt)
{
	for (size_t i = 0; i < a->nobj; i++)
		if (obj_runtime(a, (uint32_t)i) == rt)
			return 1;
	return 0;
}

uint32_t attrib_wait_data(struct mr_attrib_ctx *c, uint64_t ip, uint64_t t)
{
	unsigned k = (unsigned)(code_kind_ctx(c, ip, t) & CODE_FLAGS), rt = k & 0xffu;
	uint32_t id;

	/* libgomp's code touches the program's data only through pointers into its stacks
	 * and recorded arrays; libc's (memcpy, memset) touches any */
	if (rt == MR_RT_NONE || (!(k & CODE_WAIT) && rt != MR_RT_OPENMP))
		return 0;
	pthread_mutex_lock(&c->a->lock);
	c->a->holder = c;
	id = attrib_runtime_var(c->a, rt);
	c->a->holder = NULL;
	pthread_mutex_unlock(&c->a->lock);
	return id;
}
