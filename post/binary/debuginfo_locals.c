/* post/binary/debuginfo_locals.c - frames: the CFA rule at a pc (the call frame information:
 * .eh_frame through libdw's CFI, cfi.c; else libdwarf's frame API, which also reads
 * .debug_frame), the locals with a frame-relative location at a pc, and where inlined code
 * at a pc was called.
 *
 * libdwarf, not libdw, for the DIEs: memphis-report links libdwarf, and libdw exports the
 * same dwarf_* names (dwarf_child, dwarf_attr, ...), so both in one program would bind to
 * one of them (cfi.c calls only names libdwarf has not). Unlike the DWARF pass of
 * mr_debuginfo_open (a child process, everything at once), this reads in the report's own
 * process and lazily: the object's DWARF is opened on the first question, a function's
 * DIEs are read when a pc in it is asked about, and nothing is kept but libdwarf's own
 * handle and the interned names (the caller caches answers).
 */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "base/infile.h"
#include "cfi.h"

#define FBREG (-2) /* location_at: relative to the function's frame base */

struct di_frames {
	int fd_obj, fd_dbg;   /* -1 when not open */
	Dwarf_Debug obj;      /* the object: its .eh_frame */
	Dwarf_Debug dbg;      /* its DIEs: the object itself or its separate debug file, */
	int dbg_tried;        /* opened on first use (frames_dies); */
	int dbg_lazy;         /* 1: the debug file's handle of d->lazy, not ours to close */
	struct mr_cfi *cfi;   /* the object's .eh_frame by libdw (cfi.c), NULL: none */
	int fdes_loaded;      /* else libdwarf's FDE list, loaded on first use: */
	Dwarf_Cie *cie;
	Dwarf_Fde *fde;
	Dwarf_Signed ncie, nfde;
};

