/* post/binary/layout.c - the members of a variable's type down to the leaves (layout.h). */
#include "heapvar.h"
#include "heapvar_dwarf.h"
#include "heapvar_dwarf_impl.h"
#include "layout.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A member, an element or the whole: [off, off + size) of its parent (an element: of the
 * array's element, off 0); an array of structs repeats its one child every elem bytes. */
struct node {
	uint64_t off, size, elem;
	uint32_t first, n;        /* children: nodes[first .. first + n), by offset */
	int leaf;                 /* index in leaves, -1: not a leaf */
};

struct leaf {
	char *name;
	uint64_t off, bytes;      /* in the outermost element */
};

struct mr_layout {
	struct node *nodes;
	size_t nnodes;
	struct leaf *leaves;
	size_t nleaves;
	uint64_t stride;
	int fortran;
};

/* A struct or class with members to follow (a class of the C++ library is named as a
 * whole: std::vector's members are its own). */
static bool is_struct(Dwarf_Die *t)
{
	int tag = DW(dwarf_tag)(t);

	return (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) && !hvdw_library_class(t);
}

/* Is m a data member with bytes of its own (not a static member, not a bit-field)? Its
 * offset into *loc and its type (typedefs removed) into *t. */
static bool data_member(Dwarf_Die *m, Dwarf_Word *loc, Dwarf_Die *t)
{
	Dwarf_Attribute at;

	return DW(dwarf_tag)(m) == DW_TAG_member && DW(dwarf_diename)(m) &&
	       !DW(dwarf_attr)(m, DW_AT_bit_size, &at) &&
	       DW(dwarf_attr)(m, DW_AT_data_member_location, &at) &&
	       !DW(dwarf_formudata)(&at, loc) && hvdw_base_type(m, t);
}

