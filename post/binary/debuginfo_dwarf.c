/* post/binary/debuginfo_dwarf.c - DWARF through libdwarf: attribute and type helpers and the
 * line tables, used by the DIE walk (debuginfo_dwarf_walk.c). */
#include "debuginfo_impl.h"
#include "demangle.h"

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

/* Report a libdwarf error (what we were doing, where, and libdwarf's message), free it. */
int di_dwfail(struct di_ctx *c, Dwarf_Error e, const char *what, Dwarf_Off off)
{
	const char *msg = e ? dwarf_errmsg(e) : "malformed DWARF";
	int rc = di_fail(c, -EINVAL, "%s at .debug_info offset 0x%llx (CU 0x%llx): %s", what,
			 (unsigned long long)off, (unsigned long long)c->cu_off, msg ? msg : "?");

	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return rc;
}

int di_next_sibling(struct di_ctx *c, Dwarf_Die *child)
{
	Dwarf_Die next = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Off off = 0;
	int rc = dwarf_siblingof_b(c->dbg, *child, 1, &next, &e);

	dwarf_dieoffset(*child, &off, NULL);
	dwarf_dealloc_die(*child);
	*child = rc == DW_DLV_OK ? next : NULL;
	return rc == DW_DLV_ERROR ? di_dwfail(c, e, "reading the sibling of a DIE", off) : 0;
}

/* ---- DWARF helpers ---- */

/* The attribute `at` of die, or of the DIE its DW_AT_specification/DW_AT_abstract_origin
 * (chained) points to. *owner receives the DIE that has it (die itself or one the caller
 * must dwarf_dealloc_die() when != die). DW_DLV_OK, DW_DLV_NO_ENTRY, or DW_DLV_ERROR. */
int di_chase_attr(struct di_ctx *c, Dwarf_Die die, Dwarf_Half at, Dwarf_Attribute *out,
		  Dwarf_Die *owner, Dwarf_Error *e)
{
	Dwarf_Die cur = die;
	int rc = DW_DLV_NO_ENTRY;

	*owner = NULL;
	for (int hop = 0; hop < MAX_CHASE; hop++) {
		Dwarf_Attribute ref;
		Dwarf_Off off;
		Dwarf_Die next;
		int r;

		rc = dwarf_attr(cur, at, out, e);
		if (rc != DW_DLV_NO_ENTRY)
			break;
		r = dwarf_attr(cur, DW_AT_specification, &ref, e);
		if (r == DW_DLV_NO_ENTRY)
			r = dwarf_attr(cur, DW_AT_abstract_origin, &ref, e);
		if (r != DW_DLV_OK) {
			rc = r;
			break;
		}
		r = dwarf_global_formref(ref, &off, e);
		dwarf_dealloc_attribute(ref);
		if (r == DW_DLV_OK)
			r = dwarf_offdie_b(c->dbg, off, 1, &next, e);
		if (r != DW_DLV_OK) {
			rc = r;
			break;
		}
		if (cur != die)
			dwarf_dealloc_die(cur);
		cur = next;
	}
	if (rc == DW_DLV_OK)
		*owner = cur;
	else if (cur != die)
		dwarf_dealloc_die(cur);
	return rc;
}

/* Name of die (following specification/abstract_origin), interned; NULL if none.
 * DW_DLV_ERROR only for a libdwarf error (in *e). */
int di_die_name(struct di_ctx *c, Dwarf_Die die, const char **name, Dwarf_Error *e)
{
	Dwarf_Attribute a;
	Dwarf_Die owner;
	char *s = NULL;
	int rc;

	*name = NULL;
	rc = di_chase_attr(c, die, DW_AT_name, &a, &owner, e);
	if (rc != DW_DLV_OK)
		return rc == DW_DLV_NO_ENTRY ? DW_DLV_OK : rc;
	rc = dwarf_formstring(a, &s, e);
	dwarf_dealloc_attribute(a);
	if (owner != die)
		dwarf_dealloc_die(owner);
	if (rc != DW_DLV_OK)
		return rc;
	*name = di_intern(c->d, s);
	return DW_DLV_OK;
}

int di_function_name(struct di_ctx *c, Dwarf_Die die, const char **name, Dwarf_Error *e)
{
	int rc = di_die_name(c, die, name, e);
	char *src = rc == DW_DLV_OK ? mr_demangle_function(*name) : NULL;

	if (src) {
		const char *in = di_intern(c->d, src);

		*name = in ? in : *name; /* out of memory: the name as DWARF gives it */
		free(src);
	}
	return rc;
}

/* Unsigned (or non-negative signed) constant value of an attribute: DW_DLV_OK, or
 * DW_DLV_NO_ENTRY when it is not a constant (an expression, a reference). */
