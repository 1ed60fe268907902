/* tests/programs/shim_calls.c - preloaded ahead of libmemphis: counts the library's calls of
 * usleep() (it waits for a page still being faulted in), of ioctl() switching a perf
 * event on or off, and of sched_setaffinity() on the calling thread to one CPU ("pin") and
 * to several ("unpin"), and prints "usleep N", "perf_switch N" and "affinity PIN UNPIN"
 * on stderr at exit. With
 * SHIM_PREAD_MS=N, each pread() first sleeps N ms (the library's reads of the pagemap
 * come late). With SHIM_GETATTR_MS=N, pthread_getattr_np() on a thread other than the
 * main one first sleeps N ms (a new thread registers late: a scan finds it first). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static unsigned long sleeps, switches, pins, unpins;

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

int usleep(useconds_t us)
{
	static int (*real)(useconds_t);

	__atomic_add_fetch(&sleeps, 1, __ATOMIC_RELAXED);
	if (!real)
		real = (int (*)(useconds_t))dlsym(RTLD_NEXT, "usleep");
	return real(us);
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (req == PERF_EVENT_IOC_ENABLE || req == PERF_EVENT_IOC_DISABLE)
		__atomic_add_fetch(&switches, 1, __ATOMIC_RELAXED);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, void *, size_t, off_t);
	const char *ms = getenv("SHIM_PREAD_MS");

	if (ms)
		pause_ms(atol(ms));
	if (!real)
		real = (ssize_t(*)(int, void *, size_t, off_t))dlsym(RTLD_NEXT, "pread");
	return real(fd, buf, n, off);
}

int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	static int (*real)(pthread_t, pthread_attr_t *);
	const char *ms = getenv("SHIM_GETATTR_MS");

	if (ms && gettid() != getpid())
		pause_ms(atol(ms));
	if (!real)
		real = (int (*)(pthread_t, pthread_attr_t *))dlsym(RTLD_NEXT, "pthread_getattr_np");
	return real(th, attr);
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	static int (*real)(pid_t, size_t, const cpu_set_t *);

	if (pid == 0 && mask)
		__atomic_add_fetch(CPU_COUNT_S(size, mask) == 1 ? &pins : &unpins, 1, __ATOMIC_RELAXED);
	if (!real)
		real = (int (*)(pid_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT, "sched_setaffinity");
	return real(pid, size, mask);
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "usleep %lu\nperf_switch %lu\naffinity %lu %lu\n",
		__atomic_load_n(&sleeps, __ATOMIC_RELAXED), __atomic_load_n(&switches, __ATOMIC_RELAXED),
		__atomic_load_n(&pins, __ATOMIC_RELAXED), __atomic_load_n(&unpins, __ATOMIC_RELAXED));
}
