/* post/base/varkind.h - the one list of what a program variable can be: the kinds the debug
 * information finds (debuginfo.h) and the ones attribution adds (heap, stack, unknown). */
#ifndef MR_VARKIND_H
#define MR_VARKIND_H

enum mr_var_kind {
	MR_VAR_GLOBAL = 0,      /* external linkage */
	MR_VAR_STATIC = 1,      /* file-scope static (also a module's unnamed constants) */
	MR_VAR_FUNC_STATIC = 2, /* static inside a function (name is "func::var") */
	MR_VAR_TLS = 3,         /* __thread / threadprivate: addr is the offset in the TLS block */
	MR_VAR_SYMBOL = 4,      /* no DWARF: an ELF STT_OBJECT/STT_TLS symbol */
	MR_VAR_HEAP = 5,        /* allocations of one call site (attribution only) */
	MR_VAR_STACK = 6,       /* a thread's stack (attribution only) */
	MR_VAR_UNKNOWN = 7,     /* an address nothing explains (attribution only) */
	MR_VAR_LOCAL = 8,       /* a local variable or parameter in a sampled frame, named
				 * "func::var" (attribution only, from a STACKS entry) */
	MR_VAR_RUNTIME = 9,     /* a runtime's own data, one per runtime (post/binary/runtime.h) */
};

/* The kind's name in reports ("global", "function static", ...); "unknown" for values
 * outside the enum. A static string. */
const char *mr_var_kind_name(unsigned kind);

#endif /* MR_VARKIND_H */
