/* post/attrib/attrib_locals.c - stack data by local variable: a sample (or first touch) with a
 * STACKS entry whose data address lies in its own thread's stack is named by the local of
 * the sampled frame that holds the address, "function::var" (MR_VAR_LOCAL, one variable
 * per declaration: inlined copies are one). The frame is found from its CFA (the CFI's
 * rule at the entry's IP, evaluated with the entry's registers) and the locals' DWARF
 * locations at the instruction (mr_debuginfo_cfa, mr_debuginfo_locals).
 *
 * An address above the sampled frame is looked for in its callers' frames, as far as the
 * entry's stack bytes let post/binary/unwind.c (libdwfl) unwind: the locals based on the CFA or
 * on SP (a caller's SP is the CFA of the frame it called); not those based on other
 * registers (rbp), whose values in a caller are not known here. What none explains is
 * <stack of thread N>. Answers per (object, pc) are cached here, under the attribution's
 * lock, for the life of the struct mr_attrib; each pass context unwinds with its own
 * unwinder, without the lock.
 *
 * Where the samples found a local (its instance: the stack it was in and its address
 * range) is kept too, so that the first touch of a page of it, which mostly has no STACKS
 * entry (the frame that placed a stack page is seldom the local's), is the local's, as
 * the first touch of a page of any variable is that variable's.
 */
#include "attrib_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/debuginfo.h"
#include "binary/unwind.h"
#include "run/heap.h"
#include "u64map.h"

/* The locals of one pc. */
struct pc_locals {
	struct mr_local *l;
	size_t n;
};

/* A local where samples found it: [lo, hi) in the stack of thread index owner. The
 * variable by its key in var_by_key: ids change when a parallel pass ends. */
struct inst {
	uint64_t lo, hi;
	uint64_t samples;
	uint64_t key;
	uint32_t owner;
};

#define MAX_INSTS (1u << 16) /* recursion makes new instances without end: enough */

struct attrib_locals {
	struct inst *inst;
	size_t ninst, capinst;
	struct mph_u64map inst_at;  /* mix of (owner, lo, key) -> index in inst */
	uint32_t *sorted;           /* inst indices by (owner, lo), NULL until a lookup */
	uint64_t maxlen;            /* the longest instance */
	struct attrib_unwind *uw;   /* the first touches' unwinder (after the pass) */

	struct mph_u64map cfa;    /* pc_key -> CFA rule: (reg + 1) << 56 | low 56 bits of the
				   * offset; 0: no rule */
	struct mph_u64map at;     /* pc_key -> index in pcs */
	struct pc_locals *pcs;
	size_t npcs, cap;
};

/* perf's index in memphis_rec_stack.regs of x86-64 DWARF register n, -1 for none. */
static int perf_reg(int n)
{
	static const signed char map[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15,
					     16, 8 };

	return n >= 0 && n < 17 ? map[n] : -1;
}

/* The key of (object oi, vaddr pc) in the caches. */
static uint64_t pc_key(uint32_t oi, uint64_t pc)
{
	return ((uint64_t)oi << 44) ^ pc;
}

void attrib_locals_free(struct attrib_locals *L)
{
	if (!L)
		return;
	for (size_t i = 0; i < L->npcs; i++)
		free(L->pcs[i].l);
	free(L->pcs);
	free(L->inst);
	free(L->sorted);
	mph_u64map_free(&L->inst_at);
	attrib_unwind_free(L->uw);
	mph_u64map_free(&L->cfa);
	mph_u64map_free(&L->at);
	free(L);
}

/* a's cache, made on first use; NULL when out of memory. */
static struct attrib_locals *locals_of(struct mr_attrib *a)
{
	struct attrib_locals *L = a->locals;

	if (L)
		return L;
	L = calloc(1, sizeof(*L));
	if (!L)
		return NULL;
	if (mph_u64map_init(&L->cfa, 256) || mph_u64map_init(&L->at, 256) ||
	    mph_u64map_init(&L->inst_at, 256)) {
		attrib_locals_free(L);
		return NULL;
	}
	a->locals = L;
	return L;
}

