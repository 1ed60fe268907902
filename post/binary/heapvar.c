/* post/binary/heapvar.c - the store analysis after an allocation call (see heapvar.h). */
#include "heapvar.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#define MAX_PATHS 32    /* paths waiting to be decoded */
#define MAX_SLOTS 4     /* frame slots holding the pointer on one path */
#define MAX_VISITS 2    /* times one instruction is decoded (a loop: once more at most) */

/* Zydis's 64-bit register order (rax rcx rdx rbx rsp rbp rsi rdi r8..r15) -> DWARF's */
static const int dwarf_reg[16] = { 0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
#define RAX 0
#define RSP 4
#define RBP 5
/* survive a call (SysV x86-64): rbx rsp rbp r12-r15 */
#define CALLEE_SAVED ((1u << 3) | (1u << 4) | (1u << 5) | (0xfu << 12))

struct slot {
	int base;        /* RSP or RBP */
	int64_t off;
};

/* What a register or frame slot holds: the value at the location an access path names
 * (root 0: nothing known), or its address when addr_of. reg in Zydis order. */
struct prov {
	struct mr_hv_path at;
	int addr_of;
};

#define MAX_PSLOTS 8 /* frame slots whose paths are kept (spills) */
struct pslot {
	struct slot where;
	struct prov p;
};

/* One path: where it goes on and what holds the pointer there. */
struct path {
	size_t off;      /* into the code */
	unsigned held;   /* bit i: 64-bit register i (Zydis order) */
	struct slot slot[MAX_SLOTS];
	unsigned nslot;
	int ev[16];      /* [register]: its REG event, -1 for none */
	unsigned loaded; /* bit i: register i holds what was loaded from frame slot from[i] */
	struct slot from[16];
	struct prov prov[16];          /* [register]: the access path of what it holds */
	unsigned fresh;                /* bit i: register i holds what it held at the
					* function's start (an argument register not written) */
	struct pslot pslot[MAX_PSLOTS];
	unsigned npslot;
};

struct scan {
	const uint8_t *code;
	size_t len;
	uint64_t base;
	ZydisDecoder dec;
	struct path *work;  /* MAX_PATHS */
	size_t head, tail;  /* work[head, tail) wait, as a ring */
	uint8_t *visits;    /* [offset]: times decoded */
	struct mr_hv_event *ev;
	size_t nev, max;
	unsigned budget;    /* instructions left */
};

/* Index (Zydis order) of the 64-bit register enclosing r, or -1. */
static int gpr(ZydisRegister r)
{
	ZydisRegister w;

	if (r == ZYDIS_REGISTER_NONE)
		return -1;
	w = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return w >= ZYDIS_REGISTER_RAX && w <= ZYDIS_REGISTER_R15 ? (int)(w - ZYDIS_REGISTER_RAX) : -1;
}

/* Record an event (once); its index, -1 when the list is full. A store or return takes
 * the place of the latest REG event when the list is full (the registers' copies of the
 * pointer must not crowd out what names it). */
static int event(struct scan *s, enum mr_hv_kind kind, uint64_t pc, uint64_t addr, int reg,
		 int64_t off)
{
	size_t at = s->nev;

	for (size_t i = 0; i < s->nev; i++)
		if (s->ev[i].kind == kind && s->ev[i].pc == pc && s->ev[i].reg == reg &&
		    s->ev[i].addr == addr && s->ev[i].off == off)
			return (int)i;
	if (s->nev == s->max) {
		if (kind == MR_HV_REG)
			return -1;
		while (at > 0 && s->ev[at - 1].kind != MR_HV_REG)
			at--;
		if (at-- == 0)
			return -1;
		/* paths still naming it as their register's event only move its end, which
		 * no other kind has */
	} else {
		s->nev++;
	}
	s->ev[at] = (struct mr_hv_event){ kind, pc, pc, addr, reg, off, -1, 0, { 0 } };
	return (int)at;
}

/* The registers in mask stop holding the pointer on path p after the instruction that
 * ends at `end`: their REG events last until there at least. */
static void drop(struct scan *s, struct path *p, unsigned mask, uint64_t end)
{
	for (int r = 0; r < 16; r++) {
		if (!(mask & p->held & (1u << r)))
			continue;
		if (p->ev[r] >= 0 && s->ev[p->ev[r]].end < end)
			s->ev[p->ev[r]].end = end;
		p->ev[r] = -1;
	}
	p->held &= ~mask;
}

/* Register r (Zydis order) holds the pointer on path p from pc on. */
static void hold(struct scan *s, struct path *p, int r, uint64_t pc)
{
	drop(s, p, 1u << r, pc);
	p->held |= 1u << r;
	p->loaded &= ~(1u << r);
	p->ev[r] = event(s, MR_HV_REG, pc, 0, dwarf_reg[r], 0);
}

/* Path p goes on at `to` too (a branch): a copy of it, whose registers' REG events start
 * there (a range of pcs per event, never one over both sides). */
static void push(struct scan *s, const struct path *p, uint64_t to)
{
	struct path *w = &s->work[s->tail % MAX_PATHS];

	if (to < s->base || to - s->base >= s->len || s->tail - s->head == MAX_PATHS)
		return;
	*w = *p;
	w->off = (size_t)(to - s->base);
	for (int r = 0; r < 16; r++) {
		w->ev[r] = -1;
		if (p->held & (1u << r))
			hold(s, w, r, to);
	}
	s->tail++;
}

/* The slot of p at [base + off], or -1. */
static int find_slot(const struct path *p, int base, int64_t off)
{
	for (unsigned i = 0; i < p->nslot; i++)
		if (p->slot[i].base == base && p->slot[i].off == off)
			return (int)i;
	return -1;
}

/* A frame-relative memory operand [%rsp/%rbp + disp] (no index, no segment override):
 * its base (RSP or RBP) and disp; false otherwise. */
static bool frame_mem(const ZydisDecodedOperand *o, int *base, int64_t *off)
{
	int b;

	if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.index != ZYDIS_REGISTER_NONE ||
	    o->mem.segment != ZYDIS_REGISTER_SS)
		return false;
	b = gpr(o->mem.base);
	if (b != RSP && b != RBP)
		return false;
	*base = b;
	*off = o->mem.disp.value;
	return true;
}

