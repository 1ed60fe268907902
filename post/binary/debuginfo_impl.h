/* post/binary/debuginfo_impl.h - the internals of one struct mr_debuginfo, shared by its pieces:
 *   debuginfo.c           open/close, the sorted lookup arrays and the public lookups
 *   debuginfo_strings.c   error messages, growable arrays, the string arena and interner
 *   debuginfo_elf.c       ELF: program headers, build-id, symbol tables
 *   debuginfo_debugfile.c separate debug files (build-id path, .gnu_debuglink)
 *   debuginfo_dwarf.c     DWARF: attribute helpers, line tables
 *   debuginfo_dwarf_walk.c DWARF: the CU loop and the DIE walk (scopes of functions and
 *                         inlined code, variables with static or TLS locations)
 *   debuginfo_scope.c     variables' names with their scope: the unit's file for internal
 *                         linkage, C++ namespaces and classes
 *   debuginfo_child.c     running the DWARF pass in a child process and its protocol
 *   debuginfo_lazy.c      a separate debug file's DWARF, read a unit at a time when needed
 *   debuginfo_locals.c    frames: the CFA rule and the frame-relative locals at a pc
 * Not for other files of post/: they use debuginfo.h.
 */
#ifndef MR_DEBUGINFO_IMPL_H
#define MR_DEBUGINFO_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <gelf.h>
#include <libelf.h>
#include <dwarf.h>
#include <libdwarf.h>

#include "debuginfo.h"
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
	uint64_t die;       /* .debug_info offset of its DIE (debuginfo_locals.c reads it) */
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
	/* a matching separate debug file under the debug directory (a distribution's debug
	 * package; one found by .gnu_debuglink elsewhere is read whole at the open, in a
	 * child) whose DWARF is read when needed (its symbols are read at the open): the
	 * compilation unit of an address on the first question about
	 * its line or scope, every unit on the first about variables (debuginfo_lazy.c).
	 * NULL for DWARF in the object itself (read at the open). While lazy_growing is 1
	 * the arrays may grow: lookups hold d->lock; 0 (release) once everything is read. */
	struct di_lazy *lazy;
	atomic_int lazy_growing;
	atomic_int code_by_symbols; /* mr_debuginfo_code_by_symbols */
	bool symbols_only;          /* opened by mr_debuginfo_open_symbols */
	atomic_int code_fd;         /* mr_debuginfo_code's file: its fd + 1, 0 until opened */
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

	struct di_frames *frames; /* debuginfo_locals.c's DWARF, opened on first use, and */
	void (*frames_close)(struct mr_debuginfo *d); /* what closes it (set with it: the
						       * locals sit above debuginfo.c) */

	struct chunk *arena;
	const char **strs; /* intern hash table (open addressing, mph_fnv1a) */
	uint64_t *strh;    /* [capstrs]: each entry's hash (no rehash, no compare on mismatch) */
	size_t nstrs, capstrs;

	/* shared (mr_debuginfo_cache_hold): the attributions of several runs use one object,
	 * each under its own lock; what changes after the open (frames, interned names of
	 * locals) changes under this one */
	pthread_mutex_t lock;
	unsigned refs;            /* closes still to come (the cache's hold included) */
	struct mr_debuginfo *cache_next;
	dev_t dev;                /* the file, as the cache knows it */
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *cache_dir;          /* the debug_dir it was opened with ("" none) */
};

/* A C++ namespace or class (structure, union) the walk went into, for the names of the
 * variables declared in it (debuginfo_scope.c). */
struct di_ns {
	uint64_t die;      /* its DIE's .debug_info offset (the name is read when needed) */
	uint32_t parent;   /* the enclosing one, NONE at the top */
	int built;         /* qual and anon are known */
	int anon;          /* it or an enclosing one is an anonymous namespace */
	const char *qual;  /* "outer::inner::Q", NULL when only anonymous namespaces */
};

/* A variable declared in a namespace or class (gcc's in-class static member, a namespace
 * variable whose definition sits at the unit's top): its DIE -> the di_ns. */
struct di_decl {
	uint64_t die;
	uint32_t ns;
};

/* A variable whose definition names it through another DIE (DW_AT_specification or
 * DW_AT_abstract_origin): named at the end of the pass, when every declaration has been
 * seen (clang's definition comes before its class). */
struct di_pending {
	int tls;           /* in d->dtls, else d->dvars */
	size_t idx;        /* its index there */
	uint64_t owner;    /* the DIE holding its DW_AT_name */
	const char *file;  /* base name of the owner's unit */
	int external;
};

