/* post/binary/debuginfo_scope.c - variables' names with their scope (issue 38): two variables of
 * one program never share a name. What DWARF says decides, from the DIE tree alone (no
 * demangler: gcc gives no DW_AT_linkage_name to a namespace's internal variables, and the
 * tree names them all, template arguments included, as the compiler spelled the class):
 *   - internal linkage (not DW_AT_external, or inside an anonymous namespace): the base
 *     name of its compilation unit's file (DW_AT_name of the unit holding the variable's
 *     name: an LTO unit refers to the early-debug unit of the source), "a.c:work". The
 *     unit, not the declaring file: a static in a header has a copy per unit.
 *   - C++ namespaces and classes (structures, unions) that enclose the declaration,
 *     outermost first, "ns1::v", "S::arr", "H<1>::data", "a.cc:ns2::w"; an anonymous
 *     namespace is no part of the name (the file is).
 *   - a function, a Fortran module or COMMON block as before: "func::var", "mod::var",
 *     "block/member".
 * A definition often names itself through its declaration (DW_AT_specification: gcc's
 * static members and namespace variables; clang's class member comes after the
 * definition), so such names wait for the end of the pass, when every declaration in a
 * namespace or class has been seen. The walk enters classes only in C++ units (C has no
 * static members, and skips them at no cost). */
#include "debuginfo_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "search.h"

uint32_t di_scope_enter(struct di_ctx *c, Dwarf_Die die, uint32_t parent)
{
	struct di_scopes *s = &c->scopes;
	Dwarf_Off off = 0;

	if (dwarf_dieoffset(die, &off, NULL) != DW_DLV_OK ||
	    di_grow((void **)&s->ns, &s->capns, s->nns, sizeof(*s->ns)))
		return NONE;
	s->ns[s->nns] = (struct di_ns){ .die = off, .parent = parent };
	return (uint32_t)s->nns++;
}

int di_scope_decl(struct di_ctx *c, Dwarf_Die die, uint32_t ns)
{
	struct di_scopes *s = &c->scopes;
	Dwarf_Off off = 0;

	if (ns == NONE || dwarf_dieoffset(die, &off, NULL) != DW_DLV_OK)
		return 0;
	if (di_grow((void **)&s->decls, &s->capdecls, s->ndecls, sizeof(*s->decls)))
		return di_fail(c, -ENOMEM, "out of memory");
	if (s->ndecls && s->decls[s->ndecls - 1].die >= off)
		s->decls_unsorted = 1;
	s->decls[s->ndecls++] = (struct di_decl){ off, ns };
	return 0;
}

/* Is member DIE m a static data member (DWARF 4, clang: a DW_TAG_member declaration)? */
static int static_member(struct di_ctx *c, Dwarf_Die m)
{
	Dwarf_Error e = NULL;
	Dwarf_Bool decl = 0, ext = 0;

	if (dwarf_hasattr(m, DW_AT_declaration, &decl, &e) != DW_DLV_OK ||
	    (!decl && dwarf_hasattr(m, DW_AT_external, &ext, &e) != DW_DLV_OK)) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	return decl || ext;
}

