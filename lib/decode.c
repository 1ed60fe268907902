/* lib/decode.c - the pure half of the software sampler's instruction side (lib/insn.h).
 *
 * Bytes + registers in, access description out; no I/O, no global state. Zydis 4 decodes
 * in 64-bit long mode; its operand list (hidden operands included) says which memory
 * operand is accessed, in which direction, and which registers the instruction writes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "memphis/format.h"
#include "insn.h"

/* A long-mode decoder. ZydisDecoderInit only fills a few fields, so each caller keeps
 * its own on the stack (no shared state, no initialisation race). Returns 0 or -EINVAL. */
static int decoder_init(ZydisDecoder *d)
{
	return ZYAN_SUCCESS(ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64,
					     ZYDIS_STACK_WIDTH_64)) ? 0 : -EINVAL;
}

/* Map a Zydis general-purpose register of any width (al, ax, eax, rax, r8d...) to enum
 * memphis__reg. Returns MEMPHIS__REG_NONE for ZYDIS_REGISTER_NONE and MEMPHIS__REG_BAD
 * for anything the sample does not carry. RIP is not mapped here (see rip_rel). */
static uint8_t map_reg(ZydisRegister r)
{
	static const uint8_t gpr[16] = {
		MPH_AX, MPH_CX, MPH_DX, MPH_BX, MPH_SP, MPH_BP, MPH_SI, MPH_DI,
		MPH_R8, MPH_R9, MPH_R10, MPH_R11, MPH_R12, MPH_R13, MPH_R14, MPH_R15,
	};
	ZydisRegister w;

	if (r == ZYDIS_REGISTER_NONE)
		return MEMPHIS__REG_NONE;
	w = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (w >= ZYDIS_REGISTER_RAX && w <= ZYDIS_REGISTER_R15)
		return gpr[w - ZYDIS_REGISTER_RAX];
	return MEMPHIS__REG_BAD;
}

/* map_reg for an address register: one narrower than 32 bits (xlat's AL index) would
 * need its own masking, so it is treated as not rebuildable. */
static uint8_t map_addr_reg(ZydisRegister r)
{
	if (r != ZYDIS_REGISTER_NONE &&
	    ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, r) < 32)
		return MEMPHIS__REG_BAD;
	return map_reg(r);
}

/* Instruction categories after which control does not continue at the next byte. */
static int cat_breaks_flow(ZydisInstructionCategory cat)
{
	return cat == ZYDIS_CATEGORY_UNCOND_BR || cat == ZYDIS_CATEGORY_CALL ||
	       cat == ZYDIS_CATEGORY_RET || cat == ZYDIS_CATEGORY_SYSRET;
}

/* Categories of control transfers (jcc, loop, jrcxz, xbegin are COND_BR in Zydis). */
static int cat_is_branch(ZydisInstructionCategory cat)
{
	return cat_breaks_flow(cat) || cat == ZYDIS_CATEGORY_COND_BR ||
	       cat == ZYDIS_CATEGORY_SYSCALL || cat == ZYDIS_CATEGORY_INTERRUPT;
}

/* Is this memory operand an access (not address generation only, not a NOP's)? */
static int mem_accessed(const ZydisDecodedOperand *op)
{
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY)
		return 0;
	if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB)
		return 0; /* AGEN (lea), MIB (bndldx/bndstx), invalid */
	return (op->actions & (ZYDIS_OPERAND_ACTION_MASK_READ |
			       ZYDIS_OPERAND_ACTION_MASK_WRITE)) != 0;
}

/* Pick the memory operand the access stands for: the first explicit one; else an implicit
 * or hidden one, preferring a read (movs reads [rsi], writes [rdi]: the read can stall).
 * Returns its index or -1. */
