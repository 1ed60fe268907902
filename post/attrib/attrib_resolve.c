/* post/attrib/attrib_resolve.c - the resolver: data address -> variable id, page -> home node,
 * and a whole sample (its line id from attrib_catalog.c), with a direct-mapped
 * per-instruction cache. */
#include "attrib_impl.h"

#include <errno.h>
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

/* Is addr, in span sp (at time t, valid for [t0, t1)) of libmemphis, the library's own?
 * Its file's mappings are; the anonymous mapping after them only as far as the library's
 * segments reach (its bss: the kernel may merge other anonymous memory into it). Sets *rg
 * to where and when the answer holds when it is 1. */
static int self_data(struct mr_attrib *a, struct span *sp, uint64_t addr, uint64_t t,
		     uint64_t t0, uint64_t t1, struct range *rg)
{
	uint64_t lo = 0, hi = 0;

	if (addr < sp->file_hi) {
		*rg = (struct range){ sp->lo, sp->file_hi, t0, t1, 0, 1 };
		return 1;
	}
	sp = attrib_span_at(a, addr, t, &t0, &t1); /* opens the library for its segments */
	if (!sp || !mr_debuginfo_segment_range(a->obj[sp->obj].di, addr - sp->bias, &lo, &hi))
		return 0;
	lo += sp->bias;
	hi += sp->bias;
	*rg = (struct range){ lo > sp->file_hi ? lo : sp->file_hi, hi < sp->hi ? hi : sp->hi,
			      t0, t1, 0, 1 };
	return 1;
}

/* Data attribution of a non-zero address that is in no heap object (heap_resolve), with
 * the validity of the answer in *rg (rg->valid = 0: do not cache); SELF_VAR for
 * libmemphis's own data (its object, its static TLS block). The TLS block of the sample's
 * thread is tried before the stacks: glibc puts the static TLS of a thread at the top of
 * its stack mapping, inside [stack_lo, stack_hi). Under a->lock. */
static uint32_t other_resolve(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid,
			     struct range *rg)
{
	const struct mr_heap_obj *ho;
	uint64_t *ti;
	uint64_t t0, t1, slo, shi;
	struct span *sp;
	uint32_t v;

	rg->valid = 0;
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
				if (a->obj[a->tls[i].obj].is_self) {
					*rg = (struct range){ blk, blk + a->tls[i].memsz, 0, UINT64_MAX, tid, 1 };
					return SELF_VAR;
				}
				if ((v = attrib_tls_runtime(a, a->tls[i].obj))) {
					*rg = (struct range){ blk, blk + a->tls[i].memsz, 0, UINT64_MAX, tid, 1 };
					return v;
				}
				di = attrib_obj_di(a, a->tls[i].obj);
				mv = di ? mr_debuginfo_tls_var_at(di, addr - blk) : NULL;
				if (!mv)
					return 0;
				*rg = (struct range){ blk + mv->addr, blk + mv->addr + (mv->size ? mv->size : 1),
						      0, UINT64_MAX, tid, 1 };
				return attrib_dwarf_var(a, a->tls[i].obj, mv);
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
		return attrib_stack_var(a, ho->tag);
	}
	sp = attrib_span_find(a, addr, t, &t0, &t1);
	if (sp && a->obj[sp->obj].is_self && self_data(a, sp, addr, t, t0, t1, rg))
		return SELF_VAR;
	if (sp && !sp->bias_known && !attrib_obj_di(a, sp->obj) && a->obj[sp->obj].data_file &&
	    addr < sp->file_hi) {
		*rg = (struct range){ sp->lo, sp->file_hi, t0, t1, 0, 1 };
		return attrib_file_var(a, sp->obj);
	}
	sp = sp ? attrib_span_at(a, addr, t, &t0, &t1) : NULL;
	if (sp && attrib_self_data(a, sp->obj, addr - sp->bias, &slo, &shi)) {
		/* the library linked into the executable: its data sections */
		*rg = (struct range){ slo + sp->bias, shi + sp->bias, t0, t1, 0, 1 };
		return SELF_VAR;
	}
	if (sp && (v = attrib_span_runtime(a, sp, addr, t0, t1, rg)))
		return v;
	if (sp) {
		const struct mr_var *mv = mr_debuginfo_var_at(a->obj[sp->obj].di, addr - sp->bias);
		unsigned f;

		if (mv) {
			*rg = (struct range){ sp->bias + mv->addr,
					      sp->bias + mv->addr + (mv->size ? mv->size : 1), t0, t1, 0, 1 };
			return attrib_dwarf_var(a, sp->obj, mv);
		}
		f = mr_debuginfo_segment(a->obj[sp->obj].di, addr - sp->bias);
		if (f && !(f & MR_SEG_W))
			return attrib_constants_var(a, sp->obj);
		return 0;
	}
	return attrib_unknown_runtime(a, addr, t, rg);
}

