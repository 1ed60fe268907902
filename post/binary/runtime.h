/* post/binary/runtime.h - the language and parallel runtimes whose own data and waiting the
 * report keeps apart from the program's (issue 16 item 3): which shared object is which
 * runtime, which of their heap objects are their own, and which instructions are a wait
 * loop. Pure: names, symbols and code bytes in, answers out (tests/unit/unit_runtime.c).
 *
 * A runtime's own data is one variable per runtime, shown after the program's variables:
 * heap objects allocated by the runtime's code for itself (libgomp's team, barrier and
 * work-share state; libc's stdio buffers and streams), its static and TLS data, what
 * its wait loops (any of libgomp's code) read outside every recorded allocation, and for
 * libc the heap memory that is in no recorded allocation (malloc's chunk headers, free
 * lists and top chunk) when every allocation was recorded. A wait is a sample whose
 * instruction is in a runtime's wait function (by symbol, where the object has them) or
 * in a spin loop of its code (a short backward branch around a PAUSE: libgomp's do_spin,
 * glibc's spin locks), found in the bytes because libgomp ships without local symbols.
 */
#ifndef MR_RUNTIME_H
#define MR_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* The runtimes, in the order the report lists them. MR_RT_NONE: the program's own. */
enum mr_runtime {
	MR_RT_NONE = 0,
	MR_RT_OPENMP,    /* libgomp */
	MR_RT_MPI,       /* Open MPI, MPICH and their transports */
	MR_RT_FORTRAN,   /* libgfortran */
	MR_RT_C,         /* libc (and libpthread, ld.so) */
	MR_RT_COUNT
};

/* The runtime that the shared object with file name `base` (e.g. "libgomp.so.1") belongs
 * to, MR_RT_NONE for any other object (NULL included). */
enum mr_runtime mr_runtime_of_object(const char *base);

/* Short name ("libgomp", "MPI", "libgfortran", "libc") and the group's name in tables,
 * e.g. "<OpenMP runtime (libgomp): barrier/team state>". Static strings; "" for
 * MR_RT_NONE and values out of range. */
const char *mr_runtime_name(enum mr_runtime rt);
const char *mr_runtime_label(enum mr_runtime rt);
/* The runtime's name as the header says it ("OpenMP runtime (libgomp)"). */
const char *mr_runtime_title(enum mr_runtime rt);
/* Key of the runtime in JSON ("openmp", "mpi", "fortran", "c"). */
const char *mr_runtime_key(enum mr_runtime rt);

/* Is an allocation whose innermost frame (the allocator's caller) is function `func` of
 * runtime rt the runtime's own data? False for the allocation functions a runtime offers
 * the program (omp_alloc, strdup, getline, ... : the program's data), true for the
 * runtime's internal allocations: any of libgomp's, MPI's and libgfortran's but their
 * user-facing allocators; libc's stdio buffers and streams only. func may be NULL
 * (unknown: a stripped object). */
int mr_runtime_owns_alloc(enum mr_runtime rt, const char *func);

/* Is function `func` (a symbol name) of runtime rt one of its wait functions (barrier,
 * lock and futex waits)? */
int mr_runtime_wait_function(enum mr_runtime rt, const char *func);

/* Is the instruction at code[at] inside a spin loop: a backward short branch at most
 * MR_RUNTIME_SPIN_BYTES after it, to at or before it, whose body holds a PAUSE (f3 90)?
 * code[0 .. len) are the bytes around it (at < len). */
#define MR_RUNTIME_SPIN_BYTES 48
int mr_runtime_spin_code(const uint8_t *code, size_t len, size_t at);

#endif /* MR_RUNTIME_H */
