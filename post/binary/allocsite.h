/* post/binary/allocsite.h - what the code after an allocation call does with the result: where
 * gfortran's ALLOCATE stores the new array (the data pointer of a static descriptor), so
 * a heap object can be named by its Fortran variable; and whether a Fortran source line
 * is an ALLOCATE statement or an array assignment whose temporary this is.
 */
#ifndef MR_ALLOCSITE_H
#define MR_ALLOCSITE_H

#include <stdbool.h>
#include <stdint.h>

#include "debuginfo.h"

/* The static address (object vaddr) that the code returning from an allocation call at
 * ret_vaddr stores the returned pointer (%rax, or a register copied from it) to with a
 * RIP-relative 64-bit store, within the next few instructions and before any call,
 * return, jump or overwrite of the pointer; 0 if there is no such store. */
uint64_t mr_allocsite_store(struct mr_debuginfo *d, uint64_t ret_vaddr);

/* Whether path names a Fortran source (.f .f90 .f95 .f03 .f08 .for .ftn, any case). */
bool mr_allocsite_is_fortran(const char *path);

enum mr_fsite {
	MR_FSITE_NONE = 0,     /* not Fortran, or the source is unreadable */
	MR_FSITE_ALLOCATE,     /* an ALLOCATE statement */
	MR_FSITE_TEMPORARY,    /* any other statement: a compiler temporary */
};

/* Classify line `line` of `file` (as the line table names it) if its name ends like a
 * Fortran source (.f .f90 .f95 .f03 .f08 .for .ftn, any case); reads the file when owner
 * (of the run) could read it (infile.h, mr_in_open_source: the name is the program's). The whole
 * statement holding the line is judged, free-form continuations ('&') included (fixed-
 * form continuation columns are not followed).
 * For an ALLOCATE, *name gets its objects, comma-separated ("u, v", "grid%h"; lower
 * case, static storage overwritten by the next call), or NULL if none could be read. */
struct mr_in_owner;
int mr_allocsite_fortran(const struct mr_in_owner *owner, const char *file, unsigned line,
			 const char **name);

#endif /* MR_ALLOCSITE_H */
