/* post/binary/codefind.h - where the calls of a source line or of a function are in the
 * code of an object (memphis-report plan: the call sites of a heap site in a rebuilt
 * program, whose return addresses its allocations' chains hold). Below it: debuginfo. */
#ifndef MR_CODEFIND_H
#define MR_CODEFIND_H

#include <stdint.h>

#include "debuginfo.h"

/* What to find: the call instructions of function (its DWARF or ELF name), and with
 * line > 0 only those of file:line in it (file: a base name), or of the nearest line of
 * that file in it that has a call when line has none (a line shifted by an edit above it:
 * compare pairs heap sites so too). */
struct mr_code_target {
	const char *file, *function;
	unsigned line;
	const char *callee;  /* the function the call goes to (its symbol or import name),
			      * NULL for any */
	/* found: the vaddrs [lo, hi) from the first such call to the end of the last one, and
	 * the line they are of; hi == 0 when nothing was found */
	uint64_t lo, hi;
	unsigned found_line;
};

/* Look for every target of t[0 .. n) in the executable segments of d, the object read
 * from path (for its relocations): one pass decoding their instructions (Zydis), a
 * line-table lookup per call. */
void mr_code_find(struct mr_debuginfo *d, const char *path, struct mr_code_target *t, size_t n);

#endif /* MR_CODEFIND_H */
