/* tests/programs/shim_pin.c - preloaded ahead of libmemphis, a thread pinner as likwid-pin
 * preloads one: its pthread_create pins each thread it makes to the next CPU of SHIM_PIN
 * (a comma-separated list, read by its constructor), and, as liblikwidpin 5.2 does, takes
 * that CPU as the thread count modulo the list's length: called before its constructor
 * ran, the length is 0 and the process dies of SIGFPE. It prints "pinned N" on stderr at
 * exit. Preloaded objects start after the program's libraries, libmemphis included.
 * With SHIM_PIN_LIBC=1 it calls libc's pthread_create itself, as liblikwidpin does (from
 * dlopen("libpthread.so.0")): the library's own pthread_create never sees those threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cpus[64];
static volatile int ncpus; /* 0 until the constructor ran: the division below traps */
static unsigned long pinned;

__attribute__((constructor)) static void pin_init(void)
{
	const char *list = getenv("SHIM_PIN");
	int n = 0;

	for (const char *p = list ? list : "0"; *p && n < 64; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
		cpus[n++] = atoi(p);
	ncpus = n;
}

__attribute__((destructor)) static void pin_fini(void)
{
	fprintf(stderr, "pinned %lu\n", pinned);
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	const char *libc = getenv("SHIM_PIN_LIBC");
	void *from = libc && *libc == '1' ? dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD) : RTLD_NEXT;
	create_fn *real = (create_fn *)dlsym(from ? from : RTLD_NEXT, "pthread_create");
	int rc = real(th, attr, fn, arg);

	if (rc == 0) {
		cpu_set_t one;
		int cpu = cpus[pinned % (unsigned long)ncpus];

		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_setaffinity_np(*th, sizeof(one), &one);
		pinned++;
	}
	return rc;
}
