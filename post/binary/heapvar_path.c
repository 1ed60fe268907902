/* post/binary/heapvar_path.c - the DWARF names of heapvar's access paths (see heapvar_dwarf.h:
 * mr_hvdw_path, mr_hvdw_object, mr_hvdw_arg_size): the variable a path starts at, then
 * each step through the types. */
#include "heapvar.h"
#include "heapvar_dwarf.h"
#include "heapvar_dwarf_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append text t to buf at *pos. */
static bool put(char *buf, size_t len, size_t *pos, const char *t)
{
	size_t n = strlen(t);

	if (*pos + n >= len)
		return false;
	memcpy(buf + *pos, t, n + 1);
	*pos += n;
	return true;
}

/* One step of an access path onto buf at *pos: through the pointer of type *t first when
 * deref ("->m" for a member of the struct it points to, "[]" for an element of what it
 * points into); an element ("[]") of the array *t is when indexed; then the member or
 * element at the step's offset. *t becomes the type of what is there. */
static bool step_path(Dwarf_Die *t, const struct mr_hv_step *st, bool deref, uint64_t limit,
		      char *buf, size_t len, size_t *pos, const char **owner)
{
	Dwarf_Die e;
	Dwarf_Word size;
	int64_t off = st->off;
	size_t at;
	bool arrow = false, elem = st->indexed, ref = false;
	int tag;

	if (deref) {
		tag = DW(dwarf_tag)(t);
		ref = tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type;
		if ((tag != DW_TAG_pointer_type && !ref) || !hvdw_base_type(t, &e))
			return false;
		tag = DW(dwarf_tag)(&e);
		arrow = !st->indexed && (tag == DW_TAG_structure_type || tag == DW_TAG_class_type);
		elem = !arrow;
	} else if (elem) {
		if (DW(dwarf_tag)(t) != DW_TAG_array_type || !hvdw_base_type(t, &e))
			return false;
	}
	if (deref || elem)
		*t = e;
	if (elem) {
		if (DW(dwarf_aggregate_size)(t, &size) || !size || !put(buf, len, pos, "[]"))
			return false;
		off = (off % (int64_t)size + (int64_t)size) % (int64_t)size;
	}
	at = *pos;
	if (owner)
		*owner = NULL;
	if (off < 0 || !hvdw_member_path_to(t, (uint64_t)off, limit, buf, len, pos, owner))
		return false;
	if (arrow && !ref) { /* ".m" -> "->m" (through a reference: ".m") */
		if (*pos == at || buf[at] != '.' || *pos + 1 >= len)
			return false;
		memmove(buf + at + 2, buf + at + 1, *pos - at);
		buf[at] = '-';
		buf[at + 1] = '>';
		*pos += 1;
	}
	return true;
}

/* The position among a function's integer and pointer parameters (SysV x86-64) of the
 * argument register with DWARF number reg, or -1. */
static int arg_index(int reg)
{
	static const int order[] = { 5, 4, 1, 2, 8, 9 }; /* rdi rsi rdx rcx r8 r9 */

	for (int i = 0; i < 6; i++)
		if (order[i] == reg)
			return i;
	return -1;
}

/* Is the variable or parameter c where p's root is at pc p->at? Its offset into *inner.
 * An ARG root is the parameter passed in its register: by position (the code may keep it
 * anywhere, and -O0 code in the frame). *argn counts the integer and pointer parameters
 * seen before c. */
