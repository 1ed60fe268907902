/* post/binary/layout.h - the members of a variable's type down to the leaves (issue 43): which
 * member of which element a byte of the variable is, as the program's language writes it
 * ("[].flux", ".pos.x", "(:)%flux"). From DWARF through libdw (heapvar_dwarf.h's handle).
 *
 * A layout exists only for a type with members: a struct, class or Fortran derived type, or
 * an array of them (a heap object: an array of the type its receiving pointer points to).
 * A member that is itself an array of structs is followed into its element ("[].in[].x");
 * a member of scalar type, an array of scalars, a union (which of its members is meant
 * cannot be told) or a class of the C++ library (std::vector: its own members) is a leaf.
 * Bytes no leaf covers (padding, bit-fields) have none: no guessing.
 */
#ifndef MR_LAYOUT_H
#define MR_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

struct mr_hvdw;
struct mr_hv_path;
struct mr_layout;

#define MR_LAYOUT_MAX_NODES 4096 /* members and elements of one type, all levels */

/* The layout of the static variable at vaddr var_addr of h's object. 0, -EINVAL when its
 * type has no members, -ENOENT when DWARF cannot tell, -ENOMEM. */
int mr_layout_static(struct mr_hvdw *h, uint64_t var_addr, struct mr_layout **out);

/* The layout of the objects a pointer stored at the location p names points to (a heap
 * object received by a typed pointer: heapvar.h's path, var_addr the static it starts at
 * or 0), each an array of the pointee type. Returns as mr_layout_static. */
int mr_layout_pointee(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		      struct mr_layout **out);

/* The same for a pointer held by the local variable q names (heapvar_dwarf.h
 * mr_hvdw_local: the local itself, not a member of it). */
struct mr_hvdw_query;
int mr_layout_local(struct mr_hvdw *h, const struct mr_hvdw_query *q, struct mr_layout **out);

/* The leaf of byte off of the variable (off beyond the type's size repeats it: an array
 * of elements): its index, or -1 (padding, a bit-field). */
int mr_layout_leaf(const struct mr_layout *l, uint64_t off);

/* The leaves, in offset order; leaf k's name (after the variable's), its offset in the
 * element and its bytes. */
size_t mr_layout_count(const struct mr_layout *l);
const char *mr_layout_name(const struct mr_layout *l, size_t k, uint64_t *off, uint64_t *bytes);

/* The bytes of one element (of the outermost array; the type's for a single struct). */
uint64_t mr_layout_stride(const struct mr_layout *l);

void mr_layout_free(struct mr_layout *l);

#endif /* MR_LAYOUT_H */