/* The CFA of the frame whose registers st holds, at vaddr rpc of object oi: 1 and *cfa,
 * or 0 when the CFI has no register + offset rule there. */
static int frame_cfa(struct attrib_locals *L, struct mr_debuginfo *di, uint32_t oi,
		     uint64_t rpc, const struct memphis_rec_stack *st, uint64_t *cfa)
{
	uint64_t *v = mph_u64map_get(&L->cfa, pc_key(oi, rpc)), rule;
	int64_t off;
	int reg, p;

	if (v) {
		rule = *v;
	} else {
		rule = mr_debuginfo_cfa(di, rpc, &reg, &off) ? 0
			: (uint64_t)(reg + 1) << 56 | ((uint64_t)off & ((1ull << 56) - 1));
		v = mph_u64map_put(&L->cfa, pc_key(oi, rpc), rule);
		if (!v)
			return 0;
	}
	if (!rule)
		return 0;
	reg = (int)(rule >> 56) - 1;
	off = (int64_t)(rule << 8) >> 8; /* sign-extend the 56-bit offset */
	p = perf_reg(reg);
	if (p < 0)
		return 0;
	*cfa = st->regs[p] + (uint64_t)off;
	return 1;
}

/* The locals at vaddr pc of object oi (cached); NULL when none or out of memory. */
static struct pc_locals *pc_locals(struct attrib_locals *L, struct mr_debuginfo *di, uint32_t oi,
				   uint64_t pc)
{
	uint64_t *v = mph_u64map_get(&L->at, pc_key(oi, pc));
	struct pc_locals *p;

	if (v)
		return &L->pcs[*v];
	if (L->npcs == L->cap) {
		size_t nc = L->cap ? L->cap * 2 : 64;
		struct pc_locals *np = realloc(L->pcs, nc * sizeof(*np));

		if (!np)
			return NULL;
		L->pcs = np;
		L->cap = nc;
	}
	p = &L->pcs[L->npcs];
	memset(p, 0, sizeof(*p));
	if (mr_debuginfo_locals(di, pc, &p->l, &p->n) == -ENOMEM)
		return NULL;
	if (!mph_u64map_put(&L->at, pc_key(oi, pc), L->npcs)) {
		free(p->l);
		return NULL;
	}
	return &L->pcs[L->npcs++];
}

/* The key in var_by_key of local l of object oi. */
static uint64_t local_key(uint32_t oi, const struct mr_local *l)
{
	return (0xcull << 60) | ((uint64_t)oi << 40) | (l->id & ((1ull << 40) - 1));
}

/* The variable id of local l of object oi (created on first use); 0 when out of memory. */
static uint32_t local_var(struct mr_attrib *a, uint32_t oi, const struct mr_local *l)
{
	uint64_t key = local_key(oi, l);
	uint64_t *slot = mph_u64map_get(&a->var_by_key, key);
	struct obj *o = &a->obj[oi];
	struct mr_varinfo v = { .kind = MR_VAR_LOCAL, .object = o->path, .bytes = l->size };
	uint32_t id;
	int rc;

	if (slot)
		return (uint32_t)*slot;
	rc = o->is_exe ? asprintf(&v.name, "%s", l->name)
		       : asprintf(&v.name, "%s:%s", o->base, l->name);
	if (rc < 0)
		return 0;
	if (l->file && l->line && asprintf(&v.decl, "%s:%u", attrib_base_name(l->file), l->line) < 0)
		v.decl = NULL;
	id = attrib_add_var(a, key, &v);
	return id == NOT_YET ? 0 : id;
}

