/* post/binary/heapvar_dwarf.c - DWARF names of heapvar's events through libdw (see
 * heapvar_dwarf.h). */
#include "base/infile.h"
#include "heapvar.h"
#include "heapvar_dwarf.h"
#include "heapvar_dwarf_impl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hvdw_libdw hvdw_dw;
static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static bool dw_ok;

/* Load libdw into its own namespace and fill hvdw_dw (dw_ok: all found). The namespace stays
 * for the process. */
static void dw_load(void)
{
	void *h = dlmopen(LM_ID_NEWLM, "libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	bool ok = h != NULL;

	if (!h)
		return;
#define X(ret, name, args) ok = (*(void **)&hvdw_dw.name = dlsym(h, #name)) && ok;
	LIBDW_FUNCS(X)
#undef X
	*(void **)&hvdw_dw.free = dlsym(h, "free");
	dw_ok = ok && hvdw_dw.free;
}

int mr_hvdw_open(const char *path, struct mr_hvdw **out)
{
	struct mr_hvdw *h;
	Elf *elf;

	*out = NULL;
	pthread_once(&dw_once, dw_load);
	if (!dw_ok)
		return -ENOSYS;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = mr_in_open(path, MR_IN_MAX_ELF, 0);
	if (h->fd < 0) {
		int e = h->fd;

		free(h);
		return e;
	}
	h->dw = DW(dwarf_begin)(h->fd, DWARF_C_READ);
	if (!h->dw) {
		mr_hvdw_close(h);
		return -ENOENT;
	}
	elf = DW(dwarf_getelf)(h->dw);
	h->eh = elf ? DW(dwarf_getcfi_elf)(elf) : NULL;
	*out = h;
	return 0;
}

void mr_hvdw_close(struct mr_hvdw *h)
{
	if (!h)
		return;
	if (h->eh)
		DW(dwarf_cfi_end)(h->eh);
	if (h->dw)
		DW(dwarf_end)(h->dw);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

/* The DIE's type with typedefs and qualifiers removed; false if it has none. */
bool hvdw_base_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;
	Dwarf_Die cur = *die;

	for (int i = 0; i < 16; i++) {
		if (!DW(dwarf_attr_integrate)(&cur, DW_AT_type, &at) || !DW(dwarf_formref_die)(&at, type))
			return false;
		switch (DW(dwarf_tag)(type)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			cur = *type;
			continue;
		default:
			return true;
		}
	}
	return false;
}

bool hvdw_library_class(Dwarf_Die *type)
{
	int tag = DW(dwarf_tag)(type);
	const char *f;

	return (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
	       (f = DW(dwarf_decl_file)(type)) && strstr(f, "/include/c++/");
}

/* Can an object of type hold the pointer an allocation returned: a pointer, or a class of
 * the C++ library (a container or smart pointer keeps it inside)? */
static bool holds_pointer(Dwarf_Die *type)
{
	return DW(dwarf_tag)(type) == DW_TAG_pointer_type || hvdw_library_class(type);
}

/* Append the path to byte off inside an object of type *type to buf (at *pos), down to an
 * object of `limit` bytes or fewer (0: to a scalar); *type becomes the type of what is
 * there, *owner (when not NULL) the name of the struct or class whose member was last
 * appended (NULL: none, or an element last). */
bool hvdw_member_path_to(Dwarf_Die *type, uint64_t off, uint64_t limit, char *buf, size_t len,
			   size_t *pos, const char **owner)
{
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		Dwarf_Die m, t;
		Dwarf_Word size, loc;
		Dwarf_Attribute at;
		int tag = DW(dwarf_tag)(type), found = 0, n;

		if (off == 0 && tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			return true;
		if (limit && off == 0 && !DW(dwarf_aggregate_size)(type, &size) && size <= limit)
			return true;
		if (depth > 0 && hvdw_library_class(type)) /* named as a whole: "m.m_x" */
			return true;
		if (tag == DW_TAG_array_type) {
			if (!hvdw_base_type(type, &t) || DW(dwarf_aggregate_size)(&t, &size) || !size)
				return false;
			n = snprintf(buf + *pos, len - *pos, "[%" PRIu64 "]", off / size);
			if (n < 0 || (size_t)n >= len - *pos)
				return false;
			*pos += (size_t)n;
			off %= size;
			*type = t;
			if (owner)
				*owner = NULL;
			continue;
		}
		if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
			return false; /* unions: which member is meant cannot be told */
		if (DW(dwarf_child)(type, &m) != 0)
			return false;
		do {
			if (DW(dwarf_tag)(&m) != DW_TAG_member || !DW(dwarf_diename)(&m) ||
			    !DW(dwarf_attr)(&m, DW_AT_data_member_location, &at) ||
			    DW(dwarf_formudata)(&at, &loc) || !hvdw_base_type(&m, &t) ||
			    DW(dwarf_aggregate_size)(&t, &size))
				continue;
			if (off >= loc && off < loc + size) {
				found = 1;
				break;
			}
		} while (DW(dwarf_siblingof)(&m, &m) == 0);
		if (!found)
			return false;
		n = snprintf(buf + *pos, len - *pos, ".%s", DW(dwarf_diename)(&m));
		if (n < 0 || (size_t)n >= len - *pos)
			return false;
		*pos += (size_t)n;
		off -= loc;
		if (owner)
			*owner = DW(dwarf_diename)(type);
		*type = t;
	}
	return false;
}

static bool member_path(Dwarf_Die *type, uint64_t off, char *buf, size_t len, size_t *pos)
{
	return hvdw_member_path_to(type, off, 0, buf, len, pos, NULL);
}

/* Is die a variable at the static address addr (DW_OP_addr)? */
static bool static_at(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Attribute at, a;
	Dwarf_Addr x;
	Dwarf_Op *op;
	size_t nop;

	if (DW(dwarf_tag)(die) != DW_TAG_variable || !DW(dwarf_attr)(die, DW_AT_location, &at) ||
	    DW(dwarf_getlocation)(&at, &op, &nop) != 0 || nop != 1)
		return false;
	if (op[0].atom == DW_OP_addr)
		return op[0].number == addr;
	/* DWARF 5's index into .debug_addr (clang) */
	return (op[0].atom == DW_OP_addrx || op[0].atom == DW_OP_GNU_addr_index) &&
	       DW(dwarf_getlocation_attr)(&at, &op[0], &a) == 0 && DW(dwarf_formaddr)(&a, &x) == 0 &&
	       x == addr;
}

/* The variable DIE at static address addr among the children of parent (and of its
 * functions and blocks, for function statics), depth levels down. */
bool hvdw_find_static(Dwarf_Die *parent, uint64_t addr, int depth, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (DW(dwarf_child)(parent, &c) != 0)
		return false;
	do {
		int tag = DW(dwarf_tag)(&c);

		if (static_at(&c, addr)) {
			*out = c;
			return true;
		}
		if (depth > 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
				  tag == DW_TAG_namespace || tag == DW_TAG_module) &&
		    hvdw_find_static(&c, addr, depth - 1, out))
			return true;
	} while (DW(dwarf_siblingof)(&c, &c) == 0);
	return false;
}

bool hvdw_static_var(struct mr_hvdw *h, uint64_t addr, Dwarf_Die *var)
{
	Dwarf_Off cu = 0, next;
	size_t hsize;
	Dwarf_Die cudie;

	while (h && DW(dwarf_nextcu)(h->dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (DW(dwarf_offdie)(h->dw, cu + hsize, &cudie) && hvdw_find_static(&cudie, addr, 3, var))
			return true;
		cu = next;
	}
	return false;
}

int mr_hvdw_member(struct mr_hvdw *h, uint64_t var_addr, uint64_t off, char *buf, size_t len)
{
	size_t pos = 0;
	Dwarf_Die var, type;

	if (!len)
		return -ENOENT;
	buf[0] = '\0';
	if (!hvdw_static_var(h, var_addr, &var))
		return -ENOENT;
	if (!hvdw_base_type(&var, &type) || !member_path(&type, off, buf, len, &pos)) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return DW(dwarf_tag)(&type) == DW_TAG_pointer_type ? 0 : -EINVAL;
}

/* The compile unit whose code covers pc. */
bool hvdw_cu_of(struct mr_hvdw *h, uint64_t pc, Dwarf_Die *cudie)
{
	Dwarf_Off cu = 0, next;
	size_t hsize;

	if (DW(dwarf_addrdie)(h->dw, pc, cudie))
		return true;
	while (DW(dwarf_nextcu)(h->dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (DW(dwarf_offdie)(h->dw, cu + hsize, cudie) && DW(dwarf_haspc)(cudie, pc) > 0)
			return true;
		cu = next;
	}
	return false;
}

/* The function DIE among parent's descendants (depth levels down) whose code covers pc. */
bool hvdw_fn_at(Dwarf_Die *parent, uint64_t pc, int depth, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (DW(dwarf_child)(parent, &c) != 0)
		return false;
	do {
		int tag = DW(dwarf_tag)(&c);

		if (tag == DW_TAG_subprogram && DW(dwarf_haspc)(&c, pc) > 0) {
			*out = c;
			return true;
		}
		if (depth > 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_namespace ||
				  tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
		    hvdw_fn_at(&c, pc, depth - 1, out))
			return true;
	} while (DW(dwarf_siblingof)(&c, &c) == 0);
	return false;
}

/* The scopes at pc, innermost first (as dwarf_getscopes gives them), into *scopes (ours to
 * free); their count, or 0. From the compile unit down, or, where the function holding pc
 * lies inside one without code (GCC's OpenMP outlined functions inside the abstract
 * instance of a function inlined everywhere), from that function, which ends the list. */
static int scopes_at(struct mr_hvdw *h, uint64_t pc, Dwarf_Die **scopes)
{
	Dwarf_Die cudie, fn, *in = NULL;
	int n;
	bool add_fn = false;

	*scopes = NULL;
	if (!h || !hvdw_cu_of(h, pc, &cudie))
		return 0;
	n = DW(dwarf_getscopes)(&cudie, pc, &in);
	if (n <= 0) {
		hvdw_dw.free(in);
		in = NULL;
		if (!hvdw_fn_at(&cudie, pc, 4, &fn))
			return 0;
		n = DW(dwarf_getscopes)(&fn, pc, &in);
		n = n > 0 ? n : 0;
		add_fn = !n || DW(dwarf_tag)(&in[n - 1]) != DW_TAG_subprogram;
	}
	*scopes = malloc((size_t)(n + 1) * sizeof(**scopes));
	if (*scopes) {
		if (n)
			memcpy(*scopes, in, (size_t)n * sizeof(**scopes));
		if (add_fn)
			(*scopes)[n++] = fn;
	}
	hvdw_dw.free(in);
	return *scopes ? n : 0;
}

/* The address the frame base of function fn is at pc as register + offset. */
bool hvdw_frame_base(struct mr_hvdw *h, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Op *op, *cfa;
	size_t nop, ncfa;
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi;
	bool ok = false;

	if (!DW(dwarf_attr_integrate)(fn, DW_AT_frame_base, &at) ||
	    DW(dwarf_getlocation_addr)(&at, pc, &op, &nop, 1) != 1 || nop != 1)
		return false;
	if (op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31) {
		*reg = op[0].atom - DW_OP_breg0;
		*off = (int64_t)op[0].number;
		return true;
	}
	if (op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31) { /* clang: the register */
		*reg = op[0].atom - DW_OP_reg0;
		*off = 0;
		return true;
	}
	if (op[0].atom != DW_OP_call_frame_cfa)
		return false;
	for (int i = 0; i < 2 && !ok; i++) {
		cfi = i ? h->eh : DW(dwarf_getcfi)(h->dw);
		if (!cfi || DW(dwarf_cfi_addrframe)(cfi, pc, &fr))
			continue;
		if (DW(dwarf_frame_cfa)(fr, &cfa, &ncfa) == 0 && ncfa == 1 && cfa[0].atom == DW_OP_bregx) {
			*reg = (int)cfa[0].number;
			*off = (int64_t)cfa[0].number2;
			ok = true;
		}
		hvdw_dw.free(fr);
		fr = NULL;
	}
	return ok;
}

/* Is the location expression op[0, n) register reg? */
static bool reg_is(const Dwarf_Op *op, size_t n, int reg)
{
	return n == 1 && ((op[0].atom >= DW_OP_reg0 && op[0].atom <= DW_OP_reg31 &&
			   op[0].atom - DW_OP_reg0 == reg) ||
			  (op[0].atom == DW_OP_regx && op[0].number == (uint64_t)reg));
}

/* Where the location expression op[0, n) puts the variable in the frame: *at = its
 * offset from register reg (fb_reg/fb_off: the frame base, fb_reg -1 when unknown); false
 * when it is not memory relative to reg. */
bool hvdw_mem_at(const Dwarf_Op *op, size_t n, int reg, int fb_reg, int64_t fb_off,
		   int64_t *at)
{
	if (n != 1)
		return false;
	if (op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31 &&
	    op[0].atom - DW_OP_breg0 == reg) {
		*at = (int64_t)op[0].number;
		return true;
	}
	if (op[0].atom == DW_OP_fbreg && fb_reg == reg) {
		*at = fb_off + (int64_t)op[0].number;
		return true;
	}
	return false;
}

/* Is [reg + off] a pointer inside the frame variable die (location op[0, n)): the
 * variable itself or a member of it? Its member path to there into path ("" for the
 * variable itself). */
static bool mem_in(Dwarf_Die *die, const Dwarf_Op *op, size_t n, int reg, int64_t off,
		   int fb_reg, int64_t fb_off, char *path, size_t len, const char **owner)
{
	Dwarf_Die type;
	Dwarf_Word size;
	int64_t at;
	size_t pos = 0;

	path[0] = '\0';
	if (!hvdw_mem_at(op, n, reg, fb_reg, fb_off, &at) || off < at)
		return false;
	if (!hvdw_base_type(die, &type) || DW(dwarf_aggregate_size)(&type, &size) ||
	    (uint64_t)(off - at) >= size)
		return false;
	if (!hvdw_member_path_to(&type, (uint64_t)(off - at), 0, path, len, &pos, owner) ||
	    !holds_pointer(&type)) {
		path[0] = '\0';
		return false;
	}
	return true;
}

/* The path of byte off inside the struct that the pointer variable die points to into
 * path ("->m", "->in.m"), when a pointer member is there. */
static bool pointee_path(Dwarf_Die *die, int64_t off, char *path, size_t len, const char **owner)
{
	Dwarf_Die ptr, type;
	char m[256];
	size_t pos = 0;
	int tag;

	if (off < 0 || !hvdw_base_type(die, &ptr) || DW(dwarf_tag)(&ptr) != DW_TAG_pointer_type ||
	    !hvdw_base_type(&ptr, &type))
		return false;
	tag = DW(dwarf_tag)(&type);
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) ||
	    !hvdw_member_path_to(&type, (uint64_t)off, 0, m, sizeof(m), &pos, owner) || m[0] != '.' ||
	    !holds_pointer(&type))
		return false;
	if (strlen(m) + 2 > len)
		return false;
	memcpy(path, "->", 2);
	memcpy(path + 2, m + 1, strlen(m)); /* its '\0' too */
	return true;
}

/* Is variable location attribute at register reg somewhere in [pc, end)? */
bool hvdw_in_reg(Dwarf_Attribute *at, uint64_t pc, uint64_t end, int reg)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Op *op;
	size_t nop;
	ptrdiff_t o = 0;

	while ((o = DW(dwarf_getlocations)(at, o, &base, &lo, &hi, &op, &nop)) > 0)
		if (lo < end && pc < hi && reg_is(op, nop, reg))
			return true;
	return false;
}