/* The kept path of frame slot w on p, or NULL. */
static struct prov *pslot_of(struct path *p, struct slot w)
{
	for (unsigned i = 0; i < p->npslot; i++)
		if (p->pslot[i].where.base == w.base && p->pslot[i].where.off == w.off)
			return &p->pslot[i].p;
	return NULL;
}

/* Frame slot w now holds v (root 0: nothing known). */
static void pslot_set(struct path *p, struct slot w, const struct prov *v)
{
	struct prov *k = pslot_of(p, w);

	if (!k && v->at.root && p->npslot < MAX_PSLOTS) {
		p->pslot[p->npslot].where = w;
		k = &p->pslot[p->npslot++].p;
	}
	if (k)
		*k = *v;
}

/* The path register r (Zydis order) holds at pc, used as an address's base: what the
 * path knows, else the variable in r there (a pointer the function got or keeps); NULL
 * for %rsp, and for %rbp unless a path was loaded into it (else: the frame's base). */
static struct prov *base_prov(struct path *p, int r, uint64_t pc)
{
	struct prov *b;

	if (r < 0 || r == RSP || (r == RBP && !p->prov[RBP].at.root))
		return NULL;
	b = &p->prov[r];
	if (!b->at.root)
		*b = (struct prov){ .at = { .root = p->fresh >> r & 1 ? MR_HV_ROOT_ARG : MR_HV_ROOT_REG,
					    .reg = dwarf_reg[r], .at = pc, .nstep = 1 } };
	return b;
}

/* v moved by memory operand m's displacement and index: the location at the address v
 * holds (addr_of), or through the pointer v holds; then the value there, or its address
 * when addr. False when the path is too long. */
static bool step(struct prov *v, const ZydisDecodedOperand *m, bool addr)
{
	int64_t d = m->mem.disp.has_displacement ? m->mem.disp.value : 0;
	int idx = m->mem.index != ZYDIS_REGISTER_NONE;

	if (v->addr_of) {
		struct mr_hv_step *l = &v->at.step[v->at.nstep - 1];

		l->off += d;
		l->indexed |= idx;
	} else if (v->at.nstep < MR_HV_MAX_STEPS) {
		v->at.step[v->at.nstep++] = (struct mr_hv_step){ d, idx };
	} else {
		return false;
	}
	v->addr_of = addr;
	return true;
}

