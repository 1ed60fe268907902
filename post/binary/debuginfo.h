/* post/binary/debuginfo.h - what one ELF object (executable or shared library) says about its
 * code and data, from DWARF (libdwarf) and the ELF symbol tables (libelf).
 *
 * All addresses here are the object's own ELF virtual addresses: the caller subtracts the
 * load bias (runtime address - vaddr, from the maps snapshot) before asking. Everything
 * returned is owned by the struct mr_debuginfo and lives until mr_debuginfo_close().
 */
#ifndef MR_DEBUGINFO_H
#define MR_DEBUGINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/varkind.h"

struct mr_debuginfo;


struct mr_var {
	/* The name with its scope, one per variable of a program (DWARF variables):
	 *   a global (external linkage, outside any namespace or class)   "work"
	 *   internal linkage (static, an anonymous namespace): the base name of its unit's
	 *     file (DW_AT_name of the compilation unit), then ':'           "a.c:work"
	 *   a C++ namespace or class, template arguments as DWARF names the class
	 *                                          "ns1::v", "S::arr", "H<1>::data",
	 *                                          "a.cc:ns2::w" (both)
	 *   a function static                      "func::var" (the function's DWARF name)
	 *   a Fortran module variable, a COMMON member, a SAVEd local "mod::var",
	 *                                          "block/member", "sub::var"
	 * ELF symbols (MR_VAR_SYMBOL) are named by the symbol. */
	const char *name;
	const char *scope; /* what qualifies name ("a.c", "ns1", "a.cc:ns2", "func", "mod",
			    * "block"), NULL when there is nothing (a global, a symbol) */
	const char *base;  /* name without its scope: DWARF's DW_AT_name ("work"); NULL for
			    * an ELF symbol */
	const char *file;  /* declaring file, may be NULL */
	unsigned line;     /* declaring line, 0 if unknown */
	unsigned kind;     /* enum mr_var_kind */
	uint64_t addr;     /* vaddr, or for MR_VAR_TLS the offset inside the module's TLS block */
	uint64_t size;     /* bytes, from the type (arrays: elements * element size), 0 if
			    * unknown (then lookups treat it as 1 byte) */
	unsigned tls;      /* 1 if addr is an offset in the TLS block (MR_VAR_TLS, or an
			    * MR_VAR_SYMBOL from an STT_TLS symbol), 0 if it is a vaddr */
	unsigned descriptor; /* 1: a Fortran allocatable/pointer array's descriptor (size is
			      * the descriptor's); its data pointer is the first word */
};

struct mr_line {
	const char *function; /* function containing the instruction (innermost inlined one;
			       * from the ELF symbols when DWARF has none), NULL if unknown */
	const char *file;     /* source file of the line the user wrote, NULL if unknown */
	unsigned line;        /* the line table's line for the address (inside an inlined
			       * body: the line in that body), 0 if unknown */
	const char *caller;   /* for inlined code: the function it was inlined into (the next
			       * scope out, itself maybe inlined), else NULL */
};

/* Open `path` and read its symbol tables and DWARF. Returns 0, or -errno with a message
 * naming the file (and offset, where one is known) in err. Everything is read here (the
 * arrays are then searched in O(log n)); the DWARF pass runs in a child process, so even
 * DWARF that crashes libdwarf only yields an error. An object without .debug_info gets its
 * DWARF from a separate debug file when one is installed (see mr_debuginfo_open_dir with
 * debug_dir "/usr/lib/debug"); without any, it still opens (ELF symbols only). A debug
 * file under debug_dir (a distribution's package) has its symbols read here and its DWARF
 * when needed, in this process: the compilation unit of an address on the first
 * line/own_line/locals question about it, all of it on the first about variables (libc's
 * whole DWARF is 0.15 s of CPU; a report needs a few of its units). */
int mr_debuginfo_open(const char *path, struct mr_debuginfo **out, char *err, size_t errlen);

/* mr_debuginfo_open() looking for separate debug files, as gdb does, in
 * debug_dir/.build-id/xx/rest.debug, then by .gnu_debuglink next to the object, in its
 * .debug/ subdirectory and in debug_dir/<object's dir>/ (debug_dir NULL: look nowhere).
 * A debug file must match the build-id; if its DWARF cannot be read, the object opens
 * without DWARF (no error). */
int mr_debuginfo_open_dir(const char *path, const char *debug_dir, struct mr_debuginfo **out,
			  char *err, size_t errlen);
void mr_debuginfo_close(struct mr_debuginfo *d);

/* mr_debuginfo_open() of the ELF symbols, segments and TLS alone: no DWARF is read (nor
 * looked for), and the code is told by symbols (mr_debuginfo_code_by_symbols). For
 * libmemphis in a run: its code and data are never the program's, and reading its DWARF
 * (in a child process) was a seventh of a report's time. */
int mr_debuginfo_open_symbols(const char *path, struct mr_debuginfo **out, char *err,
			      size_t errlen);