/* Is variable die, with location attribute at, where q says? Its member path into path. */
static bool var_is(Dwarf_Die *die, Dwarf_Attribute *at, const struct mr_hvdw_query *q,
		   int fb_reg, int64_t fb_off, char *path, size_t len, const char **owner)
{
	Dwarf_Op *op;
	size_t nop;

	path[0] = '\0';
	*owner = NULL;
	switch (q->where) {
	case MR_HVDW_REG: {
		Dwarf_Die type;

		return hvdw_in_reg(at, q->pc, q->end, q->reg) && hvdw_base_type(die, &type) &&
		       DW(dwarf_tag)(&type) == DW_TAG_pointer_type;
	}
	case MR_HVDW_FRAME:
		return DW(dwarf_getlocation_addr)(at, q->pc, &op, &nop, 1) == 1 &&
		       mem_in(die, op, nop, q->reg, q->off, fb_reg, fb_off, path, len, owner);
	case MR_HVDW_THROUGH:
		if (q->slot_reg < 0 ? !hvdw_in_reg(at, q->pc, q->pc + 1, q->reg)
				    : DW(dwarf_getlocation_addr)(at, q->pc, &op, &nop, 1) != 1 ||
					      !mem_in(die, op, nop, q->slot_reg, q->slot_off, fb_reg,
						      fb_off, path, len, owner) || path[0])
			return false;
		return pointee_path(die, q->off, path, len, owner);
	}
	return false;
}

