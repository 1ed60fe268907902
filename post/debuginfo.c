/* post/debuginfo.c - what one ELF object says about its code and data (see debuginfo.h).
 *
 * mr_debuginfo_open() reads everything once and keeps only flat, sorted arrays; lookups are
 * binary searches and nothing of libelf or libdwarf stays open afterwards:
 *   - ELF (libelf): build-id note, ET_DYN/ET_EXEC, PT_LOAD and PT_TLS, and the FUNC and
 *     OBJECT/TLS symbols of .symtab and .dynsym (fallbacks when DWARF says nothing);
 *   - DWARF (libdwarf, opened on the same fd with its own reader): the line programs of all
 *     CUs as one array of [lo, hi) -> file:line; DW_TAG_subprogram and
 *     DW_TAG_inlined_subroutine address ranges as "scopes" (innermost wins); and
 *     DW_TAG_variable DIEs whose location is a static address or a TLS offset.
 * Strings are interned into one arena owned by the struct, so every pointer handed out
 * lives until mr_debuginfo_close().
 */
#include "debuginfo.h"

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

#define NONE ((uint32_t)-1)
#define MAX_CHASE 8 /* DW_AT_specification/abstract_origin hops, type chain is 4x this */

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

struct line_ent {
	uint64_t lo, hi;
	const char *file;
	unsigned line;
};

struct scope_ent {
	uint64_t lo, hi;
	const char *name;   /* function (inlined one for inlined_subroutine) */
	const char *caller; /* function the inlined code sits in, NULL for a subprogram */
	uint32_t depth;     /* 0 for a subprogram, nesting depth for inlined code */
	uint32_t parent;    /* index of the smallest scope containing this one, NONE */
};

struct func_sym {
	uint64_t addr, size;
	const char *name;
	int rank; /* which of several symbols at one address names it: higher wins */
};

/* Variables of one address space, sorted by addr; maxend[i] = max end of v[0..i]. */
struct var_tab {
	struct mr_var *v;
	uint64_t *maxend;
	size_t n, cap;
};

/* A sorted view into mr_debuginfo.all, so lookups and mr_debuginfo_vars() hand out the
 * same pointers; maxend as in var_tab. */
struct var_idx {
	const struct mr_var **v;
	uint64_t *maxend;
	size_t n;
};

struct seg {
	uint64_t lo, hi;
	uint64_t off, filesz; /* file bytes of the segment (mr_debuginfo_code) */
	int exec;
	unsigned flags;       /* p_flags: PF_R, PF_W, PF_X (= MR_SEG_*) */
};

struct mr_debuginfo {
	char *path;
	char *debug_path; /* separate debug file the DWARF came from, or NULL */
	char build_id[129];
	int pic;
	uint64_t vaddr0, offset0, tls_memsz, tls_align, tls_vaddr;
	struct seg *segs;
	size_t nsegs;

	struct line_ent *lines;
	size_t nlines, caplines;
	struct scope_ent *scopes;
	size_t nscopes, capscopes;
	struct func_sym *funcs;
	size_t nfuncs, capfuncs;

	struct var_tab dvars, dtls, svars, stls; /* DWARF data/TLS, ELF symbols data/TLS */
	struct mr_var *all;                        /* what mr_debuginfo_vars() returns */
	size_t nall;
	struct var_idx idx[4]; /* the same four classes as views into all (lookups) */

	struct chunk *arena;
	const char **strs; /* intern hash table (open addressing) */
	size_t nstrs, capstrs;
};

/* State of one open: the object, libdwarf's handle, where we are, where errors go. */
struct ctx {
	struct mr_debuginfo *d;
	Dwarf_Debug dbg;
	char *err;
	size_t errlen;
	Dwarf_Off cu_off;    /* .debug_info offset of the current CU header */
	Dwarf_Half cu_ver;   /* its DWARF version */
	Dwarf_Addr cu_base;  /* its base address (DW_AT_low_pc), for DWARF 4 ranges */
	int lower_default;   /* default array lower bound of the CU's language */
	Dwarf_Die cu_die;    /* the current CU's DIE */
	char **srcfiles;     /* dwarf_srcfiles() of the current CU, loaded when needed */
	Dwarf_Signed nsrcfiles;
	int srcfiles_tried;
	const char **linefiles; /* per-CU cache: line-table file number -> interned name */
	size_t nlinefiles;
};

/* Format "path: message" into c->err. Returns rc (a -errno) for `return fail(...)`. */
static int fail(struct ctx *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct ctx *c, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err || !c->errlen)
		return rc;
	n = snprintf(c->err, c->errlen, "%s: ", c->d->path ? c->d->path : "?");
	if (n < 0 || (size_t)n >= c->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/* Report a libdwarf error (what we were doing, where, and libdwarf's message), free it. */
static int dwfail(struct ctx *c, Dwarf_Error e, const char *what, Dwarf_Off off)
{
	const char *msg = e ? dwarf_errmsg(e) : "malformed DWARF";
	int rc = fail(c, -EINVAL, "%s at .debug_info offset 0x%llx (CU 0x%llx): %s", what,
		      (unsigned long long)off, (unsigned long long)c->cu_off, msg ? msg : "?");

	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return rc;
}

/* ---- memory: growable arrays, a string arena, an interner ---- */

/* Make room for one more element in *p (n used, *cap allocated). 0 or -ENOMEM. */
static int grow(void **p, size_t *cap, size_t n, size_t elsz)
{
	size_t ncap;
	void *q;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	q = realloc(*p, ncap * elsz);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/* Copy s[0..len) NUL-terminated into the arena. NULL on ENOMEM. */
static const char *arena_strdup(struct mr_debuginfo *d, const char *s, size_t len)
{
	struct chunk *ch = d->arena;
	char *r;

	if (!ch || ch->cap - ch->used < len + 1) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;

		ch = malloc(sizeof(*ch) + cap);
		if (!ch)
			return NULL;
		ch->used = 0;
		ch->cap = cap;
		ch->next = d->arena;
		d->arena = ch;
	}
	r = ch->data + ch->used;
	memcpy(r, s, len);
	r[len] = '\0';
	ch->used += len + 1;
	return r;
}

/* The one arena copy of s[0..len) (equal strings share a pointer). NULL on ENOMEM. */
static const char *intern_n(struct mr_debuginfo *d, const char *s, size_t len)
{
	size_t i;

	if (d->nstrs * 2 >= d->capstrs) {
		size_t ncap = d->capstrs ? d->capstrs * 2 : 1024;
		const char **t = calloc(ncap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < d->capstrs; k++) {
			if (!d->strs[k])
				continue;
			i = mph_fnv1a(d->strs[k], strlen(d->strs[k])) & (ncap - 1);
			while (t[i])
				i = (i + 1) & (ncap - 1);
			t[i] = d->strs[k];
		}
		free(d->strs);
		d->strs = t;
		d->capstrs = ncap;
	}
	i = mph_fnv1a(s, len) & (d->capstrs - 1);
	while (d->strs[i]) {
		if (!strncmp(d->strs[i], s, len) && d->strs[i][len] == '\0')
			return d->strs[i];
		i = (i + 1) & (d->capstrs - 1);
	}
	d->strs[i] = arena_strdup(d, s, len);
	if (d->strs[i])
		d->nstrs++;
	return d->strs[i];
}

static const char *intern(struct mr_debuginfo *d, const char *s)
{
	return intern_n(d, s, strlen(s));
}

/* 1 if address lo lies in a PT_LOAD segment (an executable one if exec): drops code and
 * data the linker discarded (their DWARF addresses were resolved to 0 or a tombstone). */
static int in_segment(const struct mr_debuginfo *d, uint64_t lo, int exec)
{
	if (!lo)
		return 0;
	for (size_t i = 0; i < d->nsegs; i++)
		if (lo >= d->segs[i].lo && lo < d->segs[i].hi && (!exec || d->segs[i].exec))
			return 1;
	return 0;
}

/* ---- ELF ---- */

/* Parse the NT_GNU_BUILD_ID note of one PT_NOTE segment into d->build_id, if it has one. */
static void read_build_id(struct mr_debuginfo *d, Elf *elf, const GElf_Phdr *ph)
{
	Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph->p_offset, ph->p_filesz,
					      ELF_T_NHDR);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	if (!data)
		return;
	while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)data->d_buf + noff, "GNU", 4) || !nh.n_descsz ||
		    nh.n_descsz > 64)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(d->build_id + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

_Static_assert(PF_X == MR_SEG_X && PF_W == MR_SEG_W && PF_R == MR_SEG_R, "segment flags");

/* Program headers: PIC-ness, PT_LOAD segments and the lowest one, PT_TLS, build-id. */
static int read_phdrs(struct ctx *c, Elf *elf)
{
	struct mr_debuginfo *d = c->d;
	GElf_Ehdr eh;
	size_t phnum;
	int have_load = 0;

	if (!gelf_getehdr(elf, &eh))
		return fail(c, -EINVAL, "bad ELF header: %s", elf_errmsg(-1));
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC)
		return fail(c, -ENOEXEC, "not an executable or shared object (e_type %u)",
			    (unsigned)eh.e_type);
	d->pic = eh.e_type == ET_DYN;
	if (elf_getphdrnum(elf, &phnum))
		return fail(c, -EINVAL, "bad program headers: %s", elf_errmsg(-1));
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return fail(c, -ENOMEM, "out of memory");
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return fail(c, -EINVAL, "bad program header %zu at offset 0x%llx: %s", i,
				    (unsigned long long)eh.e_phoff, elf_errmsg(-1));
		if (ph.p_type == PT_LOAD) {
			if (!have_load || ph.p_vaddr < d->vaddr0) {
				d->vaddr0 = ph.p_vaddr;
				d->offset0 = ph.p_offset;
				have_load = 1;
			}
			d->segs[d->nsegs].lo = ph.p_vaddr;
			d->segs[d->nsegs].hi = ph.p_vaddr + ph.p_memsz;
			d->segs[d->nsegs].off = ph.p_offset;
			d->segs[d->nsegs].filesz = ph.p_filesz;
			d->segs[d->nsegs].exec = !!(ph.p_flags & PF_X);
			d->segs[d->nsegs].flags = ph.p_flags & (PF_R | PF_W | PF_X);
			d->nsegs++;
		} else if (ph.p_type == PT_TLS) {
			d->tls_memsz = ph.p_memsz;
			d->tls_align = ph.p_align;
			d->tls_vaddr = ph.p_vaddr;
		} else if (ph.p_type == PT_NOTE && !d->build_id[0]) {
			read_build_id(d, elf, &ph);
		}
	}
	if (!have_load)
		return fail(c, -ENOEXEC, "no PT_LOAD segment");
	return 0;
}

