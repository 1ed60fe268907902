/* post/binary/codefind.c - where the calls of a source line or a function are in an
 * object's code (codefind.h). A call is told by where it goes: a function of the object
 * (a direct call's target, named by the object's symbols), or an imported one (a PLT
 * stub's or a `call *GOT(%rip)`'s GOT slot, named by its relocation). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <Zydis/Zydis.h>

#include "codefind.h"

/* The object's GOT slots of imported functions: address -> name (sorted by address). */
struct slot {
	uint64_t addr;
	char *name;
};
struct slots {
	struct slot *s;
	size_t n;
};

static int by_addr(const void *a, const void *b)
{
	uint64_t x = ((const struct slot *)a)->addr, y = ((const struct slot *)b)->addr;

	return (x > y) - (x < y);
}

/* Read path's relocations of GOT slots to symbols (JUMP_SLOT, GLOB_DAT) into g. */
static void read_slots(const char *path, struct slots *g)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;

	g->s = NULL;
	g->n = 0;
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	if (!(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL))) {
		close(fd);
		return;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Data *data, *syms;
		Elf_Scn *symscn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(data = elf_getdata(scn, NULL)) || !(syms = elf_getdata(symscn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			struct slot *more;
			unsigned type;

			if (!gelf_getrela(data, (int)i, &r))
				break;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name ||
			    !(more = realloc(g->s, (g->n + 1) * sizeof(*more))))
				continue;
			g->s = more;
			g->s[g->n].addr = r.r_offset;
			if ((g->s[g->n].name = strdup(name)))
				g->n++;
		}
	}
	elf_end(elf);
	close(fd);
	qsort(g->s, g->n, sizeof(*g->s), by_addr);
}

static const char *slot_name(const struct slots *g, uint64_t addr)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (g->s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->s[lo].addr == addr ? g->s[lo].name : NULL;
}

/* The GOT slot a memory operand `[rip + disp]` of the instruction at ip reads, or 0. */
static uint64_t rip_slot(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
			 uint64_t ip)
{
	for (unsigned i = 0; i < in->operand_count_visible; i++)
		if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY && op[i].mem.base == ZYDIS_REGISTER_RIP)
			return ip + in->length + (uint64_t)op[i].mem.disp.value;
	return 0;
}

/* The name of the function a call at ip goes to: the object's own (its symbols), or the
 * imported one of its PLT stub or GOT slot; NULL when not known. */
static const char *callee(struct mr_debuginfo *d, const struct slots *g, ZydisDecoder *dec,
			  const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
			  uint64_t ip)
{
	ZydisDecodedInstruction s;
	ZydisDecodedOperand sop[ZYDIS_MAX_OPERAND_COUNT];
	uint8_t stub[32];
	uint64_t target;
	struct mr_line ln;
	ssize_t got;

	if (op[0].type == ZYDIS_OPERAND_TYPE_MEMORY)
		return slot_name(g, rip_slot(in, op, ip)); /* call *GOT(%rip) */
	if (op[0].type != ZYDIS_OPERAND_TYPE_IMMEDIATE || !op[0].imm.is_relative)
		return NULL;
	target = ip + in->length + (uint64_t)op[0].imm.value.s;
	/* a PLT stub, `[endbr64;] [bnd] jmp *GOT(%rip)`, has no symbol of its own (the one
	 * before it, _init, would be taken for it) */
	if ((got = mr_debuginfo_code(d, target, stub, sizeof(stub))) > 0)
		for (size_t off = 0, k = 0; k < 2 && off < (size_t)got; k++) {
			const char *name;

			if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, stub + off, (size_t)got - off, &s, sop)))
				break;
			if (s.mnemonic == ZYDIS_MNEMONIC_JMP) {
				if ((name = slot_name(g, rip_slot(&s, sop, target + off))))
					return name;
				break;
			}
			off += s.length;
		}
	memset(&ln, 0, sizeof(ln));
	mr_debuginfo_line(d, target, &ln);
	return ln.function;
}