/* The path of what memory operand m reads at pc (or of its address, lea) into *v: a
 * static, a frame slot (what was spilled there, else the variable there), or a step from
 * its base's path; root 0 when none. */
static void mem_prov(struct path *p, const ZydisDecodedInstruction *in,
		     const ZydisDecodedOperand *m, uint64_t pc, bool lea, struct prov *v)
{
	int base = gpr(m->mem.base);
	struct slot w = { base, m->mem.disp.value };
	struct prov *b;
	uint64_t to;

	*v = (struct prov){ .at = { .root = 0 } };
	if (m->mem.base == ZYDIS_REGISTER_RIP && m->mem.index == ZYDIS_REGISTER_NONE) {
		if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(in, m, pc, &to)))
			*v = (struct prov){ .at = { .root = MR_HV_ROOT_STATIC, .at = to, .nstep = 1 },
					    .addr_of = lea };
	} else if ((b = base_prov(p, base, pc))) {
		*v = *b;
		if (!step(v, m, lea))
			v->at.root = 0;
	} else if (base == RSP || base == RBP) {
		b = lea || m->mem.index != ZYDIS_REGISTER_NONE ? NULL : pslot_of(p, w);
		*v = b ? *b : (struct prov){ .at = { .root = MR_HV_ROOT_FRAME, .reg = dwarf_reg[base],
						     .off = w.off, .at = pc, .nstep = 1 } };
		if (!b) { /* the variable in the slot: its value, or (lea) its address */
			v->at.step[0].indexed = m->mem.index != ZYDIS_REGISTER_NONE;
			v->addr_of = lea;
			if (!lea && v->at.step[0].indexed)
				v->at.root = 0; /* an element of a frame array: its slot is unknown */
		}
	}
}

/* Does v hold no more than what a register held (a variable, or an argument, unread)? */
static bool bare(const struct prov *v)
{
	return (v->at.root == MR_HV_ROOT_REG || v->at.root == MR_HV_ROOT_ARG) && v->at.nstep == 1 &&
	       !v->addr_of && !v->at.step[0].off && !v->at.step[0].indexed;
}

/* What the 64-bit register dst holds after an instruction that writes it, as far as paths
 * go: a load, an address computed, a copy, or pointer arithmetic (an index or a constant
 * added; the operand with a path is the pointer); else nothing known. Frame slots: what
 * is spilled there. */
static void track(struct path *p, const ZydisDecodedInstruction *in,
		  const ZydisDecodedOperand *op, uint64_t pc)
{
	const ZydisDecodedOperand *d = &op[0], *src = &op[1];
	bool two = in->operand_count_visible == 2;
	int dreg = d->type == ZYDIS_OPERAND_TYPE_REGISTER && d->size == 64 ? gpr(d->reg.value) : -1;
	int sreg = two && src->type == ZYDIS_OPERAND_TYPE_REGISTER && src->size == 64
			   ? gpr(src->reg.value) : -1;
	ZydisMnemonic mn = in->mnemonic;
	struct prov v = { .at = { .root = 0 } }, sv = { .at = { .root = 0 } }, *b;
	struct slot w;
	unsigned wr = 0;

	for (unsigned i = 0; i < in->operand_count; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && gpr(op[i].reg.value) >= 0)
			wr |= 1u << gpr(op[i].reg.value);
	/* %rsp moved (not by a call: its callee's ret moves it back): the offsets of the slots
	 * kept are stale, forget them */
	if ((wr & (1u << RSP)) && in->meta.category != ZYDIS_CATEGORY_CALL)
		for (unsigned i = p->npslot; i-- > 0;)
			if (p->pslot[i].where.base == RSP)
				p->pslot[i] = p->pslot[--p->npslot];
	if (mn == ZYDIS_MNEMONIC_MOV && two && d->type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    frame_mem(d, &w.base, &w.off) && !(w.base == RBP && p->prov[RBP].at.root)) {
		/* a spill, or the slot overwritten */
		if (d->size == 64 && sreg >= 0 && (b = base_prov(p, sreg, pc)))
			v = *b;
		pslot_set(p, w, &v);
		return;
	}
	if (dreg >= 0 && two) {
		if (src->type == ZYDIS_OPERAND_TYPE_MEMORY && (mn == ZYDIS_MNEMONIC_MOV ||
							       mn == ZYDIS_MNEMONIC_LEA ||
							       mn == ZYDIS_MNEMONIC_ADD))
			mem_prov(p, in, src, pc, mn == ZYDIS_MNEMONIC_LEA, &sv);
		else if (sreg >= 0 && mn == ZYDIS_MNEMONIC_MOV && (b = base_prov(p, sreg, pc)))
			sv = *b; /* a copy: of the variable, or the argument, in the source */
		else if (sreg >= 0)
			sv = p->prov[sreg];
		if (mn == ZYDIS_MNEMONIC_MOV || mn == ZYDIS_MNEMONIC_LEA) {
			v = sv;
		} else if (mn == ZYDIS_MNEMONIC_ADD || mn == ZYDIS_MNEMONIC_SUB) {
			ZydisDecodedOperand m = { .type = ZYDIS_OPERAND_TYPE_MEMORY };
			bool imm = src->type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
			int64_t k = imm ? src->imm.value.s : 0;

			/* the pointer: the operand with a path, the source where the destination
			 * holds only what a register held (an index copied: mov %r12,%r15; add
			 * (%rax,%rbx),%r15) and the source a path through memory */
			if (p->prov[dreg].at.root &&
			    !(mn == ZYDIS_MNEMONIC_ADD && bare(&p->prov[dreg]) && sv.at.root && !bare(&sv)))
				v = p->prov[dreg];
			else if (mn == ZYDIS_MNEMONIC_ADD)
				v = sv;
			m.mem.index = imm ? ZYDIS_REGISTER_NONE : ZYDIS_REGISTER_RAX;
			m.mem.disp.has_displacement = 1;
			m.mem.disp.value = mn == ZYDIS_MNEMONIC_SUB ? -k : k;
			if (v.at.root && !step(&v, &m, true))
				v.at.root = 0;
		}
	}
	for (int r = 0; r < 16; r++)
		if (wr >> r & 1)
			p->prov[r].at.root = 0;
	p->fresh &= ~wr;
	if (dreg >= 0)
		p->prov[dreg] = v;
}