static bool root_is(Dwarf_Die *c, const struct mr_hv_path *p, int fb_reg, int64_t fb_off,
		    int64_t *inner, int *argn)
{
	Dwarf_Attribute at;
	Dwarf_Die type;
	Dwarf_Word size;
	Dwarf_Op *op;
	size_t nop;
	int64_t loc;
	int tag = DW(dwarf_tag)(c);

	if (p->root == MR_HV_ROOT_ARG) {
		int k, ttag;

		if (tag != DW_TAG_formal_parameter || !hvdw_base_type(c, &type))
			return false;
		ttag = DW(dwarf_tag)(&type);
		if (ttag == DW_TAG_base_type && !DW(dwarf_aggregate_size)(&type, &size) && size > 8)
			return false; /* long double: memory, not a register */
		if (ttag == DW_TAG_base_type) { /* float and double go in xmm registers */
			Dwarf_Attribute enc;
			Dwarf_Word e;

			if (DW(dwarf_attr)(&type, DW_AT_encoding, &enc) && !DW(dwarf_formudata)(&enc, &e) &&
			    (e == DW_ATE_float || e == DW_ATE_complex_float))
				return false;
		}
		k = (*argn)++;
		*inner = 0;
		return k == arg_index(p->reg);
	}
	if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) ||
	    !DW(dwarf_attr_integrate)(c, DW_AT_location, &at))
		return false;
	if (p->root == MR_HV_ROOT_REG) {
		*inner = 0;
		return hvdw_in_reg(&at, p->at, p->at + 1, p->reg);
	}
	if (DW(dwarf_getlocation_addr)(&at, p->at, &op, &nop, 1) != 1 ||
	    !hvdw_mem_at(op, nop, p->reg, fb_reg, fb_off, &loc) || p->off < loc ||
	    !hvdw_base_type(c, &type) || DW(dwarf_aggregate_size)(&type, &size) ||
	    (uint64_t)(p->off - loc) >= size)
		return false;
	*inner = p->off - loc;
	return true;
}

/* The variable of scope s (a function, or a block inside it that holds pc p->at, depth
 * levels down) where p's root is, into *var; *func: the function whose it is. */
static bool find_in(Dwarf_Die *s, const struct mr_hv_path *p, int fb_reg, int64_t fb_off,
		    int depth, Dwarf_Die *var, int64_t *inner, const char **func)
{
	Dwarf_Die c;
	int argn = 0;

	if (DW(dwarf_child)(s, &c) != 0)
		return false;
	do {
		int tag = DW(dwarf_tag)(&c);

		if (root_is(&c, p, fb_reg, fb_off, inner, &argn)) {
			*var = c;
			*func = DW(dwarf_diename)(s);
			return true;
		}
		if (depth > 0 && tag == DW_TAG_lexical_block && DW(dwarf_haspc)(&c, p->at) > 0 &&
		    find_in(&c, p, fb_reg, fb_off, depth - 1, var, inner, func)) {
			if (tag == DW_TAG_lexical_block && !*func)
				*func = DW(dwarf_diename)(s);
			return true;
		}
	} while (DW(dwarf_siblingof)(&c, &c) == 0);
	return false;
}

/* The local or parameter where p's FRAME, REG or ARG root is at pc p->at into *var, the
 * offset of the root's location inside it into *inner, its function into *func: searched
 * in the concrete function holding pc and the blocks in it that hold pc (dwarf_getscopes
 * gives an inlined body's abstract scopes, not its caller's). */
static bool find_local(struct mr_hvdw *h, const struct mr_hv_path *p, Dwarf_Die *var,
		       int64_t *inner, const char **func)
{
	Dwarf_Die cudie, fn;
	int fb_reg = -1;
	int64_t fb_off = 0;

	*func = NULL;
	if (!hvdw_cu_of(h, p->at, &cudie) || !hvdw_fn_at(&cudie, p->at, 4, &fn))
		return false;
	if (p->root == MR_HV_ROOT_FRAME && !hvdw_frame_base(h, &fn, p->at, &fb_reg, &fb_off))
		fb_reg = -1;
	return find_in(&fn, p, fb_reg, fb_off, 8, var, inner, func) && *func;
}

/* mr_hvdw_path, the last step down to an object of `limit` bytes or fewer (0: a scalar),
 * *owner the struct or class whose member it ends at (NULL: none). */
