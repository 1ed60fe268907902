/* post/attrib/attrib_layout.c - the member layout of a variable (attrib.h mr_attrib_layout): of a
 * static from its DWARF variable, of a heap variable from its receiver's pointer type. */
#include "attrib_impl.h"

#include <stdlib.h>

#include "base/varkind.h"
#include "binary/layout.h"

#define NO_LAYOUT 1

/* The object index of variable vi's ELF object, NOT_YET when none. */
static uint32_t var_obj(const struct mr_attrib *a, const struct mr_varinfo *vi)
{
	for (uint32_t i = 0; vi->object && i < a->nobj; i++)
		if (a->obj[i].path == vi->object)
			return i;
	return NOT_YET;
}

const struct mr_layout *mr_attrib_layout(struct mr_attrib *a, uint32_t var)
{
	const struct mr_varinfo *vi = mr_attrib_var(a, var);
	struct mr_layout *l = NULL;
	struct mr_hvdw *dw;
	uint64_t *slot;
	uint32_t oi;

	if (!a->layouts.mask && mph_u64map_init(&a->layouts, 16))
		return NULL;
	if (var >= a->nvars)
		return NULL;
	if ((slot = mph_u64map_get(&a->layouts, a->var_keys[var])))
		return *slot == NO_LAYOUT ? NULL : (const struct mr_layout *)(uintptr_t)*slot;
	switch (vi->kind) {
	case MR_VAR_GLOBAL: case MR_VAR_STATIC: case MR_VAR_FUNC_STATIC:
		if ((oi = var_obj(a, vi)) != NOT_YET && (dw = attrib_obj_dw(a, oi)))
			mr_layout_static(dw, vi->lo, &l);
		break;
	case MR_VAR_HEAP:
		attrib_heap_layout(a, var, &l);
		break;
	default:
		break; /* TLS, stacks, runtimes, ELF symbols: no type to lay out */
	}
	if (!mph_u64map_put(&a->layouts, a->var_keys[var], l ? (uint64_t)(uintptr_t)l : NO_LAYOUT)) {
		mr_layout_free(l);
		return NULL;
	}
	return l;
}

void attrib_layouts_free(struct mr_attrib *a)
{
	for (size_t i = 0; a->layouts.mask && i <= a->layouts.mask; i++)
		if (a->layouts.slot[i].key != MPH_U64MAP_EMPTY && a->layouts.slot[i].val != NO_LAYOUT)
			mr_layout_free((struct mr_layout *)(uintptr_t)a->layouts.slot[i].val);
	mph_u64map_free(&a->layouts);
}