int di_scope_class(struct di_ctx *c, Dwarf_Die die, uint32_t parent, int level)
{
	Dwarf_Error e = NULL;
	Dwarf_Die child;
	Dwarf_Bool named = 0;
	Dwarf_Off doff = 0;
	uint32_t ns;
	int rc;

	/* an unnamed class has no static data member; nesting this deep is a corrupt file */
	if (level > 64 || dwarf_hasattr(die, DW_AT_name, &named, &e) != DW_DLV_OK || !named) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	rc = dwarf_child(die, &child, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	dwarf_dieoffset(die, &doff, NULL);
	if (rc != DW_DLV_OK)
		return di_dwfail(c, e, "reading the children of a class", doff);
	ns = di_scope_enter(c, die, parent);
	if (ns == NONE) {
		dwarf_dealloc_die(child);
		return di_fail(c, -ENOMEM, "out of memory");
	}
	while (child) {
		Dwarf_Half tag;

		if (dwarf_tag(child, &tag, &e) != DW_DLV_OK) {
			dwarf_dieoffset(child, &doff, NULL);
			dwarf_dealloc_die(child);
			return di_dwfail(c, e, "reading a DIE tag", doff);
		}
		rc = 0;
		if (tag == DW_TAG_variable || (tag == DW_TAG_member && static_member(c, child)))
			rc = di_scope_decl(c, child, ns); /* DWARF 5 (gcc): a variable */
		else if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
			 tag == DW_TAG_union_type)
			rc = di_scope_class(c, child, ns, level + 1);
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

/* "a" sep "b" interned, or NULL (out of memory). */
static const char *join(struct mr_debuginfo *d, const char *a, const char *sep, const char *b)
{
	size_t al = strlen(a), sl = strlen(sep), bl = strlen(b);
	char *buf = malloc(al + sl + bl + 1);
	const char *r;

	if (!buf)
		return NULL;
	memcpy(buf, a, al);
	memcpy(buf + al, sep, sl);
	memcpy(buf + al + sl, b, bl + 1);
	r = di_intern(d, buf);
	free(buf);
	return r;
}

/* Make the qualified name of di_ns k known (its enclosing ones first; their index is
 * always lower, so this ends). An unreadable name counts as anonymous. 0 or -ENOMEM. */
static int ns_build(struct di_ctx *c, uint32_t k)
{
	struct di_ns *n = &c->scopes.ns[k];
	const char *pq = NULL, *name = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Die die;
	int panon = 0;

	if (n->built)
		return 0;
	if (n->parent != NONE && n->parent < k) {
		if (ns_build(c, n->parent))
			return -ENOMEM;
		n = &c->scopes.ns[k];
		pq = c->scopes.ns[n->parent].qual;
		panon = c->scopes.ns[n->parent].anon;
	}
	if (dwarf_offdie_b(c->dbg, n->die, 1, &die, &e) == DW_DLV_OK) {
		if (di_die_name(c, die, &name, &e) != DW_DLV_OK)
			name = NULL;
		dwarf_dealloc_die(die);
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	n->anon = panon || !name;
	n->qual = !name ? pq : pq ? join(c->d, pq, "::", name) : name;
	if (name && !n->qual)
		return -ENOMEM;
	n->built = 1;
	return 0;
}

/* Set v's name, scope and base: base as DWARF names it, file the base name of its unit's
 * file, ns its namespace or class (NONE). 0 or -ENOMEM. */
static int compose(struct di_ctx *c, struct mr_var *v, const char *base, const char *file,
		   int external, uint32_t ns)
{
	const char *qual = NULL, *scope;
	int anon = 0;

	if (ns != NONE) {
		if (ns_build(c, ns))
			return -ENOMEM;
		qual = c->scopes.ns[ns].qual;
		anon = c->scopes.ns[ns].anon;
	}
	if (external && !anon)
		file = NULL;
	scope = file && qual ? join(c->d, file, ":", qual) : file ? file : qual;
	v->base = base;
	v->scope = scope;
	v->name = !scope ? base : join(c->d, scope, qual ? "::" : ":", base);
	return (file && qual && !scope) || !v->name ? -ENOMEM : 0;
}

/* Base name of the file a compilation unit DIE names, interned; NULL if none. */
static const char *unit_file(struct di_ctx *c, Dwarf_Die cu)
{
	Dwarf_Error e = NULL;
	const char *name = NULL, *slash;

	if (di_die_name(c, cu, &name, &e) != DW_DLV_OK || !name) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return NULL;
	}
	slash = strrchr(name, '/');
	return slash && slash[1] ? di_intern(c->d, slash + 1) : name;
}

/* unit_file() of the unit that holds DIE die. */
static const char *unit_file_of(struct di_ctx *c, Dwarf_Die die)
{
	Dwarf_Error e = NULL;
	Dwarf_Off cu_off = 0, cu_len = 0;
	const char *r = NULL;
	Dwarf_Die cu;

	if (dwarf_die_CU_offset_range(die, &cu_off, &cu_len, &e) == DW_DLV_OK &&
	    cu_off == c->cu_off)
		return c->cu_file;
	if (dwarf_CU_dieoffset_given_die(die, &cu_off, &e) == DW_DLV_OK &&
	    dwarf_offdie_b(c->dbg, cu_off, 1, &cu, &e) == DW_DLV_OK) {
		r = unit_file(c, cu);
		dwarf_dealloc_die(cu);
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return r;
}

void di_scope_unit(struct di_ctx *c, Dwarf_Die cu, int64_t lang)
{
	c->cu_file = unit_file(c, cu);
	c->cu_classes = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 ||
			lang == DW_LANG_ObjC_plus_plus;
}

int di_scope_name(struct di_ctx *c, Dwarf_Die die, const struct var_scope *sc, int external,
		  int tls, size_t idx, const char *base)
{
	struct mr_debuginfo *d = c->d;
	struct mr_var *v = &(tls ? &d->dtls : &d->dvars)->v[idx];
	struct di_scopes *s = &c->scopes;
	const char *joined = NULL;
	Dwarf_Error e = NULL;
	Dwarf_Attribute a;
	Dwarf_Die owner;
	Dwarf_Off off = 0;
	int rc;

	v->name = v->base = base;
	v->scope = NULL;
	if (sc->common) { /* a COMMON block's member: global, whichever function declares it */
		v->scope = sc->common;
		joined = join(d, sc->common, "/", base);
	} else if (sc->func && !external) {
		v->scope = sc->func;
		joined = join(d, sc->func, "::", base);
	} else if (sc->module) {
		v->scope = sc->module;
		joined = join(d, sc->module, "::", base);
	}
	if (v->scope) {
		v->name = joined;
		return joined ? 0 : di_fail(c, -ENOMEM, "out of memory");
	}
	rc = di_chase_attr(c, die, DW_AT_name, &a, &owner, &e);
	if (rc != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		owner = die;
	} else {
		dwarf_dealloc_attribute(a);
	}
	if (owner == die)
		return compose(c, v, base, c->cu_file, external, sc->ns)
			       ? di_fail(c, -ENOMEM, "out of memory") : 0;
	dwarf_dieoffset(owner, &off, NULL);
	if (di_grow((void **)&s->pend, &s->cappend, s->npend, sizeof(*s->pend))) {
		dwarf_dealloc_die(owner);
		return di_fail(c, -ENOMEM, "out of memory");
	}
	s->pend[s->npend++] = (struct di_pending){ tls, idx, off, unit_file_of(c, owner), external };
	dwarf_dealloc_die(owner);
	return 0;
}

static int cmp_decl(const void *x, const void *y)
{
	const struct di_decl *a = x, *b = y;

	return (a->die > b->die) - (a->die < b->die);
}

int di_scope_finish(struct di_ctx *c)
{
	struct di_scopes *s = &c->scopes;
	int rc = 0;

	if (s->decls_unsorted)
		qsort(s->decls, s->ndecls, sizeof(*s->decls), cmp_decl);
	for (size_t i = 0; i < s->npend && !rc; i++) {
		const struct di_pending *p = &s->pend[i];
		struct var_tab *t = p->tls ? &c->d->dtls : &c->d->dvars;
		size_t k = mph_upper_bound(s->decls, s->ndecls, sizeof(*s->decls),
					   offsetof(struct di_decl, die), p->owner);
		uint32_t ns = k && s->decls[k - 1].die == p->owner ? s->decls[k - 1].ns : NONE;

		if (p->idx < t->n)
			rc = compose(c, &t->v[p->idx], t->v[p->idx].base, p->file, p->external, ns);
	}
	free(s->ns);
	free(s->decls);
	free(s->pend);
	memset(s, 0, sizeof(*s));
	return rc ? di_fail(c, -ENOMEM, "out of memory") : 0;
}