/* The heap object at addr at time t: its variable with *rg set, NOT_YET if none. Reads
 * only what no pass changes (no lock). */
static uint32_t heap_resolve(struct mr_attrib *a, uint64_t addr, uint64_t t, struct range *rg)
{
	const struct mr_heap_obj *ho = mr_heap_find(&a->heap, addr, t);

	if (!ho)
		return NOT_YET;
	*rg = (struct range){ ho->addr, ho->end, ho->t0, ho->t1, 0, 1 };
	return ho->tag;
}

/* Full data attribution of addr (0 for address 0) by context holder c (NULL: none), as
 * other_resolve. */
static uint32_t data_resolve(struct mr_attrib *a, struct mr_attrib_ctx *c, uint64_t addr,
			     uint64_t t, uint32_t tid, struct range *rg)
{
	uint32_t v;

	rg->valid = 0;
	if (!addr)
		return 0;
	v = heap_resolve(a, addr, t, rg);
	if (v != NOT_YET)
		return v;
	pthread_mutex_lock(&a->lock);
	a->holder = c;
	v = other_resolve(a, addr, t, tid, rg);
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	return v;
}

/* The local variable holding addr (attrib_local_at), found by context holder c (NULL:
 * none), when st is given and addr lies in thread tid's own stack; 0 if none. */
static uint32_t local_resolve(struct mr_attrib *a, struct mr_attrib_ctx *c, uint64_t ip,
			      uint64_t addr, uint64_t t, uint32_t tid,
			      const struct memphis_rec_stack *st, const uint8_t *bytes)
{
	uint64_t cfa0;
	uint32_t v;

	if (!st || !addr || !attrib_on_own_stack(a, addr, t, tid))
		return 0;
	pthread_mutex_lock(&a->lock);
	a->holder = c;
	v = attrib_local_at(a, ip, addr, t, st, c != NULL, &cfa0);
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	/* above the sampled frame: a caller's */
	if (!v && cfa0 && addr >= cfa0)
		v = attrib_local_in_callers(a, c, ip, addr, t, st, bytes, c != NULL);
	return v;
}

uint32_t mr_attrib_touch_data(struct mr_attrib *a, struct mr_touch_cache *tc, uint64_t addr,
			      uint64_t t, uint32_t tid, uint64_t ip,
			      const struct memphis_rec_stack *st, const uint8_t *bytes)
{
	uint32_t v;

	/* outside the stacks neither kind of local applies (both look in a->stacks): the
	 * data's variable, cached for the range and times it holds for */
	if (addr && !mr_heap_find(&a->stacks, addr, t)) {
		struct range rg;

		if (tc->data_ok && mr_var_range_holds(&tc->data, addr, t, tid))
			return tc->data.var;
		v = data_resolve(a, NULL, addr, t, tid, &rg);
		v = v == SELF_VAR ? 0 : v;
		tc->data = (struct mr_var_range){ rg.lo, rg.hi, rg.t0, rg.t1, rg.tid, v };
		tc->data_ok = rg.valid;
		return v;
	}
	v = local_resolve(a, NULL, ip, addr, t, tid, st, bytes);

	if (!v) {
		pthread_mutex_lock(&a->lock);
		v = attrib_local_on_page(a, addr, t);
		pthread_mutex_unlock(&a->lock);
	}
	return v ? v : mr_attrib_data(a, addr, t, tid);
}

