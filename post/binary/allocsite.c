/* post/binary/allocsite.c - what the code after an allocation call does with the result (see
 * allocsite.h). Zydis decodes the instructions; the source classifier reads one line.
 */
#include "allocsite.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "base/infile.h"

#define FOLLOW_INSNS 24  /* instructions looked at after the call */
#define FOLLOW_BYTES 160

/* Bit of a 64-bit general-purpose register (any width of it), or 0. */
static unsigned gpr_bit(ZydisRegister r)
{
	ZydisRegister w;

	if (r == ZYDIS_REGISTER_NONE)
		return 0;
	w = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return w >= ZYDIS_REGISTER_RAX && w <= ZYDIS_REGISTER_R15 ? 1u << (w - ZYDIS_REGISTER_RAX)
								  : 0;
}

uint64_t mr_allocsite_store(struct mr_debuginfo *d, uint64_t ret_vaddr)
{
	unsigned char buf[FOLLOW_BYTES];
	ssize_t n = mr_debuginfo_code(d, ret_vaddr, buf, sizeof(buf));
	unsigned held = gpr_bit(ZYDIS_REGISTER_RAX); /* registers holding the pointer */
	ZydisDecoder dec;
	size_t off = 0;

	if (n <= 0 || !ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
						    ZYDIS_STACK_WIDTH_64)))
		return 0;
	for (int k = 0; k < FOLLOW_INSNS && held && off < (size_t)n; k++) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
		unsigned wr = 0;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, buf + off, (size_t)n - off, &in, op)))
			return 0;
		off += in.length;
		switch (in.meta.category) {
		case ZYDIS_CATEGORY_CALL:
		case ZYDIS_CATEGORY_RET:
		case ZYDIS_CATEGORY_UNCOND_BR:
		case ZYDIS_CATEGORY_INTERRUPT:
		case ZYDIS_CATEGORY_SYSCALL:
			return 0;
		default:
			break;
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_MOV && in.operand_count_visible == 2) {
			/* mov %reg, disp(%rip): the pointer stored to a static address */
			if (op[0].type == ZYDIS_OPERAND_TYPE_MEMORY && op[0].size == 64 &&
			    op[0].mem.base == ZYDIS_REGISTER_RIP &&
			    op[0].mem.index == ZYDIS_REGISTER_NONE &&
			    op[0].mem.segment == ZYDIS_REGISTER_DS &&
			    op[1].type == ZYDIS_OPERAND_TYPE_REGISTER && op[1].size == 64 &&
			    (gpr_bit(op[1].reg.value) & held))
				return ret_vaddr + off + (uint64_t)op[0].mem.disp.value;
			/* mov %reg, %reg2: a copy (the write below must not drop it) */
			if (op[0].type == ZYDIS_OPERAND_TYPE_REGISTER && op[0].size == 64 &&
			    op[1].type == ZYDIS_OPERAND_TYPE_REGISTER && op[1].size == 64 &&
			    (gpr_bit(op[1].reg.value) & held)) {
				held |= gpr_bit(op[0].reg.value);
				continue;
			}
		}
		for (unsigned i = 0; i < in.operand_count; i++)
			if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
				wr |= gpr_bit(op[i].reg.value);
		held &= ~wr;
	}
	return 0;
}

bool mr_allocsite_is_fortran(const char *path)
{
	static const char *const sfx[] = { ".f", ".f90", ".f95", ".f03", ".f08", ".for", ".ftn" };
	const char *dot = strrchr(path, '.');

	if (!dot || strchr(dot, '/'))
		return false;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (!strcasecmp(dot, sfx[i]))
			return true;
	return false;
}

/* Skip blanks. */
static const char *blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Append the code of one source line to the statement in st (lower case, without its
 * comment and its free-form continuation '&'s); returns 1 if the line continues. */
static int add_line(char *st, size_t cap, const char *line)
{
	size_t n = strlen(st), end;
	const char *c = line;
	int cont;

	while (*c == ' ' || *c == '\t')
		c++;
	if (*c == '&')
		c++; /* the optional leading '&' of a continuation line */
	for (end = 0; c[end] && c[end] != '!' && c[end] != '\n'; end++)
		;
	while (end && (c[end - 1] == ' ' || c[end - 1] == '\t' || c[end - 1] == '\r'))
		end--;
	cont = end && c[end - 1] == '&';
	if (cont)
		end--;
	for (size_t i = 0; i < end && n + 1 < cap; i++)
		st[n++] = (char)tolower((unsigned char)c[i]);
	st[n] = '\0';
	return cont;
}

int mr_allocsite_fortran(const struct mr_in_owner *owner, const char *file, unsigned line,
			 const char **name)
{
	static char objs[256];
	char low[2048], *text = NULL;
	const char *p;
	unsigned no = 0;
	size_t depth, n = 0, cap = 0;
	int want_name = 1, trunc = 0, cont = 0;
	FILE *f = NULL;
	int fd;

	*name = NULL;
	if (!file || !line || !mr_allocsite_is_fortran(file))
		return MR_FSITE_NONE;
	fd = mr_in_open_source(owner, file);
	if (fd < 0 || !(f = fdopen(fd, "r"))) {
		if (fd >= 0)
			close(fd);
		return MR_FSITE_NONE;
	}
	/* the whole statement holding the line: back to its first line, on through its
	 * continuation lines (free form: a line ending in '&' continues) */
	low[0] = '\0';
	while (getline(&text, &cap, f) >= 0) {
		no++;
		if (!cont)
			low[0] = '\0';
		cont = add_line(low, sizeof(low), text);
		if (no >= line && !cont)
			break;
	}
	fclose(f);
	free(text);
	if (no < line)
		return MR_FSITE_NONE;
	/* "allocate (" as a word: the words deallocate/allocated do not match */
	for (p = low; (p = strstr(p, "allocate")); p += 8) {
		int start = p == low || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');

		if (start && *blanks(p + 8) == '(')
			break;
	}
	if (!p)
		return MR_FSITE_TEMPORARY;
	/* the top-level objects of the list, by name ("x", "t%field"), comma-separated;
	 * options (stat=, errmsg=, source=, mold=) and a type-spec ("real(8) ::") are not */
	p = blanks(p + 8) + 1;
	if (strstr(p, "::"))
		p = strstr(p, "::") + 2;
	for (depth = 0; *p && !(depth == 0 && *p == ')'); p++) {
		if (depth == 0 && want_name) {
			const char *q = blanks(p);
			size_t k = 0;

			while (isalnum((unsigned char)q[k]) || q[k] == '_' || q[k] == '%')
				k++;
			if (k && *blanks(q + k) != '=') {
				if (n + (n ? 2 : 0) + k + 1 > sizeof(objs)) {
					trunc = 1;
				} else {
					if (n) {
						memcpy(objs + n, ", ", 2);
						n += 2;
					}
					memcpy(objs + n, q, k);
					n += k;
				}
			}
			want_name = 0;
		}
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && depth == 0)
			want_name = 1;
	}
	objs[n] = '\0';
	if (n && !trunc)
		*name = objs;
	return MR_FSITE_ALLOCATE;
}
