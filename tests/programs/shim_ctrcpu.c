/* tests/programs/shim_ctrcpu.c - preloaded ahead of libmemphis: every counting event opened for a
 * thread (no sample period, read_format with PERF_FORMAT_TOTAL_TIME_RUNNING, any CPU: the
 * library's own counters, lib/perfctr.c) is opened on CPU SHIM_CTR_CPU (default 0) only.
 * The kernel then counts it only while its thread runs there, and says so as it does for
 * a multiplexed event: time_running below time_enabled. So a machine without a PMU, where
 * nothing is multiplexed, exercises the library's scaling and flagging on real kernel
 * reads (tests/lib/t_counters.sh). Every other call goes to libc's syscall(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdlib.h>
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
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open) {
		const struct perf_event_attr *attr = (const struct perf_event_attr *)a[0];
		const char *cpu = getenv("SHIM_CTR_CPU");

		if (attr && !attr->sample_period && (int)a[1] > 0 && (int)a[2] == -1 &&
		    (attr->read_format & PERF_FORMAT_TOTAL_TIME_RUNNING))
			a[2] = cpu ? atol(cpu) : 0;
	}
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
