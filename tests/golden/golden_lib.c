/* tests/golden/golden_lib.c - libgolden.so (-shared -fPIC) for tests/t_golden.sh: a global
 * array that lives in the library's own .bss. The program reaches it through a pointer,
 * so no copy relocation moves it into the executable. */
#include "golden.h"

double golden_lib[W_LIB * GOLDEN_UNIT];

double *golden_lib_array(void)
{
	return golden_lib;
}
