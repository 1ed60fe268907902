/* post/binary/heapvar_dwarf_impl.h - what heapvar_dwarf.c (variables and members) and
 * heapvar_path.c (access paths, argument objects) share: libdw's table and the walks over
 * types, scopes and locations. Internal to post/binary/heapvar_*.c. */
#ifndef MR_HEAPVAR_DWARF_IMPL_H
#define MR_HEAPVAR_DWARF_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

/* libdwarf (debuginfo_dwarf*.c) and libdw define some of the same names (dwarf_attr,
 * dwarf_tag, dwarf_child, ...), and a program resolves each name once, so libdw's own
 * calls through its PLT would reach libdwarf's (dwarf_haspc -> dwarf_attr crashed so on
 * clang's DWARF). libdw is therefore loaded into a link namespace of its own (dlmopen),
 * with its own libelf and libc, and called through this table; what it allocates goes
 * back to that namespace's free. */
#define LIBDW_FUNCS(X) \
	X(Dwarf *, dwarf_begin, (int, Dwarf_Cmd)) \
	X(int, dwarf_end, (Dwarf *)) \
	X(Elf *, dwarf_getelf, (Dwarf *)) \
	X(Dwarf_CFI *, dwarf_getcfi, (Dwarf *)) \
	X(Dwarf_CFI *, dwarf_getcfi_elf, (Elf *)) \
	X(int, dwarf_cfi_end, (Dwarf_CFI *)) \
	X(int, dwarf_cfi_addrframe, (Dwarf_CFI *, Dwarf_Addr, Dwarf_Frame **)) \
	X(int, dwarf_frame_cfa, (Dwarf_Frame *, Dwarf_Op **, size_t *)) \
	X(int, dwarf_nextcu, (Dwarf *, Dwarf_Off, Dwarf_Off *, size_t *, Dwarf_Off *, uint8_t *, \
			      uint8_t *)) \
	X(Dwarf_Die *, dwarf_offdie, (Dwarf *, Dwarf_Off, Dwarf_Die *)) \
	X(Dwarf_Die *, dwarf_addrdie, (Dwarf *, Dwarf_Addr, Dwarf_Die *)) \
	X(ptrdiff_t, dwarf_ranges, (Dwarf_Die *, ptrdiff_t, Dwarf_Addr *, Dwarf_Addr *, \
				    Dwarf_Addr *)) \
	X(int, dwarf_haspc, (Dwarf_Die *, Dwarf_Addr)) \
	X(int, dwarf_getscopes, (Dwarf_Die *, Dwarf_Addr, Dwarf_Die **)) \
	X(int, dwarf_tag, (Dwarf_Die *)) \
	X(Dwarf_Die *, dwarf_diecu, (Dwarf_Die *, Dwarf_Die *, uint8_t *, uint8_t *)) \
	X(int, dwarf_srclang, (Dwarf_Die *)) \
	X(const char *, dwarf_decl_file, (Dwarf_Die *)) \
	X(int, dwarf_child, (Dwarf_Die *, Dwarf_Die *)) \
	X(int, dwarf_siblingof, (Dwarf_Die *, Dwarf_Die *)) \
	X(const char *, dwarf_diename, (Dwarf_Die *)) \
	X(Dwarf_Attribute *, dwarf_attr, (Dwarf_Die *, unsigned int, Dwarf_Attribute *)) \
	X(Dwarf_Attribute *, dwarf_attr_integrate, (Dwarf_Die *, unsigned int, Dwarf_Attribute *)) \
	X(int, dwarf_formudata, (Dwarf_Attribute *, Dwarf_Word *)) \
	X(Dwarf_Die *, dwarf_formref_die, (Dwarf_Attribute *, Dwarf_Die *)) \
	X(int, dwarf_aggregate_size, (Dwarf_Die *, Dwarf_Word *)) \
	X(int, dwarf_getlocation, (Dwarf_Attribute *, Dwarf_Op **, size_t *)) \
	X(int, dwarf_getlocation_attr, (Dwarf_Attribute *, const Dwarf_Op *, Dwarf_Attribute *)) \
	X(int, dwarf_formaddr, (Dwarf_Attribute *, Dwarf_Addr *)) \
	X(int, dwarf_getlocation_addr, (Dwarf_Attribute *, Dwarf_Addr, Dwarf_Op **, size_t *, \
					size_t)) \
	X(ptrdiff_t, dwarf_getlocations, (Dwarf_Attribute *, ptrdiff_t, Dwarf_Addr *, Dwarf_Addr *, \
					  Dwarf_Addr *, Dwarf_Op **, size_t *))

