/* post/attrib_locals.c - stack data by local variable: a sample (or first touch) with a
 * STACKS entry whose data address lies in its own thread's stack is named by the local of
 * the sampled frame that holds the address, "function::var" (MR_VAR_LOCAL, one variable
 * per declaration: inlined copies are one). The frame is found from its CFA (the CFI's
 * rule at the entry's IP, evaluated with the entry's registers) and the locals' DWARF
 * locations at the instruction (mr_debuginfo_cfa, mr_debuginfo_locals).
 *
 * Only the sampled frame is searched: an address in a caller's frame stays
 * <stack of thread N>. Answers per (object, pc) are cached here, under the attribution's
 * lock, for the life of the struct mr_attrib.
 */
#include "attrib_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo.h"
#include "heap.h"
#include "u64map.h"

/* The locals of one pc, and their variable ids once named. */
struct pc_locals {
	struct mr_local *l;
	size_t n;
	uint32_t *var;            /* [i]: variable id of l[i], NOT_YET until first used */
};

struct attrib_locals {
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
	for (size_t i = 0; i < L->npcs; i++) {
		free(L->pcs[i].l);
		free(L->pcs[i].var);
	}
	free(L->pcs);
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
	if (mph_u64map_init(&L->cfa, 256) || mph_u64map_init(&L->at, 256)) {
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
	if (p->n && !(p->var = malloc(p->n * sizeof(*p->var)))) {
		free(p->l);
		return NULL;
	}
	for (size_t i = 0; i < p->n; i++)
		p->var[i] = NOT_YET;
	if (!mph_u64map_put(&L->at, pc_key(oi, pc), L->npcs)) {
		free(p->l);
		free(p->var);
		return NULL;
	}
	return &L->pcs[L->npcs++];
}

/* The variable id of local l of object oi (created on first use); 0 when out of memory. */
static uint32_t local_var(struct mr_attrib *a, uint32_t oi, const struct mr_local *l)
{
	uint64_t key = (0xcull << 60) | ((uint64_t)oi << 40) | (l->id & ((1ull << 40) - 1));
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

int attrib_on_own_stack(const struct mr_attrib *a, uint64_t addr, uint64_t t, uint32_t tid)
{
	const struct mr_heap_obj *ho = mr_heap_find(&a->stacks, addr, t);
	uint64_t *ti;

	if (!ho)
		return 0;
	ti = mph_u64map_get(&a->thread_by_tid, tid);
	return ti && a->run->threads[*ti].index == a->stack_index[ho->rec];
}

uint32_t attrib_local_at(struct mr_attrib *a, uint64_t ip, uint64_t addr, uint64_t t,
			 const struct memphis_rec_stack *st)
{
	struct attrib_locals *L = locals_of(a);
	struct span *sp, *rsp;
	struct pc_locals *p;
	struct mr_debuginfo *di;
	uint64_t t0, t1, cfa, best = UINT64_MAX;
	size_t hit = 0;

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
	if (!frame_cfa(L, di, sp->obj, st->regs[8] - sp->bias, st, &cfa))
		return 0;
	p = pc_locals(L, di, sp->obj, ip - sp->bias);
	if (!p)
		return 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct mr_local *l = &p->l[i];
		int r = l->reg == MR_REG_CFA ? -2 : perf_reg(l->reg);
		uint64_t lo;

		if (r == -1)
			continue;
		lo = (r == -2 ? cfa : st->regs[r]) + (uint64_t)l->off;
		if (addr >= lo && addr - lo < l->size && l->size < best) {
			best = l->size;
			hit = i + 1;
		}
	}
	if (!hit)
		return 0;
	if (p->var[hit - 1] == NOT_YET)
		p->var[hit - 1] = local_var(a, sp->obj, &p->l[hit - 1]);
	return p->var[hit - 1];
}
