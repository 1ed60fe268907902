/* post/binary/pollloop.c - fences and poll loops in code bytes (see pollloop.h). */
#include "pollloop.h"

#include <stdbool.h>
#include <string.h>

#include <Zydis/Zydis.h>

/* A set of registers by their largest enclosing register (eax, ax, al: rax; xmm0: zmm0). */
#define NREG (ZYDIS_REGISTER_MAX_VALUE + 1)
struct regset {
	uint64_t w[(NREG + 63) / 64];
};

/* The register r as the loop's dataflow counts it, or ZYDIS_REGISTER_NONE: rip, the
 * flags (set before each use by a compare), MXCSR and x87 control and status (read and
 * written by floating-point instructions, not data) are left out. */
static ZydisRegister reg_of(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return r;
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	switch (r) {
	case ZYDIS_REGISTER_RIP:
	case ZYDIS_REGISTER_RFLAGS:
	case ZYDIS_REGISTER_MXCSR:
	case ZYDIS_REGISTER_X87CONTROL:
	case ZYDIS_REGISTER_X87STATUS:
	case ZYDIS_REGISTER_X87TAG:
		return ZYDIS_REGISTER_NONE;
	default:
		return r;
	}
}

static void set_add(struct regset *s, ZydisRegister r)
{
	r = reg_of(r);
	if (r != ZYDIS_REGISTER_NONE && (unsigned)r < NREG)
		s->w[r / 64] |= 1ull << (r % 64);
}

/* Whether a holds a register that is in b and not in c. */
static bool set_any(const struct regset *a, const struct regset *b, const struct regset *c)
{
	for (size_t i = 0; i < sizeof(a->w) / sizeof(a->w[0]); i++)
		if (a->w[i] & b->w[i] & ~c->w[i])
			return true;
	return false;
}

static void set_or(struct regset *a, const struct regset *b)
{
	for (size_t i = 0; i < sizeof(a->w) / sizeof(a->w[0]); i++)
		a->w[i] |= b->w[i];
}

static bool decode(const uint8_t *code, size_t len, ZydisDecodedInstruction *in,
		   ZydisDecodedOperand *op)
{
	ZydisDecoder d;

	return ZYAN_SUCCESS(ZydisDecoderInit(&d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) &&
	       ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, code, len, in, op));
}