/* The name of local variable var with member path path into name: in C++ a member of a
 * class object is named by its class, "Mesh::m_x" for m.m_x or this->m_x (*func "": no
 * function before it), as the class's code names it; else "var" + path. */
static void local_var_name(Dwarf_Die *cu, Dwarf_Die *var, const char *path, const char *owner,
			   char *name, size_t len, const char **func)
{
	const char *m = strrchr(path, '.'), *arrow = strstr(path, "->");
	int lang = DW(dwarf_srclang)(cu);
	bool cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		   lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;

	if (arrow && (!m || m < arrow))
		m = arrow + 1;
	if (cxx && owner && m && !strchr(m, '[')) {
		snprintf(name, len, "%s::%s", owner, m + 1);
		*func = "";
		return;
	}
	snprintf(name, len, "%s%s", DW(dwarf_diename)(var), path);
}

/* mr_hvdw_local's search in scope s of the concrete function (and in the blocks in it that
 * hold q->pc, depth levels down). */
static bool local_in(Dwarf_Die *cu, Dwarf_Die *s, const struct mr_hvdw_query *q, int fb_reg,
		     int64_t fb_off, int depth, char *name, size_t len, const char **func,
		     Dwarf_Die *var, bool *whole)
{
	Dwarf_Die c;
	char path[256];
	const char *owner;

	if (DW(dwarf_child)(s, &c) != 0)
		return false;
	do {
		Dwarf_Attribute at;
		int tag = DW(dwarf_tag)(&c);

		if (depth > 0 && tag == DW_TAG_lexical_block && DW(dwarf_haspc)(&c, q->pc) > 0 &&
		    local_in(cu, &c, q, fb_reg, fb_off, depth - 1, name, len, func, var, whole)) {
			if (!*func)
				*func = DW(dwarf_diename)(s);
			return true;
		}
		if ((tag != DW_TAG_variable &&
		     (tag != DW_TAG_formal_parameter || q->where != MR_HVDW_THROUGH)) ||
		    !DW(dwarf_diename)(&c) || !DW(dwarf_attr_integrate)(&c, DW_AT_location, &at) ||
		    !var_is(&c, &at, q, fb_reg, fb_off, path, sizeof(path), &owner))
			continue;
		if (DW(dwarf_tag)(s) == DW_TAG_subprogram || DW(dwarf_tag)(s) == DW_TAG_inlined_subroutine)
			*func = DW(dwarf_diename)(s);
		local_var_name(cu, &c, path, owner, name, len, func);
		*var = c;
		*whole = !path[0];
		return true;
	} while (DW(dwarf_siblingof)(&c, &c) == 0);
	return false;
}