/* The paths registers lose in a call (the caller-saved ones). */
static void call_clobbers(struct path *p)
{
	for (int r = 0; r < 16; r++)
		if (!(CALLEE_SAVED >> r & 1))
			p->prov[r].at.root = 0;
	p->fresh &= CALLEE_SAVED;
}

/* The path of the location a store to memory operand m (not the frame's, not RIP's) writes,
 * into *out: false when it has none worth a PATH event (a THROUGH names it: [reg + d]
 * with reg a variable's value). */
static bool store_path(struct path *p, const ZydisDecodedOperand *m, uint64_t pc,
		       struct mr_hv_path *out)
{
	struct prov *b = base_prov(p, gpr(m->mem.base), pc), v;

	if (!b)
		return false;
	v = *b;
	if (!v.addr_of && v.at.nstep == 1 && v.at.root != MR_HV_ROOT_STATIC &&
	    v.at.root != MR_HV_ROOT_ARG && m->mem.index == ZYDIS_REGISTER_NONE)
		return false;
	if (!step(&v, m, false))
		return false;
	*out = v.at;
	return true;
}

/* mov between a 64-bit register and memory or another register: what it does to the
 * holders of p (returns true when it was such a move and p is updated). */
static bool move(struct scan *s, struct path *p, const ZydisDecodedOperand *op, uint64_t pc,
		 uint64_t next)
{
	const ZydisDecodedOperand *d = &op[0], *src = &op[1];
	int sreg = src->type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr(src->reg.value) : -1;
	int dreg = d->type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr(d->reg.value) : -1;
	bool holds = sreg >= 0 && (p->held >> sreg & 1), from_frame = false;
	int base, k, e;
	int64_t off;

	if (d->size != 64)
		return false;
	if (d->type == ZYDIS_OPERAND_TYPE_MEMORY && sreg >= 0) {
		if (d->mem.base == ZYDIS_REGISTER_RIP && d->mem.index == ZYDIS_REGISTER_NONE) {
			if (holds)
				event(s, MR_HV_STATIC, pc, next + (uint64_t)d->mem.disp.value, -1, 0);
			return true;
		}
		if (!frame_mem(d, &base, &off) || (base == RBP && p->prov[RBP].at.root)) {
			/* an element or member reached through pointers: its path; else [%reg + d],
			 * no index: maybe a member of a struct reg points to */
			struct mr_hv_path path;

			base = gpr(d->mem.base);
			if (!holds || base < 0 || d->mem.segment == ZYDIS_REGISTER_FS ||
			    d->mem.segment == ZYDIS_REGISTER_GS) /* TLS: no variable's */
				return true;
			if (store_path(p, d, pc, &path)) {
				e = event(s, MR_HV_PATH, pc, 0, -1, 0);
				if (e >= 0)
					s->ev[e].path = path;
				return true;
			}
			if (d->mem.index != ZYDIS_REGISTER_NONE || d->mem.segment != ZYDIS_REGISTER_DS)
				return true;
			e = event(s, MR_HV_THROUGH, pc, 0, dwarf_reg[base], d->mem.disp.value);
			if (e >= 0 && (p->loaded >> base & 1)) {
				s->ev[e].slot_reg = dwarf_reg[p->from[base].base];
				s->ev[e].slot_off = p->from[base].off;
			}
			return true;
		}
		k = find_slot(p, base, off);
		if (holds) {
			event(s, MR_HV_FRAME, pc, 0, dwarf_reg[base], off);
			if (k < 0 && p->nslot < MAX_SLOTS)
				p->slot[p->nslot++] = (struct slot){ base, off };
		} else if (k >= 0) {
			p->slot[k] = p->slot[--p->nslot];
		}
		return true;
	}
	if (dreg < 0)
		return false;
	if (src->type == ZYDIS_OPERAND_TYPE_MEMORY && frame_mem(src, &base, &off))
		holds = find_slot(p, base, off) >= 0, from_frame = true;
	else if (src->type != ZYDIS_OPERAND_TYPE_REGISTER)
		return false;
	if (holds) {
		hold(s, p, dreg, next);
		return true;
	}
	drop(s, p, 1u << dreg, next);
	p->loaded &= ~(1u << dreg);
	if (from_frame || (sreg >= 0 && (p->loaded >> sreg & 1))) { /* where it came from */
		p->from[dreg] = from_frame ? (struct slot){ base, off } : p->from[sreg];
		p->loaded |= 1u << dreg;
	}
	return true;
}