/* While held (calls nest), an object is read once: a second open of the same file (device,
 * inode, size, modification time) with the same debug_dir returns the object already open,
 * shared (the ranks of an MPI job: one executable, its libraries, read once for all);
 * objects stay open until the last release. A shared object may be used by several
 * threads at once. */
void mr_debuginfo_cache_hold(void);
void mr_debuginfo_cache_release(void);

/* Whether the object has a DWARF line table (built with -g, or a debug file found) and
 * whether it has function symbols at all (false: stripped). */
bool mr_debuginfo_has_lines(struct mr_debuginfo *d);
bool mr_debuginfo_has_symbols(struct mr_debuginfo *d);

/* The separate debug file whose DWARF is used, or NULL (DWARF from the object itself, or
 * none). */
const char *mr_debuginfo_debug_file(struct mr_debuginfo *d);

/* GNU build-id of the object as lowercase hex ("" if it has none). */
const char *mr_debuginfo_build_id(const struct mr_debuginfo *d);

/* 1 if the object is position independent (ET_DYN), 0 if it is a fixed-address ET_EXEC. */
int mr_debuginfo_is_pic(const struct mr_debuginfo *d);

/* Lowest p_vaddr of the PT_LOAD segments and the file offset it maps. With the maps line of
 * this file whose offset is offset0 rounded down to the page (normally offset 0, the first
 * mapping): bias = map_start - map_offset + offset0 - vaddr0, exactly (mr_debuginfo_bias).
 * PIE/shared objects: vaddr0 = 0, so bias = map_start; ET_EXEC: bias = 0. */
void mr_debuginfo_load_base(const struct mr_debuginfo *d, uint64_t *vaddr0, uint64_t *offset0);

/* The load bias (runtime address - vaddr) from one line of /proc/PID/maps for this file:
 * map_start and map_offset of the mapping whose offset is the first PT_LOAD's offset
 * rounded down to page_size (normally the offset-0 mapping). bias = map_start - map_offset
 * + offset0 - vaddr0. 0, or -EINVAL for another mapping or a bad page size. */
int mr_debuginfo_bias(const struct mr_debuginfo *d, uint64_t map_start, uint64_t map_offset,
		      uint64_t page_size, uint64_t *bias);

/* The object's TLS segment (PT_TLS): memsz and alignment; 0/0 if it has none. */
void mr_debuginfo_tls(const struct mr_debuginfo *d, uint64_t *memsz, uint64_t *align);

/* For the executable (TLS module 1, static TLS, x86-64 glibc's TLS_TCB_AT_TP layout): how
 * far below the thread pointer (fs_base) its TLS block starts, so that a TLS address A of
 * a thread is the variable at offset A - (fs_base - tpoff) (see mr_debuginfo_tls_var_at).
 * This is round_up(memsz - fb, align) + fb with fb = -p_vaddr mod align (fb is 0 when the
 * linker aligned PT_TLS, the usual case). 0 if the object has no PT_TLS. Shared libraries'
 * blocks are placed by the loader: use the block address recorded at run time instead. */
uint64_t mr_debuginfo_tls_tpoff(const struct mr_debuginfo *d);

/* Source position of the instruction at vaddr. Returns 0, or -ENOENT if no line-table row
 * covers it (then *out still has the function, from DWARF or the ELF symbols, if any). */
int mr_debuginfo_line(struct mr_debuginfo *d, uint64_t vaddr, struct mr_line *out);

/* From now on d's code is told by its ELF symbols alone (the debug file's .symtab where
 * one is installed, else the object's): mr_debuginfo_line gives only the function and
 * -ENOENT, mr_debuginfo_own_line and mr_debuginfo_locals -ENOENT, and no DWARF is read
 * for code. For a runtime's code (libc, libgomp, ...), whose lines are never the user's to
 * change and whose compressed debug file (libc6-dbg) cost most of a report's fixed time to
 * inflate. Its variables are still read from DWARF when asked. */
void mr_debuginfo_code_by_symbols(struct mr_debuginfo *d);

/* For vaddr inside code inlined into a function (a subprogram of this object): the source
 * position of the nearest line-table row at or before vaddr, inside that function, whose
 * file foreign() rejects not (e.g. the program's own line that the C++ library's inlined
 * allocator code came from). out->function is the function. Returns 0, or -ENOENT when
 * vaddr is not inlined code or no such row exists (out is then zeroed). */
int mr_debuginfo_own_line(struct mr_debuginfo *d, uint64_t vaddr,
			  bool (*foreign)(const char *file), struct mr_line *out);

/* The variable whose [addr, addr+size) holds vaddr (the smallest, if several do): DWARF
 * globals, statics and function statics first (Fortran: module variables as "mod::var",
 * COMMON members as "block/member" (MR_VAR_GLOBAL; a block repeated in several
 * subprograms is one set of variables), SAVEd locals as "sub::var"); ELF data
 * symbols (MR_VAR_SYMBOL, sized by st_size) when no DWARF variable covers it. Only DIEs
 * with a static location are variables (declarations, parameters, locals are not).
 * NULL if none. */