/* mr_hvdw_local, with the variable's DIE in *var and whether the pointer is the variable
 * itself (not a member or element of it, nor reached through it) in *whole. */
static int local_lookup(struct mr_hvdw *h, const struct mr_hvdw_query *q, char *name, size_t len,
			const char **func, Dwarf_Die *var, bool *whole)
{
	Dwarf_Die *scopes = NULL, c, *fn = NULL, cudie;
	char path[256];
	const char *owner;
	int n, fb_reg = -1, found = 0;
	int64_t fb_off = 0;
	bool frame = q->where == MR_HVDW_FRAME || (q->where == MR_HVDW_THROUGH && q->slot_reg >= 0);

	*func = NULL;
	*whole = false;
	if (!h || !hvdw_cu_of(h, q->pc, &cudie) || (n = scopes_at(h, q->pc, &scopes)) <= 0)
		return -ENOENT;
	for (int i = 0; i < n && !fn; i++) /* the frame's function (inlined scopes come first) */
		if (DW(dwarf_tag)(&scopes[i]) == DW_TAG_subprogram)
			fn = &scopes[i];
	if (fn && frame && !hvdw_frame_base(h, fn, q->pc, &fb_reg, &fb_off))
		fb_reg = -1;
	for (int i = 0; i < n && !found && fn && &scopes[i] <= fn; i++) {
		if (DW(dwarf_child)(&scopes[i], &c) != 0)
			continue;
		do {
			Dwarf_Attribute at;
			int tag = DW(dwarf_tag)(&c);

			if ((tag != DW_TAG_variable &&
			     (tag != DW_TAG_formal_parameter || q->where != MR_HVDW_THROUGH)) ||
			    !DW(dwarf_diename)(&c) || !DW(dwarf_attr_integrate)(&c, DW_AT_location, &at) ||
			    !var_is(&c, &at, q, fb_reg, fb_off, path, sizeof(path), &owner))
				continue;
			found = 1;
			for (int k = i; k < n && !*func; k++) /* the function it belongs to */
				if (DW(dwarf_tag)(&scopes[k]) == DW_TAG_subprogram ||
				    DW(dwarf_tag)(&scopes[k]) == DW_TAG_inlined_subroutine)
					*func = DW(dwarf_diename)(&scopes[k]);
			local_var_name(&cudie, &c, path, owner, name, len, func);
			*var = c;
			*whole = !path[0] && q->where != MR_HVDW_THROUGH;
			break;
		} while (DW(dwarf_siblingof)(&c, &c) == 0);
	}
	free(scopes);
	if (!found && q->where != MR_HVDW_REG) {
		/* memory in code inlined into it: the concrete function's own scopes (a register
		 * there is the inlined function's, which named the pointer for a moment only) */
		Dwarf_Die cf;
		bool frame_ok = true;

		*func = NULL;
		if (!hvdw_fn_at(&cudie, q->pc, 4, &cf))
			return -ENOENT;
		fb_reg = -1;
		if (frame && !hvdw_frame_base(h, &cf, q->pc, &fb_reg, &fb_off))
			frame_ok = false;
		found = frame_ok && local_in(&cudie, &cf, q, fb_reg, fb_off, 8, name, len, func, var,
					     whole);
		*whole = *whole && q->where != MR_HVDW_THROUGH;
	}
	return found && *func ? 0 : -ENOENT;
}