/* Record one symbol: functions into d->funcs, data into the symbol variable tables. */
static int add_symbol(struct mr_debuginfo *d, const GElf_Sym *s, const char *name, int dynsym)
{
	int type = GELF_ST_TYPE(s->st_info), bind = GELF_ST_BIND(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_shndx == SHN_ABS || s->st_shndx == SHN_COMMON ||
	    !name || !name[0])
		return 0;
	if (type == STT_FUNC || type == STT_GNU_IFUNC) {
		struct func_sym *f;

		if (!in_segment(d, s->st_value, 1))
			return 0;
		if (grow((void **)&d->funcs, &d->capfuncs, d->nfuncs, sizeof(*d->funcs)))
			return -ENOMEM;
		f = &d->funcs[d->nfuncs];
		f->addr = s->st_value;
		f->size = s->st_size;
		f->name = intern(d, name);
		/* at one address prefer a sized, global, .symtab name over aliases */
		f->rank = (s->st_size ? 8 : 0) + !dynsym;
		f->rank += bind == STB_GLOBAL ? 4 : bind == STB_WEAK ? 2 : 0;
		if (!f->name)
			return -ENOMEM;
		d->nfuncs++;
	} else if (type == STT_OBJECT || type == STT_TLS) {
		struct var_tab *t = type == STT_TLS ? &d->stls : &d->svars;
		struct mr_var *v;

		if (type == STT_OBJECT && !in_segment(d, s->st_value, 0))
			return 0;
		if (grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
			return -ENOMEM;
		v = &t->v[t->n];
		memset(v, 0, sizeof(*v));
		v->name = intern(d, name);
		v->kind = MR_VAR_SYMBOL;
		v->addr = s->st_value;
		v->size = s->st_size;
		v->tls = type == STT_TLS;
		if (!v->name)
			return -ENOMEM;
		t->n++;
	}
	return 0;
}

/* The file must hold its section header table, every section with contents and every
 * PT_LOAD's file part: catches truncated files (libelf quietly shows fewer sections). */
static int check_extent(struct ctx *c, Elf *elf, int fd)
{
	struct stat st;
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t phnum;
	uint64_t size;

	if (fstat(fd, &st))
		return fail(c, -errno, "cannot stat: %s", strerror(errno));
	size = (uint64_t)st.st_size;
	if (!gelf_getehdr(elf, &eh))
		return fail(c, -EINVAL, "bad ELF header: %s", elf_errmsg(-1));
	if (eh.e_shoff &&
	    (eh.e_shoff > size || (uint64_t)eh.e_shnum * eh.e_shentsize > size - eh.e_shoff))
		return fail(c, -EINVAL,
			    "truncated: section headers at offset 0x%llx end past the file's "
			    "%llu bytes", (unsigned long long)eh.e_shoff, (unsigned long long)size);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return fail(c, -EINVAL, "bad section header %zu: %s", elf_ndxscn(scn),
				    elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS &&
		    (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset))
			return fail(c, -EINVAL,
				    "truncated: section %zu at offset 0x%llx (0x%llx bytes) ends "
				    "past the file's %llu bytes", elf_ndxscn(scn),
				    (unsigned long long)sh.sh_offset,
				    (unsigned long long)sh.sh_size, (unsigned long long)size);
	}
	if (elf_getphdrnum(elf, &phnum))
		return fail(c, -EINVAL, "bad program headers: %s", elf_errmsg(-1));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return fail(c, -EINVAL, "bad program header %zu: %s", i, elf_errmsg(-1));
		if (ph.p_type == PT_LOAD &&
		    (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
			return fail(c, -EINVAL,
				    "truncated: segment %zu at offset 0x%llx (0x%llx bytes) ends "
				    "past the file's %llu bytes", i,
				    (unsigned long long)ph.p_offset,
				    (unsigned long long)ph.p_filesz, (unsigned long long)size);
	}
	return 0;
}

/* Read .symtab and .dynsym. Symbols whose names are out of range are skipped. */
static int read_symbols(struct ctx *c, Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shnum;

	if (elf_getshdrnum(elf, &shnum))
		return fail(c, -EINVAL, "bad section headers: %s", elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t n;

		if (!gelf_getshdr(scn, &sh))
			return fail(c, -EINVAL, "bad section header %zu: %s", elf_ndxscn(scn),
				    elf_errmsg(-1));
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		if (!sh.sh_entsize || sh.sh_link >= shnum)
			return fail(c, -EINVAL, "bad symbol table header at offset 0x%llx",
				    (unsigned long long)sh.sh_offset);
		data = elf_getdata(scn, NULL);
		if (!data)
			return fail(c, -EINVAL, "cannot read symbol table at offset 0x%llx: %s",
				    (unsigned long long)sh.sh_offset, elf_errmsg(-1));
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s))
				return fail(c, -EINVAL, "bad symbol %zu in table at offset 0x%llx",
					    i, (unsigned long long)sh.sh_offset);
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (add_symbol(c->d, &s, name, sh.sh_type == SHT_DYNSYM))
				return fail(c, -ENOMEM, "out of memory");
		}
	}
	return 0;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->rank - x->rank; /* best first */
}

/* Sort function symbols and keep the best name per address. */
static void finish_funcs(struct mr_debuginfo *d)
{
	size_t j = 0;

	if (!d->nfuncs)
		return;
	qsort(d->funcs, d->nfuncs, sizeof(*d->funcs), cmp_func);
	for (size_t i = 0; i < d->nfuncs; i++)
		if (!j || d->funcs[j - 1].addr != d->funcs[i].addr)
			d->funcs[j++] = d->funcs[i];
	d->nfuncs = j;
}