/* libdwarf on the file at path into *dbg and *fd; leaves them NULL/-1 when it cannot. */
static void open_dwarf(const char *path, Dwarf_Debug *dbg, int *fd)
{
	Dwarf_Error e = NULL;

	*dbg = NULL;
	*fd = mr_in_open(path, MR_IN_MAX_ELF, 0);
	if (*fd < 0)
		return;
	if (dwarf_init_b(*fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(NULL, e);
		*dbg = NULL;
		close(*fd);
		*fd = -1;
	}
}

/* f's handle on the DIEs, opened on first use: the separate debug file's (the one its
 * units are read with, while they are read one at a time, debuginfo_lazy.c), else the
 * object's. NULL when it cannot be opened. Under d->lock. */
static Dwarf_Debug frames_dies(struct mr_debuginfo *d, struct di_frames *f)
{
	if (f->dbg_tried)
		return f->dbg;
	f->dbg_tried = 1;
	f->dbg = f->obj;
	if (atomic_load_explicit(&d->lazy_growing, memory_order_relaxed)) {
		f->dbg = di_lazy_dbg(d);
		f->dbg_lazy = 1;
	} else if (d->debug_path) {
		open_dwarf(d->debug_path, &f->dbg, &f->fd_dbg);
	}
	return f->dbg;
}

/* The FDE list: .eh_frame of the object, else .debug_frame of the object or debug file
 * (opened only then: most objects have .eh_frame, and the CFA needs no DIEs). */
static void load_fdes(struct mr_debuginfo *d, struct di_frames *f)
{
	Dwarf_Debug from[2] = { f->obj, NULL };
	Dwarf_Error e = NULL;

	if (f->obj && dwarf_get_fde_list_eh(f->obj, &f->cie, &f->ncie, &f->fde, &f->nfde, &e) ==
			      DW_DLV_OK)
		return;
	for (int i = 0; i < 2; i++) {
		if (i == 1 && frames_dies(d, f) != f->obj)
			from[1] = f->dbg;
		if (e) {
			dwarf_dealloc_error(from[0], e);
			e = NULL;
		}
		if (from[i] &&
		    dwarf_get_fde_list(from[i], &f->cie, &f->ncie, &f->fde, &f->nfde, &e) == DW_DLV_OK)
			return;
	}
	if (e)
		dwarf_dealloc_error(from[0], e);
	f->fde = NULL;
	f->nfde = 0;
}

/* d->frames_close: close what frames() opens. */
static void frames_close(struct mr_debuginfo *d)
{
	struct di_frames *f = d->frames;

	if (!f)
		return;
	mr_cfi_close(f->cfi);
	if (f->dbg && f->dbg != f->obj && !f->dbg_lazy)
		dwarf_finish(f->dbg, NULL);
	if (f->obj)
		dwarf_finish(f->obj, NULL);
	if (f->fd_dbg >= 0)
		close(f->fd_dbg);
	if (f->fd_obj >= 0)
		close(f->fd_obj);
	free(f);
	d->frames = NULL;
}

/* d's frames, opened on first use; NULL when out of memory. */
static struct di_frames *frames(struct mr_debuginfo *d)
{
	struct di_frames *f = d->frames;

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	open_dwarf(d->path, &f->obj, &f->fd_obj);
	f->fd_dbg = -1;
	f->cfi = mr_cfi_open(d->path);
	d->frames = f;
	d->frames_close = frames_close;
	return f;
}

/* mr_debuginfo_cfa under d->lock (frames are opened on first use). */
static int cfa(struct mr_debuginfo *d, uint64_t pc, int *reg, int64_t *off)
{
	struct di_frames *f = frames(d);
	Dwarf_Error e = NULL;
	Dwarf_Fde fde;
	Dwarf_Addr lo, hi, row, next;
	Dwarf_Small type;
	Dwarf_Signed relevant, r, o;
	Dwarf_Ptr block;
	Dwarf_Bool more;
	int rc = -ENOENT;

	if (!f)
		return -ENOENT;
	if (f->cfi)
		return mr_cfi_cfa(f->cfi, pc, reg, off);
	if (!f->fdes_loaded) {
		f->fdes_loaded = 1;
		load_fdes(d, f);
	}
	if (!f->nfde)
		return -ENOENT;
	if (dwarf_get_fde_at_pc(f->fde, pc, &fde, &lo, &hi, &e) == DW_DLV_OK &&
	    dwarf_get_fde_info_for_cfa_reg3_b(fde, pc, &type, &relevant, &r, &o, &block, &row,
					      &more, &next, &e) == DW_DLV_OK &&
	    type == DW_EXPR_OFFSET && relevant && r >= 0 && r < 128) {
		*reg = (int)r;
		*off = o;
		rc = 0;
	}
	if (e)
		dwarf_dealloc_error(f->obj, e);
	return rc;
}

/* The one operation of a frame-relative location: DW_OP_fbreg k (*reg = FBREG),
 * DW_OP_bregN k, DW_OP_bregx N k (*reg = N), DW_OP_call_frame_cfa (MR_REG_CFA, 0).
 * 1 if desc is that, else 0. */
static int frame_op(Dwarf_Locdesc_c desc, Dwarf_Unsigned nops, int *reg, int64_t *off)
{
	Dwarf_Unsigned op1, op2, op3, raw1, raw2, raw3, boff;
	Dwarf_Error e = NULL;
	Dwarf_Small atom;

	if (nops != 1 || dwarf_get_location_op_value_d(desc, 0, &atom, &op1, &op2, &op3, &raw1,
						       &raw2, &raw3, &boff, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(NULL, e);
		return 0;
	}
	if (atom == DW_OP_fbreg) {
		*reg = FBREG;
		*off = (int64_t)op1;
	} else if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31) {
		*reg = atom - DW_OP_breg0;
		*off = (int64_t)op1;
	} else if (atom == DW_OP_bregx && op1 < 128) {
		*reg = (int)op1;
		*off = (int64_t)op2;
	} else if (atom == DW_OP_call_frame_cfa) {
		*reg = MR_REG_CFA;
		*off = 0;
	} else {
		return 0;
	}
	return 1;
}

/* Location attribute `at` of die as it is at pc (a single expression, or the entry of a
 * location list that covers pc): 1 with *reg and *off when it is frame_op's, else 0. */
static int location_at(struct di_ctx *c, Dwarf_Die die, Dwarf_Half at, uint64_t pc, int *reg,
		       int64_t *off)
{
	Dwarf_Unsigned count, nops, rawlo, rawhi, eoff, loff;
	Dwarf_Small lle, src;
	Dwarf_Bool noaddr;
	Dwarf_Addr lo, hi;
	Dwarf_Locdesc_c desc;
	Dwarf_Loc_Head_c head;
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	unsigned kind;
	int found = 0;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK)
		goto out;
	if (dwarf_get_loclist_c(a, &head, &count, &e) != DW_DLV_OK) {
		dwarf_dealloc_attribute(a);
		goto out;
	}
	if (dwarf_get_loclist_head_kind(head, &kind, &e) != DW_DLV_OK)
		count = 0;
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		if (dwarf_get_locdesc_entry_d(head, i, &lle, &rawlo, &rawhi, &noaddr, &lo, &hi, &nops,
					      &desc, &src, &eoff, &loff, &e) != DW_DLV_OK)
			break;
		if (kind != DW_LKIND_expression && (noaddr || !nops || pc < lo || pc >= hi))
			continue;
		found = frame_op(desc, nops, reg, off);
		break;
	}
	dwarf_loc_head_c_dealloc(head);
	dwarf_dealloc_attribute(a);
