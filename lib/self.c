/* lib/self.c - the calling thread: the in-library flag, the tid cache, its CPU while the
 * library starts, and the library's own threads' names and CPUs (contracts in self.h).
 * Depends on nothing of the library. */
#include <dlfcn.h>
#include <errno.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "self.h"

__thread int memphis__self_depth __attribute__((tls_model("initial-exec")));
__thread uint64_t memphis__self_stack_lo __attribute__((tls_model("initial-exec")));
__thread uint64_t memphis__self_stack_hi __attribute__((tls_model("initial-exec")));

void *memphis__map_anon(size_t bytes)
{
	void *p = (void *)syscall(SYS_mmap, NULL, bytes, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

pid_t memphis__gettid(void)
{
	static __thread pid_t cached __attribute__((tls_model("initial-exec")));

	if (!cached)
		cached = (pid_t)syscall(SYS_gettid);
	return cached;
}

static cpu_set_t before_pin; /* the mask memphis__pin replaced */
static int pinned;           /* before_pin is to be set back (atomic) */

void memphis__pin(void)
{
	unsigned cpu;
	cpu_set_t one;

	if (sched_getaffinity(0, sizeof(before_pin), &before_pin) < 0 ||
	    CPU_COUNT(&before_pin) < 2 || syscall(SYS_getcpu, &cpu, NULL, NULL) < 0 ||
	    cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &before_pin))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0)
		__atomic_store_n(&pinned, 1, __ATOMIC_RELEASE);
}

void memphis__unpin_self(void)
{
	if (__atomic_load_n(&pinned, __ATOMIC_ACQUIRE))
		sched_setaffinity(0, sizeof(before_pin), &before_pin);
}

memphis__pthread_create_fn *memphis__real_pthread_create(void)
{
	static memphis__pthread_create_fn *real;

	if (!__atomic_load_n(&real, __ATOMIC_ACQUIRE)) {
		memphis__enter(); /* dlsym may allocate */
		__atomic_store_n(&real, (memphis__pthread_create_fn *)dlsym(RTLD_NEXT, "pthread_create"),
				 __ATOMIC_RELEASE);
		memphis__leave();
	}
	return __atomic_load_n(&real, __ATOMIC_ACQUIRE);
}

int memphis__own_thread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
				void *arg)
{
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	return pthread_create(th, attr, fn, arg); /* their runtimes must see every thread */
#else
	memphis__pthread_create_fn *real = memphis__real_pthread_create();

	return real ? real(th, attr, fn, arg) : EAGAIN;
#endif
}

void memphis__own_thread(const char *name)
{
	cpu_set_t have, want;
	struct bitmask *node_cpus;
	int cpu = 0, node;

	prctl(PR_SET_NAME, name);
	if (sched_getaffinity(0, sizeof(have), &have) < 0 || CPU_COUNT(&have) != 1)
		return;
	while (!CPU_ISSET(cpu, &have))
		cpu++;
	CPU_ZERO(&want);
	node = numa_available() < 0 ? -1 : numa_node_of_cpu(cpu);
	if (node < 0) { /* no NUMA: every CPU is the node's */
		for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF) && c < CPU_SETSIZE; c++)
			CPU_SET(c, &want);
	} else if ((node_cpus = numa_allocate_cpumask())) {
		if (numa_node_to_cpus(node, node_cpus) == 0)
			for (unsigned c = 0; c < node_cpus->size && c < CPU_SETSIZE; c++)
				if (numa_bitmask_isbitset(node_cpus, c))
					CPU_SET(c, &want);
		numa_free_cpumask(node_cpus);
	}
	CPU_CLR(cpu, &want); /* the CPU the program bound its thread to */
	if (CPU_COUNT(&want))
		sched_setaffinity(0, sizeof(want), &want);
}

void memphis__unpin(void)
{
	memphis__unpin_self();
	__atomic_store_n(&pinned, 0, __ATOMIC_RELEASE);
}
