/* post/binary/cfi.h - the CFA rule of an instruction from an object's .eh_frame, by elfutils'
 * libdw: its .eh_frame_hdr table finds one FDE by binary search, where libdwarf's FDE list
 * parses every FDE of the object first (2.3 ms for libc, paid by the first question about a
 * local variable in a frame of libc). */
#ifndef MR_CFI_H
#define MR_CFI_H

#include <stdint.h>

struct mr_cfi;
struct Dwarf_CFI_s; /* elfutils' Dwarf_CFI (libdwarf, beside it in post/, has no such tag) */

/* The .eh_frame of the ELF file at path; NULL when it has none or cannot be read. */
struct mr_cfi *mr_cfi_open(const char *path);
void mr_cfi_close(struct mr_cfi *c);

/* The CFA at pc (the object's address) when its rule is "DWARF register *reg + *off":
 * 0, else -ENOENT (no FDE, or another kind of rule). One thread at a time. */
int mr_cfi_cfa(struct mr_cfi *c, uint64_t pc, int *reg, int64_t *off);

/* mr_cfi_cfa in a CFI libdw opened otherwise (a Dwfl module's, unwind.c). */
int mr_cfi_rule(struct Dwarf_CFI_s *cfi, uint64_t pc, int *reg, int64_t *off);

/* A frame's rules for the registers an x86-64 call chain needs: the CFA is DWARF register
 * cfa_reg + cfa_off, the return address lies at CFA - 8, and the caller's BP (register 6) is
 * this frame's own (bp_saved 0) or saved at CFA + bp_off. */
struct mr_cfi_frame {
	int cfa_reg;
	int64_t cfa_off;
	int bp_saved;
	int64_t bp_off;
};

/* The rules of the frame at pc in cfi (the object's address): 0, or -ENOENT when there is no
 * FDE or a rule has another kind (the CFA or BP an expression, the return address elsewhere).
 * One thread at a time. */
int mr_cfi_frame(struct Dwarf_CFI_s *cfi, uint64_t pc, struct mr_cfi_frame *f);

#endif /* MR_CFI_H */
