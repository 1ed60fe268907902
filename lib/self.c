/* lib/self.c - the calling thread: the in-library flag, the tid cache and its CPU while
 * the library starts (contracts in self.h). Depends on nothing of the library. */
#include <sched.h>
#include <stddef.h>
#include <sys/mman.h>
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

void memphis__unpin(void)
{
	memphis__unpin_self();
	__atomic_store_n(&pinned, 0, __ATOMIC_RELEASE);
}