/* Decode one path until it ends; more paths go to the work list. */
static void walk(struct scan *s, struct path p)
{
	while (s->budget && (p.held || p.nslot) && p.off < s->len) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		uint64_t pc = s->base + p.off, next, to;
		unsigned wr = 0;

		if (s->visits[p.off] >= MAX_VISITS)
			break;
		s->visits[p.off]++;
		s->budget--;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&s->dec, s->code + p.off, s->len - p.off,
							 &in, op)))
			break;
		next = pc + in.length;
		p.off += in.length;
		track(&p, &in, op, pc);
		switch (in.meta.category) {
		case ZYDIS_CATEGORY_RET:
			if (p.held & (1u << RAX))
				event(s, MR_HV_RETURN, pc, 0, -1, 0);
			drop(s, &p, ~0u, next);
			return;
		case ZYDIS_CATEGORY_CALL:
			drop(s, &p, ~CALLEE_SAVED, next);
			p.loaded &= CALLEE_SAVED;
			call_clobbers(&p);
			continue;
		case ZYDIS_CATEGORY_UNCOND_BR:
			if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op[0].imm.is_relative)
				push(s, &p, next + (uint64_t)op[0].imm.value.s);
			drop(s, &p, ~0u, next);
			return;
		case ZYDIS_CATEGORY_COND_BR:
			if (op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op[0].imm.is_relative &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], pc, &to)))
				push(s, &p, to);
			continue;
		case ZYDIS_CATEGORY_INTERRUPT:
		case ZYDIS_CATEGORY_SYSCALL:
			drop(s, &p, ~0u, next);
			return;
		default:
			break;
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_MOV && in.operand_count_visible == 2 &&
		    move(s, &p, op, pc, next))
			continue;
		for (unsigned i = 0; i < in.operand_count; i++)
			if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && gpr(op[i].reg.value) >= 0)
				wr |= 1u << gpr(op[i].reg.value);
		drop(s, &p, wr, next);
		p.loaded &= ~wr;
	}
	drop(s, &p, ~0u, s->base + p.off);
}

/* The paths p's registers and frame slots hold at the call that ends at offset `to`, from
 * the code in [from, to) read once in address order (the last write before the call, in
 * the layout the compiler chose: a loop's set-up comes before its body). */