/* ---- DWARF helpers ---- */

/* The attribute `at` of die, or of the DIE its DW_AT_specification/DW_AT_abstract_origin
 * (chained) points to. *owner receives the DIE that has it (die itself or one the caller
 * must dwarf_dealloc_die() when != die). DW_DLV_OK, DW_DLV_NO_ENTRY, or DW_DLV_ERROR. */
static int chase_attr(struct ctx *c, Dwarf_Die die, Dwarf_Half at, Dwarf_Attribute *out,
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
static int die_name(struct ctx *c, Dwarf_Die die, const char **name, Dwarf_Error *e)
{
	Dwarf_Attribute a;
	Dwarf_Die owner;
	char *s = NULL;
	int rc;

	*name = NULL;
	rc = chase_attr(c, die, DW_AT_name, &a, &owner, e);
	if (rc != DW_DLV_OK)
		return rc == DW_DLV_NO_ENTRY ? DW_DLV_OK : rc;
	rc = dwarf_formstring(a, &s, e);
	dwarf_dealloc_attribute(a);
	if (owner != die)
		dwarf_dealloc_die(owner);
	if (rc != DW_DLV_OK)
		return rc;
	*name = intern(c->d, s);
	return DW_DLV_OK;
}

/* Unsigned (or non-negative signed) constant value of an attribute: DW_DLV_OK, or
 * DW_DLV_NO_ENTRY when it is not a constant (an expression, a reference). */
static int attr_const(Dwarf_Attribute a, int64_t *val, Dwarf_Error *e)
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
static int die_const(struct ctx *c, Dwarf_Die die, Dwarf_Half at, int64_t *val)
{
	Dwarf_Attribute a;
	Dwarf_Error e = NULL;
	int rc;

	if (dwarf_attr(die, at, &a, &e) != DW_DLV_OK) {
		if (e)
			dwarf_dealloc_error(c->dbg, e);
		return 0;
	}
	rc = attr_const(a, val, &e);
	dwarf_dealloc_attribute(a);
	if (e)
		dwarf_dealloc_error(c->dbg, e);
	return rc == DW_DLV_OK;
}

/* The DIE die's DW_AT_type refers to, or NULL (void, or unreadable). */
static Dwarf_Die type_of(struct ctx *c, Dwarf_Die die)
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
static uint64_t type_size(struct ctx *c, Dwarf_Die t, int depth)
{
	Dwarf_Half tag;
	Dwarf_Error e = NULL;
	int64_t v;
	uint64_t size = 0;

	if (!t)
		return 0;
	if (depth > 4 * MAX_CHASE || dwarf_tag(t, &tag, &e) != DW_DLV_OK)
		goto out;
	if (die_const(c, t, DW_AT_byte_size, &v) && v >= 0) {
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
		size = type_size(c, type_of(c, t), depth + 1);
		break;
	case DW_TAG_array_type: {
		Dwarf_Die sub = NULL, next;
		uint64_t n = 1;
		int dims = 0;

		size = type_size(c, type_of(c, t), depth + 1);
		if (dwarf_child(t, &sub, &e) != DW_DLV_OK)
			sub = NULL;
		while (sub && size) {
			Dwarf_Half st;
			int64_t lo = c->lower_default, hi, cnt;

			if (dwarf_tag(sub, &st, &e) == DW_DLV_OK && st == DW_TAG_subrange_type) {
				dims++;
				die_const(c, sub, DW_AT_lower_bound, &lo);
				if (die_const(c, sub, DW_AT_count, &cnt))
					n = cnt > 0 ? n * (uint64_t)cnt : 0;
				else if (die_const(c, sub, DW_AT_upper_bound, &hi))
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
static const char *decl_file(struct ctx *c, int64_t idx)
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
	return intern(c->d, c->srcfiles[idx]);
}

/* decl_file() for a DIE of another CU (LTO: the definition refers to the declaration in
 * the early-debug CU): that CU's file list, read for this one lookup. NULL if unknown. */
static const char *foreign_decl_file(struct ctx *c, Dwarf_Die owner, int64_t idx)
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
			r = intern(c->d, files[idx]);
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

/* ---- DWARF: scopes (functions and inlined code) ---- */

/* Record [lo, hi) as code of function `name` (inlined into `caller` at nesting `depth`);
 * empty ranges and ranges outside executable segments are dropped. 0 or -ENOMEM. */
static int add_scope(struct ctx *c, uint64_t lo, uint64_t hi, const char *name,
		     const char *caller, uint32_t depth)
{
	struct mr_debuginfo *d = c->d;
	struct scope_ent *s;

	if (hi <= lo || !in_segment(d, lo, 1))
		return 0;
	if (grow((void **)&d->scopes, &d->capscopes, d->nscopes, sizeof(*d->scopes)))
		return fail(c, -ENOMEM, "out of memory");
	s = &d->scopes[d->nscopes++];
	s->lo = lo;
	s->hi = hi;
	s->name = name;
	s->caller = caller;
	s->depth = depth;
	s->parent = NONE;
	return 0;
}

/* Add the address ranges of a subprogram/inlined_subroutine DIE (low_pc/high_pc or
 * DW_AT_ranges, DWARF 4 .debug_ranges or DWARF 5 .debug_rnglists) as scopes. */
static int die_ranges(struct ctx *c, Dwarf_Die die, const char *name, const char *caller,
		      uint32_t depth)
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
			return add_scope(c, lo, lo + 1, name, caller, depth);
		if (rc != DW_DLV_OK)
			return dwfail(c, e, "reading DW_AT_high_pc", doff);
		if (cls == DW_FORM_CLASS_CONSTANT)
			hi += lo;
		return add_scope(c, lo, hi, name, caller, depth);
	}
	if (rc == DW_DLV_ERROR)
		return dwfail(c, e, "reading DW_AT_low_pc", doff);

	rc = dwarf_attr(die, DW_AT_ranges, &a, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	if (rc != DW_DLV_OK || dwarf_whatform(a, &form, &e) != DW_DLV_OK)
		return dwfail(c, e, "reading DW_AT_ranges", doff);

	if (c->cu_ver >= 5 || form == DW_FORM_rnglistx) {
		Dwarf_Rnglists_Head head;
		Dwarf_Unsigned val, count = 0, goff;

		rc = form == DW_FORM_rnglistx ? dwarf_formudata(a, &val, &e)
					      : dwarf_global_formref(a, &val, &e);
		if (rc == DW_DLV_OK)
			rc = dwarf_rnglists_get_rle_head(a, form, val, &head, &count, &goff, &e);
		dwarf_dealloc_attribute(a);
		if (rc != DW_DLV_OK)
			return dwfail(c, e, "reading .debug_rnglists for DW_AT_ranges", doff);
		for (Dwarf_Unsigned i = 0; i < count; i++) {
			unsigned len, code;
			Dwarf_Unsigned r1, r2, c1, c2;
			Dwarf_Bool noaddr = 0;

			rc = dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2,
							       &noaddr, &c1, &c2, &e);
			if (rc != DW_DLV_OK) {
				dwarf_dealloc_rnglists_head(head);
				return dwfail(c, e, "reading a .debug_rnglists entry", doff);
			}
			if (noaddr || code == DW_RLE_end_of_list || code == DW_RLE_base_address ||
			    code == DW_RLE_base_addressx)
				continue;
			if (add_scope(c, c1, c2, name, caller, depth)) {
				dwarf_dealloc_rnglists_head(head);
				return -ENOMEM;
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
			return dwfail(c, e, "reading .debug_ranges for DW_AT_ranges", doff);
		for (Dwarf_Signed i = 0; i < n; i++) {
			if (r[i].dwr_type == DW_RANGES_END)
				break;
			if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION) {
				base = r[i].dwr_addr2;
				continue;
			}
			if (add_scope(c, base + r[i].dwr_addr1, base + r[i].dwr_addr2, name,
				      caller, depth)) {
				dwarf_ranges_dealloc(c->dbg, r, n);
				return -ENOMEM;
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
static int is_descriptor(struct ctx *c, Dwarf_Die t)
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

/* "a" sep "b" interned, or NULL (out of memory). */
static const char *join_name(struct mr_debuginfo *d, const char *a, const char *sep,
			     const char *b)
{
	size_t al = strlen(a), sl = strlen(sep), bl = strlen(b);
	char *buf = malloc(al + sl + bl + 1);
	const char *r;

	if (!buf)
		return NULL;
	memcpy(buf, a, al);
	memcpy(buf + al, sep, sl);
	memcpy(buf + al + sl, b, bl + 1);
	r = intern(d, buf);
	free(buf);
	return r;
}

/* Where a variable DIE sits, for its name: the enclosing function, Fortran module and
 * COMMON block (each NULL when there is none). */
struct var_scope {
	const char *func;   /* "func::var" and MR_VAR_FUNC_STATIC */
	const char *module; /* "module::var" */
	const char *common; /* "block/member" (the block name "" for blank COMMON) */
};

/* Record a DW_TAG_variable with a static location, named by its scope sc. */
static int do_variable(struct ctx *c, Dwarf_Die die, const struct var_scope *sc)
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
	if (rc == DW_DLV_NO_ENTRY)
		return 0; /* a declaration, optimised out, or a constant */
	if (rc != DW_DLV_OK)
		return dwfail(c, e, "reading DW_AT_location", doff);
	rc = static_location(die, a, &addr, &tls, &e);
	dwarf_dealloc_attribute(a);
	if (rc < 0)
		return dwfail(c, e, "reading the location of a variable", doff);
	if (!rc || (!tls && !in_segment(d, addr, 0)))
		return 0;
	if (die_name(c, die, &name, &e) != DW_DLV_OK)
		return dwfail(c, e, "reading the name of a variable", doff);
	if (!name)
		return 0;

	/* the type: the definition's own (a completed array) first, else the declaration's */
	rc = chase_attr(c, die, DW_AT_type, &a, &owner, &e);
	if (rc == DW_DLV_ERROR)
		return dwfail(c, e, "reading the type of a variable", doff);
	if (rc == DW_DLV_OK) {
		dwarf_dealloc_attribute(a);
		desc = is_descriptor(c, type_of(c, owner));
		/* a descriptor's size is the ELF symbol's (see fix_descriptors) */
		size = desc ? 0 : type_size(c, type_of(c, owner), 0);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (chase_attr(c, die, DW_AT_external, &a, &owner, &e) == DW_DLV_OK) {
		Dwarf_Bool b = 0;

		if (dwarf_formflag(a, &b, &e) == DW_DLV_OK)
			external = !!b;
		dwarf_dealloc_attribute(a);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (chase_attr(c, die, DW_AT_decl_file, &a, &owner, &e) == DW_DLV_OK) {
		Dwarf_Off cu_off = 0, cu_len = 0;
		int same_cu = owner == die;

		if (!same_cu &&
		    dwarf_die_CU_offset_range(owner, &cu_off, &cu_len, &e) == DW_DLV_OK)
			same_cu = cu_off == c->cu_off;
		if (attr_const(a, &file, &e) != DW_DLV_OK)
			file = -1;
		else if (same_cu)
			fname = decl_file(c, file);
		else
			fname = foreign_decl_file(c, owner, file); /* LTO: declared in another CU */
		dwarf_dealloc_attribute(a);
		die_const(c, owner, DW_AT_decl_line, &line);
		if (owner != die)
			dwarf_dealloc_die(owner);
	}
	if (e)
		dwarf_dealloc_error(c->dbg, e);

	if (in_common)
		name = join_name(d, sc->common, "/", name);
	else if (func && !external)
		name = join_name(d, func, "::", name);
	else if (sc->module)
		name = join_name(d, sc->module, "::", name);
	if (!name)
		return fail(c, -ENOMEM, "out of memory");

	t = tls ? &d->dtls : &d->dvars;
	if (grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
		return fail(c, -ENOMEM, "out of memory");
	v = &t->v[t->n++];
	memset(v, 0, sizeof(*v));
	v->name = name;
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
	return 0;
}

/* Walk the children of die. sc: the enclosing (possibly inlined) function, Fortran module
 * and COMMON block; depth: inline nesting depth of that function. */
static int walk(struct ctx *c, Dwarf_Die die, const struct var_scope *sc, uint32_t depth,
		int level)
{
	const char *func = sc->func;
	Dwarf_Error e = NULL;
	Dwarf_Die child, next;
	Dwarf_Off doff = 0;
	int rc;

	if (level > 64)
		return 0; /* absurd nesting: a corrupt file; don't recurse further */
	rc = dwarf_child(die, &child, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	dwarf_dieoffset(die, &doff, NULL);
	if (rc != DW_DLV_OK)
		return dwfail(c, e, "reading the children of a DIE", doff);
	while (child) {
		Dwarf_Half tag;
		const char *name;
		struct var_scope in = { func, sc->module, NULL };

		if (dwarf_tag(child, &tag, &e) != DW_DLV_OK) {
			dwarf_dieoffset(child, &doff, NULL);
			dwarf_dealloc_die(child);
			return dwfail(c, e, "reading a DIE tag", doff);
		}
		rc = 0;
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_inlined_subroutine:
			dwarf_dieoffset(child, &doff, NULL);
			if (die_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = dwfail(c, e, "reading a function name", doff);
				break;
			}
			if (tag == DW_TAG_subprogram) {
				rc = die_ranges(c, child, name, NULL, 0);
				in.func = name;
				if (!rc)
					rc = walk(c, child, &in, 0, level + 1);
			} else {
				rc = die_ranges(c, child, name, func, depth + 1);
				in.func = name ? name : func;
				if (!rc)
					rc = walk(c, child, &in, depth + 1, level + 1);
			}
			break;
		case DW_TAG_variable:
			rc = do_variable(c, child, sc);
			break;
		case DW_TAG_common_block:
			/* a COMMON block repeats in every subprogram that declares it: its
			 * members are deduplicated by address and name (finish_vars) */
			dwarf_dieoffset(child, &doff, NULL);
			if (die_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = dwfail(c, e, "reading a COMMON block name", doff);
				break;
			}
			in.common = name ? name : "";
			rc = walk(c, child, &in, depth, level + 1);
			break;
		case DW_TAG_module:
			dwarf_dieoffset(child, &doff, NULL);
			if (die_name(c, child, &name, &e) != DW_DLV_OK) {
				rc = dwfail(c, e, "reading a module name", doff);
				break;
			}
			in.module = name;
			rc = walk(c, child, &in, depth, level + 1);
			break;
		case DW_TAG_lexical_block:
		case DW_TAG_try_block:
		case DW_TAG_catch_block:
		case DW_TAG_namespace:
		case DW_TAG_with_stmt:
			in.common = sc->common;
			rc = walk(c, child, &in, depth, level + 1);
			break;
		default:
			break;
		}
		if (rc) {
			dwarf_dealloc_die(child);
			return rc;
		}
		rc = dwarf_siblingof_b(c->dbg, child, 1, &next, &e);
		dwarf_dieoffset(child, &doff, NULL);
		dwarf_dealloc_die(child);
		if (rc == DW_DLV_ERROR)
			return dwfail(c, e, "reading the sibling of a DIE", doff);
		child = rc == DW_DLV_OK ? next : NULL;
	}
	return 0;
}

/* ---- DWARF: line tables ---- */

/* Interned name of line-table file number `no` of the current CU (cached per CU); NULL
 * if libdwarf cannot name it or memory ran out. */
static const char *line_file(struct ctx *c, Dwarf_Line ln, Dwarf_Unsigned no, Dwarf_Error *e)
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
	r = intern(c->d, s);
	dwarf_dealloc(c->dbg, s, DW_DLA_STRING);
	if (no < c->nlinefiles)
		c->linefiles[no] = r;
	return r;
}

/* Append the rows of the current CU's line program to d->lines as [addr, next addr). */
static int read_lines(struct ctx *c, Dwarf_Die cu)
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
		return dwfail(c, e, "reading the line table", c->cu_off);
	if (dwarf_srclines_from_linecontext(lc, &rows, &n, &e) != DW_DLV_OK) {
		dwarf_srclines_dealloc_b(lc);
		return dwfail(c, e, "reading the line table rows", c->cu_off);
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
		if (next <= addr || !in_segment(d, addr, 1))
			continue;
		file = line_file(c, rows[i], fileno, &e);
		if (grow((void **)&d->lines, &d->caplines, d->nlines, sizeof(*d->lines))) {
			dwarf_srclines_dealloc_b(lc);
			return fail(c, -ENOMEM, "out of memory");
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
	return dwfail(c, e, "reading a line table row", c->cu_off);
}

/* ---- DWARF: the CU loop ---- */

/* One compilation unit: its line program, then its DIE tree. 0 or -errno (c->err set). */
static int read_cu(struct ctx *c, Dwarf_Die cu)
{
	Dwarf_Error e = NULL;
	Dwarf_Half offsz;
	Dwarf_Addr base;
	int64_t lang = 0;
	int rc;

	dwarf_get_version_of_die(cu, &c->cu_ver, &offsz);
	c->cu_base = dwarf_lowpc(cu, &base, &e) == DW_DLV_OK ? base : 0;
	if (e) {
		dwarf_dealloc_error(c->dbg, e);
		e = NULL;
	}
	die_const(c, cu, DW_AT_language, &lang);
	c->lower_default = lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 ||
				   lang == DW_LANG_Fortran95 || lang == DW_LANG_Fortran03 ||
				   lang == DW_LANG_Fortran08 || lang == DW_LANG_Ada83 ||
				   lang == DW_LANG_Ada95 ? 1 : 0;
	c->cu_die = cu;
	c->srcfiles = NULL;
	c->nsrcfiles = 0;
	c->srcfiles_tried = 0;
	rc = read_lines(c, cu);
	if (!rc) {
		struct var_scope top = { NULL, NULL, NULL };

		rc = walk(c, cu, &top, 0, 0);
	}
	if (c->srcfiles) {
		for (Dwarf_Signed i = 0; i < c->nsrcfiles; i++)
			dwarf_dealloc(c->dbg, c->srcfiles[i], DW_DLA_STRING);
		dwarf_dealloc(c->dbg, c->srcfiles, DW_DLA_LIST);
		c->srcfiles = NULL;
	}
	return rc;
}

/* Read all CUs of .debug_info. 0 (also when there is no DWARF) or -errno. */
static int read_dwarf(struct ctx *c, int fd)
{
	Dwarf_Error e = NULL;
	int rc;

	rc = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &c->dbg, &e);
	if (rc == DW_DLV_NO_ENTRY)
		return 0;
	if (rc != DW_DLV_OK) {
		const char *msg = e ? dwarf_errmsg(e) : "?";

		rc = fail(c, -EINVAL, "cannot read DWARF: %s", msg ? msg : "?");
		if (e)
			dwarf_dealloc_error(NULL, e);
		c->dbg = NULL;
		return rc;
	}
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
			return dwfail(c, e, "reading a CU header", c->cu_off);
		rc = dwarf_siblingof_b(c->dbg, NULL, 1, &cu, &e);
		if (rc == DW_DLV_ERROR)
			return dwfail(c, e, "reading a CU DIE", c->cu_off);
		if (rc == DW_DLV_OK) {
			Dwarf_Off cuoff = 0, culen = 0;

			if (dwarf_die_CU_offset_range(cu, &cuoff, &culen, &e) == DW_DLV_OK)
				c->cu_off = cuoff;
			if (ut != DW_UT_type && ut != DW_UT_split_type)
				rc = read_cu(c, cu);
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

/* ---- running the DWARF pass in a child process ----
 *
 * libdwarf 20210528 can crash (double free in dwarf_load_rnglists, wild reads in loclist
 * parsing) on corrupted DWARF. So read_dwarf() runs in a forked child, which streams its
 * results back through a pipe as tagged records; a crash, a hang (alarm) or a short stream
 * becomes an error message instead of the death of memphis-report. Records:
 *   'S' slot len bytes       a string, named by its slot in the child's intern table
 *   'L' lo hi line file      a line range
 *   'F' lo hi depth name caller   a function/inlined scope
 *   'V' addr size line kind tls desc name file   a DWARF variable
 *   'E' rc len bytes         the end: read_dwarf()'s result and message
 * Strings are referenced by slot (NONE for NULL) and sent once, before first use.
 */
#define CHILD_TIMEOUT_S 600

struct wbuf {
	int fd, failed;
	size_t n;
	unsigned char *sent; /* per intern slot: already sent */
	const char *last;    /* the last string looked up and its slot */
	uint32_t last_slot;
	unsigned char b[65536];
};

static void wflush(struct wbuf *w)
{
	size_t off = 0;

	while (off < w->n && !w->failed) {
		ssize_t r = write(w->fd, w->b + off, w->n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			w->failed = 1;
		else
			off += (size_t)r;
	}
	w->n = 0;
}

static void wput(struct wbuf *w, const void *p, size_t len)
{
	const unsigned char *s = p;

	while (len) {
		size_t k = sizeof(w->b) - w->n < len ? sizeof(w->b) - w->n : len;

		memcpy(w->b + w->n, s, k);
		w->n += k;
		s += k;
		len -= k;
		if (w->n == sizeof(w->b))
			wflush(w);
	}
}

static void wu64(struct wbuf *w, uint64_t v)
{
	wput(w, &v, sizeof(v));
}

/* Slot of an interned string of d (NONE for NULL), sending it first if needed. */
static uint32_t wstr(struct mr_debuginfo *d, struct wbuf *w, const char *s)
{
	size_t len, i;

	if (!s)
		return NONE;
	if (s == w->last)
		return w->last_slot;
	len = strlen(s);
	i = mph_fnv1a(s, len) & (d->capstrs - 1);
	while (d->strs[i] && d->strs[i] != s)
		i = (i + 1) & (d->capstrs - 1);
	if (!d->strs[i])
		return NONE; /* not interned: cannot happen */
	if (!w->sent[i]) {
		w->sent[i] = 1;
		wput(w, "S", 1);
		wu64(w, i);
		wu64(w, len);
		wput(w, s, len);
	}
	w->last = s;
	w->last_slot = (uint32_t)i;
	return (uint32_t)i;
}

/* Child side: stream what read_dwarf() added to d (lines, scopes, DWARF variables). */
static void send_results(struct ctx *c, int fd, int rc)
{
	struct mr_debuginfo *d = c->d;
	struct wbuf *w = malloc(sizeof(*w));
	const struct var_tab *tabs[2] = { &d->dvars, &d->dtls };
	size_t elen = c->err ? strlen(c->err) : 0;

	if (!w)
		return;
	w->fd = fd;
	w->failed = 0;
	w->n = 0;
	w->last = NULL;
	w->last_slot = NONE;
	w->sent = calloc(d->capstrs ? d->capstrs : 1, 1);
	if (!w->sent) {
		free(w);
		return;
	}
	for (size_t i = 0; !rc && i < d->nlines; i++) {
		const struct line_ent *l = &d->lines[i];
		uint32_t f = wstr(d, w, l->file);

		wput(w, "L", 1);
		wu64(w, l->lo);
		wu64(w, l->hi);
		wu64(w, l->line);
		wu64(w, f);
	}
	for (size_t i = 0; !rc && i < d->nscopes; i++) {
		const struct scope_ent *sc = &d->scopes[i];
		uint32_t n = wstr(d, w, sc->name), cl = wstr(d, w, sc->caller);

		wput(w, "F", 1);
		wu64(w, sc->lo);
		wu64(w, sc->hi);
		wu64(w, sc->depth);
		wu64(w, n);
		wu64(w, cl);
	}
	for (int t = 0; !rc && t < 2; t++)
		for (size_t i = 0; i < tabs[t]->n; i++) {
			const struct mr_var *v = &tabs[t]->v[i];
			uint32_t n = wstr(d, w, v->name), f = wstr(d, w, v->file);

			wput(w, "V", 1);
			wu64(w, v->addr);
			wu64(w, v->size);
			wu64(w, v->line);
			wu64(w, v->kind);
			wu64(w, v->tls);
			wu64(w, v->descriptor);
			wu64(w, n);
			wu64(w, f);
		}
	wput(w, "E", 1);
	wu64(w, (uint64_t)(int64_t)rc);
	wu64(w, elen);
	wput(w, c->err, elen);
	wflush(w);
	free(w->sent);
	free(w);
}

struct rbuf {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t ru64(struct rbuf *r)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static const char *slot_str(const char **slots, size_t nslots, uint64_t i)
{
	return i < nslots ? slots[i] : NULL;
}

/* Parent side: rebuild lines, scopes and variables from the child's stream. 1 if the
 * stream was complete ('E' seen; *rc and c->err then hold the child's result), 0 if it
 * was cut short, -ENOMEM. */
static int recv_results(struct ctx *c, const unsigned char *buf, size_t len, int *rc)
{
	struct mr_debuginfo *d = c->d;
	struct rbuf r = { buf, buf + len, 0 };
	const char **slots = NULL;
	size_t nslots = 0;

	while (r.p < r.end && !r.bad) {
		unsigned char tag = *r.p++;

		if (tag == 'S') {
			uint64_t i = ru64(&r), n = ru64(&r);

			if (r.bad || n > (size_t)(r.end - r.p) || i > (1u << 30))
				break;
			if (i >= nslots) {
				size_t nn = (size_t)i + 1024;
				const char **q = realloc(slots, nn * sizeof(*q));

				if (!q)
					goto nomem;
				memset(q + nslots, 0, (nn - nslots) * sizeof(*q));
				slots = q;
				nslots = nn;
			}
			slots[i] = intern_n(d, (const char *)r.p, (size_t)n);
			if (!slots[i])
				goto nomem;
			r.p += n;
		} else if (tag == 'L') {
			struct line_ent l;

			l.lo = ru64(&r);
			l.hi = ru64(&r);
			l.line = (unsigned)ru64(&r);
			l.file = slot_str(slots, nslots, ru64(&r));
			if (grow((void **)&d->lines, &d->caplines, d->nlines, sizeof(l)))
				goto nomem;
			d->lines[d->nlines++] = l;
		} else if (tag == 'F') {
			struct scope_ent s;

			s.lo = ru64(&r);
			s.hi = ru64(&r);
			s.depth = (uint32_t)ru64(&r);
			s.name = slot_str(slots, nslots, ru64(&r));
			s.caller = slot_str(slots, nslots, ru64(&r));
			s.parent = NONE;
			if (grow((void **)&d->scopes, &d->capscopes, d->nscopes, sizeof(s)))
				goto nomem;
			d->scopes[d->nscopes++] = s;
		} else if (tag == 'V') {
			struct mr_var v;
			struct var_tab *t;

			memset(&v, 0, sizeof(v));
			v.addr = ru64(&r);
			v.size = ru64(&r);
			v.line = (unsigned)ru64(&r);
			v.kind = (unsigned)ru64(&r);
			v.tls = (unsigned)ru64(&r);
			v.descriptor = (unsigned)ru64(&r) != 0;
			v.name = slot_str(slots, nslots, ru64(&r));
			v.file = slot_str(slots, nslots, ru64(&r));
			if (!v.name)
				continue;
			t = v.tls ? &d->dtls : &d->dvars;
			if (grow((void **)&t->v, &t->cap, t->n, sizeof(v)))
				goto nomem;
			t->v[t->n++] = v;
		} else if (tag == 'E') {
			int64_t code = (int64_t)ru64(&r);
			uint64_t n = ru64(&r);

			if (r.bad || n > (size_t)(r.end - r.p))
				break;
			*rc = (int)code;
			if (code && c->err && c->errlen) {
				size_t k = n < c->errlen - 1 ? (size_t)n : c->errlen - 1;

				memcpy(c->err, r.p, k);
				c->err[k] = '\0';
			}
			free(slots);
			return 1;
		} else {
			break;
		}
	}
	free(slots);
	return 0;
nomem:
	free(slots);
	return -ENOMEM;
}

/* read_dwarf() in a child process (see above). 0 or -errno with the message in c->err. */
static int read_dwarf_isolated(struct ctx *c, int fd)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int p[2], st = 0, rc = -EINVAL, done;
	pid_t pid;

	if (pipe(p))
		return fail(c, -errno, "pipe: %s", strerror(errno)); /* out of descriptors */
	pid = fork();
	if (pid < 0) {
		/* no process to spare (RLIMIT_NPROC, memory): read in this one, unprotected */
		close(p[0]);
		close(p[1]);
		rc = read_dwarf(c, fd);
		if (c->dbg)
			dwarf_finish(c->dbg, NULL);
		c->dbg = NULL;
		free(c->linefiles);
		c->linefiles = NULL;
		c->nlinefiles = 0;
		return rc;
	}
	if (pid == 0) {
		static const int sigs[] = { SIGPIPE, SIGALRM, SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
					    SIGILL };
		int null = open("/dev/null", O_RDWR);

		/* die quietly: glibc's "double free" report must not reach the user's terminal */
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		alarm(CHILD_TIMEOUT_S);
		close(p[0]);
		/* libdwarf records every allocation in a search tree so that dwarf_finish()
		 * can free it; a process about to exit needs none of that (halves the time) */
		dwarf_set_de_alloc_flag(0);
		rc = read_dwarf(c, fd);
		if (c->dbg)
			dwarf_finish(c->dbg, NULL);
		send_results(c, p[1], rc);
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		ssize_t r;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 20;
			unsigned char *q = realloc(buf, ncap);

			if (!q)
				break;
			buf = q;
			cap = ncap;
		}
		r = read(p[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	done = buf ? recv_results(c, buf, len, &rc) : -ENOMEM;
	free(buf);
	if (done < 0)
		return fail(c, -ENOMEM, "out of memory");
	if (!done) {
		if (WIFSIGNALED(st))
			return fail(c, -EINVAL,
				    "corrupt DWARF: the DWARF reader died of signal %d%s",
				    WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
		return fail(c, -EINVAL, "corrupt DWARF: the DWARF reader stopped early");
	}
	return rc;
}

/* ---- building the lookup arrays ---- */

static int cmp_line(const void *a, const void *b)
{
	const struct line_ent *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Sort line ranges; where two overlap, the earlier one ends where the next starts. */
static void finish_lines(struct mr_debuginfo *d)
{
	size_t j = 0;

	if (!d->nlines)
		return;
	qsort(d->lines, d->nlines, sizeof(*d->lines), cmp_line);
	for (size_t i = 0; i < d->nlines; i++) {
		if (i + 1 < d->nlines && d->lines[i].hi > d->lines[i + 1].lo)
			d->lines[i].hi = d->lines[i + 1].lo;
		if (d->lines[i].hi > d->lines[i].lo)
			d->lines[j++] = d->lines[i];
	}
	d->nlines = j;
}

static int cmp_scope(const void *a, const void *b)
{
	const struct scope_ent *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* outer first */
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Sort scopes (lo ascending, outer first) and link each to the smallest scope that
 * contains it, so a lookup can walk outwards from the last scope starting at or below. */
static int finish_scopes(struct mr_debuginfo *d)
{
	uint32_t *stack;
	size_t top = 0;

	if (!d->nscopes)
		return 0;
	qsort(d->scopes, d->nscopes, sizeof(*d->scopes), cmp_scope);
	stack = malloc(d->nscopes * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < d->nscopes; i++) {
		struct scope_ent *s = &d->scopes[i];

		while (top && d->scopes[stack[top - 1]].hi < s->hi)
			top--;
		s->parent = top ? stack[top - 1] : NONE;
		stack[top++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

static int cmp_var(const void *a, const void *b)
{
	const struct mr_var *x = a, *y = b;
	int r;

	if (x->tls != y->tls)
		return x->tls < y->tls ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1; /* larger (more informative) first */
	r = strcmp(x->name, y->name);
	if (r)
		return r;
	return (y->file != NULL) - (x->file != NULL); /* with a file first */
}

static uint64_t var_end(const struct mr_var *v)
{
	return v->addr + (v->size ? v->size : 1);
}

/* Sort a variable table, drop repeats of one variable (same address and name: seen in
 * several CUs or DIEs), and compute the running maximum of the ends. */
static int finish_vars(struct var_tab *t)
{
	size_t j = 0;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_var);
	for (size_t i = 0; i < t->n; i++) {
		int dup = 0;

		/* same address and name already kept (the kept one has the larger size) */
		for (size_t k = j; k > 0 && t->v[k - 1].addr == t->v[i].addr; k--)
			if (t->v[k - 1].name == t->v[i].name) {
				dup = 1;
				break;
			}
		if (!dup)
			t->v[j++] = t->v[i];
	}
	t->n = j;
	t->maxend = malloc(t->n * sizeof(*t->maxend));
	if (!t->maxend)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = var_end(&t->v[i]);

		t->maxend[i] = i && t->maxend[i - 1] > end ? t->maxend[i - 1] : end;
	}
	return 0;
}

/* Smallest variable of t containing addr, or NULL. O(log n + overlapping variables). */
static const struct mr_var *tab_lookup(const struct var_tab *t, uint64_t addr)
{
	const struct mr_var *best = NULL;
	size_t lo = mph_upper_bound(t->v, t->n, sizeof(*t->v), offsetof(struct mr_var, addr), addr);

	for (size_t i = lo; i > 0 && t->maxend[i - 1] > addr; i--) {
		const struct mr_var *v = &t->v[i - 1];

		if (addr < var_end(v) && (!best || v->size < best->size))
			best = v;
	}
	return best;
}

/* Fortran descriptors have no size in DWARF (the type describes the data): take the ELF
 * symbol's at the same address (gfortran's __mod_MOD_var), so that loads of any of the
 * descriptor's words are the variable's. d->svars must be finished. */
static void fix_descriptors(struct mr_debuginfo *d)
{
	for (size_t i = 0; i < d->dvars.n; i++) {
		struct mr_var *v = &d->dvars.v[i];
		const struct mr_var *s;

		if (!v->descriptor || v->size)
			continue;
		s = tab_lookup(&d->svars, v->addr);
		if (s && s->addr == v->addr)
			v->size = s->size;
	}
}

/* The array behind mr_debuginfo_vars(): every DWARF variable, plus ELF symbols that no
 * DWARF variable covers; sorted by (tls, addr). Then the four lookup views into it. */
static int build_all(struct mr_debuginfo *d)
{
	size_t n = 0;

	d->all = malloc((d->dvars.n + d->dtls.n + d->svars.n + d->stls.n + 1) * sizeof(*d->all));
	if (!d->all)
		return -ENOMEM;
	for (size_t i = 0; i < d->dvars.n; i++)
		d->all[n++] = d->dvars.v[i];
	for (size_t i = 0; i < d->dtls.n; i++)
		d->all[n++] = d->dtls.v[i];
	for (size_t i = 0; i < d->svars.n; i++)
		if (!tab_lookup(&d->dvars, d->svars.v[i].addr))
			d->all[n++] = d->svars.v[i];
	for (size_t i = 0; i < d->stls.n; i++)
		if (!tab_lookup(&d->dtls, d->stls.v[i].addr))
			d->all[n++] = d->stls.v[i];
	qsort(d->all, n, sizeof(*d->all), cmp_var);
	d->nall = n;
	for (int k = 0; k < 4; k++) {
		struct var_idx *x = &d->idx[k];

		x->v = malloc((n + 1) * sizeof(*x->v));
		x->maxend = malloc((n + 1) * sizeof(*x->maxend));
		if (!x->v || !x->maxend)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			const struct mr_var *v = &d->all[i];
			int cls = (v->kind == MR_VAR_SYMBOL ? 2 : 0) + (v->tls ? 1 : 0);

			if (cls != k)
				continue;
			x->maxend[x->n] = var_end(v);
			if (x->n && x->maxend[x->n - 1] > x->maxend[x->n])
				x->maxend[x->n] = x->maxend[x->n - 1];
			x->v[x->n++] = v;
		}
	}
	return 0;
}

/* Smallest variable of x containing addr, or NULL. O(log n + overlapping variables). */
static const struct mr_var *idx_lookup(const struct var_idx *x, uint64_t addr)
{
	const struct mr_var *best = NULL;
	size_t lo = mph_upper_bound_ptr((const void *const *)x->v, x->n,
					offsetof(struct mr_var, addr), addr);

	for (size_t i = lo; i > 0 && x->maxend[i - 1] > addr; i--) {
		const struct mr_var *v = x->v[i - 1];

		if (addr < var_end(v) && (!best || v->size < best->size))
			best = v;
	}
	return best;
}

/* ---- separate debug files (build-id and .gnu_debuglink) ---- */

/* Section of elf named `name`, or NULL. */
static Elf_Scn *find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh))
			return NULL;
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* Build-id of elf from its .note.gnu.build-id section (debug files keep the section even
 * where their program headers point at nothing) into out[129]; "" if none. */
static void section_build_id(Elf *elf, char *out)
{
	Elf_Scn *scn = find_section(elf, ".note.gnu.build-id");
	Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	out[0] = '\0';
	if (!data || !data->d_buf)
		return;
	while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || !nh.n_descsz || nh.n_descsz > 64)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(out + 2 * i, 3, "%02x", desc[i]);
		return;
	}
}

/* Open candidate as the debug file of d: an ELF file with .debug_info whose build-id (if
 * both have one) matches. Its symbols are added, its DWARF read; a failure there only
 * means no DWARF (d stays usable from the ELF symbols). 1 if it was used, 0 if not. */
static int try_debug_file(struct ctx *c, const char *candidate)
{
	struct mr_debuginfo *d = c->d;
	char bid[129], *saved_path = d->path;
	int fd, used = 0;
	Elf *elf;

	fd = open(candidate, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !find_section(elf, ".debug_info"))
		goto out;
	section_build_id(elf, bid);
	if (bid[0] && d->build_id[0] && strcmp(bid, d->build_id))
		goto out;
	d->path = (char *)candidate; /* name the debug file in messages */
	if (!read_symbols(c, elf) && !read_dwarf_isolated(c, fd))
		d->debug_path = strdup(candidate); /* NULL on ENOMEM: only the name is lost */
	d->path = saved_path;
	if (c->err && c->errlen)
		c->err[0] = '\0'; /* degrade silently: the object itself is fine */
	used = 1;                  /* a matching file was tried: look no further */
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return used;
}

/* No DWARF in the object itself: look for it where Debian's -dbgsym/-dbg packages and
 * objcopy --add-gnu-debuglink put it, as gdb does: DEBUG_DIR/.build-id/xx/rest.debug,
 * then the .gnu_debuglink name next to the object, in .debug/ there, and under DEBUG_DIR
 * plus the object's directory. */
static void find_debug_file(struct ctx *c, Elf *elf, const char *debug_dir)
{
	struct mr_debuginfo *d = c->d;
	char cand[4096], dir[4096], link[256];
	const char *slash;
	int n;
	Elf_Scn *scn;
	Elf_Data *data;

	if (debug_dir && strlen(d->build_id) > 2) {
		n = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", debug_dir,
			     d->build_id, d->build_id + 2);
		if (n < (int)sizeof(cand) && try_debug_file(c, cand))
			return;
	}
	scn = find_section(elf, ".gnu_debuglink");
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || !data->d_size || !memchr(data->d_buf, '\0', data->d_size))
		return;
	snprintf(link, sizeof(link), "%s", (const char *)data->d_buf);
	if (!link[0] || strchr(link, '/'))
		return;
	slash = strrchr(d->path, '/');
	n = snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - d->path) : 1,
		     slash ? d->path : ".");
	if (n >= (int)sizeof(dir))
		return;
	n = snprintf(cand, sizeof(cand), "%s/%s", dir, link);
	if (n < (int)sizeof(cand) && strcmp(cand, d->path) && try_debug_file(c, cand))
		return;
	n = snprintf(cand, sizeof(cand), "%s/.debug/%s", dir, link);
	if (n < (int)sizeof(cand) && try_debug_file(c, cand))
		return;
	if (debug_dir && dir[0] == '/') {
		n = snprintf(cand, sizeof(cand), "%s%s/%s", debug_dir, dir, link);
		if (n < (int)sizeof(cand))
			try_debug_file(c, cand);
	}
}

/* ---- public ---- */

int mr_debuginfo_open(const char *path, struct mr_debuginfo **out, char *err, size_t errlen)
{
	return mr_debuginfo_open_dir(path, "/usr/lib/debug", out, err, errlen);
}

int mr_debuginfo_open_dir(const char *path, const char *debug_dir, struct mr_debuginfo **out,
			  char *err, size_t errlen)
{
	struct mr_debuginfo *d;
	struct ctx c = { .err = err, .errlen = errlen };
	Elf *elf;
	int fd, rc;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	c.d = d;
	d->path = strdup(path ? path : "");
	if (!d->path) {
		free(d);
		return fail(&c, -ENOMEM, "out of memory");
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		rc = fail(&c, -errno, "cannot open: %s", strerror(errno));
		goto out_free;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		rc = fail(&c, -ENOSYS, "libelf too old");
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		rc = fail(&c, -EINVAL, "cannot read: %s", elf_errmsg(-1));
		goto out_close;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		rc = fail(&c, -ENOEXEC, "not an ELF file");
		goto out_elf;
	}
	rc = check_extent(&c, elf, fd);
	if (!rc)
		rc = read_phdrs(&c, elf);
	if (!rc)
		rc = read_symbols(&c, elf);
	if (rc)
		goto out_elf;
	if (find_section(elf, ".debug_info") || !debug_dir) {
		rc = read_dwarf_isolated(&c, fd);
		if (rc)
			goto out_elf;
	} else {
		find_debug_file(&c, elf, debug_dir);
	}
	finish_funcs(d);
	finish_lines(d);
	if (finish_scopes(d) || finish_vars(&d->svars) || (fix_descriptors(d), 0) ||
	    finish_vars(&d->dvars) || finish_vars(&d->dtls) || finish_vars(&d->stls) ||
	    build_all(d)) {
		rc = fail(&c, -ENOMEM, "out of memory");
		goto out_elf;
	}
	elf_end(elf);
	close(fd);
	*out = d;
	return 0;

out_elf:
	elf_end(elf);
out_close:
	close(fd);
out_free:
	mr_debuginfo_close(d);
	return rc;
}

void mr_debuginfo_close(struct mr_debuginfo *d)
{
	struct var_tab *tabs[4];

	if (!d)
		return;
	tabs[0] = &d->dvars;
	tabs[1] = &d->dtls;
	tabs[2] = &d->svars;
	tabs[3] = &d->stls;
	for (int i = 0; i < 4; i++) {
		free(tabs[i]->v);
		free(tabs[i]->maxend);
		free(d->idx[i].v);
		free(d->idx[i].maxend);
	}
	while (d->arena) {
		struct chunk *next = d->arena->next;

		free(d->arena);
		d->arena = next;
	}
	free(d->strs);
	free(d->all);
	free(d->lines);
	free(d->scopes);
	free(d->funcs);
	free(d->segs);
	free(d->path);
	free(d->debug_path);
	free(d);
}

const char *mr_debuginfo_debug_file(const struct mr_debuginfo *d)
{
	return d->debug_path;
}

const char *mr_debuginfo_build_id(const struct mr_debuginfo *d)
{
	return d->build_id;
}

int mr_debuginfo_is_pic(const struct mr_debuginfo *d)
{
	return d->pic;
}

void mr_debuginfo_load_base(const struct mr_debuginfo *d, uint64_t *vaddr0, uint64_t *offset0)
{
	*vaddr0 = d->vaddr0;
	*offset0 = d->offset0;
}

int mr_debuginfo_bias(const struct mr_debuginfo *d, uint64_t map_start, uint64_t map_offset,
		      uint64_t page_size, uint64_t *bias)
{
	if (!page_size || (page_size & (page_size - 1)) ||
	    map_offset != (d->offset0 & ~(page_size - 1)))
		return -EINVAL;
	*bias = map_start - map_offset + d->offset0 - d->vaddr0;
	return 0;
}

void mr_debuginfo_tls(const struct mr_debuginfo *d, uint64_t *memsz, uint64_t *align)
{
	*memsz = d->tls_memsz;
	*align = d->tls_align;
}

uint64_t mr_debuginfo_tls_tpoff(const struct mr_debuginfo *d)
{
	uint64_t align = d->tls_align ? d->tls_align : 1, firstbyte;

	if (!d->tls_memsz || (align & (align - 1)))
		return 0;
	/* glibc _dl_determine_tlsoffset(), TLS_TCB_AT_TP, first module: the block ends at
	 * the thread pointer and its first byte keeps p_vaddr's misalignment */
	firstbyte = (0 - d->tls_vaddr) & (align - 1);
	return (d->tls_memsz - firstbyte + align - 1) / align * align + firstbyte;
}

/* Innermost scope containing vaddr, or NULL. */
static const struct scope_ent *scope_at(const struct mr_debuginfo *d, uint64_t vaddr)
{
	size_t lo = mph_upper_bound(d->scopes, d->nscopes, sizeof(*d->scopes),
				    offsetof(struct scope_ent, lo), vaddr);
	uint32_t i;

	if (!lo)
		return NULL;
	for (i = (uint32_t)(lo - 1); i != NONE; i = d->scopes[i].parent)
		if (vaddr < d->scopes[i].hi && vaddr >= d->scopes[i].lo)
			return &d->scopes[i];
	return NULL;
}

/* Name of the ELF function symbol containing vaddr (unsized symbols: up to the next). */
static const char *func_sym_at(const struct mr_debuginfo *d, uint64_t vaddr)
{
	size_t lo = mph_upper_bound(d->funcs, d->nfuncs, sizeof(*d->funcs),
				    offsetof(struct func_sym, addr), vaddr);
	const struct func_sym *f;

	if (!lo)
		return NULL;
	f = &d->funcs[lo - 1];
	return !f->size || vaddr < f->addr + f->size ? f->name : NULL;
}

int mr_debuginfo_line(struct mr_debuginfo *d, uint64_t vaddr, struct mr_line *out)
{
	const struct scope_ent *s = scope_at(d, vaddr);
	size_t lo = mph_upper_bound(d->lines, d->nlines, sizeof(*d->lines),
				    offsetof(struct line_ent, lo), vaddr);

	memset(out, 0, sizeof(*out));
	if (s && s->name) {
		out->function = s->name;
		out->caller = s->caller;
	} else {
		out->function = func_sym_at(d, vaddr);
	}
	if (!lo || vaddr >= d->lines[lo - 1].hi)
		return -ENOENT;
	out->file = d->lines[lo - 1].file;
	out->line = d->lines[lo - 1].line;
	return 0;
}

const struct mr_var *mr_debuginfo_var_at(struct mr_debuginfo *d, uint64_t vaddr)
{
	const struct mr_var *v = idx_lookup(&d->idx[0], vaddr);

	return v ? v : idx_lookup(&d->idx[2], vaddr);
}

const struct mr_var *mr_debuginfo_tls_var_at(struct mr_debuginfo *d, uint64_t offset)
{
	const struct mr_var *v = idx_lookup(&d->idx[1], offset);

	return v ? v : idx_lookup(&d->idx[3], offset);
}

unsigned mr_debuginfo_segment(const struct mr_debuginfo *d, uint64_t vaddr)
{
	for (size_t i = 0; i < d->nsegs; i++)
		if (vaddr >= d->segs[i].lo && vaddr < d->segs[i].hi)
			return d->segs[i].flags;
	return 0;
}

ssize_t mr_debuginfo_code(const struct mr_debuginfo *d, uint64_t vaddr, void *buf, size_t len)
{
	for (size_t i = 0; i < d->nsegs; i++) {
		const struct seg *sg = &d->segs[i];
		uint64_t avail;
		ssize_t r;
		int fd;

		if (!sg->exec || vaddr < sg->lo || vaddr - sg->lo >= sg->filesz)
			continue;
		avail = sg->filesz - (vaddr - sg->lo);
		if (len > avail)
			len = (size_t)avail;
		fd = open(d->path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		r = pread(fd, buf, len, (off_t)(sg->off + (vaddr - sg->lo)));
		if (r < 0)
			r = -errno;
		close(fd);
		return r;
	}
	return -ENOENT;
}

size_t mr_debuginfo_vars(struct mr_debuginfo *d, const struct mr_var **vars)
{
	*vars = d->all;
	return d->nall;
}