uint32_t mr_attrib_data(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid)
{
	struct range rg;
	uint32_t v = data_resolve(a, NULL, addr, t, tid, &rg);

	return v == SELF_VAR ? 0 : v;
}

uint32_t mr_attrib_data_extent(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid,
			       struct mr_extent *e)
{
	const struct mr_heap_obj *ho = addr ? mr_heap_find(&a->heap, addr, t) : NULL;
	struct range rg;
	uint32_t v;

	*e = (struct mr_extent){ 0, 0, 0, 0, SIZE_MAX };
	if (ho) {
		*e = (struct mr_extent){ ho->addr, ho->end, ho->t0, ho->t1,
					 (size_t)(ho - a->heap.obj) };
		return ho->tag;
	}
	v = data_resolve(a, NULL, addr, t, tid, &rg);
	if (rg.valid)
		*e = (struct mr_extent){ rg.lo, rg.hi, rg.t0, rg.t1, SIZE_MAX };
	return v == SELF_VAR ? 0 : v;
}

size_t mr_attrib_heap_count(const struct mr_attrib *a)
{
	return a->heap.n;
}

uint32_t mr_attrib_heap_object(const struct mr_attrib *a, size_t i, uint64_t *addr,
			       uint64_t *bytes)
{
	*addr = a->heap.obj[i].addr;
	*bytes = a->heap.obj[i].end - a->heap.obj[i].addr;
	return a->heap.obj[i].tag;
}

int mr_attrib_page_node(struct mr_attrib *a, uint32_t region, uint64_t addr)
{
	return mr_pagemap_node(&a->pages, region, addr);
}

/* The line of instruction ip at time t into slot c, or SELF_LINE when it is libmemphis's
 * code (its debug information is then not read), with the time that holds. */
static void code_resolve(struct mr_attrib *a, struct ip_cache_slot *c, uint64_t ip, uint64_t t)
{
	uint64_t t0 = 0, t1 = UINT64_MAX;
	struct span *sp = attrib_span_find(a, ip, t, &t0, &t1);

	if (sp && a->obj[sp->obj].is_self && ip < sp->file_hi) {
		c->line = SELF_LINE;
		c->lt0 = t0;
		c->lt1 = t1;
	} else if (sp && a->obj[sp->obj].is_exe && a->self_path && !a->self_path[0] &&
		   (sp = attrib_span_at(a, ip, t, &t0, &t1)) &&
		   attrib_self_code(a, sp->obj, ip - sp->bias)) {
		/* the library linked into the executable: its code section */
		c->line = SELF_LINE;
		c->lt0 = t0;
		c->lt1 = t1;
	} else {
		c->line = attrib_code_at(a, ip, t, &c->lt0, &c->lt1);
	}
}

struct mr_attrib_ctx *mr_attrib_ctx_new(struct mr_attrib *a, mr_attrib_warn_fn *warn, void *arg)
{
	struct mr_attrib_ctx *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->a = a;
	c->warn = warn;
	c->warn_arg = arg;
	c->set = malloc(sizeof(*c->set) << IP_CACHE_BITS);
	c->cap_slot = 64;
	c->slot = malloc(c->cap_slot * sizeof(*c->slot));
	c->chunk_cache = malloc(sizeof(*c->chunk_cache) << PAGE_CHUNK_CACHE_BITS);
	if (!c->set || !c->slot || !c->chunk_cache ||
	    mph_chunks_init(&c->chunks, PAGE_CHUNK_PAGES * sizeof(struct page_slot),
			    PAGE_CHUNK_MAX)) {
		free(c->set);
		free(c->slot);
		free(c->chunk_cache);
		free(c);
		return NULL;
	}
	/* Zeroed by stores the compiler cannot turn into calloc's untouched pages: a set's
	 * first access is a read, which would map the zero page, and its first write would
	 * then copy it and shoot down the TLB of every CPU running another worker. */
	for (size_t i = 0; i < (size_t)1 << IP_CACHE_BITS; i++)
		((volatile uint32_t *)c->set)[i] = 0;
	for (size_t i = 0; i < (size_t)1 << PAGE_CHUNK_CACHE_BITS; i++)
		c->chunk_cache[i].id = MPH_U64MAP_EMPTY;
	return c;
}