/* Count a sample of the local of key vkey at [lo, hi) in the stack of thread index owner. */
static void add_inst(struct attrib_locals *L, uint32_t owner, uint64_t lo, uint64_t hi,
		     uint64_t vkey)
{
	uint64_t key = mph_hash64(lo ^ mph_hash64(vkey ^ mph_hash64(owner))) >> 1;
	uint64_t *v = mph_u64map_get(&L->inst_at, key);

	if (v && L->inst[*v].lo == lo && L->inst[*v].owner == owner && L->inst[*v].key == vkey) {
		L->inst[*v].samples++;
		return;
	}
	if (v || L->ninst >= MAX_INSTS)
		return; /* a hash collision, or too many: that sample only is not kept */
	if (L->ninst == L->capinst) {
		size_t nc = L->capinst ? L->capinst * 2 : 64;
		struct inst *ni = realloc(L->inst, nc * sizeof(*ni));

		if (!ni)
			return;
		L->inst = ni;
		L->capinst = nc;
	}
	if (!mph_u64map_put(&L->inst_at, key, L->ninst))
		return;
	L->inst[L->ninst++] = (struct inst){ lo, hi, 1, vkey, owner };
	if (hi - lo > L->maxlen)
		L->maxlen = hi - lo;
	free(L->sorted); /* the order is made again at the next lookup */
	L->sorted = NULL;
}

/* qsort_r order of indices into the instances (arg): by (owner, lo, key). */
static int cmp_inst(const void *x, const void *y, void *arg)
{
	const struct inst *base = arg;
	const struct inst *a = &base[*(const uint32_t *)x], *b = &base[*(const uint32_t *)y];

	if (a->owner != b->owner)
		return a->owner < b->owner ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

uint32_t attrib_local_on_page(struct mr_attrib *a, uint64_t addr, uint64_t t)
{
	const struct mr_heap_obj *ho = mr_heap_find(&a->stacks, addr, t);
	struct attrib_locals *L = a->locals;
	uint64_t pg = addr & ~(a->pages.page_size - 1), pe = pg + a->pages.page_size, most = 0;
	uint64_t best = 0, *id;
	uint32_t owner;
	size_t lo, hi;

	if (!ho || !L || !L->ninst)
		return 0;
	owner = ho->tag;
	if (!L->sorted) {
		L->sorted = malloc(L->ninst * sizeof(*L->sorted));
		if (!L->sorted)
			return 0;
		for (size_t i = 0; i < L->ninst; i++)
			L->sorted[i] = (uint32_t)i;
		qsort_r(L->sorted, L->ninst, sizeof(*L->sorted), cmp_inst, L->inst);
	}
	/* the first instance of owner at or past pe, then back over those that may reach pg */
	lo = 0;
	hi = L->ninst;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct inst *m = &L->inst[L->sorted[mid]];

		if (m->owner < owner || (m->owner == owner && m->lo < pe))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct inst *in = &L->inst[L->sorted[lo]];

		if (in->owner != owner || in->lo + L->maxlen <= pg)
			break;
		/* the most sampled; among equals the first in (lo, key) order: the same for
		 * any order the pass's threads met them in */
		if (in->hi > pg && in->samples >= most) {
			most = in->samples;
			best = in->key;
		}
	}
	id = best ? mph_u64map_get(&a->var_by_key, best) : NULL;
	return id ? (uint32_t)*id : 0;
}

int attrib_on_own_stack(const struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid)
{
	const struct mr_heap_obj *ho = mr_heap_find(&a->stacks, addr, t);
	uint64_t *ti;

	if (!ho)
		return 0;
	ti = mph_u64map_get(&a->thread_by_tid, tid);
	return ti && a->run->threads[*ti].index == ho->tag;
}

/* What is known of a frame's registers: all (frame 0: the entry's), or only its SP
 * (a caller's: the CFA of the frame it called); and its CFA, when known. */
struct fregs {
	const uint64_t *regs;     /* perf's order, NULL: only sp */
	uint64_t sp;
	uint64_t cfa;
	int cfa_ok;
};

