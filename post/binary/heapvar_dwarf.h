/* post/binary/heapvar_dwarf.h - the DWARF names for heapvar's events (libdw, elfutils): the
 * member of a static struct that a store hits, and the local variable of the function
 * that a register or frame slot is at a pc. One handle per ELF file; lookups are for the
 * few call sites of a run, not for every sample (they walk the compile units).
 * Returned strings are owned by the handle and live until mr_hvdw_close.
 */
#ifndef MR_HEAPVAR_DWARF_H
#define MR_HEAPVAR_DWARF_H

#include <stddef.h>
#include <stdint.h>

struct mr_hvdw;

/* Open the DWARF of the ELF file at path. Returns 0, or -errno (-ENOENT: no DWARF). */
int mr_hvdw_open(const char *path, struct mr_hvdw **out);
void mr_hvdw_close(struct mr_hvdw *h);

/* The path inside the static variable at vaddr var_addr to byte off of it, as C writes
 * it after the variable's name (".m", ".in.m", "[3].m", "[2]"; "" for the variable
 * itself), into buf. Returns 0 when a pointer is there, -EINVAL when something else is
 * (an int, a union: no place for the pointer), -ENOENT when DWARF cannot tell (no DWARF
 * variable at var_addr, off not at a member or element). */
int mr_hvdw_member(struct mr_hvdw *h, uint64_t var_addr, uint64_t off, char *buf, size_t len);

enum mr_hvdw_where {
	MR_HVDW_REG,       /* the variable is register reg somewhere in [pc, end) (a register
			    * holds one value at a time; compilers' location ranges start and
			    * end near, not at, the moves) */
	MR_HVDW_FRAME,     /* it holds the memory at [reg + off] at pc, reg the DWARF number
			    * of %rsp or %rbp (DW_OP_fbreg through the frame base and the CFA
			    * from .eh_frame / .debug_frame) */
	MR_HVDW_THROUGH,   /* it (a parameter too) is a pointer to a struct, in register reg at
			    * pc (or, slot_reg >= 0, in the frame at [slot_reg + slot_off], the
			    * register loaded from there), and [reg + off] is a member of that
			    * struct: "p->m" */
};

struct mr_hvdw_query {
	enum mr_hvdw_where where;
	uint64_t pc, end;
	int reg;
	int64_t off;
	int slot_reg;
	int64_t slot_off;
};

/* The local variable (parameters excluded but for MR_HVDW_THROUGH) in scope at vaddr
 * q->pc that is where q says. Its name into name ("m"; "h.b" for a member of a local
 * struct, "p->m"). Returns 0, or -ENOENT (none); *func: the function (the innermost
 * inlined one) whose variable it is. */
int mr_hvdw_local(struct mr_hvdw *h, const struct mr_hvdw_query *q, char *name, size_t len,
		  const char **func);

struct mr_hv_path;

/* The name of the location access path p names (post/binary/heapvar.h) into name: for a
 * FRAME or REG root the local or parameter there at p->at and the steps ("u[][][]",
 * "lv->row[]"; a root the compiler made, as GCC's .omp_data_i of an OpenMP region, left
 * out: "lv->row[]" for .omp_data_i->lv->row[]), *func its function; for a STATIC root the
 * steps only, after the static variable that starts at var_addr (the caller names it),
 * *func NULL. Returns 0, -EINVAL when the location holds no pointer, or -ENOENT (DWARF
 * cannot tell). */
int mr_hvdw_path(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr, char *name,
		 size_t len, const char **func);

/* The object at the location p names, of `size` bytes (a caller passed its address to a
 * function that stored a pointer into it): "Class::member" when it is a member of a struct
 * or class ("Mesh::m_x", *func NULL), else as mr_hvdw_path names it, down to an object of
 * that size (not into its own members). 0, or -ENOENT. */
int mr_hvdw_object(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		   uint64_t size, char *name, size_t len, const char **func);

/* The bytes of the object argument p (an ARG root) points to: its parameter's pointee type's
 * size, into *size. 0, or -ENOENT. */
int mr_hvdw_arg_size(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t *size);

/* The start of the function (not an inlined one) holding vaddr pc, of its part that holds
 * pc where it has more (a cold part): 0, or -ENOENT. */
int mr_hvdw_func_start(struct mr_hvdw *h, uint64_t pc, uint64_t *start);

/* Whether the function holding vaddr pc (the frame's, not an inlined one) returns a value:
 * 1 yes, 0 no (void: what %rax holds at its `ret` is no result), -ENOENT unknown (no
 * DWARF for pc). */
int mr_hvdw_returns(struct mr_hvdw *h, uint64_t pc);

#endif /* MR_HEAPVAR_DWARF_H */