void mr_attrib_ctx_free(struct mr_attrib_ctx *c)
{
	if (!c)
		return;
	attrib_callers_free(c->callers);
	attrib_unwind_free(c->locals_uw);
	free(c->set);
	free(c->slot);
	free(c->chunk_cache);
	mph_chunks_free(&c->chunks);
	free(c->var_first);
	free(c->line_first);
	free(c->told);
	mph_u64map_free(&c->waits);
	free(c);
}

/* Record in *first (of *cap entries) that id was first used at pos, if it was not yet. */
static void note_first(struct mr_attrib_ctx *c, uint64_t **first, size_t *cap, uint32_t id)
{
	if (id >= *cap) {
		size_t nc = *cap ? *cap : 256;
		uint64_t *nf;

		while (nc <= id)
			nc *= 2;
		nf = realloc(*first, nc * sizeof(*nf));
		if (!nf) {
			c->oom = 1;
			return;
		}
		memset(nf + *cap, 0, (nc - *cap) * sizeof(*nf));
		*first = nf;
		*cap = nc;
	}
	if (!(*first)[id])
		(*first)[id] = c->pos + 1;
}

uint32_t mr_attrib_ctx_caller(struct mr_attrib_ctx *c, uint64_t ip, const struct memphis_rec_stack *st,
			      const uint8_t *bytes, uint32_t line)
{
	uint32_t id;

	if (!c->callers && !(c->callers = attrib_callers_new(c->a, c)))
		return line;
	id = attrib_caller_line(c->callers, ip, st, bytes, line, NULL);
	if (id == SELF_LINE)
		return MR_ATTRIB_SELF;
	if (id != line)
		note_first(c, &c->line_first, &c->cap_line, id);
	return id;
}

/* code_resolve by context c, under the lock. */
static void code_resolve_ctx(struct mr_attrib_ctx *c, struct ip_cache_slot *slot, uint64_t ip,
			     uint64_t t)
{
	struct mr_attrib *a = c->a;

	pthread_mutex_lock(&a->lock);
	a->holder = c;
	code_resolve(a, slot, ip, t);
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	if (slot->line != SELF_LINE)
		note_first(c, &c->line_first, &c->cap_line, slot->line);
}

/* For an answer of data_resolve without a range (rg->valid 0): when addr is in memory
 * nothing explains (other_resolve's last case, attrib_unknown_runtime), where and when
 * that answer is the same for thread tid, into *rg (valid): the gap around addr that no
 * heap object, stack or span of the maps snapshots meets at any time, within addr's
 * mapping or between two (the answer depends on the mapping), outside tid's static TLS
 * block. Samples of memory the run did not record (unsampled allocations) then cost what
 * the others cost, not a lookup each under the lock. Reads only what no pass changes. */
static void unknown_gap(struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid,
			struct range *rg)
{
	uint64_t lo, hi, l2, h2, t0, t1, *ti;

	rg->valid = 0;
	if (!attrib_maps_gap(a, addr, t, &lo, &hi, &t0, &t1))
		return;
	if (!mr_heap_gap(&a->heap, addr, &l2, &h2))
		return;
	lo = l2 > lo ? l2 : lo;
	hi = h2 < hi ? h2 : hi;
	if (!mr_heap_gap(&a->stacks, addr, &l2, &h2))
		return;
	lo = l2 > lo ? l2 : lo;
	hi = h2 < hi ? h2 : hi;
	if (a->ntls) { /* other_resolve's TLS test: thread tid's own block only */
		if (!tid)
			return; /* a range for any thread would skip the others' tests */
		ti = mph_u64map_get(&a->thread_by_tid, tid);
		if (ti && a->run->threads[*ti].fs_base) {
			uint64_t fs = a->run->threads[*ti].fs_base, tls = fs + (uint64_t)a->tls_lo;

			if (addr < tls)
				hi = tls < hi ? tls : hi;
			else if (addr >= fs)
				lo = fs > lo ? fs : lo;
			else
				return; /* in the TLS block: not other_resolve's last case */
		}
	}
	*rg = (struct range){ lo, hi, t0, t1, a->ntls ? tid : 0, 1 };
}