static int path_name(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		     uint64_t limit, char *name, size_t len, const char **func, const char **owner,
		     Dwarf_Die *type_out)
{
	Dwarf_Die var, type;
	Dwarf_Attribute at;
	struct mr_hv_step first;
	size_t pos = 0;
	int64_t inner = 0;
	bool found = false, own_name;

	*func = NULL;
	if (!h || !len || !p->nstep || p->nstep > MR_HV_MAX_STEPS)
		return -ENOENT;
	name[0] = '\0';
	if (p->root == MR_HV_ROOT_STATIC) {
		found = hvdw_static_var(h, var_addr, &var);
		inner = (int64_t)(p->at - var_addr);
	} else {
		found = find_local(h, p, &var, &inner, func);
	}
	if (!found || !hvdw_base_type(&var, &type))
		return -ENOENT;
	/* a variable of the compiler's (GCC's .omp_data_i): named by what it leads to */
	own_name = p->root != MR_HV_ROOT_STATIC && DW(dwarf_diename)(&var) &&
		   !DW(dwarf_attr_integrate)(&var, DW_AT_artificial, &at);
	if (own_name && !put(name, len, &pos, DW(dwarf_diename)(&var)))
		return -ENOENT;
	first = p->step[0];
	first.off += inner;
	for (unsigned k = 0; k < p->nstep; k++)
		if (!step_path(&type, k ? &p->step[k] : &first, k > 0, k + 1 == p->nstep ? limit : 0,
			       name, len, &pos, owner))
			return -ENOENT;
	if (p->root != MR_HV_ROOT_STATIC && !own_name) { /* "->m..." or ".m...": "m..." */
		size_t cut = !strncmp(name, "->", 2) ? 2 : name[0] == '.' ? 1 : 0;

		if (!cut)
			return -ENOENT;
		memmove(name, name + cut, strlen(name + cut) + 1);
	}
	if (type_out)
		*type_out = type;
	return limit || DW(dwarf_tag)(&type) == DW_TAG_pointer_type ? 0 : -EINVAL;
}

int mr_hvdw_path(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr, char *name,
		 size_t len, const char **func)
{
	const char *owner;

	return path_name(h, p, var_addr, 0, name, len, func, &owner, NULL);
}

bool hvdw_path_type(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		    Dwarf_Die *type)
{
	const char *owner, *func;
	char name[512];

	return path_name(h, p, var_addr, 0, name, sizeof(name), &func, &owner, type) == 0;
}

int mr_hvdw_object(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		   uint64_t size, char *name, size_t len, const char **func)
{
	const char *owner = NULL, *m;
	char path[512];
	int rc = path_name(h, p, var_addr, size ? size : 1, path, sizeof(path), func, &owner, NULL);

	if (rc)
		return rc;
	m = strrchr(path, '.');
	if (owner && m && (!strrchr(path, '>') || strrchr(path, '>') < m)) {
		snprintf(name, len, "%s::%s", owner, m + 1);
		*func = NULL;
	} else if (owner && (m = strrchr(path, '>')) && m > path && m[-1] == '-') {
		snprintf(name, len, "%s::%s", owner, m + 1);
		*func = NULL;
	} else {
		snprintf(name, len, "%s", path);
	}
	return 0;
}

int mr_hvdw_arg_size(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t *size)
{
	Dwarf_Die var, type, pointee;
	const char *func = NULL;
	int64_t inner;
	Dwarf_Word n;
	int tag;

	if (!h || p->root != MR_HV_ROOT_ARG || !find_local(h, p, &var, &inner, &func) ||
	    !hvdw_base_type(&var, &type))
		return -ENOENT;
	tag = DW(dwarf_tag)(&type);
	if ((tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type &&
	     tag != DW_TAG_rvalue_reference_type) || !hvdw_base_type(&type, &pointee) ||
	    DW(dwarf_aggregate_size)(&pointee, &n) || !n)
		return -ENOENT;
	*size = n;
	return 0;
}