int mr_poll_fence(const uint8_t *code, size_t len)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	int64_t keep;

	if (!decode(code, len, &in, op) || !(in.attributes & ZYDIS_ATTRIB_HAS_LOCK) ||
	    in.operand_count_visible != 2 || op[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return 0;
	switch (in.mnemonic) {
	case ZYDIS_MNEMONIC_OR:
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_XOR:
		keep = 0;
		break;
	case ZYDIS_MNEMONIC_AND:
		keep = -1; /* the immediate is sign-extended to the operand's width */
		break;
	default:
		return 0;
	}
	return op[1].imm.value.s == keep && op[0].mem.base == ZYDIS_REGISTER_RSP &&
	       op[0].mem.index == ZYDIS_REGISTER_NONE && op[0].mem.segment != ZYDIS_REGISTER_FS &&
	       op[0].mem.segment != ZYDIS_REGISTER_GS;
}

/* The body so far: registers written anywhere in it, defined so far in this iteration. */
struct body {
	struct regset written, defined;
	struct regset assigned; /* written other than by a step (add, sub, inc, dec of an
				 * immediate): a register written and not assigned is a counter */
	bool reads;            /* a read of memory */
	bool carried;          /* a register read before this iteration writes it, not a
				* counter, or a counter in an address */
};

/* Is in a step of a register: inc, dec, or add, sub of an immediate? */
static bool is_step(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op)
{
	if (op[0].type != ZYDIS_OPERAND_TYPE_REGISTER)
		return false;
	if (in->mnemonic == ZYDIS_MNEMONIC_INC || in->mnemonic == ZYDIS_MNEMONIC_DEC)
		return in->operand_count_visible == 1;
	return (in->mnemonic == ZYDIS_MNEMONIC_ADD || in->mnemonic == ZYDIS_MNEMONIC_SUB) &&
	       in->operand_count_visible == 2 && op[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
}

/* The registers instruction in reads (w: 0) or writes (w: 1), hidden operands included,
 * address registers of memory operands counted as read. The zero idiom (xor, sub, pxor
 * of a register with itself) reads nothing. */
static struct regset regs(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op, int w)
{
	struct regset s = { { 0 } };

	if (!w && in->operand_count_visible == 2 && op[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    op[1].type == ZYDIS_OPERAND_TYPE_REGISTER && op[0].reg.value == op[1].reg.value &&
	    (in->mnemonic == ZYDIS_MNEMONIC_XOR || in->mnemonic == ZYDIS_MNEMONIC_SUB ||
	     in->mnemonic == ZYDIS_MNEMONIC_PXOR || in->mnemonic == ZYDIS_MNEMONIC_XORPS ||
	     in->mnemonic == ZYDIS_MNEMONIC_XORPD))
		return s;
	for (unsigned i = 0; i < in->operand_count; i++) {
		if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY) {
			if (!w) {
				set_add(&s, op[i].mem.base);
				set_add(&s, op[i].mem.index);
			}
		} else if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			   (op[i].actions & (w ? ZYDIS_OPERAND_ACTION_MASK_WRITE
					       : ZYDIS_OPERAND_ACTION_MASK_READ))) {
			set_add(&s, op[i].reg.value);
		}
	}
	return s;
}

/* Registers of memory operands' addresses in in. */
static struct regset addr_regs(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op)
{
	struct regset s = { { 0 } };

	for (unsigned i = 0; i < in->operand_count; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY) {
			set_add(&s, op[i].mem.base);
			set_add(&s, op[i].mem.index);
		}
	return s;
}

/* Account for body instruction in (pass 0: what it writes; pass 1: what it reads before
 * the iteration defined it, its memory accesses). false when no poll loop holds it. */
static bool body_insn(struct body *b, int pass, const ZydisDecodedInstruction *in,
		      const ZydisDecodedOperand *op)
{
	bool atomic = (in->attributes & ZYDIS_ATTRIB_HAS_LOCK) || in->mnemonic == ZYDIS_MNEMONIC_XCHG;
	struct regset rd, wr = regs(in, op, 1), counters = b->written, addr, none = { { 0 } };

	switch (in->meta.category) {
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSRET:
		return false;
	default:
		break;
	}
	if (pass == 0) {
		set_or(&b->written, &wr);
		if (!is_step(in, op))
			set_or(&b->assigned, &wr);
		return true;
	}
	rd = regs(in, op, 0);
	addr = addr_regs(in, op);
	for (size_t i = 0; i < sizeof(counters.w) / sizeof(counters.w[0]); i++)
		counters.w[i] &= ~b->assigned.w[i];
	if (set_any(&rd, &b->assigned, &b->defined) || set_any(&addr, &counters, &none))
		b->carried = true;
	set_or(&b->defined, &wr);
	for (unsigned i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *o = &op[i];

		if (o->type != ZYDIS_OPERAND_TYPE_MEMORY || o->mem.type != ZYDIS_MEMOP_TYPE_MEM)
			continue;
		if ((o->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && !atomic)
			return false;
		if (o->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
			b->reads = true;
	}
	return true;
}

/* The relative target of branch in at offset off, or -1 when it has none in code. */
static long branch_target(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
			  size_t off)
{
	long to;

	if (in->operand_count_visible < 1 || op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE ||
	    !op[0].imm.is_relative)
		return -1;
	to = (long)(off + in->length) + (long)op[0].imm.value.s;
	return to;
}

int mr_poll_loop(const uint8_t *code, size_t len, size_t at, size_t *head)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	size_t off = at, end = 0, top = 0;
	struct body b;
	bool found = false;

	memset(&b, 0, sizeof(b));
	/* forward from at to the first branch back to at or before it */
	for (unsigned n = 0; n < MR_POLL_MAX_INSNS && off < len && off - at < MR_POLL_MAX_BYTES; n++) {
		long to;

		if (!decode(code + off, len - off, &in, op))
			return 0;
		if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_COND_BR) {
			to = branch_target(&in, op, off);
			if (to < 0 && in.meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
			    op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
				return 0; /* an indirect jump */
			if (to >= 0 && (size_t)to <= at) {
				top = (size_t)to;
				end = off + in.length;
				found = true;
				break;
			}
		} else if (!body_insn(&b, 0, &in, op)) {
			return 0;
		}
		off += in.length;
	}
	if (!found || end - top > MR_POLL_MAX_BYTES)
		return 0;
	/* the body from its first instruction: at and the branch must be instruction starts */
	memset(&b, 0, sizeof(b));
	for (int pass = 0; pass < 2; pass++) {
		bool met_at = false;

		b.defined = (struct regset){ { 0 } };
		for (off = top; off < end;) {
			if (!decode(code + off, len - off, &in, op))
				return 0;
			met_at |= off == at;
			if (in.meta.category == ZYDIS_CATEGORY_COND_BR ||
			    in.meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
				long to = branch_target(&in, op, off);

				/* another way back: a loop inside; a jump elsewhere: control
				 * may not come back */
				if (to < 0 || (off + in.length < end && (size_t)to <= off))
					return 0;
				if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR &&
				    off + in.length < end)
					return 0;
			} else if (!body_insn(&b, pass, &in, op)) {
				return 0;
			}
			off += in.length;
		}
		if (off != end || !met_at)
			return 0;
	}
	if (b.carried || !b.reads)
		return 0;
	*head = top;
	return 1;
}

/* The emulated pass of mr_poll_reads: the registers whose values are known. */
struct emu {
	uint64_t v[16];
	unsigned known;            /* bit i: v[i] holds register i (x86 order) */
	const struct mr_poll_regs *r;
};

/* Index (x86 order) of the 64-bit register enclosing r, or -1. */
static int gpr_index(ZydisRegister r)
{
	r = reg_of(r);
	return r >= ZYDIS_REGISTER_RAX && r <= ZYDIS_REGISTER_R15 ? (int)(r - ZYDIS_REGISTER_RAX) : -1;
}

/* The address of memory operand o of the instruction at run-time address pc (length n);
 * false when a register it needs is unknown. */
static bool emu_addr(const struct emu *e, const ZydisDecodedOperand *o, uint64_t pc, unsigned n,
		     uint64_t *addr)
{
	uint64_t a = (uint64_t)o->mem.disp.value;
	int b = gpr_index(o->mem.base), x = gpr_index(o->mem.index);

	if (o->mem.segment == ZYDIS_REGISTER_FS || o->mem.segment == ZYDIS_REGISTER_GS)
		return false;
	if (o->mem.base == ZYDIS_REGISTER_RIP)
		a += pc + n;
	else if (o->mem.base != ZYDIS_REGISTER_NONE && (b < 0 || !(e->known & 1u << b)))
		return false;
	else if (b >= 0)
		a += e->v[b];
	if (o->mem.index != ZYDIS_REGISTER_NONE) {
		if (x < 0 || !(e->known & 1u << x))
			return false;
		a += e->v[x] * o->mem.scale;
	}
	*addr = a;
	return true;
}

/* Read size bytes at addr from the copied stack, zero-extended; false when not there. */
static bool emu_load(const struct emu *e, uint64_t addr, unsigned size, uint64_t *v)
{
	uint64_t sp = e->r->gpr[4];
	uint8_t b[8] = { 0 };

	if (size > 8 || addr < sp || addr - sp > e->r->stack_len || e->r->stack_len - (addr - sp) < size)
		return false;
	memcpy(b, e->r->stack + (addr - sp), size);
	*v = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
	     (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
	return true;
}

/* v of width bits, sign-extended (sx) or zero-extended to 64 bits. */
static uint64_t extend(uint64_t v, unsigned bits, bool sx)
{
	uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;

	v &= m;
	if (sx && bits < 64 && (v >> (bits - 1) & 1))
		v |= ~m;
	return v;
}

/* The value of source operand o (register, immediate or memory at address a when *have),
 * of width bits; false when unknown. */
static bool emu_src(const struct emu *e, const ZydisDecodedOperand *o, uint64_t a, bool have,
		    uint64_t *v)
{
	int g;

	switch (o->type) {
	case ZYDIS_OPERAND_TYPE_IMMEDIATE:
		*v = (uint64_t)o->imm.value.s;
		return true;
	case ZYDIS_OPERAND_TYPE_REGISTER:
		g = gpr_index(o->reg.value);
		if (g < 0 || !(e->known & 1u << g))
			return false;
		*v = e->v[g];
		return true;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		return have && emu_load(e, a, o->size / 8, v);
	default:
		return false;
	}
}

/* Write v (width bits of the destination register o) as x86-64 does: a 32-bit write
 * zero-extends, an 8 or 16-bit one keeps the rest (unknown here unless it was known). */
static void emu_set(struct emu *e, const ZydisDecodedOperand *o, uint64_t v, bool ok)
{
	int g = o->type == ZYDIS_OPERAND_TYPE_REGISTER ? gpr_index(o->reg.value) : -1;

	if (g < 0)
		return;
	if (ok && o->size >= 32) {
		e->v[g] = o->size == 64 ? v : extend(v, 32, false);
		e->known |= 1u << g;
	} else if (ok && (e->known & 1u << g)) {
		uint64_t m = o->size == 16 ? 0xffffu : 0xffu;

		e->v[g] = (e->v[g] & ~m) | (v & m);
	} else {
		e->known &= ~(1u << g);
	}
}

/* Emulate instruction in (at pc) on e, whose memory operand, when it has one, is at a
 * (have: known). Registers it writes that this does not model become unknown. */
static void emu_step(struct emu *e, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
		     uint64_t a, bool have)
{
	uint64_t x = 0, y = 0;
	bool ok = false;

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
		ok = emu_src(e, &op[1], a, have, &x);
		break;
	case ZYDIS_MNEMONIC_MOVZX:
		ok = emu_src(e, &op[1], a, have, &x);
		x = extend(x, op[1].size, false);
		break;
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
		ok = emu_src(e, &op[1], a, have, &x);
		x = extend(x, op[1].size, true);
		break;
	case ZYDIS_MNEMONIC_CDQE:
		ok = emu_src(e, &op[1], a, have, &x);
		x = extend(x, 32, true);
		break;
	case ZYDIS_MNEMONIC_LEA:
		ok = have;
		x = a;
		break;
	case ZYDIS_MNEMONIC_ADD:
	case ZYDIS_MNEMONIC_SUB:
	case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_IMUL:
		if (in->operand_count_visible != 2 || !emu_src(e, &op[0], a, false, &x) ||
		    !emu_src(e, &op[1], a, have, &y))
			break;
		ok = true;
		x = in->mnemonic == ZYDIS_MNEMONIC_ADD ? x + y
		    : in->mnemonic == ZYDIS_MNEMONIC_SUB ? x - y
		    : in->mnemonic == ZYDIS_MNEMONIC_SHL ? x << (y & 63) : x * y;
		break;
	default:
		break;
	}
	for (unsigned i = 0; i < in->operand_count; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			emu_set(e, &op[i], x, ok && i == 0);
}

size_t mr_poll_reads(const uint8_t *code, size_t len, size_t head, uint64_t base,
		     const struct mr_poll_regs *r, uint64_t *out, size_t max)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	struct emu e = { .known = 0xffffu, .r = r };
	size_t n = 0, off = head;

	memcpy(e.v, r->gpr, sizeof(e.v));
	for (unsigned k = 0; k < MR_POLL_MAX_INSNS && off < len && off - head < MR_POLL_MAX_BYTES; k++) {
		uint64_t a = 0, pc = base + off;
		bool have = false, fence;

		if (!decode(code + off, len - off, &in, op))
			break;
		if (in.meta.category == ZYDIS_CATEGORY_COND_BR ||
		    in.meta.category == ZYDIS_CATEGORY_UNCOND_BR) {
			long to = branch_target(&in, op, off);

			if (to >= 0 && (size_t)to <= head)
				break; /* the branch back: one pass done */
			off += in.length;
			continue;
		}
		fence = mr_poll_fence(code + off, len - off);
		for (unsigned i = 0; i < in.operand_count; i++) {
			const ZydisDecodedOperand *o = &op[i];

			if (o->type != ZYDIS_OPERAND_TYPE_MEMORY)
				continue;
			have = emu_addr(&e, o, pc, in.length, &a);
			if (have && !fence && o->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
			    (o->actions & ZYDIS_OPERAND_ACTION_MASK_READ) && n < max)
				out[n++] = a;
			break;
		}
		emu_step(&e, &in, op, a, have);
		off += in.length;
	}
	return n;
}
