/* post/cfi.c - CFA rules from .eh_frame by elfutils' libdw (see cfi.h). */
#include "cfi.h"

#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* DWARF operations of a CFA rule "register + offset" (libdwarf's dwarf.h, first in the
 * include path of post/, is not elfutils' own) */
#define OP_BREG0 0x70
#define OP_BREG31 0x8f
#define OP_BREGX 0x92

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
	c->fd = open(path, O_RDONLY | O_CLOEXEC);
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

int mr_cfi_rule(Dwarf_CFI *cfi, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t nops;
	int rc = -ENOENT;

	if (dwarf_cfi_addrframe(cfi, pc, &fr) != 0)
		return -ENOENT;
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
	free(fr);
	return rc;
}
