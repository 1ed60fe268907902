/* post/heapvar_dwarf.c - DWARF names of heapvar's events through libdw (see
 * heapvar_dwarf.h). */
#include "heapvar_dwarf.h"

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

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>

/* libdwarf (debuginfo_dwarf*.c) defines seven of libdw's names too, and all of a program's
 * references to a name bind to one definition (libdwarf's, linked first): this file
 * reaches libdw's own through its handle (dlsym searches libdw first). */
static struct {
	int (*tag)(Dwarf_Die *);
	int (*child)(Dwarf_Die *, Dwarf_Die *);
	int (*siblingof)(Dwarf_Die *, Dwarf_Die *);
	const char *(*diename)(Dwarf_Die *);
	Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned, Dwarf_Attribute *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	Dwarf_Die *(*offdie)(Dwarf *, Dwarf_Off, Dwarf_Die *);
} dw;
static pthread_once_t dw_once = PTHREAD_ONCE_INIT;
static bool dw_ok;

static void dw_load(void)
{
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	*(void **)&dw.tag = dlsym(h, "dwarf_tag");
	*(void **)&dw.child = dlsym(h, "dwarf_child");
	*(void **)&dw.siblingof = dlsym(h, "dwarf_siblingof");
	*(void **)&dw.diename = dlsym(h, "dwarf_diename");
	*(void **)&dw.attr = dlsym(h, "dwarf_attr");
	*(void **)&dw.formudata = dlsym(h, "dwarf_formudata");
	*(void **)&dw.offdie = dlsym(h, "dwarf_offdie");
	dw_ok = dw.tag && dw.child && dw.siblingof && dw.diename && dw.attr && dw.formudata &&
		dw.offdie; /* h stays open: libdw is linked in anyway */
}
#define dwarf_tag dw.tag
#define dwarf_child dw.child
#define dwarf_siblingof dw.siblingof
#define dwarf_diename dw.diename
#define dwarf_attr dw.attr
#define dwarf_formudata dw.formudata
#define dwarf_offdie dw.offdie

#define MAX_DEPTH 8 /* members and elements followed into one variable */

struct mr_hvdw {
	int fd;
	Elf *elf;
	Dwarf *dw;
	Dwarf_CFI *eh;   /* .eh_frame, ours to end; NULL if none */
};

int mr_hvdw_open(const char *path, struct mr_hvdw **out)
{
	struct mr_hvdw *h = calloc(1, sizeof(*h));

	*out = NULL;
	pthread_once(&dw_once, dw_load);
	if (!dw_ok) {
		free(h);
		return -ENOSYS;
	}
	if (!h)
		return -ENOMEM;
	elf_version(EV_CURRENT);
	h->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0) {
		free(h);
		return -errno;
	}
	h->elf = elf_begin(h->fd, ELF_C_READ_MMAP, NULL);
	h->dw = h->elf ? dwarf_begin_elf(h->elf, DWARF_C_READ, NULL) : NULL;
	if (!h->dw) {
		mr_hvdw_close(h);
		return -ENOENT;
	}
	h->eh = dwarf_getcfi_elf(h->elf);
	*out = h;
	return 0;
}

void mr_hvdw_close(struct mr_hvdw *h)
{
	if (!h)
		return;
	if (h->eh)
		dwarf_cfi_end(h->eh);
	if (h->dw)
		dwarf_end(h->dw);
	if (h->elf)
		elf_end(h->elf);
	if (h->fd >= 0)
		close(h->fd);
	free(h);
}