uint32_t attrib_data_ctx(struct mr_attrib_ctx *c, uint64_t addr, uint64_t t, uint32_t tid)
{
	struct range rg;
	uint32_t v = data_resolve(c->a, c, addr, t, tid, &rg);

	if (v == SELF_VAR)
		return 0;
	note_first(c, &c->var_first, &c->cap_var, v);
	return v;
}

/* sample_var's miss: s's variable resolved, and cached in slot when the answer has a
 * range. */
static __attribute__((noinline)) uint32_t sample_var_miss(struct mr_attrib_ctx *c,
							  struct ip_cache_slot *slot,
							  const struct memphis_rec_sample *s)
{
	struct mr_var_range *cr;
	struct range rg;
	uint32_t var;

	var = data_resolve(c->a, c, s->addr, s->time, s->tid, &rg);
	if (!rg.valid)
		unknown_gap(c->a, s->addr, s->time, s->tid, &rg);
	if (!var)
		var = attrib_wait_data(c, s->ip, s->time);
	if (var != SELF_VAR)
		note_first(c, &c->var_first, &c->cap_var, var);
	if (rg.valid) {
		cr = &slot->r[slot->next];
		*cr = (struct mr_var_range){ rg.lo, rg.hi, rg.t0, rg.t1, rg.tid, var };
		slot->next = (uint8_t)((slot->next + 1) % IP_CACHE_WAYS);
		if (slot->nrange < IP_CACHE_WAYS)
			slot->nrange++;
	}
	return var;
}

/* The variable of s's data address, from the cache slot's ranges or resolved (and cached). */
static inline uint32_t sample_var(struct mr_attrib_ctx *c, struct ip_cache_slot *slot,
				  const struct memphis_rec_sample *s)
{
	for (unsigned k = 0; k < slot->nrange; k++) {
		const struct mr_var_range *cr = &slot->r[k];

		if (mr_var_range_holds(cr, s->addr, s->time, s->tid))
			return cr->var;
	}
	return sample_var_miss(c, slot, s);
}

/* Slot c given to ip, knowing nothing of it yet. */
static inline void slot_claim(struct ip_cache_slot *c, uint64_t ip)
{
	c->ip = ip;
	c->valid = 0;
	c->has_wait = 0;
}

/* A slot for ip in the empty set *set, empty: a new one at the end of the dense array, or,
 * when it cannot grow, the last one (evicted: its set forgets it). */
static __attribute__((noinline)) struct ip_cache_slot *new_slot(struct mr_attrib_ctx *ctx,
								 uint32_t *set, uint64_t ip)
{
	struct ip_cache_slot *c;

	if (ctx->nslot == ctx->cap_slot) {
		struct ip_cache_slot *ns = reallocarray(ctx->slot, ctx->cap_slot * 2u, sizeof(*ns));

		if (ns) {
			ctx->slot = ns;
			ctx->cap_slot *= 2u;
		}
	}
	if (ctx->nslot < ctx->cap_slot) {
		c = &ctx->slot[ctx->nslot++];
	} else {
		c = &ctx->slot[ctx->nslot - 1];
		ctx->set[mph_fib_slot(c->ip, IP_CACHE_BITS)] = 0;
	}
	slot_claim(c, ip);
	*set = (uint32_t)(c - ctx->slot) + 1;
	return c;
}

/* The slot of ip: its own, or its set's emptied for it (a set holds one instruction). */
static inline struct ip_cache_slot *ip_slot(struct mr_attrib_ctx *ctx, uint64_t ip)
{
	uint32_t *set = &ctx->set[mph_fib_slot(ip, IP_CACHE_BITS)];
	struct ip_cache_slot *c;

	if (!*set)
		return new_slot(ctx, set, ip);
	c = &ctx->slot[*set - 1];
	if (c->ip != ip)
		slot_claim(c, ip);
	return c;
}

void mr_attrib_sample(struct mr_attrib_ctx *ctx, const struct memphis_rec_sample *s, int use_addr,
		      struct mr_resolved *r)
{
	mr_attrib_sample_stack(ctx, s, NULL, NULL, use_addr, r);
}

