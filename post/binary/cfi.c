/* post/binary/cfi.c - CFA rules from .eh_frame by elfutils' libdw (see cfi.h). */
#include "cfi.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/infile.h"

/* DWARF operations of a CFA rule "register + offset" (libdwarf's dwarf.h, first in the
 * include path of post/, is not elfutils' own) */
#define OP_BREG0 0x70
#define OP_BREG31 0x8f
#define OP_BREGX 0x92
#define OP_PLUS_UCONST 0x23
#define OP_CALL_FRAME_CFA 0x9c

/* x86-64 DWARF registers */
#define DW_RBP 6
#define DW_RA 16

struct mr_cfi {
	int fd;
	Elf *elf;
	Dwarf_CFI *cfi;
};

struct mr_cfi *mr_cfi_open(const char *path)
{
	struct mr_cfi *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	elf_version(EV_CURRENT);
	c->fd = mr_in_open(path, MR_IN_MAX_ELF, 0);
	if (c->fd < 0 || !(c->elf = elf_begin(c->fd, ELF_C_READ_MMAP, NULL)) ||
	    !(c->cfi = dwarf_getcfi_elf(c->elf))) {
		mr_cfi_close(c);
		return NULL;
	}
	return c;
}

void mr_cfi_close(struct mr_cfi *c)
{
	if (!c)
		return;
	if (c->cfi)
		dwarf_cfi_end(c->cfi);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

int mr_cfi_cfa(struct mr_cfi *c, uint64_t pc, int *reg, int64_t *off)
{
	return mr_cfi_rule(c->cfi, pc, reg, off);
}

/* The CFA rule of frame fr, as mr_cfi_rule says. */
static int cfa_rule(Dwarf_Frame *fr, int *reg, int64_t *off)
{
	Dwarf_Op *ops;
	size_t nops;
	int rc = -ENOENT;

	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops == 1) {
		if (ops[0].atom >= OP_BREG0 && ops[0].atom <= OP_BREG31) {
			*reg = ops[0].atom - OP_BREG0;
			*off = (int64_t)ops[0].number;
			rc = 0;
		} else if (ops[0].atom == OP_BREGX && ops[0].number < 128) {
			*reg = (int)ops[0].number;
			*off = (int64_t)ops[0].number2;
			rc = 0;
		}
	}
	return rc;
}

int mr_cfi_rule(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Frame *fr = NULL;
	int rc;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -ENOENT;
	rc = cfa_rule(fr, reg, off);
	free(fr);
	return rc;
}

/* Where frame fr keeps the caller's register regno: 0 with *same = 1 when it is unchanged
 * (CFI "same value"), 0 with *same = 0 and *off when it is saved at CFA + *off (CFI
 * "offset(N)"); -ENOENT for any other rule (undefined, another register, a value, an
 * expression). */
static int saved_at(Dwarf_Frame *fr, int regno, int *same, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(fr, regno, mem, &ops, &nops) != 0)
		return -ENOENT;
	*same = 0;
	*off = 0;
	if (nops == 0 && !ops) {
		*same = 1;
		return 0;
	}
	if (nops < 1 || nops > 2 || ops[0].atom != OP_CALL_FRAME_CFA)
		return -ENOENT;
	if (nops == 2 && ops[1].atom != OP_PLUS_UCONST)
		return -ENOENT;
	*off = nops == 2 ? (int64_t)ops[1].number : 0; /* libdw stores a negative N wrapped */
	return 0;
}

int mr_cfi_frame(Dwarf_CFI *cfi, uint64_t pc, struct mr_cfi_frame *f)
{
	Dwarf_Frame *fr = NULL;
	int64_t ra_off;
	int same = 1, rc;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -ENOENT;
	rc = cfa_rule(fr, &f->cfa_reg, &f->cfa_off);
	if (rc == 0 && (saved_at(fr, DW_RA, &same, &ra_off) || same || ra_off != -8))
		rc = -ENOENT;
	if (rc == 0 && saved_at(fr, DW_RBP, &same, &f->bp_off))
		rc = -ENOENT;
	f->bp_saved = !same;
	free(fr);
	return rc;
}