/* The value of DWARF register n (MR_REG_CFA: the CFA) in frame r: 1 and *v, else 0. */
static int reg_value(const struct fregs *r, int n, uint64_t *v)
{
	int p = perf_reg(n);

	if (n == MR_REG_CFA) {
		*v = r->cfa;
		return r->cfa_ok;
	}
	if (n == 7) {
		*v = r->sp;
		return 1;
	}
	if (!r->regs || p < 0)
		return 0;
	*v = r->regs[p];
	return 1;
}

/* Under the lock: the variable id of the local of the frame with registers r running
 * vaddr pc of object oi that holds addr (the smallest, if several do), 0 if none. */
static uint32_t name_in_frame(struct mr_attrib *a, struct attrib_locals *L, uint32_t oi,
			      uint64_t pc, const struct fregs *r, uint64_t addr, uint64_t t,
			      int count)
{
	struct pc_locals *p = pc_locals(L, a->obj[oi].di, oi, pc);
	uint64_t best = UINT64_MAX, lo_hit = 0;
	const struct mr_heap_obj *ho;
	const struct mr_local *l;
	size_t hit = 0;
	uint32_t var;

	for (size_t i = 0; p && i < p->n; i++) {
		uint64_t lo;

		if (!reg_value(r, p->l[i].reg, &lo))
			continue;
		lo += (uint64_t)p->l[i].off;
		if (addr >= lo && addr - lo < p->l[i].size && p->l[i].size < best) {
			best = p->l[i].size;
			hit = i + 1;
			lo_hit = lo;
		}
	}
	if (!hit)
		return 0;
	l = &p->l[hit - 1];
	var = local_var(a, oi, l);
	ho = count ? mr_heap_find(&a->stacks, addr, t) : NULL;
	if (ho && var)
		add_inst(L, ho->tag, lo_hit, lo_hit + l->size, local_key(oi, l));
	return var;
}

uint32_t attrib_local_at(struct mr_attrib *a, uint64_t ip, uint64_t addr, uint64_t t,
			 const struct memphis_rec_stack *st, int count, uint64_t *cfa0)
{
	struct attrib_locals *L = locals_of(a);
	struct fregs r = { 0 };
	struct span *sp, *rsp;
	struct mr_debuginfo *di;
	uint64_t t0, t1;

	*cfa0 = 0;
	if (!L || !st)
		return 0;
	sp = attrib_span_at(a, ip, t, &t0, &t1);
	if (!sp || a->obj[sp->obj].is_self || !(di = a->obj[sp->obj].di))
		return 0;
	/* the registers are those at the entry's IP (soft: one instruction after ip): the CFA
	 * rule is the one there, which must be the same function's code */
	rsp = attrib_span_at(a, st->regs[8], t, &t0, &t1);
	if (!rsp || rsp->obj != sp->obj || rsp->bias != sp->bias)
		return 0;
	if (!frame_cfa(L, di, sp->obj, st->regs[8] - sp->bias, st, &r.cfa))
		return 0;
	*cfa0 = r.cfa;
	r.cfa_ok = 1;
	r.regs = st->regs;
	r.sp = st->regs[7];
	return name_in_frame(a, L, sp->obj, ip - sp->bias, &r, addr, t, count);
}

/* One user's unwinder of callers' frames (a pass context's, or the first touches'): the
 * unwinder is used without the attribution's lock, which it takes to ask for objects. */
struct attrib_unwind {
	struct mr_attrib *a;
	struct mr_attrib_ctx *ctx; /* the user (NULL: the first touches) */
	struct mr_unwind *u;       /* NULL until needed */
	uint64_t t;                /* the time of the entry being unwound */
	uint64_t t0, t1;           /* the snapshot u holds for */
};

void attrib_unwind_free(struct attrib_unwind *uw)
{
	if (!uw)
		return;
	mr_unwind_free(uw->u);
	free(uw);
}