static int pick_mem(const ZydisDecodedOperand *ops, unsigned n)
{
	int implicit = -1;

	for (unsigned i = 0; i < n; i++) {
		if (!mem_accessed(&ops[i]))
			continue;
		if (ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT)
			return (int)i;
		if (implicit < 0 || (!(ops[implicit].actions & ZYDIS_OPERAND_ACTION_MASK_READ) &&
				     (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)))
			implicit = (int)i;
	}
	return implicit;
}

/* Fill the memory part of *out from operand ops[m] of instruction `in`, including the
 * push/pop/leave stack rules and the clobber analysis over all written registers. */
static void fill_mem(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
		     int m, struct memphis__insn *out)
{
	const ZydisDecodedOperand *op = &ops[m];
	ZydisInstructionCategory cat = in->meta.category;
	int push = cat == ZYDIS_CATEGORY_PUSH, pop = cat == ZYDIS_CATEGORY_POP;
	int leave = in->mnemonic == ZYDIS_MNEMONIC_LEAVE;
	int sp_known = push || pop || leave; /* the SP update is documented, not a clobber */
	int64_t width = in->operand_width / 8;

	out->is_mem = 1;
	out->is_load = (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0;
	out->is_store = (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
	if (cat == ZYDIS_CATEGORY_PREFETCH || cat == ZYDIS_CATEGORY_PREFETCHWT1) {
		out->is_prefetch = 1;
		out->is_load = out->is_store = 0;
	}
	out->is_vsib = op->mem.type == ZYDIS_MEMOP_TYPE_VSIB;
	out->addr32 = in->address_width == 32;
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		out->segment = 1;
	else if (op->mem.segment == ZYDIS_REGISTER_GS)
		out->segment = 2;
	out->disp = op->mem.disp.value;
	out->scale = op->mem.scale ? op->mem.scale : 1;
	if (op->mem.base == ZYDIS_REGISTER_RIP || op->mem.base == ZYDIS_REGISTER_EIP)
		out->rip_rel = 1;
	else
		out->base = map_addr_reg(op->mem.base);
	if (out->is_vsib || in->mnemonic == ZYDIS_MNEMONIC_XLAT)
		out->index = MEMPHIS__REG_BAD; /* a vector register, or xlat's AL (which Zydis
		                                * leaves out of the operand): not rebuildable */
	else
		out->index = map_addr_reg(op->mem.index);

	if (op->visibility != ZYDIS_OPERAND_VISIBILITY_EXPLICIT && sp_known) {
		/* The stack slot, from SP after the instruction: push stored at new SP, pop
		 * loaded from new SP - width, leave loaded [rbp_old] = new SP - 8. */
		out->is_stack = 1;
		out->base = MPH_SP;
		out->index = MEMPHIS__REG_NONE;
		out->scale = 1;
		out->disp = push ? 0 : -(leave ? 8 : width);
	} else if (push && out->base == MPH_SP) {
		/* push d(%rsp): the address is computed before the decrement (SDM). */
		out->disp += width;
	}

	for (unsigned i = 0; i < in->operand_count; i++) {
		uint8_t r;

		if (ops[i].type != ZYDIS_OPERAND_TYPE_REGISTER ||
		    !(ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		r = map_reg(ops[i].reg.value);
		if (r == MEMPHIS__REG_BAD || r == MEMPHIS__REG_NONE)
			continue;
		if (sp_known && ops[i].visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
		    (r == MPH_SP || (leave && r == MPH_BP)))
			continue;
		if (r == out->base)
			out->clobbers |= MEMPHIS__CLOBBER_BASE;
		if (r == out->index)
			out->clobbers |= MEMPHIS__CLOBBER_INDEX;
	}
}

/* Contract in insn.h. */
int memphis__insn_decode(const uint8_t *bytes, size_t len, uint64_t addr,
			 struct memphis__insn *out)
{
	ZydisDecoder d;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisInstructionCategory cat;
	int m;

	memset(out, 0, sizeof(*out));
	out->base = out->index = MEMPHIS__REG_NONE;
	out->scale = 1;
	if (!bytes || decoder_init(&d) < 0 ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, bytes, len, &in, ops)))
		return -EINVAL;
	out->length = in.length;
	cat = in.meta.category;
	out->rep_string = cat == ZYDIS_CATEGORY_STRINGOP &&
			  (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
					    ZYDIS_ATTRIB_HAS_REPNE)) != 0;
	out->is_branch = cat_is_branch(cat);
	out->breaks_flow = cat_breaks_flow(cat);
	if (out->is_branch && (in.attributes & ZYDIS_ATTRIB_IS_RELATIVE)) {
		for (unsigned i = 0; i < in.operand_count_visible; i++) {
			ZyanU64 t;

			if (ops[i].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[i].imm.is_relative &&
			    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&in, &ops[i], addr, &t))) {
				out->branch_target = t;
				break;
			}
		}
	}
	if (cat == ZYDIS_CATEGORY_NOP || cat == ZYDIS_CATEGORY_WIDENOP)
		return 0; /* nopw 0(%rax,%rax,1) has a "read" memory operand: no access */
	m = pick_mem(ops, in.operand_count);
	if (m >= 0)
		fill_mem(&in, ops, m, out);
	out->base2 = MEMPHIS__REG_NONE;
	for (unsigned i = 0; m >= 0 && cat == ZYDIS_CATEGORY_STRINGOP && i < in.operand_count; i++)
		if ((int)i != m && mem_accessed(&ops[i])) {
			out->base2 = map_addr_reg(ops[i].mem.base);
			out->store2 = (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
		}
	return 0;
}

