/* tests/programs/shim_uncompress.c - preloaded into memphis-report: counts zlib's
 * uncompress() calls (libdwarf's inflating of a compressed DWARF section, such as
 * libc6-dbg's) and the bytes they produced, and prints "uncompress N BYTES" on stderr at
 * exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

static unsigned long calls, bytes;

/* zlib's prototype, without its header */
int uncompress(unsigned char *dest, unsigned long *destLen, const unsigned char *source,
	       unsigned long sourceLen);

int uncompress(unsigned char *dest, unsigned long *destLen, const unsigned char *source,
	       unsigned long sourceLen)
{
	static int (*real)(unsigned char *, unsigned long *, const unsigned char *, unsigned long);
	int rc;

	if (!real)
		real = (int (*)(unsigned char *, unsigned long *, const unsigned char *,
				unsigned long))dlsym(RTLD_NEXT, "uncompress");
	rc = real(dest, destLen, source, sourceLen);
	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&bytes, *destLen, __ATOMIC_RELAXED);
	return rc;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "uncompress %lu %lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED),
		__atomic_load_n(&bytes, __ATOMIC_RELAXED));
}
