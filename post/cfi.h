/* post/cfi.h - the CFA rule of an instruction from an object's .eh_frame, by elfutils'
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

#endif /* MR_CFI_H */