/* Contract in insn.h. */
unsigned memphis__insn_address(const struct memphis__insn *insn, uint64_t addr,
			       const struct memphis__regs *regs, uint64_t *data_addr)
{
	unsigned tls = 0;
	uint64_t seg = 0, a;

	*data_addr = 0;
	if (!insn->is_mem)
		return MPH_S_NONMEM;
	if (insn->segment) {
		tls = MPH_S_TLS;
		seg = insn->segment == 1 ? regs->fs_base : regs->gs_base;
		if (!seg)
			return MPH_S_NOADDR | tls;
	}
	if (insn->is_vsib || insn->base == MEMPHIS__REG_BAD || insn->index == MEMPHIS__REG_BAD)
		return MPH_S_NOADDR | tls;
	if (insn->clobbers) {
		/* mov d(R),R: R now holds what was loaded (pointer chasing). R + d is the
		 * next object of the chain, not the one read: an approximate proxy. */
		if (insn->clobbers != MEMPHIS__CLOBBER_BASE || insn->index != MEMPHIS__REG_NONE ||
		    insn->base == MEMPHIS__REG_NONE)
			return MPH_S_NOADDR | tls;
		a = regs->r[insn->base] + (uint64_t)insn->disp;
		if (insn->addr32)
			a &= 0xffffffffu;
		*data_addr = a + seg;
		return MPH_S_APPROX | tls;
	}
	a = (uint64_t)insn->disp;
	if (insn->rip_rel)
		a += addr + insn->length;
	else if (insn->base != MEMPHIS__REG_NONE)
		a += regs->r[insn->base];
	if (insn->index != MEMPHIS__REG_NONE)
		a += regs->r[insn->index] * insn->scale;
	if (insn->addr32)
		a &= 0xffffffffu;
	*data_addr = a + seg;
	return MPH_S_EXACT | tls;
}

/* Decode only what the sweep needs: length, flow class and direct in-range target.
 * Returns the length (0 if undecodable); *flow = 1 for call/jmp/ret; *is_edge = 1 and
 * *target set for a direct jmp/jcc/loop (not call). */