/* mr_unwind_module_fn: the object at pc in the snapshot of the entry being unwound. */
static int module_at(void *arg, uint64_t pc, const char **file, uint64_t *bias)
{
	struct attrib_unwind *uw = arg;
	struct mr_attrib *a = uw->a;
	uint64_t t0, t1;
	struct span *sp;
	int rc = -1;

	pthread_mutex_lock(&a->lock);
	a->holder = uw->ctx;
	sp = attrib_span_at(a, pc, uw->t, &t0, &t1);
	if (sp && !a->obj[sp->obj].is_self) {
		*file = a->obj[sp->obj].file;
		*bias = sp->bias;
		rc = 0;
	}
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	return rc;
}

/* Not under the lock: the call chain of entry st (time t, instruction ip) into f with
 * *uwp (made on first use, and its unwinder again when t leaves its snapshot). The frame
 * count, 0 if none. */
static int chain(struct mr_attrib *a, struct attrib_unwind **uwp, struct mr_attrib_ctx *c,
		 uint64_t ip, uint64_t t, const struct memphis_rec_stack *st,
		 const uint8_t *bytes, struct mr_frame *f)
{
	struct attrib_unwind *uw = *uwp;
	int n;

	if (!uw) {
		uw = *uwp = calloc(1, sizeof(*uw));
		if (!uw)
			return 0;
		uw->a = a;
		uw->ctx = c;
	}
	if (!uw->u || t < uw->t0 || t >= uw->t1) {
		uint64_t t0 = 0, t1 = UINT64_MAX;

		pthread_mutex_lock(&a->lock);
		attrib_span_find(a, ip, t, &t0, &t1);
		pthread_mutex_unlock(&a->lock);
		mr_unwind_free(uw->u);
		uw->u = mr_unwind_new(module_at, uw);
		if (!uw->u)
			return 0;
		uw->t0 = t0;
		uw->t1 = t1;
	}
	uw->t = t;
	n = mr_unwind_chain(uw->u, st, bytes, f, MR_UNWIND_MAX_FRAMES, NULL);
	return n > 0 ? n : 0;
}

uint32_t attrib_local_in_callers(struct mr_attrib *a, struct mr_attrib_ctx *c, uint64_t ip,
				 uint64_t addr, uint64_t t, const struct memphis_rec_stack *st,
				 const uint8_t *bytes, int count)
{
	struct attrib_locals *L = a->locals;
	struct mr_frame f[MR_UNWIND_MAX_FRAMES];
	uint32_t var = 0;
	int n;

	if (!L || !bytes)
		return 0;
	n = chain(a, c ? &c->locals_uw : &L->uw, c, ip, t, st, bytes, f);
	pthread_mutex_lock(&a->lock);
	a->holder = c;
	/* frame k lies from the CFA of the frame it called up to its own CFA */
	for (int k = 1; k < n && !var && f[k - 1].cfa && addr >= f[k - 1].cfa; k++) {
		uint64_t t0, t1, pc = f[k].pc - 1; /* the call: the return address may be past
						     * the function's end */
		struct span *sp = attrib_span_at(a, pc, t, &t0, &t1);
		struct fregs r = { .sp = f[k - 1].cfa, .cfa = f[k].cfa, .cfa_ok = f[k].cfa != 0 };
		struct mr_debuginfo *di;
		int64_t off;
		int reg;

		if (!sp || a->obj[sp->obj].is_self || !(di = a->obj[sp->obj].di))
			continue;
		/* the chain ended before its caller: the CFA from the CFI's rule, when SP-based */
		if (!r.cfa_ok && !mr_debuginfo_cfa(di, pc - sp->bias, &reg, &off) && reg == 7) {
			r.cfa = r.sp + (uint64_t)off;
			r.cfa_ok = 1;
		}
		var = name_in_frame(a, L, sp->obj, pc - sp->bias, &r, addr, t, count);
		if (!r.cfa_ok || addr < r.cfa)
			break; /* in this frame, but in none of its locals */
	}
	a->holder = NULL;
	pthread_mutex_unlock(&a->lock);
	return var;
}