/* The slots of chunk id, made if new; NULL at PAGE_CHUNK_MAX chunks or out of memory. */
static __attribute__((noinline)) struct page_slot *chunk_get(struct mr_attrib_ctx *ctx,
							     uint64_t id)
{
	int made;
	struct page_slot *p = mph_chunks_get(&ctx->chunks, id, &made);

	for (size_t i = 0; made && i < PAGE_CHUNK_PAGES; i++)
		p[i] = (struct page_slot){ PAGE_UNSEEN, SELF_VAR };
	return p;
}

/* The slot of page (below 2^48), or NULL (chunk_get). */
static inline struct page_slot *page_slot(struct mr_attrib_ctx *ctx, uint64_t page)
{
	uint64_t id = page >> PAGE_CHUNK_SHIFT;
	struct page_chunk_ref *ref = &ctx->chunk_cache[mph_fib_slot(id, PAGE_CHUNK_CACHE_BITS)];

	if (ref->id != id) {
		struct page_slot *p = chunk_get(ctx, id);

		if (!p)
			return NULL;
		*ref = (struct page_chunk_ref){ id, p };
	}
	return &ref->p[(page >> 12) & (PAGE_CHUNK_PAGES - 1)];
}

void mr_attrib_ctx_forget_page(struct mr_attrib_ctx *ctx, uint64_t addr)
{
	uint64_t page = addr & ~(ctx->a->pages.page_size - 1);
	struct page_slot *ps = page < 1ull << 48 ? page_slot(ctx, page) : NULL;

	if (ps)
		ps->var = SELF_VAR; /* what an unseen page holds: no variable noted with it */
}

/* sample_in_slot's use_addr: the variable, and nothing noted of its page (a sample
 * that is in no table: the page stays unnoted for the samples that are) */
#define USE_ADDR_NO_PAGE 2

/* mr_attrib_sample_stack of s, whose instruction's slot is c. Inlined in both callers:
 * a call per sample costs more than the lookup it saves. */
static inline __attribute__((always_inline)) void
sample_in_slot(struct mr_attrib_ctx *ctx, struct ip_cache_slot *c, const struct memphis_rec_sample *s,
	       const struct memphis_rec_stack *st, const uint8_t *bytes, int use_addr,
	       struct mr_resolved *r)
{
	struct mr_attrib *a = ctx->a;
	struct page_slot *ps;
	uint64_t page;

	ctx->pos++;
	if (!c->valid) {
		code_resolve_ctx(ctx, c, s->ip, s->time);
		c->valid = 1;
		c->nrange = 0;
		c->next = 0;
	} else if (s->time < c->lt0 || s->time >= c->lt1) {
		code_resolve_ctx(ctx, c, s->ip, s->time);
	}
	r->var = 0;
	r->page_node = -1;
	r->same_page = 0;
	r->self = c->line == SELF_LINE;
	r->line = r->self ? 0 : c->line;
	if (!use_addr || !s->addr || r->self)
		return;
	/* the page's slot first: its load (most often a cache miss) runs beside the
	 * variable's lookup */
	page = s->addr & ~(a->pages.page_size - 1);
	ps = use_addr != USE_ADDR_NO_PAGE && page < 1ull << 48 ? page_slot(ctx, page) : NULL;
	/* local_resolve's first test here: it saves registers for its slow path */
	r->var = st ? local_resolve(a, ctx, s->ip, s->addr, s->time, s->tid, st, bytes) : 0;
	if (r->var)
		note_first(ctx, &ctx->var_first, &ctx->cap_var, r->var);
	else
		r->var = sample_var(ctx, c, s);
	if (r->var == SELF_VAR) {
		r->var = 0;
		r->self = 1;
		return;
	}
	if (use_addr == USE_ADDR_NO_PAGE)
		return;
	/* the page's home, and whether this context gave var with it before: what it has
	 * not, the report notes (mr_agg_add_page), whatever the cache held (a thread's
	 * cache starts empty) */
	if (!ps) {
		r->page_node = mr_attrib_page_node(a, s->region, s->addr);
		return;
	}
	if (ps->node == PAGE_UNSEEN)
		ps->node = mr_pagemap_home(&a->pages, s->addr);
	r->page_node = ps->node != MR_PAGEMAP_VARIES ? ps->node
						     : mr_attrib_page_node(a, s->region, s->addr);
	r->same_page = ps->var == r->var;
	ps->var = r->var;
}