static unsigned sweep_one(const ZydisDecoder *d, const uint8_t *p, size_t avail, uint64_t addr,
			  int *flow, int *is_edge, uint64_t *target)
{
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;
	ZydisInstructionCategory cat;

	*flow = *is_edge = 0;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(d, &ctx, p, avail, &in)))
		return 0;
	cat = in.meta.category;
	*flow = cat_breaks_flow(cat);
	if ((cat == ZYDIS_CATEGORY_COND_BR || cat == ZYDIS_CATEGORY_UNCOND_BR) &&
	    (in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in.raw.imm[0].is_relative) {
		*is_edge = 1;
		*target = addr + in.length + (uint64_t)in.raw.imm[0].value.s;
	}
	return in.length;
}

/* Order edges by destination, then source. */
static int edge_cmp(const void *a, const void *b)
{
	const struct memphis__edge *x = a, *y = b;

	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->src > y->src) - (x->src < y->src);
}

/* Append v to a growing uint32/edge array; returns 0 or -ENOMEM (array unchanged). */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	void *p;
	uint32_t ncap;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* Contract in insn.h. */
int memphis__insn_sweep(const uint8_t *code, size_t len, uint64_t start,
			struct memphis__sweep *out)
{
	ZydisDecoder d;
	uint32_t cap_i = 0, cap_e = 0, pos = 0;

	memset(out, 0, sizeof(*out));
	out->start = start;
	if (len > MEMPHIS__SWEEP_MAX)
		return -E2BIG;
	if (decoder_init(&d) < 0)
		return -EINVAL;
	out->len = (uint32_t)len;
	while (pos < len) {
		int flow, is_edge;
		uint64_t target = 0;
		unsigned l = sweep_one(&d, code + pos, len - pos, start + pos, &flow, &is_edge,
				       &target);

		if (!l) {
			/* One marker per run of undecodable bytes, then step one byte. */
			if (!out->n_insns || !(out->insns[out->n_insns - 1] & MEMPHIS__SWEEP_BAD) ||
			    out->skipped_last != pos - 1) {
				if (grow((void **)&out->insns, &cap_i, out->n_insns,
					 sizeof(*out->insns)) < 0)
					goto out_nomem;
				out->insns[out->n_insns++] = pos | MEMPHIS__SWEEP_BAD;
			}
			out->skipped_last = pos;
			out->skipped++;
			pos++;
			continue;
		}
		if (grow((void **)&out->insns, &cap_i, out->n_insns, sizeof(*out->insns)) < 0)
			goto out_nomem;
		out->insns[out->n_insns++] = pos | (flow ? MEMPHIS__SWEEP_FLOW : 0);
		if (is_edge && target >= start && target < start + len) {
			if (grow((void **)&out->edges, &cap_e, out->n_edges, sizeof(*out->edges)) < 0)
				goto out_nomem;
			out->edges[out->n_edges].src = pos;
			out->edges[out->n_edges].dst = (uint32_t)(target - start);
			out->n_edges++;
		}
		pos += l;
	}
	if (out->n_edges > 1)
		qsort(out->edges, out->n_edges, sizeof(*out->edges), edge_cmp);
	return 0;

out_nomem:
	memphis__sweep_release(out);
	return -ENOMEM;
}

/* Contract in insn.h. */
void memphis__sweep_release(struct memphis__sweep *s)
{
	if (!s)
		return;
	free(s->insns);
	free(s->edges);
	s->insns = NULL;
	s->edges = NULL;
	s->n_insns = s->n_edges = 0;
}

/* Contract in insn.h. */
size_t memphis__sweep_bytes(const struct memphis__sweep *s)
{
	return (size_t)s->n_insns * sizeof(*s->insns) + (size_t)s->n_edges * sizeof(*s->edges);
}