/* file's base name */
static const char *base(const char *file)
{
	const char *s = file ? strrchr(file, '/') : NULL;

	return s ? s + 1 : file;
}

/* Account the call of len bytes at vaddr to callee, of line ln, to target t. */
static void see(struct mr_code_target *t, uint64_t vaddr, unsigned len, const char *to,
		const struct mr_line *ln)
{
	unsigned dist, best;

	if (!ln->function || strcmp(ln->function, t->function) ||
	    (t->callee && (!to || strcmp(to, t->callee))))
		return;
	if (t->line) {
		if (!ln->file || !ln->line || strcmp(base(ln->file), t->file))
			return;
		dist = ln->line > t->line ? ln->line - t->line : t->line - ln->line;
		best = t->found_line > t->line ? t->found_line - t->line : t->line - t->found_line;
		if (t->hi && dist > best)
			return;
		if (!t->hi || dist < best || (dist == best && ln->line < t->found_line)) {
			t->lo = vaddr;
			t->found_line = ln->line;
		}
		if (ln->line != t->found_line)
			return;
	} else if (!t->hi) {
		t->lo = vaddr;
	}
	t->hi = vaddr + len;
}

/* The call instructions of [lo, hi), decoded one after the other from lo (code the
 * compiler laid out: functions end to end, padding that decodes too; a byte that does not
 * decode is stepped over), each seen with its line and callee. */
static void calls(struct mr_debuginfo *d, const struct slots *g, uint64_t lo, uint64_t hi,
		  struct mr_code_target *t, size_t n)
{
	static uint8_t buf[65536];
	ZydisDecoder dec;
	uint64_t at = lo;

	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return;
	while (at < hi) {
		ssize_t got = mr_debuginfo_code(d, at, buf, hi - at < sizeof(buf) ? hi - at : sizeof(buf));
		size_t off = 0;

		if (got <= 0)
			return;
		/* an instruction in the last 15 bytes is decoded from the next read, whole */
		while (off < (size_t)got && (off + 15 < (size_t)got || at + (uint64_t)got >= hi)) {
			ZydisDecodedInstruction in;
			ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
			struct mr_line ln;
			const char *to;

			if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, buf + off, (size_t)got - off, &in, op))) {
				off++;
				continue;
			}
			if (in.mnemonic == ZYDIS_MNEMONIC_CALL) {
				to = callee(d, g, &dec, &in, op, at + off);
				memset(&ln, 0, sizeof(ln));
				mr_debuginfo_line(d, at + off, &ln);
				for (size_t k = 0; k < n; k++)
					see(&t[k], at + off, in.length, to, &ln);
			}
			off += in.length;
		}
		at += off ? off : 1;
	}
}

void mr_code_find(struct mr_debuginfo *d, const char *path, struct mr_code_target *t, size_t n)
{
	uint64_t v0, off0, lo, hi, v;
	unsigned misses = 0;
	struct slots g;

	for (size_t k = 0; k < n; k++)
		t[k].lo = t[k].hi = t[k].found_line = 0;
	read_slots(path, &g);
	mr_debuginfo_load_base(d, &v0, &off0);
	/* the segments one after the other, from the lowest: past 64 pages of none, the end */
	for (v = v0 & ~(uint64_t)4095; misses < 64; v += 4096) {
		unsigned flags = mr_debuginfo_segment_range(d, v, &lo, &hi);

		if (!flags) {
			misses++;
			continue;
		}
		misses = 0;
		if (flags & MR_SEG_X)
			calls(d, &g, lo > v ? lo : v, hi, t, n);
		v = ((hi + 4095) & ~(uint64_t)4095) - 4096;
	}
	for (size_t i = 0; i < g.n; i++)
		free(g.s[i].name);
	free(g.s);
}
