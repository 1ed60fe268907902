/* tests/shim_sleeps.c - preloaded ahead of libmemphis: counts the calls of usleep(), which
 * the library makes when it waits (a page still being faulted in), and prints
 * "usleep N" on stderr at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>

static unsigned long calls;

int usleep(useconds_t us)
{
	static int (*real)(useconds_t);

	__atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	if (!real)
		real = (int (*)(useconds_t))dlsym(RTLD_NEXT, "usleep");
	return real(us);
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "usleep %lu\n", __atomic_load_n(&calls, __ATOMIC_RELAXED));
}