/* Contract in insn.h. */
int memphis__sweep_predecessor(const struct memphis__sweep *s, uint64_t ip, uint64_t *pred)
{
	uint32_t off, lo, hi, jsrc = UINT32_MAX;

	*pred = 0;
	if (ip < s->start || ip - s->start > s->len)
		return -1;
	off = (uint32_t)(ip - s->start);

	/* A branch target: the last edge with dst == off has the highest source. A back-edge
	 * (source at or after ip) wins outright; a forward-only target (if/else merge, the
	 * jump into a bottom-tested loop) keeps the fall-through below when there is one. */
	lo = 0;
	hi = s->n_edges;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->edges[mid].dst <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && s->edges[lo - 1].dst == off) {
		jsrc = s->edges[lo - 1].src;
		if (jsrc >= off) {
			*pred = s->start + jsrc;
			return 1;
		}
	}

	/* Else the instruction that ends at off: find the first start >= off. */
	lo = 0;
	hi = s->n_insns;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((s->insns[mid] & ~MEMPHIS__SWEEP_MASK) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (off == s->len) {
		if (lo != s->n_insns)
			return -1;
	} else if (lo == s->n_insns || (s->insns[lo] & ~MEMPHIS__SWEEP_MASK) != off ||
		   (s->insns[lo] & MEMPHIS__SWEEP_BAD)) {
		return -1; /* ip is inside an instruction, or on undecodable bytes */
	}
	if (lo == 0 || (s->insns[lo - 1] & MEMPHIS__SWEEP_MASK)) {
		/* No fall-through into ip: a forward jump, the function entry, or nothing. */
		if (jsrc != UINT32_MAX) {
			*pred = s->start + jsrc;
			return 1;
		}
		if (lo == 0)
			return off == 0 ? 0 : -1; /* function entry: the caller's call came first */
		if (s->insns[lo - 1] & MEMPHIS__SWEEP_BAD)
			return -1; /* undecodable bytes end at ip: no trustworthy predecessor */
		return 0; /* after call/jmp/ret */
	}
	*pred = s->start + (s->insns[lo - 1] & ~MEMPHIS__SWEEP_MASK);
	return 1;
}

/* Contract in insn.h. */
uint64_t memphis__insn_predecessor(const uint8_t *code, size_t len, uint64_t start,
				   uint64_t ip)
{
	struct memphis__sweep s;
	uint64_t pred = 0, off;
	int r;

	if (!code || ip < start || ip - start > len)
		return 0;
	off = ip - start;
	r = memphis__insn_sweep(code, len, start, &s);
	if (r == 0) {
		r = memphis__sweep_predecessor(&s, ip, &pred);
		memphis__sweep_release(&s);
		if (r >= 0)
			return pred;
	}
	return memphis__insn_predecessor_vote(code + off - (off < 64 ? off : 64),
					      off < 64 ? off : 64, ip);
}

#define VOTE_MAX 256

/* Contract in insn.h. Dynamic programming from the end: the chain started at s lands on
 * ip iff the chain started at the next instruction does, so each offset decodes once. */
uint64_t memphis__insn_predecessor_vote(const uint8_t *code, size_t len, uint64_t ip)
{
	ZydisDecoder d;
	int16_t land[VOTE_MAX];  /* offset of the instruction ending at len, or -1 */
	uint16_t votes[VOTE_MAX];
	int best = -1;

	if (!code || len == 0 || decoder_init(&d) < 0)
		return 0;
	if (len > VOTE_MAX) {
		code += len - VOTE_MAX;
		len = VOTE_MAX;
	}
	memset(votes, 0, sizeof(votes));
	for (size_t s = len; s-- > 0;) {
		int flow, is_edge;
		uint64_t target;
		unsigned l = sweep_one(&d, code + s, len - s, 0, &flow, &is_edge, &target);

		if (!l)
			land[s] = -1;
		else if (s + l == len)
			land[s] = (int16_t)s;
		else
			land[s] = land[s + l]; /* s + l < len: decoding was bounded by len - s */
		if (land[s] >= 0)
			votes[land[s]]++;
	}
	for (size_t s = 0; s < len; s++)
		if (land[s] >= 0 && (best < 0 || votes[land[s]] > votes[best]))
			best = land[s];
	return best < 0 ? 0 : ip - (len - (size_t)best);
}