/* The DIE's type with typedefs and qualifiers removed; false if it has none. */
static bool base_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;
	Dwarf_Die cur = *die;

	for (int i = 0; i < 16; i++) {
		if (!dwarf_attr_integrate(&cur, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
			return false;
		switch (dwarf_tag(type)) {
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

/* Append the path to byte off inside an object of type *type to buf (at *pos); *type
 * becomes the type of what is there. */
static bool member_path(Dwarf_Die *type, uint64_t off, char *buf, size_t len, size_t *pos)
{
	for (int depth = 0; depth < MAX_DEPTH; depth++) {
		Dwarf_Die m, t;
		Dwarf_Word size, loc;
		Dwarf_Attribute at;
		int tag = dwarf_tag(type), found = 0, n;

		if (off == 0 && tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			return true;
		if (tag == DW_TAG_array_type) {
			if (!base_type(type, &t) || dwarf_aggregate_size(&t, &size) || !size)
				return false;
			n = snprintf(buf + *pos, len - *pos, "[%" PRIu64 "]", off / size);
			if (n < 0 || (size_t)n >= len - *pos)
				return false;
			*pos += (size_t)n;
			off %= size;
			*type = t;
			continue;
		}
		if (tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
			return false; /* unions: which member is meant cannot be told */
		if (dwarf_child(type, &m) != 0)
			return false;
		do {
			if (dwarf_tag(&m) != DW_TAG_member || !dwarf_diename(&m) ||
			    !dwarf_attr(&m, DW_AT_data_member_location, &at) ||
			    dwarf_formudata(&at, &loc) || !base_type(&m, &t) ||
			    dwarf_aggregate_size(&t, &size))
				continue;
			if (off >= loc && off < loc + size) {
				found = 1;
				break;
			}
		} while (dwarf_siblingof(&m, &m) == 0);
		if (!found)
			return false;
		n = snprintf(buf + *pos, len - *pos, ".%s", dwarf_diename(&m));
		if (n < 0 || (size_t)n >= len - *pos)
			return false;
		*pos += (size_t)n;
		off -= loc;
		*type = t;
	}
	return false;
}

/* Is die a variable at the static address addr (DW_OP_addr)? */
static bool static_at(Dwarf_Die *die, uint64_t addr)
{
	Dwarf_Attribute at;
	Dwarf_Op *op;
	size_t nop;

	return dwarf_tag(die) == DW_TAG_variable && dwarf_attr(die, DW_AT_location, &at) &&
	       dwarf_getlocation(&at, &op, &nop) == 0 && nop == 1 && op[0].atom == DW_OP_addr &&
	       op[0].number == addr;
}

/* The variable DIE at static address addr among the children of parent (and of its
 * functions and blocks, for function statics), depth levels down. */
static bool find_static(Dwarf_Die *parent, uint64_t addr, int depth, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);

		if (static_at(&c, addr)) {
			*out = c;
			return true;
		}
		if (depth > 0 && (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
				  tag == DW_TAG_namespace) && find_static(&c, addr, depth - 1, out))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

int mr_hvdw_member(struct mr_hvdw *h, uint64_t var_addr, uint64_t off, char *buf, size_t len)
{
	Dwarf_Off cu = 0, next;
	size_t hsize, pos = 0;
	Dwarf_Die cudie, var, type;

	if (!len)
		return -ENOENT;
	buf[0] = '\0';
	while (dwarf_nextcu(h->dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(h->dw, cu + hsize, &cudie) && find_static(&cudie, var_addr, 3, &var)) {
			if (!base_type(&var, &type) || !member_path(&type, off, buf, len, &pos)) {
				buf[0] = '\0';
				return -ENOENT;
			}
			return dwarf_tag(&type) == DW_TAG_pointer_type ? 0 : -EINVAL;
		}
		cu = next;
	}
	return -ENOENT;
}

/* The compile unit whose code covers pc. */
static bool cu_of(struct mr_hvdw *h, uint64_t pc, Dwarf_Die *cudie)
{
	Dwarf_Off cu = 0, next;
	size_t hsize;

	if (dwarf_addrdie(h->dw, pc, cudie))
		return true;
	while (dwarf_nextcu(h->dw, cu, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(h->dw, cu + hsize, cudie) && dwarf_haspc(cudie, pc) > 0)
			return true;
		cu = next;
	}
	return false;
}

/* The address the frame base of function fn is at pc as register + offset. */
static bool frame_base(struct mr_hvdw *h, Dwarf_Die *fn, uint64_t pc, int *reg, int64_t *off)
{
	Dwarf_Attribute at;
	Dwarf_Op *op, *cfa;
	size_t nop, ncfa;
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi;
	bool ok = false;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &at) ||
	    dwarf_getlocation_addr(&at, pc, &op, &nop, 1) != 1 || nop != 1)
		return false;
	if (op[0].atom >= DW_OP_breg0 && op[0].atom <= DW_OP_breg31) {
		*reg = op[0].atom - DW_OP_breg0;
		*off = (int64_t)op[0].number;
		return true;
	}
	if (op[0].atom != DW_OP_call_frame_cfa)
		return false;
	for (int i = 0; i < 2 && !ok; i++) {
		cfi = i ? h->eh : dwarf_getcfi(h->dw);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc, &fr))
			continue;
		if (dwarf_frame_cfa(fr, &cfa, &ncfa) == 0 && ncfa == 1 && cfa[0].atom == DW_OP_bregx) {
			*reg = (int)cfa[0].number;
			*off = (int64_t)cfa[0].number2;
			ok = true;
		}
		free(fr);
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
static bool mem_at(const Dwarf_Op *op, size_t n, int reg, int fb_reg, int64_t fb_off,
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
		   int fb_reg, int64_t fb_off, char *path, size_t len)
{
	Dwarf_Die type;
	Dwarf_Word size;
	int64_t at;
	size_t pos = 0;

	path[0] = '\0';
	if (!mem_at(op, n, reg, fb_reg, fb_off, &at) || off < at)
		return false;
	if (!base_type(die, &type) || dwarf_aggregate_size(&type, &size) ||
	    (uint64_t)(off - at) >= size)
		return false;
	if (!member_path(&type, (uint64_t)(off - at), path, len, &pos) ||
	    dwarf_tag(&type) != DW_TAG_pointer_type) {
		path[0] = '\0';
		return false;
	}
	return true;
}

/* The path of byte off inside the struct that the pointer variable die points to into
 * path ("->m", "->in.m"), when a pointer member is there. */
static bool pointee_path(Dwarf_Die *die, int64_t off, char *path, size_t len)
{
	Dwarf_Die ptr, type;
	char m[256];
	size_t pos = 0;
	int tag;

	if (off < 0 || !base_type(die, &ptr) || dwarf_tag(&ptr) != DW_TAG_pointer_type ||
	    !base_type(&ptr, &type))
		return false;
	tag = dwarf_tag(&type);
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) ||
	    !member_path(&type, (uint64_t)off, m, sizeof(m), &pos) || m[0] != '.' ||
	    dwarf_tag(&type) != DW_TAG_pointer_type)
		return false;
	if (strlen(m) + 2 > len)
		return false;
	memcpy(path, "->", 2);
	memcpy(path + 2, m + 1, strlen(m)); /* its '\0' too */
	return true;
}

/* Is variable location attribute at register reg somewhere in [pc, end)? */
static bool in_reg(Dwarf_Attribute *at, uint64_t pc, uint64_t end, int reg)
{
	Dwarf_Addr base, lo, hi;
	Dwarf_Op *op;
	size_t nop;
	ptrdiff_t o = 0;

	while ((o = dwarf_getlocations(at, o, &base, &lo, &hi, &op, &nop)) > 0)
		if (lo < end && pc < hi && reg_is(op, nop, reg))
			return true;
	return false;
}

/* Is variable die, with location attribute at, where q says? Its member path into path. */
static bool var_is(Dwarf_Die *die, Dwarf_Attribute *at, const struct mr_hvdw_query *q,
		   int fb_reg, int64_t fb_off, char *path, size_t len)
{
	Dwarf_Op *op;
	size_t nop;

	path[0] = '\0';
	switch (q->where) {
	case MR_HVDW_REG: {
		Dwarf_Die type;

		return in_reg(at, q->pc, q->end, q->reg) && base_type(die, &type) &&
		       dwarf_tag(&type) == DW_TAG_pointer_type;
	}
	case MR_HVDW_FRAME:
		return dwarf_getlocation_addr(at, q->pc, &op, &nop, 1) == 1 &&
		       mem_in(die, op, nop, q->reg, q->off, fb_reg, fb_off, path, len);
	case MR_HVDW_THROUGH:
		if (q->slot_reg < 0 ? !in_reg(at, q->pc, q->pc + 1, q->reg)
				    : dwarf_getlocation_addr(at, q->pc, &op, &nop, 1) != 1 ||
					      !mem_in(die, op, nop, q->slot_reg, q->slot_off, fb_reg,
						      fb_off, path, len) || path[0])
			return false;
		return pointee_path(die, q->off, path, len);
	}
	return false;
}

int mr_hvdw_local(struct mr_hvdw *h, const struct mr_hvdw_query *q, char *name, size_t len,
		  const char **func)
{
	Dwarf_Die cudie, *scopes = NULL, c, *fn = NULL;
	char path[256];
	int n, fb_reg = -1, found = 0;
	int64_t fb_off = 0;
	bool frame = q->where == MR_HVDW_FRAME || (q->where == MR_HVDW_THROUGH && q->slot_reg >= 0);

	*func = NULL;
	if (!h || !cu_of(h, q->pc, &cudie) || (n = dwarf_getscopes(&cudie, q->pc, &scopes)) <= 0)
		return -ENOENT;
	for (int i = 0; i < n && !fn; i++) /* the frame's function (inlined scopes come first) */
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			fn = &scopes[i];
	if (fn && frame && !frame_base(h, fn, q->pc, &fb_reg, &fb_off))
		fb_reg = -1;
	for (int i = 0; i < n && !found && fn && &scopes[i] <= fn; i++) {
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			Dwarf_Attribute at;
			int tag = dwarf_tag(&c);

			if ((tag != DW_TAG_variable &&
			     (tag != DW_TAG_formal_parameter || q->where != MR_HVDW_THROUGH)) ||
			    !dwarf_diename(&c) || !dwarf_attr_integrate(&c, DW_AT_location, &at) ||
			    !var_is(&c, &at, q, fb_reg, fb_off, path, sizeof(path)))
				continue;
			snprintf(name, len, "%s%s", dwarf_diename(&c), path);
			found = 1;
			for (int k = i; k < n && !*func; k++) /* the function it belongs to */
				if (dwarf_tag(&scopes[k]) == DW_TAG_subprogram ||
				    dwarf_tag(&scopes[k]) == DW_TAG_inlined_subroutine)
					*func = dwarf_diename(&scopes[k]);
			break;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	return found && *func ? 0 : -ENOENT;
}

int mr_hvdw_returns(struct mr_hvdw *h, uint64_t pc)
{
	Dwarf_Die cudie, *scopes = NULL;
	Dwarf_Attribute at;
	int n, rc = -ENOENT;

	if (!h || !cu_of(h, pc, &cudie) || (n = dwarf_getscopes(&cudie, pc, &scopes)) <= 0)
		return -ENOENT;
	for (int i = 0; i < n && rc == -ENOENT; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			rc = dwarf_attr_integrate(&scopes[i], DW_AT_type, &at) != NULL;
	free(scopes);
	return rc;
}