int mr_hvdw_local(struct mr_hvdw *h, const struct mr_hvdw_query *q, char *name, size_t len,
		  const char **func)
{
	Dwarf_Die var;
	bool whole;

	return local_lookup(h, q, name, len, func, &var, &whole);
}

bool hvdw_local_type(struct mr_hvdw *h, const struct mr_hvdw_query *q, Dwarf_Die *type)
{
	const char *func;
	char name[512];
	Dwarf_Die var;
	bool whole = false;

	return local_lookup(h, q, name, sizeof(name), &func, &var, &whole) == 0 && whole &&
	       hvdw_base_type(&var, type);
}

int mr_hvdw_returns(struct mr_hvdw *h, uint64_t pc)
{
	Dwarf_Die *scopes = NULL;
	Dwarf_Attribute at;
	int n, rc = -ENOENT;

	if ((n = scopes_at(h, pc, &scopes)) <= 0)
		return -ENOENT;
	for (int i = 0; i < n && rc == -ENOENT; i++)
		if (DW(dwarf_tag)(&scopes[i]) == DW_TAG_subprogram)
			rc = DW(dwarf_attr_integrate)(&scopes[i], DW_AT_type, &at) != NULL;
	free(scopes);
	return rc;
}

int mr_hvdw_func_start(struct mr_hvdw *h, uint64_t pc, uint64_t *start)
{
	Dwarf_Die cudie, fn;
	Dwarf_Addr base, lo, hi;
	ptrdiff_t o = 0;

	/* the concrete function: dwarf_getscopes gives an inlined body's abstract scopes */
	if (!h || !hvdw_cu_of(h, pc, &cudie) || !hvdw_fn_at(&cudie, pc, 4, &fn))
		return -ENOENT;
	/* the range holding pc (a function split in a hot and a cold part has two) */
	while ((o = DW(dwarf_ranges)(&fn, o, &base, &lo, &hi)) > 0)
		if (lo <= pc && pc < hi) {
			*start = lo;
			return 0;
		}
	return -ENOENT;
}