out:
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return found;
}

/* What one mr_debuginfo_locals call collects. */
struct lwalk {
	struct di_ctx *c;
	uint64_t pc;
	int fb_reg;          /* the frame base: register (or MR_REG_CFA) + offset */
	int64_t fb_off;
	int fb_ok;
	struct mr_local *v;
	size_t n, cap;
};

/* di_die_ranges callback: 1 when [lo, hi) holds the pc (arg[0]); counts ranges in arg[1]. */
static int holds_pc(struct di_ctx *c, void *arg, uint64_t lo, uint64_t hi)
{
	uint64_t *pc = arg;

	pc[1]++;
	return pc[0] >= lo && pc[0] < hi;
}

/* Whether the block or inlined code die holds pc (a DIE without ranges holds it). */
static int covers(struct lwalk *w, Dwarf_Die die)
{
	uint64_t arg[2] = { w->pc, 0 };
	int rc = di_die_ranges(w->c, die, holds_pc, arg);

	return rc == 1 || (rc == 0 && arg[1] == 0);
}

/* Add the variable or parameter die of function func when its location at pc is
 * frame-relative and its size known. 0 or -ENOMEM. */
static int add_local(struct lwalk *w, Dwarf_Die die, const char *func)
{
	struct di_ctx *c = w->c;
	struct mr_local *l;
	const char *name;
	Dwarf_Attribute a;
	Dwarf_Die owner, t;
	Dwarf_Error e = NULL;
	Dwarf_Off id = 0;
	uint64_t size;
	int64_t off, line = 0, file = 0;
	int reg;

	/* a base register other than rbp/rsp is a pointer to the storage, not the frame
	 * (Fortran's dummy arguments, C's structs passed by invisible reference): the data
	 * is the caller's, named there */
	if (!location_at(c, die, DW_AT_location, w->pc, &reg, &off) ||
	    (reg != FBREG && reg != 6 && reg != 7))
		return 0;
	if (reg == FBREG) {
		if (!w->fb_ok)
			return 0;
		reg = w->fb_reg;
		off += w->fb_off;
	}
	if (di_chase_attr(c, die, DW_AT_name, &a, &owner, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0; /* unnamed (artificial) */
	}
	dwarf_dealloc_attribute(a);
	t = di_type_of(c, owner);
	size = t ? di_type_size(c, t, 0) : 0;
	dwarf_dieoffset(owner, &id, NULL);
	di_die_const(c, owner, DW_AT_decl_line, &line);
	di_die_const(c, owner, DW_AT_decl_file, &file);
	if (owner != die)
		dwarf_dealloc_die(owner);
	if (!size || di_die_name(c, die, &name, &e) != DW_DLV_OK || !name) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	if (di_grow((void **)&w->v, &w->cap, w->n, sizeof(*w->v)))
		return -ENOMEM;
	if (func) {
		size_t fl = strlen(func), nl = strlen(name);
		char *buf = malloc(fl + nl + 3);

		if (!buf)
			return -ENOMEM;
		memcpy(buf, func, fl);
		memcpy(buf + fl, "::", 2);
		memcpy(buf + fl + 2, name, nl + 1);
		name = di_intern(c->d, buf);
		free(buf);
		if (!name)
			return -ENOMEM;
	}
	l = &w->v[w->n++];
	l->name = name;
	l->file = file > 0 ? di_decl_file(c, file) : NULL;
	l->line = line > 0 && line < (int64_t)1 << 31 ? (unsigned)line : 0;
	l->id = id;
	l->reg = reg;
	l->off = off;
	l->size = size;
	return 0;
}

/* Collect the locals among die's children, descending into the lexical blocks and
 * inlined code that hold pc (not into nested functions: their frames are their own). */
static int walk(struct lwalk *w, Dwarf_Die die, const char *func, int level)
{
	struct di_ctx *c = w->c;
	Dwarf_Error e = NULL;
	Dwarf_Die child, next;
	int rc;

	if (level > 64 || dwarf_child(die, &child, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	while (child) {
		const char *name = NULL;
		Dwarf_Half tag = 0;

		rc = 0;
		dwarf_tag(child, &tag, NULL);
		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
			rc = add_local(w, child, func);
		} else if (tag == DW_TAG_lexical_block && covers(w, child)) {
			rc = walk(w, child, func, level + 1);
		} else if (tag == DW_TAG_inlined_subroutine && covers(w, child)) {
			if (di_function_name(c, child, &name, &e) != DW_DLV_OK && e) {
				dwarf_dealloc_error(c->dbg, e);
				e = NULL;
			}
			rc = walk(w, child, name ? name : func, level + 1);
		}
		if (rc) {
			dwarf_dealloc_die(child);
			return rc;
		}
		rc = dwarf_siblingof_b(c->dbg, child, 1, &next, &e);
		dwarf_dealloc_die(child);
		child = rc == DW_DLV_OK ? next : NULL;
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return 0;
}

/* Walk the subprogram DIE at offset die (its CU made current) for pc. 0, -ENOMEM or
 * -EINVAL. */
static int function_locals(struct lwalk *w, Dwarf_Off die)
{
	struct di_ctx *c = w->c;
	Dwarf_Error e = NULL;
	Dwarf_Die sub = NULL, cu = NULL;
	Dwarf_Off cuoff;
	const char *fname = NULL;
	int rc = -EINVAL;

	if (dwarf_offdie_b(c->dbg, die, 1, &sub, &e) != DW_DLV_OK ||
	    dwarf_CU_dieoffset_given_die(sub, &cuoff, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(c->dbg, cuoff, 1, &cu, &e) != DW_DLV_OK)
		goto out;
	di_cu_begin(c, cu);
	w->fb_ok = location_at(c, sub, DW_AT_frame_base, w->pc, &w->fb_reg, &w->fb_off) &&
		   w->fb_reg != FBREG;
	if (di_function_name(c, sub, &fname, &e) != DW_DLV_OK && e) {
		dwarf_dealloc_error(c->dbg, e);
		e = NULL;
	}
	rc = walk(w, sub, fname, 0);
	di_cu_end(c);
out:
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	if (cu)
		dwarf_dealloc_die(cu);
	if (sub)
		dwarf_dealloc_die(sub);
	return rc;
}

/* A context c reading d's DIEs (its frames and debug file opened on first use), its
 * messages into err. 0, -ENOMEM or -EINVAL. Under d->lock. */
static int dies_ctx(struct mr_debuginfo *d, struct di_ctx *c, char *err, size_t len)
{
	struct di_frames *f = frames(d);

	if (!f)
		return -ENOMEM;
	if (!frames_dies(d, f))
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	c->d = d;
	c->dbg = f->dbg;
	c->err = err;
	c->errlen = len;
	return 0;
}

/* mr_debuginfo_locals under d->lock (frames opened on first use, names interned). */
static int locals(struct mr_debuginfo *d, uint64_t pc, struct mr_local **out, size_t *n)
{
	const struct scope_ent *s;
	struct di_ctx c;
	struct lwalk w;
	char err[256] = "";
	int rc;

	di_need_addr_locked(d, pc);
	s = di_scope_at(d, pc);
	*out = NULL;
	*n = 0;
	while (s && s->depth)
		s = s->parent != NONE ? &d->scopes[s->parent] : NULL;
	if (!s)
		return -ENOENT;
	if ((rc = dies_ctx(d, &c, err, sizeof(err))))
		return rc;
	memset(&w, 0, sizeof(w));
	w.c = &c;
	w.pc = pc;
	rc = function_locals(&w, s->die);
	if (rc) {
		free(w.v);
		return rc;
	}
	*out = w.v;
	*n = w.n;
	return 0;
}

/* The two entry points that change d after its open: one thread at a time (d may be
 * shared, mr_debuginfo_cache_hold). */
int mr_debuginfo_cfa(struct mr_debuginfo *d, uint64_t pc, int *reg, int64_t *off)
{
	int rc;

	pthread_mutex_lock(&d->lock);
	rc = cfa(d, pc, reg, off);
	pthread_mutex_unlock(&d->lock);
	return rc;
}

int mr_debuginfo_locals(struct mr_debuginfo *d, uint64_t pc, struct mr_local **out, size_t *n)
{
	int rc;

	if (atomic_load_explicit(&d->code_by_symbols, memory_order_relaxed)) {
		*out = NULL;
		*n = 0;
		return -ENOENT;
	}
	pthread_mutex_lock(&d->lock);
	rc = locals(d, pc, out, n);
	pthread_mutex_unlock(&d->lock);
	return rc;
}

/* mr_debuginfo_inline_call under d->lock. */
static int inline_call(struct mr_debuginfo *d, uint64_t pc, struct mr_line *out)
{
	const struct scope_ent *s;
	Dwarf_Unsigned file = 0, line = 0;
	Dwarf_Die die = NULL, cu = NULL;
	Dwarf_Attribute at;
	Dwarf_Error e = NULL;
	Dwarf_Off cuoff;
	struct di_ctx c;
	char err[256] = "";
	int rc = -ENOENT;

	di_need_addr_locked(d, pc);
	s = di_scope_at(d, pc);
	if (!s || !s->depth)
		return -ENOENT;
	if ((rc = dies_ctx(d, &c, err, sizeof(err))))
		return rc;
	rc = -ENOENT;
	if (dwarf_offdie_b(c.dbg, s->die, 1, &die, &e) != DW_DLV_OK ||
	    dwarf_CU_dieoffset_given_die(die, &cuoff, &e) != DW_DLV_OK ||
	    dwarf_offdie_b(c.dbg, cuoff, 1, &cu, &e) != DW_DLV_OK) {
		rc = -EINVAL;
		goto out;
	}
	if (dwarf_attr(die, DW_AT_call_line, &at, &e) == DW_DLV_OK) {
		if (dwarf_formudata(at, &line, &e) != DW_DLV_OK)
			line = 0;
		dwarf_dealloc_attribute(at);
	}
	if (dwarf_attr(die, DW_AT_call_file, &at, &e) == DW_DLV_OK) {
		if (dwarf_formudata(at, &file, &e) != DW_DLV_OK)
			file = 0;
		dwarf_dealloc_attribute(at);
	}
	if (e) {
		dwarf_dealloc_error(c.dbg, e);
		e = NULL;
	}
	di_cu_begin(&c, cu);
	out->file = line ? di_decl_file(&c, (int64_t)file) : NULL;
	di_cu_end(&c);
	if (out->file) {
		out->line = (unsigned)line;
		out->function = s->name;
		out->caller = s->caller;
		rc = 0;
	}
out:
	if (e)
		dwarf_dealloc_error(c.dbg, e);
	if (cu)
		dwarf_dealloc_die(cu);
	if (die)
		dwarf_dealloc_die(die);
	return rc;
}

int mr_debuginfo_inline_call(struct mr_debuginfo *d, uint64_t pc, struct mr_line *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (atomic_load_explicit(&d->code_by_symbols, memory_order_relaxed))
		return -ENOENT;
	pthread_mutex_lock(&d->lock);
	rc = inline_call(d, pc, out);
	pthread_mutex_unlock(&d->lock);
	return rc;
}