#define MAX_JUMPS 16 /* forward jumps whose state prescan keeps */

static void prescan(struct scan *s, struct path *p, size_t from, size_t to, bool at_call)
{
	struct jump {
		size_t to;
		struct path state;
	} *jumps = calloc(MAX_JUMPS, sizeof(*jumps));
	size_t njumps = 0;
	bool through = true; /* the previous instruction falls through to this one */

	/* the argument registers (SysV: rdi rsi rdx rcx r8 r9) hold what the caller passed */
	p->fresh = 1u << 7 | 1u << 6 | 1u << 2 | 1u << 1 | 1u << 8 | 1u << 9;
	for (size_t off = from; off < to;) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		uint64_t dest;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&s->dec, s->code + off, to - off, &in, op))) {
			off++;
			continue;
		}
		/* a block only jumped to (code the compiler moved out of line): the state of the
		 * jump that reaches it, not of the code laid out before it */
		for (size_t j = 0; !through && j < njumps; j++)
			if (jumps[j].to == off) {
				*p = jumps[j].state;
				break;
			}
		off += in.length;
		if (at_call && off == to && in.meta.category == ZYDIS_CATEGORY_CALL)
			break; /* what the call gets */
		track(p, &in, op, s->base + off - in.length);
		if (in.meta.category == ZYDIS_CATEGORY_CALL)
			call_clobbers(p);
		through = in.meta.category != ZYDIS_CATEGORY_UNCOND_BR &&
			  in.meta.category != ZYDIS_CATEGORY_RET;
		if (jumps && njumps < MAX_JUMPS &&
		    (in.meta.category == ZYDIS_CATEGORY_COND_BR ||
		     in.meta.category == ZYDIS_CATEGORY_UNCOND_BR) &&
		    op[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op[0].imm.is_relative &&
		    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &op[0], s->base + off - in.length, &dest)) &&
		    dest > s->base + off && dest < s->base + to)
			jumps[njumps++] = (struct jump){ (size_t)(dest - s->base), *p };
	}
	free(jumps);
	if (!at_call)
		call_clobbers(p);
}

size_t mr_heapvar_scan(const uint8_t *code, size_t len, uint64_t base, uint64_t func,
		       uint64_t ret, struct mr_hv_event *ev, size_t max)
{
	struct scan s = { .code = code, .len = len, .base = base, .ev = ev, .max = max,
			  .budget = MR_HV_MAX_INSNS };
	struct path *p;

	if (ret < base || ret - base >= len ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&s.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return 0;
	s.visits = calloc(len, 1);
	s.work = calloc(MAX_PATHS, sizeof(*s.work));
	p = calloc(1, sizeof(*p));
	if (!s.visits || !s.work || !p) {
		free(s.visits);
		free(s.work);
		free(p);
		return 0;
	}
	for (int r = 0; r < 16; r++)
		p->ev[r] = -1;
	if (func >= base && func < ret)
		prescan(&s, p, (size_t)(func - base), (size_t)(ret - base), false);
	hold(&s, p, RAX, ret);
	push(&s, p, ret);
	while (s.head < s.tail && s.budget) {
		struct path w = s.work[s.head % MAX_PATHS];

		s.head++;
		walk(&s, w);
	}
	free(p);
	free(s.visits);
	free(s.work);
	return s.nev;
}

int mr_heapvar_arg(const uint8_t *code, size_t len, uint64_t base, uint64_t func, uint64_t ret,
		   int reg, struct mr_hv_path *out, int *addr_of)
{
	struct scan s = { .code = code, .len = len, .base = base };
	struct path *p;
	int r = -1, rc = -ENOENT;

	for (int i = 0; i < 16; i++)
		r = dwarf_reg[i] == reg ? i : r;
	if (r < 0 || func < base || func >= ret || ret - base > len ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&s.dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    !(p = calloc(1, sizeof(*p))))
		return -ENOENT;
	prescan(&s, p, (size_t)(func - base), (size_t)(ret - base), true);
	if (!p->prov[r].at.root && (p->fresh >> r & 1))
		base_prov(p, r, ret); /* passed on as the function got it */
	if (p->prov[r].at.root) {
		*out = p->prov[r].at;
		*addr_of = p->prov[r].addr_of;
		rc = 0;
	}
	free(p);
	return rc;
}