const struct mr_var *mr_debuginfo_var_at(struct mr_debuginfo *d, uint64_t vaddr);

/* The TLS variable whose [addr, addr+size) holds `offset` inside this module's TLS block
 * (offset = address - the thread's block start for this module; for the executable the
 * block starts at fs_base - mr_debuginfo_tls_tpoff()). STT_TLS symbols when DWARF has none. */
const struct mr_var *mr_debuginfo_tls_var_at(struct mr_debuginfo *d, uint64_t offset);

/* All variables (TLS included), sorted by (tls, addr): every DWARF variable plus the ELF
 * data symbols that no DWARF variable covers. Returns the count. The var_at functions
 * return pointers into this same array (pointer equality identifies a variable). */
size_t mr_debuginfo_vars(struct mr_debuginfo *d, const struct mr_var **vars);

/* Frames (debuginfo_locals.c). DWARF register numbers are x86-64's: 0 rax, 1 rdx, 2 rcx,
 * 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15 r8-r15, 16 the return address (rip). */
#define MR_REG_CFA (-1) /* a local's base: the canonical frame address, not a register */

/* The canonical frame address of the function running at pc (CFA = the value of DWARF
 * register *reg + *off, with the registers as they are at pc), from the object's call
 * frame information (.eh_frame, else .debug_frame). 0, or -ENOENT when no FDE covers pc
 * or its CFA rule is not register + offset (an expression). */
int mr_debuginfo_cfa(struct mr_debuginfo *d, uint64_t pc, int *reg, int64_t *off);

/* A local variable or formal parameter with a frame-relative location at some pc. */
struct mr_local {
	const char *name;  /* "function::var": the (inlined) function that declares it */
	const char *file;  /* declaring file, may be NULL */
	unsigned line;     /* declaring line, 0 if unknown */
	uint64_t id;       /* identifies the variable in the object (the DIE offset of its
			    * declaration: inlined copies of one variable share it) */
	int reg;           /* its address is the value of this DWARF register at pc + off, */
	int64_t off;       /* or, for MR_REG_CFA, the CFA + off */
	uint64_t size;     /* bytes (arrays: elements * element size), never 0 */
};

/* The locals and formal parameters of the function running at pc (its lexical blocks and
 * code inlined into it that hold pc included, nested functions not) whose location at pc
 * is frame-relative: DW_OP_fbreg (through the function's DW_AT_frame_base:
 * DW_OP_call_frame_cfa or DW_OP_bregN) or DW_OP_breg6/7 (rbp, rsp: other base
 * registers point at the caller's storage), as a single expression or in the
 * location-list entry covering pc. Variables of unknown size are left out. *out is
 * malloc'd (the caller frees it; NULL when *n is 0); the strings live until
 * mr_debuginfo_close(). The DWARF is read here, on first use, one function at a time.
 * 0, -ENOENT (no function with DWARF at pc), -ENOMEM, or -EINVAL (DWARF unreadable). */
int mr_debuginfo_locals(struct mr_debuginfo *d, uint64_t pc, struct mr_local **out, size_t *n);

/* Where the innermost inlined code holding pc was called: out->function the inlined
 * function ("Allocate<double>"), out->file and out->line its DW_AT_call_file and
 * DW_AT_call_line (in the function it was inlined into), out->caller that function. Read
 * here, on first use, as mr_debuginfo_locals. 0, -ENOENT (pc is in no inlined code, or the
 * call has no line), -ENOMEM or -EINVAL. */
int mr_debuginfo_inline_call(struct mr_debuginfo *d, uint64_t pc, struct mr_line *out);

/* Permissions of the PT_LOAD segment holding vaddr, a mask of MR_SEG_* (the ELF PF_*
 * values); 0 if no segment holds it. */
#define MR_SEG_X 1u
#define MR_SEG_W 2u
#define MR_SEG_R 4u
unsigned mr_debuginfo_segment(const struct mr_debuginfo *d, uint64_t vaddr);
/* The same, and the segment's extent [*lo, *hi) (vaddrs, its bss included) when one holds
 * vaddr (else *lo and *hi are left alone). */
unsigned mr_debuginfo_segment_range(const struct mr_debuginfo *d, uint64_t vaddr, uint64_t *lo,
				    uint64_t *hi);

/* Copy up to len bytes of the executable segment at vaddr from the file into buf (opened on
 * the first call, kept open until mr_debuginfo_close). Returns the bytes copied (fewer at
 * the segment's end), -ENOENT if vaddr is in no executable PT_LOAD, or -errno. Thread-safe. */
ssize_t mr_debuginfo_code(struct mr_debuginfo *d, uint64_t vaddr, void *buf, size_t len);

#endif /* MR_DEBUGINFO_H */