struct hvdw_libdw {
#define X(ret, name, args) ret(*name) args;
	LIBDW_FUNCS(X)
#undef X
	void (*free)(void *); /* the namespace's */
};
extern struct hvdw_libdw hvdw_dw; /* filled on the first mr_hvdw_open */
#define DW(f) hvdw_dw.f

#define MAX_DEPTH 8 /* members and elements followed into one variable */

struct mr_hvdw {
	int fd;          /* dwarf_begin reads through it; ours to close */
	Dwarf *dw;
	Dwarf_CFI *eh;   /* .eh_frame, ours to end (before dwarf_end ends its Elf); or NULL */
};

/* The DIE's type with typedefs and qualifiers removed; false if it has none. */
bool hvdw_base_type(Dwarf_Die *die, Dwarf_Die *type);
/* Append the path to byte off inside an object of type *type to buf (at *pos), down to an
 * object of `limit` bytes or fewer (0: to a scalar); *type becomes the type there, *owner
 * (when not NULL) the struct or class whose member was last appended. */
bool hvdw_member_path_to(Dwarf_Die *type, uint64_t off, uint64_t limit, char *buf, size_t len,
			 size_t *pos, const char **owner);
/* Is type (typedefs removed) a class of the C++ library (std::vector, std::unique_ptr), whose
 * members are its own: named as a whole, holding the pointer somewhere inside? */
bool hvdw_library_class(Dwarf_Die *type);
/* The variable DIE at static address addr in any compile unit of h. */
bool hvdw_static_var(struct mr_hvdw *h, uint64_t addr, Dwarf_Die *var);
/* The variable DIE at static address addr among parent's children, depth levels down. */
bool hvdw_find_static(Dwarf_Die *parent, uint64_t addr, int depth, Dwarf_Die *out);
/* The compile unit whose code covers pc. */
bool hvdw_cu_of(struct mr_hvdw *h, uint64_t pc, Dwarf_Die *cudie);
/* The function DIE among parent's descendants (depth levels down) whose code covers pc. */
bool hvdw_fn_at(Dwarf_Die *parent, uint64_t pc, int depth, Dwarf_Die *out);
/* The address the frame base of function fn is at pc as register + offset. */
bool hvdw_frame_base(struct mr_hvdw *h, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off);
/* Where the location expression op[0, n) puts the variable relative to register reg. */
bool hvdw_mem_at(const Dwarf_Op *op, size_t n, int reg, int fb_reg, int64_t fb_off,
		 int64_t *at);
/* The type of the local q names (mr_hvdw_local's) when the pointer is that local itself. */
struct mr_hvdw_query;
bool hvdw_local_type(struct mr_hvdw *h, const struct mr_hvdw_query *q, Dwarf_Die *type);
/* The type of the location access path p names (mr_hvdw_path's), when it holds a pointer. */
bool hvdw_path_type(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		    Dwarf_Die *type);
/* Is variable location attribute at register reg somewhere in [pc, end)? */
bool hvdw_in_reg(Dwarf_Attribute *at, uint64_t pc, uint64_t end, int reg);

#endif /* MR_HEAPVAR_DWARF_IMPL_H */
