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