int di_attr_const(Dwarf_Attribute a, int64_t *val, Dwarf_Error *e)
{
	Dwarf_Half form;
	Dwarf_Unsigned u;
	Dwarf_Signed s;

	if (dwarf_whatform(a, &form, e) != DW_DLV_OK)
		return DW_DLV_ERROR;
	switch (form) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(a, &s, e) != DW_DLV_OK)
			return DW_DLV_ERROR;
		*val = s;
		return DW_DLV_OK;
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
		if (dwarf_formudata(a, &u, e) != DW_DLV_OK)
			return DW_DLV_ERROR;
		*val = (int64_t)u;
		return DW_DLV_OK;
	default:
		return DW_DLV_NO_ENTRY;
	}
}

/* Constant attribute `at` of die itself: 1 and *val if present and constant, else 0. */
int di_die_const(struct di_ctx *c, Dwarf_Die die, Dwarf_Half at, int64_t *val)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	int rc;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	rc = di_attr_const(a, val, &e);
	dwarf_dealloc_attribute(a);
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return rc == DW_DLV_OK;
}

/* The DIE die's DW_AT_type refers to, or NULL (void, or unreadable). */
Dwarf_Die di_type_of(struct di_ctx *c, Dwarf_Die die)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	Dwarf_Off off;
	Dwarf_Die t = NULL;
	int rc;

	if (dwarf_attr(die, DW_AT_type, &a, &e) != DW_DLV_OK)
		goto out;
	rc = dwarf_global_formref(a, &off, &e);
	dwarf_dealloc_attribute(a);
	if (rc != DW_DLV_OK || dwarf_offdie_b(c->dbg, off, 1, &t, &e) != DW_DLV_OK)
		t = NULL;
out:
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return t;
}

/* Size in bytes of an object of type t (consumed: deallocated here); 0 when unknown
 * (incomplete or variable-length types, type units). depth bounds malicious cycles. */
uint64_t di_type_size(struct di_ctx *c, Dwarf_Die t, int depth)
{
	Dwarf_Half tag;
	Dwarf_Error e = NULL;
	int64_t v;
	uint64_t size = 0;

	if (!t)
		return 0;
	if (depth > 4 * MAX_CHASE || dwarf_tag(t, &tag, &e) != DW_DLV_OK)
		goto out;
	if (di_die_const(c, t, DW_AT_byte_size, &v) && v >= 0) {
		size = (uint64_t)v;
		goto out;
	}
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		size = 8;
		break;
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_packed_type:
	case DW_TAG_shared_type:
		size = di_type_size(c, di_type_of(c, t), depth + 1);
		break;
	case DW_TAG_array_type: {
		Dwarf_Die sub = NULL, next;
		uint64_t n = 1;
		int dims = 0;

		size = di_type_size(c, di_type_of(c, t), depth + 1);
		if (dwarf_child(t, &sub, &e) != DW_DLV_OK)
			sub = NULL;
		while (sub && size) {
			Dwarf_Half st;
			int64_t lo = c->lower_default, hi, cnt;

			if (dwarf_tag(sub, &st, &e) == DW_DLV_OK && st == DW_TAG_subrange_type) {
				dims++;
				di_die_const(c, sub, DW_AT_lower_bound, &lo);
				if (di_die_const(c, sub, DW_AT_count, &cnt))
					n = cnt > 0 ? n * (uint64_t)cnt : 0;
				else if (di_die_const(c, sub, DW_AT_upper_bound, &hi))
					n = hi >= lo ? n * (uint64_t)(hi - lo + 1) : 0;
				else
					n = 0; /* unknown or run-time bound */
				if (!n)
					size = 0;
			}
			if (dwarf_siblingof_b(c->dbg, sub, 1, &next, &e) != DW_DLV_OK)
				next = NULL;
			dwarf_dealloc_die(sub);
			sub = next;
		}
		if (sub)
			dwarf_dealloc_die(sub);
		size = dims ? size * n : 0;
		break;
	}
	default:
		break;
	}
out:
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	dwarf_dealloc_die(t);
	return size;
}

/* Interned source file for a DW_AT_decl_file index of the current CU, or NULL. The CU's
 * file list is read on the first call (many CUs declare no static variable). */
const char *di_decl_file(struct di_ctx *c, int64_t idx)
{
	if (!c->srcfiles_tried) {
		Dwarf_Error e = NULL;
		Dwarf_Signed cnt = 0;

		c->srcfiles_tried = 1;
		if (dwarf_srcfiles(c->cu_die, &c->srcfiles, &cnt, &e) == DW_DLV_OK) {
			c->nsrcfiles = cnt;
		} else {
			c->srcfiles = NULL;
			if (e)
				dwarf_dealloc_error(c->dbg, e);
		}
	}
	/* DWARF 5 numbers files from 0 (0 = the primary file), DWARF 2-4 from 1 */
	if (c->cu_ver < 5)
		idx--;
	if (!c->srcfiles || idx < 0 || idx >= c->nsrcfiles)
		return NULL;
	return di_intern(c->d, c->srcfiles[idx]);
}

/* di_decl_file() for a DIE of another CU (LTO: the definition refers to the declaration in
    * the early-debug CU): that CU's file list, read for this one lookup. NULL if unknown. */
