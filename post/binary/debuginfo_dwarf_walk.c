/* post/binary/debuginfo_dwarf_walk.c - the CU loop and the walk over each CU's DIE tree: address
 * ranges of functions and inlined code ("scopes") and variables with a static or TLS
 * location. */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "hash.h"
#include "search.h"

/* ---- DWARF: scopes (functions and inlined code) ---- */

/* The scope being added through di_die_ranges: its name, caller, depth and DIE. */
struct scope_add {
	const char *name, *caller;
	uint32_t depth;
	uint64_t die;
};

/* Record [lo, hi) as code of function sa->name (inlined into sa->caller at nesting
 * sa->depth); empty ranges and ranges outside executable segments are dropped. 0 or
 * -ENOMEM. */
static int add_scope(struct di_ctx *c, void *arg, uint64_t lo, uint64_t hi)
{
	const struct scope_add *sa = arg;
	struct mr_debuginfo *d = c->d;
	struct scope_ent *s;

	if (hi <= lo || !di_in_segment(d, lo, 1))
		return 0;
	if (di_grow((void **)&d->scopes, &d->capscopes, d->nscopes, sizeof(*d->scopes)))
		return di_fail(c, -ENOMEM, "out of memory");
	s = &d->scopes[d->nscopes++];
	s->lo = lo;
	s->hi = hi;
	s->name = sa->name;
	s->caller = sa->caller;
	s->depth = sa->depth;
	s->parent = NONE;
	s->die = sa->die;
	return 0;
}

/* Hand each address range of die (low_pc/high_pc, or DW_AT_ranges: DWARF 4 .debug_ranges
 * or DWARF 5 .debug_rnglists) to fn; stops at fn's first non-zero return. 0 (also for a
 * DIE without ranges), fn's return or -errno (c->err set). */
int di_die_ranges(struct di_ctx *c, Dwarf_Die die, di_range_fn *fn, void *arg)
{
	Dwarf_Error e = NULL;
	Dwarf_Addr lo, hi;
	Dwarf_Half form;
	enum Dwarf_Form_Class cls;
	Dwarf_Attribute a;
	Dwarf_Off doff = 0;
	int rc;

	dwarf_dieoffset(die, &doff, &e);
	rc = dwarf_lowpc(die, &lo, &e);
	if (rc == DW_DLV_OK) {
		rc = dwarf_highpc_b(die, &hi, &form, &cls, &e);
		if (rc == DW_DLV_NO_ENTRY)
			return fn(c, arg, lo, lo + 1);
		if (rc != DW_DLV_OK)
			return di_dwfail(c, e, "reading DW_AT_high_pc", doff);
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		return fn(c, arg, lo, hi);
	}
	if (rc == DW_DLV_ERROR)
		return di_dwfail(c, e, "reading DW_AT_low_pc", doff);

	rc = dwarf_attr(die, DW_AT_ranges, &a, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	if (rc != DW_DLV_OK || dwarf_whatform(a, &form, &e) != DW_DLV_OK)
		return di_dwfail(c, e, "reading DW_AT_ranges", doff);

	if (c->cu_ver >= 5 || form == DW_FORM_rnglistx) {
		Dwarf_Rnglists_Head head;
		Dwarf_Unsigned val, count = 0, goff;

		rc = form == DW_FORM_rnglistx ? dwarf_formudata(a, &val, &e)
					      : dwarf_global_formref(a, &val, &e);
		if (rc == DW_DLV_OK)
			rc = dwarf_rnglists_get_rle_head(a, form, val, &head, &count, &goff, &e);
		dwarf_dealloc_attribute(a);
		if (rc != DW_DLV_OK)
			return di_dwfail(c, e, "reading .debug_rnglists for DW_AT_ranges", doff);
		for (Dwarf_Unsigned i = 0; i < count; i++) {
			unsigned len, code;
			Dwarf_Unsigned r1, r2, c1, c2;
			Dwarf_Bool noaddr = 0;

			rc = dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
							       &noaddr, &c1, &c2, &e);
			if (rc != DW_DLV_OK) {
				dwarf_dealloc_rnglists_head(head);
				return di_dwfail(c, e, "reading a .debug_rnglists entry", doff);
			}
			if (noaddr || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
			    code == DW_RLE_base_addressx)
				continue;
			rc = fn(c, arg, c1, c2);
			if (rc) {
				dwarf_dealloc_rnglists_head(head);
				return rc;
			}
		}
		dwarf_dealloc_rnglists_head(head);
		return 0;
	} else {
		Dwarf_Off off, real;
		Dwarf_Ranges *r;
		Dwarf_Signed n;
		Dwarf_Unsigned bytes;
		Dwarf_Addr base = c->cu_base;

		rc = dwarf_global_formref(a, &off, &e);
		dwarf_dealloc_attribute(a);
		if (rc == DW_DLV_OK)
			rc = dwarf_get_ranges_b(c->dbg, off, die, &real, &r, &n, &bytes, &e);
		if (rc == DW_DLV_NO_ENTRY)
			return 0;
		if (rc != DW_DLV_OK)
			return di_dwfail(c, e, "reading .debug_ranges for DW_AT_ranges", doff);
		for (Dwarf_Signed i = 0; i < n; i++) {
			if (r[i].dwr_type == DW_RANGES_END)
				break;
			if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = r[i].dwr_addr2;
				continue;
			}
			rc = fn(c, arg, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
			if (rc) {
				dwarf_ranges_dealloc(c->dbg, r, n);
				return rc;
			}
		}
		dwarf_ranges_dealloc(c->dbg, r, n);
		return 0;
	}
}

