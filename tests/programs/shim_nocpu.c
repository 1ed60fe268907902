/* tests/programs/shim_nocpu.c - preloaded ahead of libmemphis: perf_event_open for every task of a
 * CPU (pid -1) fails with EACCES, as the kernel answers a user without CAP_PERFMON at
 * kernel.perf_event_paranoid >= 1; every other call goes to libc's syscall(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <unistd.h>

long syscall(long nr, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6];

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == SYS_perf_event_open && (int)a[1] == -1) {
		errno = EACCES;
		return -1;
	}
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