/* The scopes of one DWARF pass (debuginfo_scope.c): filled by the walk, used and freed by
 * di_scope_finish. decls is sorted by die (the walk's order) unless decls_unsorted. */
struct di_scopes {
	struct di_ns *ns;
	size_t nns, capns;
	struct di_decl *decls;
	size_t ndecls, capdecls;
	int decls_unsorted;
	struct di_pending *pend;
	size_t npend, cappend;
};

/* State of one open: the object, libdwarf's handle, where we are, where errors go. */
struct di_ctx {
	struct mr_debuginfo *d;
	Dwarf_Debug dbg;
	char *err;
	size_t errlen;
	Dwarf_Off cu_off;    /* .debug_info offset of the current CU header */
	Dwarf_Half cu_ver;   /* its DWARF version */
	Dwarf_Addr cu_base;  /* its base address (DW_AT_low_pc), for DWARF 4 ranges */
	int lower_default;   /* default array lower bound of the CU's language */
	int cu_classes;      /* the CU's language has static class members (C++) */
	const char *cu_file; /* base name of the CU's DW_AT_name (interned), NULL if none */
	Dwarf_Die cu_die;    /* the current CU's DIE */
	char **srcfiles;     /* dwarf_srcfiles() of the current CU, loaded when needed */
	Dwarf_Signed nsrcfiles;
	int srcfiles_tried;
	const char **linefiles; /* per-CU cache: line-table file number -> interned name */
	size_t nlinefiles;
	const Dwarf_Off *skip; /* header offsets of units read already: di_read_dwarf */
	size_t nskip;          /* skips them */
	struct di_scopes scopes; /* namespaces, classes and names waiting for them */
};

/* Where a variable DIE sits, for its name: the enclosing function, Fortran module and
 * COMMON block (each NULL when there is none), C++ namespace or class. */
struct var_scope {
	const char *func;   /* "func::var" and MR_VAR_FUNC_STATIC */
	const char *module; /* "module::var" */
	const char *common; /* "block/member" (the block name "" for blank COMMON) */
	uint32_t ns;        /* the di_ns of the namespace or class, NONE outside any */
};

/* ---- shared between the pieces ---- */

