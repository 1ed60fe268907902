/* tests/golden/golden_lib.c - libgolden.so (-shared -fPIC) for tests/report/t_golden.sh: a global
 * array that lives in the library's own .bss, and a __thread array in the library's TLS
 * block (static TLS: the library is loaded at start-up). The program reaches both through
 * pointers, so no copy relocation moves the global into the executable. */
#include "golden.h"

double golden_lib[W_LIB * GOLDEN_UNIT];
__thread double golden_lib_tls[W_LIB_TLS * GOLDEN_UNIT];

double *golden_lib_array(void)
{
	return golden_lib;
}

double *golden_lib_tls_array(void)
{
	return golden_lib_tls;
}
