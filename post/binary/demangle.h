/* post/binary/demangle.h - a function's name as the user wrote it. */
#ifndef MR_DEMANGLE_H
#define MR_DEMANGLE_H

/* The source name of function `name` as DWARF or a symbol table gives it: GCC names an
 * OpenMP region's outlined function, a cold part or a specialised clone after its function
 * with a suffix ("main._omp_fn.3", "f.cold", "f.constprop.0", "f.isra.0", "f.part.1",
 * "f.lto_priv.0"; Clang ".omp_outlined"), and for C++ that function mangled
 * ("_ZL12ComputeForceR4MeshPdd._omp_fn.0"): the suffix cut, a mangled name demangled
 * without its parameters by libiberty, as binutils does ("ComputeForce",
 * "Allocate<double>", "Mesh::Mesh"). Returns a malloc'd string, or NULL when the name is
 * already the source name (or out of memory: the caller keeps the name as it is). */
char *mr_demangle_function(const char *name);

#endif /* MR_DEMANGLE_H */