/* ---- DWARF: variables ---- */

/* Decode a location (attribute a of die) that names static storage: [DW_OP_addr a
 * (DW_OP_plus_uconst k)] or [DW_OP_const*u o (DW_OP_plus_uconst k)
 * DW_OP_GNU_push_tls_address/form_tls_address]; DW_OP_addrx/constx (clang's DWARF 5) are
 * looked up in .debug_addr.
 * 1 with *addr and *tls set, 0 if the location is anything else (registers, frame, lists).
 * DW_DLV_ERROR is returned as -1 with *e set. */
static int static_location(Dwarf_Die die, Dwarf_Attribute a, uint64_t *addr, int *tls,
			   Dwarf_Error *e)
{
	Dwarf_Loc_Head_c head;
	Dwarf_Unsigned count, nops, op1, op2, op3, raw1, raw2, raw3, boff, rawlo, rawhi, eoff,
		loff;
	Dwarf_Small lle, src, atom;
	Dwarf_Bool noaddr;
	Dwarf_Addr lo, hi;
	Dwarf_Locdesc_c desc;
	unsigned kind;
	Dwarf_Half form;
	uint64_t val = 0;
	int have = 0, ok = 0;

	/* cheap filter first: a location list (locals at -O2) or an expression that does not
	 * start with an address or a constant (DW_OP_fbreg, registers) is not static storage */
	if (dwarf_whatform(a, &form, e) != DW_DLV_OK)
		return -1;
	if (form != DW_FORM_exprloc && form != DW_FORM_block1 && form != DW_FORM_block2 &&
	    form != DW_FORM_block4 && form != DW_FORM_block)
		return 0;
	if (form == DW_FORM_exprloc) {
		Dwarf_Unsigned elen;
		Dwarf_Ptr bytes;

		if (dwarf_formexprloc(a, &elen, &bytes, e) != DW_DLV_OK)
			return -1;
		if (!elen)
			return 0;
		switch (*(const unsigned char *)bytes) {
		case DW_OP_addr:
		case DW_OP_addrx:
		case DW_OP_GNU_addr_index:
		case DW_OP_constx:
		case DW_OP_GNU_const_index:
		case DW_OP_const1u:
		case DW_OP_const2u:
		case DW_OP_const4u:
		case DW_OP_const8u:
		case DW_OP_constu:
			break;
		default:
			return 0;
		}
	}
	if (dwarf_get_loclist_c(a, &head, &count, e) != DW_DLV_OK)
		return -1;
	if (dwarf_get_loclist_head_kind(head, &kind, e) != DW_DLV_OK)
		goto out_err;
	if (kind != DW_LKIND_expression || count != 1)
		goto out;
	if (dwarf_get_locdesc_entry_d(head, 0, &lle, &rawlo, &rawhi, &noaddr, &lo, &hi, &nops,
				      &desc, &src, &eoff, &loff, e) != DW_DLV_OK)
		goto out_err;
	*tls = 0;
	for (Dwarf_Unsigned i = 0; i < nops; i++) {
		if (dwarf_get_location_op_value_d(desc, i, &atom, &op1, &op2, &op3, &raw1, &raw2,
						  &raw3, &boff, e) != DW_DLV_OK)
			goto out_err;
		switch (atom) {
		case DW_OP_addrx:
		case DW_OP_GNU_addr_index:
			if (dwarf_debug_addr_index_to_addr(die, op1, &op1, e) != DW_DLV_OK)
				goto out_err;
			/* fall through */
		case DW_OP_addr:
			if (have)
				goto out;
			val = op1;
			have = 1;
			break;
		case DW_OP_constx:
		case DW_OP_GNU_const_index:
			if (dwarf_debug_addr_index_to_addr(die, op1, &op1, e) != DW_DLV_OK)
				goto out_err;
			/* fall through */
		case DW_OP_const1u:
		case DW_OP_const2u:
		case DW_OP_const4u:
		case DW_OP_const8u:
		case DW_OP_constu:
			if (have)
				goto out;
			val = op1;
			have = 2; /* only valid as a TLS offset */
			break;
		case DW_OP_plus_uconst:
			if (!have)
				goto out;
			val += op1;
			break;
		case DW_OP_GNU_push_tls_address:
		case DW_OP_form_tls_address:
			if (have != 2 || *tls)
				goto out;
			*tls = 1;
			break;
		default:
			goto out;
		}
	}
	ok = have == 1 || (have == 2 && *tls);
	*addr = val;
out:
	dwarf_loc_head_c_dealloc(head);
	return ok;
out_err:
	dwarf_loc_head_c_dealloc(head);
	return -1;
}