/* Format "path: message" into c->err. Returns rc (a -errno) for `return di_fail(...)`. */
int di_fail(struct di_ctx *c, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Make room for one more element in *p (n used, *cap allocated). 0 or -ENOMEM. */
int di_grow(void **p, size_t *cap, size_t n, size_t elsz);

/* The one arena copy of s[0..len) (equal strings share a pointer). NULL on ENOMEM. */
const char *di_intern_n(struct mr_debuginfo *d, const char *s, size_t len);

/* di_intern_n() of the NUL-terminated s. */
const char *di_intern(struct mr_debuginfo *d, const char *s);

/* 1 if address lo lies in a PT_LOAD segment (an executable one if exec): drops code and
 * data the linker discarded (their DWARF addresses were resolved to 0 or a tombstone). */
int di_in_segment(const struct mr_debuginfo *d, uint64_t lo, int exec);

/* Program headers: PIC-ness, PT_LOAD segments and the lowest one, PT_TLS, build-id. */
int di_read_phdrs(struct di_ctx *c, Elf *elf);

/* The file must hold its section header table, every section with contents and every
 * PT_LOAD's file part: catches truncated files (libelf quietly shows fewer sections). */
int di_check_extent(struct di_ctx *c, Elf *elf, int fd);

/* Read .symtab and .dynsym. Symbols whose names are out of range are skipped. */
int di_read_symbols(struct di_ctx *c, Elf *elf);

/* Sort function symbols and keep the best name per address. */
void di_finish_funcs(struct mr_debuginfo *d);

/* Report a libdwarf error (what we were doing, where, and libdwarf's message), free it. */
int di_dwfail(struct di_ctx *c, Dwarf_Error e, const char *what, Dwarf_Off off);

/* Free *child and move to its next sibling (*child NULL after the last): 0, or di_dwfail's
 * error where libdwarf could not read the sibling. */
int di_next_sibling(struct di_ctx *c, Dwarf_Die *child);

/* The attribute `at` of die, or of the DIE its DW_AT_specification/DW_AT_abstract_origin
 * (chained) points to. *owner receives the DIE that has it (die itself or one the caller
 * must dwarf_dealloc_die() when != die). DW_DLV_OK, DW_DLV_NO_ENTRY, or DW_DLV_ERROR. */
int di_chase_attr(struct di_ctx *c, Dwarf_Die die, Dwarf_Half at, Dwarf_Attribute *out,
		  Dwarf_Die *owner, Dwarf_Error *e);

/* Name of die (following specification/abstract_origin), interned; NULL if none.
 * DW_DLV_ERROR only for a libdwarf error (in *e). */
int di_die_name(struct di_ctx *c, Dwarf_Die die, const char **name, Dwarf_Error *e);
/* di_die_name of a subprogram or inlined subroutine, as the user wrote it
 * (mr_demangle_function: "ComputeForce" for "_ZL12ComputeForceR4MeshPdd._omp_fn.0",
 * "main" for "main._omp_fn.1"). */
int di_function_name(struct di_ctx *c, Dwarf_Die die, const char **name, Dwarf_Error *e);

/* Unsigned (or non-negative signed) constant value of an attribute: DW_DLV_OK, or
 * DW_DLV_NO_ENTRY when it is not a constant (an expression, a reference). */
int di_attr_const(Dwarf_Attribute a, int64_t *val, Dwarf_Error *e);

/* Constant attribute `at` of die itself: 1 and *val if present and constant, else 0. */
int di_die_const(struct di_ctx *c, Dwarf_Die die, Dwarf_Half at, int64_t *val);

/* The DIE die's DW_AT_type refers to, or NULL (void, or unreadable). */
Dwarf_Die di_type_of(struct di_ctx *c, Dwarf_Die die);

/* Size in bytes of an object of type t (consumed: deallocated here); 0 when unknown
 * (incomplete or variable-length types, type units). depth bounds malicious cycles. */
uint64_t di_type_size(struct di_ctx *c, Dwarf_Die t, int depth);

/* Interned source file for a DW_AT_decl_file index of the current CU, or NULL. The CU's
 * file list is read on the first call (many CUs declare no static variable). */
const char *di_decl_file(struct di_ctx *c, int64_t idx);

/* di_decl_file() for a DIE of another CU (LTO: the definition refers to the declaration in
    * the early-debug CU): that CU's file list, read for this one lookup. NULL if unknown. */
const char *di_foreign_decl_file(struct di_ctx *c, Dwarf_Die owner, int64_t idx);

/* Append the rows of the current CU's line program to d->lines as [addr, next addr). */
int di_read_lines(struct di_ctx *c, Dwarf_Die cu);

/* Read all CUs of .debug_info. 0 (also when there is no DWARF) or -errno. */
int di_read_dwarf(struct di_ctx *c, int fd);

/* A range [lo, hi) of a DIE handed out by di_die_ranges; non-zero stops the walk. */
typedef int di_range_fn(struct di_ctx *c, void *arg, uint64_t lo, uint64_t hi);

/* Hand each address range of die (low_pc/high_pc, or DW_AT_ranges: DWARF 4 .debug_ranges
 * or DWARF 5 .debug_rnglists) to fn; stops at fn's first non-zero return. 0 (also for a
 * DIE without ranges), fn's return or -errno (c->err set). */
int di_die_ranges(struct di_ctx *c, Dwarf_Die die, di_range_fn *fn, void *arg);

/* Make cu the current compilation unit of c (version, base address, the language's
 * default lower bound; its file list read when first needed); di_cu_end frees what it
 * loaded. */
void di_cu_begin(struct di_ctx *c, Dwarf_Die cu);
void di_cu_end(struct di_ctx *c);

/* Innermost scope containing vaddr, or NULL. */
const struct scope_ent *di_scope_at(const struct mr_debuginfo *d, uint64_t vaddr);

/* Walk the children of die. sc: the enclosing (possibly inlined) function, Fortran module
 * and COMMON block; depth: inline nesting depth of that function. */
int di_walk(struct di_ctx *c, Dwarf_Die die, const struct var_scope *sc, uint32_t depth,
	    int level);

/* di_read_dwarf() in a forked child (protocol in debuginfo_child.c). 0 or -errno with the message in c->err. */
int di_read_dwarf_isolated(struct di_ctx *c, int fd);

/* ---- a separate debug file's DWARF, read when needed ---- */

/* debuginfo.c. Read every unit not read yet (di_lazy_read_all) and finish the arrays: then
 * they are final. No-op when they are. _locked: the caller holds d->lock. */
void di_need_dwarf(struct mr_debuginfo *d);
void di_need_dwarf_locked(struct mr_debuginfo *d);

/* debuginfo.c. Under d->lock: read the unit of vaddr (di_lazy_read_addr), if not read yet,
 * and sort it into the arrays. */
void di_need_addr_locked(struct mr_debuginfo *d, uint64_t vaddr);

/* debuginfo_lazy.c. Make d's DWARF the debug file at path, read later. 0 or -ENOMEM (then
 * no DWARF). */
int di_lazy_new(struct mr_debuginfo *d, const char *path);
void di_lazy_free(struct mr_debuginfo *d);

/* Append to d's arrays, unsorted, the unit whose .debug_aranges covers vaddr, if not read
 * yet (in this process, as debuginfo_locals.c reads DIEs). 1 if it read one, 0 if it was
 * read, -1 when every unit must be read instead (no aranges answer, or many units read
 * already: each costs a sort of the arrays). Under d->lock. */
int di_lazy_read_addr(struct mr_debuginfo *d, uint64_t vaddr);

/* Append every unit not read yet: the open's DWARF pass (a child process) on the debug
 * file, the units read before skipped; a failure keeps what was read and names no debug
 * file (d->debug_path NULL), as at an open. Under d->lock. */
void di_lazy_read_all(struct mr_debuginfo *d);

/* Under d->lock: the libdwarf handle on the debug file that di_lazy_read_addr reads, for
 * the locals' DIEs (owned by d->lazy), or NULL. */
Dwarf_Debug di_lazy_dbg(struct mr_debuginfo *d);

/* debuginfo_dwarf_walk.c. One compilation unit (c->cu_off its header offset): its line
 * program, then its DIE tree. 0 or -errno (c->err set). */
int di_read_cu(struct di_ctx *c, Dwarf_Die cu);

/* Section of elf named `name`, or NULL. */
Elf_Scn *di_find_section(Elf *elf, const char *name);

/* No DWARF in the object itself: look for it where Debian's -dbgsym/-dbg packages and
 * objcopy --add-gnu-debuglink put it, as gdb does: DEBUG_DIR/.build-id/xx/rest.debug,
 * then the .gnu_debuglink name next to the object, in .debug/ there, and under DEBUG_DIR
 * plus the object's directory. */
void di_find_debug_file(struct di_ctx *c, Elf *elf, const char *debug_dir);

/* Sort a variable table, drop repeats of one variable (same address and name: seen in
 * several CUs or DIEs), and compute the running maximum of the ends. */
int di_finish_vars(struct var_tab *t);

/* ---- names with their scope (debuginfo_scope.c) ---- */

/* The current unit's file (c->cu_file) and whether its language (DW_AT_language lang)
 * has classes with static members (c->cu_classes): di_cu_begin. */
void di_scope_unit(struct di_ctx *c, Dwarf_Die cu, int64_t lang);

/* Enter namespace or class die (inside parent, NONE at the top): a new di_ns, or NONE
 * when out of memory (its variables then go without it). */
uint32_t di_scope_enter(struct di_ctx *c, Dwarf_Die die, uint32_t parent);

/* Record that the variable (or static member) DIE die is declared in di_ns ns. 0 or
 * -ENOMEM. */
int di_scope_decl(struct di_ctx *c, Dwarf_Die die, uint32_t ns);

/* Walk class (structure, union) die of a C++ unit, declared in parent: its static data
 * members' declarations and its nested classes. 0 or -errno (c->err set). */
int di_scope_class(struct di_ctx *c, Dwarf_Die die, uint32_t parent, int level);

/* Name variable v (just added to d->dtls if tls, else d->dvars, at idx) of DIE die, its
 * DWARF name base, found at scope sc, external (DW_AT_external): sets v->name, v->scope
 * and v->base, now or at di_scope_finish (a name through another DIE). See mr_var. 0 or
 * -ENOMEM. */
int di_scope_name(struct di_ctx *c, Dwarf_Die die, const struct var_scope *sc, int external,
		  int tls, size_t idx, const char *base);

/* End of a pass (every unit read): name the variables waiting for their declarations, and
 * free the pass's scopes. Needs c->dbg open. 0 or -ENOMEM. */
int di_scope_finish(struct di_ctx *c);

/* Fortran descriptors have no size in DWARF (the type describes the data): take the ELF
 * symbol's at the same address (gfortran's __mod_MOD_var), so that loads of any of the
 * descriptor's words are the variable's. d->svars must be finished. */
void di_fix_descriptors(struct mr_debuginfo *d);

#endif /* MR_DEBUGINFO_IMPL_H */