static int new_node(struct mr_layout *l, uint64_t off, uint64_t size)
{
	struct node *n;

	if (l->nnodes >= MR_LAYOUT_MAX_NODES)
		return -E2BIG;
	if (!(l->nnodes & (l->nnodes + 1))) { /* 0, 1, 3, 7, ...: grow */
		n = realloc(l->nodes, (l->nnodes * 2 + 2) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->nodes = n;
	}
	l->nodes[l->nnodes] = (struct node){ off, size, 0, 0, 0, -1 };
	return (int)l->nnodes++;
}

static int add_leaf(struct mr_layout *l, int k, const char *name, uint64_t abs)
{
	struct leaf *v = realloc(l->leaves, (l->nleaves + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->leaves = v;
	if (!(v[l->nleaves].name = strdup(name[0] ? name : "")))
		return -ENOMEM;
	v[l->nleaves].off = abs;
	v[l->nleaves].bytes = l->nodes[k].size;
	l->nodes[k].leaf = (int)l->nleaves++;
	return 0;
}

static int cmp_off(const void *x, const void *y)
{
	const struct node *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* Node k, of type *t, named name, at abs bytes into the outermost element: its children
 * (a struct's members, an array of structs' element), else a leaf. depth: levels left. */
static int build(struct mr_layout *l, int k, Dwarf_Die *t, const char *name, uint64_t abs,
		 int depth)
{
	char sub[512];
	Dwarf_Die m, mt, e;
	Dwarf_Word loc, size;
	int rc, c;

	if (depth > 0 && DW(dwarf_tag)(t) == DW_TAG_array_type && hvdw_base_type(t, &e) &&
	    is_struct(&e) && !DW(dwarf_aggregate_size)(&e, &size) && size) {
		l->nodes[k].elem = size;
		if ((c = new_node(l, 0, size)) < 0)
			return c;
		l->nodes[k].first = (uint32_t)c;
		l->nodes[k].n = 1;
		snprintf(sub, sizeof(sub), "%s%s", name, l->fortran ? "(:)" : "[]");
		return build(l, c, &e, sub, abs, depth - 1);
	}
	if (depth == 0 || !is_struct(t) || DW(dwarf_child)(t, &m) != 0)
		return add_leaf(l, k, name, abs);
	l->nodes[k].first = (uint32_t)l->nnodes;
	do { /* the members first, all at one level: children are contiguous */
		if (!data_member(&m, &loc, &mt) || DW(dwarf_aggregate_size)(&mt, &size) || !size)
			continue;
		if ((c = new_node(l, loc, size)) < 0)
			return c;
		l->nodes[k].n++;
	} while (DW(dwarf_siblingof)(&m, &m) == 0);
	if (!l->nodes[k].n)
		return add_leaf(l, k, name, abs);
	qsort(l->nodes + l->nodes[k].first, l->nodes[k].n, sizeof(*l->nodes), cmp_off);
	DW(dwarf_child)(t, &m);
	do { /* then each member's own: found again by its offset */
		uint32_t first = l->nodes[k].first, n = l->nodes[k].n;

		if (!data_member(&m, &loc, &mt))
			continue;
		for (c = (int)first; c < (int)(first + n) && l->nodes[c].off != loc; c++)
			;
		if (c == (int)(first + n) || l->nodes[c].leaf >= 0 || l->nodes[c].n)
			continue; /* two members at one offset (C++ empty bases): the first */
		snprintf(sub, sizeof(sub), "%s%s%s", name, l->fortran ? "%" : ".",
			 DW(dwarf_diename)(&m));
		if ((rc = build(l, c, &mt, sub, abs + loc, depth - 1)) < 0)
			return rc;
	} while (DW(dwarf_siblingof)(&m, &m) == 0);
	return 0;
}

static int cmp_leaf(const void *x, const void *y)
{
	const struct leaf *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* The leaves in offset order (members come in declaration order, which may differ). */
static int sort_leaves(struct mr_layout *l)
{
	int *to = malloc((l->nleaves + 1) * sizeof(*to));

	if (!to)
		return -ENOMEM;
	for (size_t i = 0; i < l->nleaves; i++) /* bytes: a scratch for the old index */
		l->leaves[i].bytes = l->leaves[i].bytes << 16 | i;
	qsort(l->leaves, l->nleaves, sizeof(*l->leaves), cmp_leaf);
	for (size_t i = 0; i < l->nleaves; i++) {
		to[l->leaves[i].bytes & 0xffff] = (int)i;
		l->leaves[i].bytes >>= 16;
	}
	for (size_t k = 0; k < l->nnodes; k++)
		if (l->nodes[k].leaf >= 0)
			l->nodes[k].leaf = to[l->nodes[k].leaf];
	free(to);
	return 0;
}

/* The layout of an object of type *t (an array of elements, or one; heap: elements of t,
 * named as such). */
static int layout_of(Dwarf_Die *t, int fortran, bool heap, struct mr_layout **out)
{
	struct mr_layout *l = calloc(1, sizeof(*l));
	Dwarf_Word size;
	int rc;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	l->fortran = fortran;
	rc = new_node(l, 0, DW(dwarf_aggregate_size)(t, &size) ? 0 : size);
	if (rc >= 0)
		rc = build(l, 0, t, !heap ? "" : fortran ? "(:)" : "[]", 0, MAX_DEPTH);
	if (rc >= 0 && l->nodes[0].leaf >= 0)
		rc = -EINVAL; /* no members: a scalar, an array of scalars */
	l->stride = rc < 0 ? 0 : l->nodes[0].elem ? l->nodes[0].elem : l->nodes[0].size;
	if (rc >= 0 && !l->stride)
		rc = -EINVAL;
	if (rc >= 0)
		rc = sort_leaves(l);
	if (rc < 0) {
		mr_layout_free(l);
		return rc == -E2BIG ? -EINVAL : rc;
	}
	*out = l;
	return 0;
}

static int is_fortran(Dwarf_Die *die)
{
	Dwarf_Die cu;
	int lang;

	if (!DW(dwarf_diecu)(die, &cu, NULL, NULL))
		return 0;
	lang = DW(dwarf_srclang)(&cu);
	return lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 ||
	       lang == DW_LANG_Fortran95 || lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
}

int mr_layout_static(struct mr_hvdw *h, uint64_t var_addr, struct mr_layout **out)
{
	Dwarf_Die var, type;

	*out = NULL;
	if (!hvdw_static_var(h, var_addr, &var) || !hvdw_base_type(&var, &type))
		return -ENOENT;
	return layout_of(&type, is_fortran(&var), false, out);
}

int mr_layout_pointee(struct mr_hvdw *h, const struct mr_hv_path *p, uint64_t var_addr,
		      struct mr_layout **out)
{
	Dwarf_Die type, pointee;

	*out = NULL;
	if (!h || !hvdw_path_type(h, p, var_addr, &type) ||
	    DW(dwarf_tag)(&type) != DW_TAG_pointer_type || !hvdw_base_type(&type, &pointee))
		return -ENOENT;
	return layout_of(&pointee, is_fortran(&pointee), true, out);
}

int mr_layout_local(struct mr_hvdw *h, const struct mr_hvdw_query *q, struct mr_layout **out)
{
	Dwarf_Die type, pointee;

	*out = NULL;
	if (!h || !hvdw_local_type(h, q, &type) || DW(dwarf_tag)(&type) != DW_TAG_pointer_type ||
	    !hvdw_base_type(&type, &pointee))
		return -ENOENT;
	return layout_of(&pointee, is_fortran(&pointee), true, out);
}

int mr_layout_leaf(const struct mr_layout *l, uint64_t off)
{
	const struct node *n = &l->nodes[0];

	if (n->size && !n->elem)
		off %= n->size; /* a heap object of several elements: the type repeats */
	for (int depth = 0; depth <= MAX_DEPTH + 1; depth++) {
		uint32_t lo, hi;

		if (n->leaf >= 0)
			return n->leaf;
		if (n->elem) {
			off %= n->elem;
			n = &l->nodes[n->first];
			continue;
		}
		lo = n->first;
		hi = n->first + n->n;
		while (lo < hi) { /* the last child starting at or before off */
			uint32_t mid = lo + (hi - lo) / 2;

			if (l->nodes[mid].off <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n->first || off >= l->nodes[lo - 1].off + l->nodes[lo - 1].size)
			return -1; /* padding */
		n = &l->nodes[lo - 1];
		off -= n->off;
	}
	return -1;
}

size_t mr_layout_count(const struct mr_layout *l)
{
	return l->nleaves;
}

const char *mr_layout_name(const struct mr_layout *l, size_t k, uint64_t *off, uint64_t *bytes)
{
	*off = l->leaves[k].off;
	*bytes = l->leaves[k].bytes;
	return l->leaves[k].name;
}

uint64_t mr_layout_stride(const struct mr_layout *l)
{
	return l->stride;
}

void mr_layout_free(struct mr_layout *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nleaves; i++)
		free(l->leaves[i].name);
	free(l->leaves);
	free(l->nodes);
	free(l);
}
