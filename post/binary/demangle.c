/* post/binary/demangle.c - source names of functions (demangle.h). libiberty's demangler:
 * the one binutils and GDB use, which knows every revision of the Itanium C++ ABI's mangling
 * and GCC's clone suffixes; not ours to write again. */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

/* The suffixes GCC and Clang append to a function's name for code made from it. */
static const char *const suffixes[] = {
	"_omp_fn", "omp_outlined", "cold", "constprop", "isra", "part", "lto_priv",
	"localalias", "specialized",
};

/* Length of name without the clone suffixes from its first '.' on, when the text after
 * that '.' is one of them; else strlen(name). */
static size_t source_len(const char *name)
{
	for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.'))
		for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
			if (!strncmp(dot + 1, suffixes[i], strlen(suffixes[i])))
				return (size_t)(dot - name);
	return strlen(name);
}

char *mr_demangle_function(const char *name)
{
	size_t len;

	if (!name || !*name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		/* DMGL_NO_OPTS: the qualified name without parameters or return type; the
		 * clone suffix goes with them */
		char *d = cplus_demangle(name, DMGL_NO_OPTS);

		if (d)
			return d;
	}
	len = source_len(name);
	return len && len < strlen(name) ? strndup(name, len) : NULL;
}