void mr_attrib_sample_var(struct mr_attrib_ctx *ctx, const struct memphis_rec_sample *s,
			  const struct memphis_rec_stack *st, const uint8_t *bytes,
			  struct mr_resolved *r)
{
	sample_in_slot(ctx, ip_slot(ctx, s->ip), s, st, bytes, USE_ADDR_NO_PAGE, r);
}

void mr_attrib_sample_stack(struct mr_attrib_ctx *ctx, const struct memphis_rec_sample *s,
			    const struct memphis_rec_stack *st, const uint8_t *bytes,
			    int use_addr, struct mr_resolved *r)
{
	sample_in_slot(ctx, ip_slot(ctx, s->ip), s, st, bytes, use_addr, r);
}

/* mr_attrib_sample_wait's two paths that resolve, apart and returning c->wait (tail
 * calls): its path for a sample that resolves nothing (most samples of a program that
 * computes more than it loads) then saves and restores no register. */
static __attribute__((noinline)) unsigned
sample_addr(struct mr_attrib_ctx *ctx, struct ip_cache_slot *c, const struct memphis_rec_sample *s,
	    const struct memphis_rec_stack *st, const uint8_t *bytes, struct mr_resolved *r)
{
	sample_in_slot(ctx, c, s, st, bytes, 1, r);
	return c->wait;
}

static __attribute__((noinline)) unsigned
sample_line(struct mr_attrib_ctx *ctx, struct ip_cache_slot *c, const struct memphis_rec_sample *s,
	    struct mr_resolved *r)
{
	sample_in_slot(ctx, c, s, NULL, NULL, 0, r);
	return c->wait;
}

/* What mr_attrib_sample_wait does with s once c, its instruction's slot, has its wait
 * kind: every path a tail call or none. */
static inline __attribute__((always_inline)) unsigned
sample_with_wait(struct mr_attrib_ctx *ctx, struct ip_cache_slot *c,
		 const struct memphis_rec_sample *s, const struct memphis_rec_stack *st,
		 const uint8_t *bytes, int want, struct mr_resolved *r)
{
	if (want && !(c->wait & MR_WAIT_FENCE))
		return sample_addr(ctx, c, s, st, bytes, r);
	if (c->wait & MR_WAIT_POLL)
		return sample_line(ctx, c, s, r); /* its line */
	return c->wait;
}

/* mr_attrib_sample_wait of a sample whose instruction's slot is new or has no wait kind
 * yet. */
static __attribute__((noinline)) unsigned
sample_wait_new(struct mr_attrib_ctx *ctx, const struct memphis_rec_sample *s,
		const struct memphis_rec_stack *st, const uint8_t *bytes, int want,
		struct mr_resolved *r)
{
	struct ip_cache_slot *c = ip_slot(ctx, s->ip);

	if (!c->has_wait) {
		c->wait = (uint16_t)attrib_wait_kind(ctx, s->ip, s->time);
		c->has_wait = 1;
	}
	return sample_with_wait(ctx, c, s, st, bytes, want, r);
}

unsigned mr_attrib_sample_wait(struct mr_attrib_ctx *ctx, const struct memphis_rec_sample *s,
			       const struct memphis_rec_stack *st, const uint8_t *bytes, int want,
			       struct mr_resolved *r)
{
	uint32_t set = ctx->set[mph_fib_slot(s->ip, IP_CACHE_BITS)];
	struct ip_cache_slot *c = &ctx->slot[set - 1];

	/* the instruction's slot, when it has one with its wait kind (ip_slot) */
	if (__builtin_expect(!set || c->ip != s->ip || !c->has_wait, 0))
		return sample_wait_new(ctx, s, st, bytes, want, r);
	return sample_with_wait(ctx, c, s, st, bytes, want, r);
}