const char *di_foreign_decl_file(struct di_ctx *c, Dwarf_Die owner, int64_t idx)
{
	Dwarf_Error e = NULL;
	Dwarf_Off off;
	Dwarf_Die cu;
	Dwarf_Half ver = 0, offsz;
	char **files = NULL;
	Dwarf_Signed n = 0;
	const char *r = NULL;

	if (dwarf_CU_dieoffset_given_die(owner, &off, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(c->dbg, off, 1, &cu, &e) != DW_DLV_OK)
		goto out;
	dwarf_get_version_of_die(cu, &ver, &offsz);
	if (dwarf_srcfiles(cu, &files, &n, &e) == DW_DLV_OK) {
		if (ver < 5)
			idx--;
		if (idx >= 0 && idx < n)
			r = di_intern(c->d, files[idx]);
		for (Dwarf_Signed i = 0; i < n; i++)
			dwarf_dealloc(c->dbg, files[i], DW_DLA_STRING);
		dwarf_dealloc(c->dbg, files, DW_DLA_LIST);
	}
	dwarf_dealloc_die(cu);
out:
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return r;
}

/* ---- DWARF: line tables ---- */

/* Interned name of line-table file number `no` of the current CU (cached per CU); NULL
 * if libdwarf cannot name it or memory ran out. */
static const char *line_file(struct di_ctx *c, Dwarf_Line ln, Dwarf_Unsigned no, Dwarf_Error *e)
{
	char *s = NULL;
	const char *r;

	if (no < 4096 && no >= c->nlinefiles) {
		size_t n = (size_t)no + 16;
		const char **p = realloc(c->linefiles, n * sizeof(*p));

		if (!p)
			return NULL;
		memset(p + c->nlinefiles, 0, (n - c->nlinefiles) * sizeof(*p));
		c->linefiles = p;
		c->nlinefiles = n;
	}
	if (no < c->nlinefiles && c->linefiles[no])
		return c->linefiles[no];
	if (dwarf_linesrc(ln, &s, e) != DW_DLV_OK) {
		/* a bad file number costs the file name of these rows, not the whole object */
		if (*e)
			dwarf_dealloc_error(c->dbg, *e);
		*e = NULL;
		return NULL;
	}
	r = di_intern(c->d, s);
	dwarf_dealloc(c->dbg, s, DW_DLA_STRING);
	if (no < c->nlinefiles)
		c->linefiles[no] = r;
	return r;
}

/* Append the rows of the current CU's line program to d->lines as [addr, next addr). */
int di_read_lines(struct di_ctx *c, Dwarf_Die cu)
{
	struct mr_debuginfo *d = c->d;
	Dwarf_Error e = NULL;
	Dwarf_Unsigned ver;
	Dwarf_Small tables;
	Dwarf_Line_Context lc;
	Dwarf_Line *rows;
	Dwarf_Signed n;
	int rc;

	rc = dwarf_srclines_b(cu, &ver, &tables, &lc, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	if (rc != DW_DLV_OK)
		return di_dwfail(c, e, "reading the line table", c->cu_off);
	if (dwarf_srclines_from_linecontext(lc, &rows, &n, &e) != DW_DLV_OK) {
		dwarf_srclines_dealloc_b(lc);
		return di_dwfail(c, e, "reading the line table rows", c->cu_off);
	}
	c->nlinefiles = 0;
	for (Dwarf_Signed i = 0; i < n; i++) {
		Dwarf_Addr addr, next;
		Dwarf_Unsigned lineno, fileno;
		Dwarf_Bool end;
		struct line_ent *le;
		const char *file;

		if (dwarf_lineendsequence(rows[i], &end, &e) != DW_DLV_OK ||
		    dwarf_lineaddr(rows[i], &addr, &e) != DW_DLV_OK ||
		    dwarf_lineno(rows[i], &lineno, &e) != DW_DLV_OK ||
		    dwarf_line_srcfileno(rows[i], &fileno, &e) != DW_DLV_OK)
			goto out_err;
		if (end)
			continue;
		if (i + 1 < n) {
			if (dwarf_lineaddr(rows[i + 1], &next, &e) != DW_DLV_OK)
				goto out_err;
		} else {
			next = addr + 1;
		}
		if (next <= addr || !di_in_segment(d, addr, 1))
			continue;
		file = line_file(c, rows[i], fileno, &e);
		if (di_grow((void **)&d->lines, &d->caplines, d->nlines, sizeof(*d->lines))) {
			dwarf_srclines_dealloc_b(lc);
			return di_fail(c, -ENOMEM, "out of memory");
		}
		le = &d->lines[d->nlines++];
		le->lo = addr;
		le->hi = next;
		le->file = file;
		le->line = lineno < (1u << 31) ? (unsigned)lineno : 0;
	}
	dwarf_srclines_dealloc_b(lc);
	return 0;
out_err:
	dwarf_srclines_dealloc_b(lc);
	return di_dwfail(c, e, "reading a line table row", c->cu_off);
}