/* 1 if type DIE t (consumed) is a Fortran array descriptor: an array type whose data
 * lives where DW_AT_data_location says (gfortran: push_object_address; deref, so the
 * data pointer is the descriptor's first word). */
static int is_descriptor(struct di_ctx *c, Dwarf_Die t)
{
	Dwarf_Error e = NULL;
	Dwarf_Attribute a;
	Dwarf_Half tag;
	int r = 0;

	if (!t)
		return 0;
	if (dwarf_tag(t, &tag, &e) == DW_DLV_OK && tag == DW_TAG_array_type &&
	    dwarf_attr(t, DW_AT_data_location, &a, &e) == DW_DLV_OK) {
		Dwarf_Block *b = NULL;

		/* exactly DW_OP_push_object_address; DW_OP_deref: data at *descriptor */
		if (dwarf_formblock(a, &b, &e) == DW_DLV_OK) {
			const unsigned char *op = b->bl_data;

			r = b->bl_len == 2 && op[0] == DW_OP_push_object_address &&
			    op[1] == DW_OP_deref;
			dwarf_dealloc(c->dbg, b, DW_DLA_BLOCK);
		}
		dwarf_dealloc_attribute(a);
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	dwarf_dealloc_die(t);
	return r;
}

/* Record a DW_TAG_variable with a static location, named by its scope sc. */
static int do_variable(struct di_ctx *c, Dwarf_Die die, const struct var_scope *sc)
{
	const char *func = sc->func;
	int in_common = sc->common != NULL, desc = 0;
	struct mr_debuginfo *d = c->d;
	Dwarf_Error e = NULL;
	Dwarf_Attribute a;
	Dwarf_Die owner;
	Dwarf_Off doff = 0;
	const char *name;
	struct var_tab *t;
	struct mr_var *v;
	uint64_t addr = 0, size = 0;
	int tls = 0, rc, external = 0;
	int64_t file = -1, line = 0;
	const char *fname = NULL;

	dwarf_dieoffset(die, &doff, &e);
	rc = dwarf_attr(die, DW_AT_location, &a, &e);
	if (rc == DW_DLV_NO_ENTRY) /* a declaration (a definition may be named through it), */
		return func ? 0 : di_scope_decl(c, die, sc->ns); /* optimised out, a constant */
	if (rc != DW_DLV_OK)
		return di_dwfail(c, e, "reading DW_AT_location", doff);
	rc = static_location(die, a, &addr, &tls, &e);
	dwarf_dealloc_attribute(a);
	if (rc < 0)
		return di_dwfail(c, e, "reading the location of a variable", doff);
	if (!rc || (!tls && !di_in_segment(d, addr, 0)))
		return 0;
	if (di_die_name(c, die, &name, &e) != DW_DLV_OK)
		return di_dwfail(c, e, "reading the name of a variable", doff);
	if (!name)
		return 0;

	/* the type: the definition's own (a completed array) first, else the declaration's */
	rc = di_chase_attr(c, die, DW_AT_type, &a, &owner, &e);
	if (rc == DW_DLV_ERROR)
		return di_dwfail(c, e, "reading the type of a variable", doff);
	if (rc == DW_DLV_OK) {
		dwarf_dealloc_attribute(a);
		desc = is_descriptor(c, di_type_of(c, owner));
		/* a descriptor's size is the ELF symbol's (see fix_descriptors) */
		size = desc ? 0 : di_type_size(c, di_type_of(c, owner), 0);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (di_chase_attr(c, die, DW_AT_external, &a, &owner, &e) == DW_DLV_OK) {
		Dwarf_Bool b = 0;

		if (dwarf_formflag(a, &b, &e) == DW_DLV_OK)
			external = !!b;
		dwarf_dealloc_attribute(a);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (di_chase_attr(c, die, DW_AT_decl_file, &a, &owner, &e) == DW_DLV_OK) {
		Dwarf_Off cu_off = 0, cu_len = 0;
		int same_cu = owner == die;

		if (!same_cu &&
		    dwarf_die_CU_offset_range(owner, &cu_off, &cu_len, &e) == DW_DLV_OK)
			same_cu = cu_off == c->cu_off;
		if (di_attr_const(a, &file, &e) != DW_DLV_OK)
			file = -1;
		else if (same_cu)
			fname = di_decl_file(c, file);
		else
			fname = di_foreign_decl_file(c, owner, file); /* LTO: declared in another CU */
		dwarf_dealloc_attribute(a);
		di_die_const(c, owner, DW_AT_decl_line, &line);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);

	t = tls ? &d->dtls : &d->dvars;
	if (di_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
		return di_fail(c, -ENOMEM, "out of memory");
	v = &t->v[t->n++];
	memset(v, 0, sizeof(*v));
	v->file = fname;
	v->line = line > 0 && line < (int64_t)1 << 31 ? (unsigned)line : 0;
	v->addr = addr;
	v->size = size;
	v->tls = tls;
	v->descriptor = desc;
	if (tls)
		v->kind = MR_VAR_TLS;
	else if (func && !in_common && !external)
		v->kind = MR_VAR_FUNC_STATIC;
	else
		v->kind = external || in_common ? MR_VAR_GLOBAL : MR_VAR_STATIC;
	return di_scope_name(c, die, sc, external, tls, t->n - 1, name);
}

/* Walk the children of die. sc: the enclosing (possibly inlined) function, Fortran module
 * and COMMON block; depth: inline nesting depth of that function. */
int di_walk(struct di_ctx *c, Dwarf_Die die, const struct var_scope *sc, uint32_t depth,
	    int level)
{
	const char *func = sc->func;
	Dwarf_Error e = NULL;
	Dwarf_Die child;
	Dwarf_Off doff = 0;
	int rc;

	if (level > 64)
		return 0; /* absurd nesting: a corrupt file; don't recurse further */
	rc = dwarf_child(die, &child, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	dwarf_dieoffset(die, &doff, NULL);
	if (rc != DW_DLV_OK)
		return di_dwfail(c, e, "reading the children of a DIE", doff);
	while (child) {
		Dwarf_Half tag;
		const char *name;
		struct var_scope in = { func, sc->module, NULL, sc->ns };

		if (dwarf_tag(child, &tag, &e) != DW_DLV_OK) {
			dwarf_dieoffset(child, &doff, NULL);
			dwarf_dealloc_die(child);
			return di_dwfail(c, e, "reading a DIE tag", doff);
		}
		rc = 0;
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			dwarf_dieoffset(child, &doff, NULL);
			if (di_function_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = di_dwfail(c, e, "reading a function name", doff);
				break;
			}
			if (tag == DW_TAG_subprogram) {
				struct scope_add sa = { name, NULL, 0, doff };

				rc = di_die_ranges(c, child, add_scope, &sa);
				in.func = name;
				if (!rc)
					rc = di_walk(c, child, &in, 0, level + 1);
			} else {
				struct scope_add sa = { name, func, depth + 1, doff };

				rc = di_die_ranges(c, child, add_scope, &sa);
				in.func = name ? name : func;
				if (!rc)
					rc = di_walk(c, child, &in, depth + 1, level + 1);
			}
			break;
		case DW_TAG_variable:
			rc = do_variable(c, child, sc);
			break;
		case DW_TAG_common_block:
			/* a COMMON block repeats in every subprogram that declares it: its
			 * members are deduplicated by address and name (finish_vars) */
			dwarf_dieoffset(child, &doff, NULL);
			if (di_die_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = di_dwfail(c, e, "reading a COMMON block name", doff);
				break;
			}
			in.common = name ? name : "";
			rc = di_walk(c, child, &in, depth, level + 1);
			break;
		case DW_TAG_module:
			dwarf_dieoffset(child, &doff, NULL);
			if (di_die_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = di_dwfail(c, e, "reading a module name", doff);
				break;
			}
			in.module = name;
			rc = di_walk(c, child, &in, depth, level + 1);
			break;
		case DW_TAG_namespace:
			in.ns = di_scope_enter(c, child, sc->ns);
			rc = in.ns == NONE ? di_fail(c, -ENOMEM, "out of memory")
					   : di_walk(c, child, &in, depth, level + 1);
			break;
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			/* static data members: C++, declared outside functions */
			if (c->cu_classes && !func)
				rc = di_scope_class(c, child, sc->ns, level + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_with_stmt:
			in.common = sc->common;
			rc = di_walk(c, child, &in, depth, level + 1);
			break;
		default:
			break;
		}
		if (rc) {
			dwarf_dealloc_die(child);
			return rc;
		}
		rc = di_next_sibling(c, &child);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- DWARF: the CU loop ---- */

/* Make cu the current compilation unit of c: its version, base address, language's
 * default lower bound; its file list is read when first needed (di_decl_file). */
void di_cu_begin(struct di_ctx *c, Dwarf_Die cu)
{
	Dwarf_Error e = NULL;
	Dwarf_Half offsz;
	Dwarf_Addr base;
	int64_t lang = 0;

	dwarf_get_version_of_die(cu, &c->cu_ver, &offsz);
	c->cu_base = dwarf_lowpc(cu, &base, &e) == DW_DLV_OK ? base : 0;
	if (e) {
		dwarf_dealloc_error(c->dbg, e);
		e = NULL;
	}
	di_die_const(c, cu, DW_AT_language, &lang);
	di_scope_unit(c, cu, lang);
	c->lower_default = lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 ||
				   lang == DW_LANG_Fortran95 || lang == DW_LANG_Fortran03 ||
				   lang == DW_LANG_Fortran08 || lang == DW_LANG_Ada83 ||
				   lang == DW_LANG_Ada95 ? 1 : 0;
	c->cu_die = cu;
	c->srcfiles = NULL;
	c->nsrcfiles = 0;
	c->srcfiles_tried = 0;
}

/* Free what di_cu_begin's unit loaded (its file list); the CU DIE stays the caller's. */
void di_cu_end(struct di_ctx *c)
{
	if (c->srcfiles) {
		for (Dwarf_Signed i = 0; i < c->nsrcfiles; i++)
			dwarf_dealloc(c->dbg, c->srcfiles[i], DW_DLA_STRING);
		dwarf_dealloc(c->dbg, c->srcfiles, DW_DLA_LIST);
		c->srcfiles = NULL;
	}
	c->cu_die = NULL;
}

/* Was the unit at header offset off read already (c->skip)? */
static int skipped(const struct di_ctx *c, Dwarf_Off off)
{
	for (size_t i = 0; i < c->nskip; i++)
		if (c->skip[i] == off)
			return 1;
	return 0;
}

int di_read_cu(struct di_ctx *c, Dwarf_Die cu)
{
	int rc;

	di_cu_begin(c, cu);
	rc = di_read_lines(c, cu);
	if (!rc) {
		struct var_scope top = { NULL, NULL, NULL, NONE };

		rc = di_walk(c, cu, &top, 0, 0);
	}
	di_cu_end(c);
	return rc;
}

/* The units of c->dbg, each in turn (those in c->skip left out). 0 or -errno. */
static int read_units(struct di_ctx *c)
{
	Dwarf_Error e = NULL;
	int rc;

	for (;;) {
		Dwarf_Unsigned hlen, toff, next;
		Dwarf_Half ver, asz, lsz, esz, ut;
		Dwarf_Off abbr;
		Dwarf_Sig8 sig;
		Dwarf_Die cu;

		rc = dwarf_next_cu_header_d(c->dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz, &sig,
					    &toff, &next, &ut, &e);
		if (rc == DW_DLV_NO_ENTRY)
			break;
		if (rc != DW_DLV_OK)
			return di_dwfail(c, e, "reading a CU header", c->cu_off);
		rc = dwarf_siblingof_b(c->dbg, NULL, 1, &cu, &e);
		if (rc == DW_DLV_ERROR)
			return di_dwfail(c, e, "reading a CU DIE", c->cu_off);
		if (rc == DW_DLV_OK) {
			Dwarf_Off cuoff = 0, culen = 0;

			if (dwarf_die_CU_offset_range(cu, &cuoff, &culen, &e) == DW_DLV_OK)
				c->cu_off = cuoff;
			if (ut != DW_UT_type && ut != DW_UT_split_type && !skipped(c, c->cu_off))
				rc = di_read_cu(c, cu);
			else
				rc = 0;
			dwarf_dealloc_die(cu);
			if (rc)
				return rc;
		}
		c->cu_off = next;
	}
	return 0;
}

/* Read all CUs of .debug_info. 0 (also when there is no DWARF) or -errno. */
int di_read_dwarf(struct di_ctx *c, int fd)
{
	Dwarf_Error e = NULL;
	int rc, rc2;

	rc = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &c->dbg, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	if (rc != DW_DLV_OK) {
		const char *msg = e ? dwarf_errmsg(e) : "?";

		rc = di_fail(c, -EINVAL, "cannot read DWARF: %s", msg ? msg : "?");
		if (e)
			dwarf_dealloc_error(NULL, e);
		c->dbg = NULL;
		return rc;
	}
	rc = read_units(c);
	rc2 = di_scope_finish(c); /* also after an error: it frees */
	return rc ? rc : rc2;
}
