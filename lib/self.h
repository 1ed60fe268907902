/* lib/self.h - the calling thread: its cached tid, the monotonic clock, the in-library
 * flag that tells the allocator interposer (heap.c) not to record the library's own
 * allocations, and its CPU while the library starts. A leaf: it depends on nothing else
 * of the library.
 *
 * Every library path that may allocate runs between memphis__enter() and memphis__leave()
 * (they nest), or allocates through memphis__lib_malloc() and its siblings, which do that
 * for one call. The interposer's fast path is one TLS load (memphis__inside()).
 */
#ifndef MEMPHIS_SELF_H
#define MEMPHIS_SELF_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>

/* Nesting depth of library code on this thread; read through the functions below only. */
extern __thread int memphis__self_depth __attribute__((tls_model("initial-exec")));

/* Mark the calling thread as running library code (nests). */
static inline void memphis__enter(void)
{
	memphis__self_depth++;
}

/* Undo one memphis__enter(). */
static inline void memphis__leave(void)
{
	memphis__self_depth--;
}

/* Non-zero while the calling thread runs library code: allocations are not recorded. */
static inline int memphis__inside(void)
{
	return memphis__self_depth;
}

/* malloc/calloc/realloc/free on behalf of the library: the same allocator as the program,
 * but never recorded as the program's allocation. Results and failures as the C library's;
 * what they return is freed with memphis__lib_free() (or free() inside enter/leave).
 * Inline, so that this leaf does not depend on the interposed allocator (heap.c). */
static inline void *memphis__lib_malloc(size_t size)
{
	void *p;

	memphis__enter();
	p = malloc(size);
	memphis__leave();
	return p;
}

static inline void *memphis__lib_calloc(size_t n, size_t size)
{
	void *p;

	memphis__enter();
	p = calloc(n, size);
	memphis__leave();
	return p;
}

static inline void *memphis__lib_realloc(void *old, size_t size)
{
	void *p;

	memphis__enter();
	p = realloc(old, size);
	memphis__leave();
	return p;
}

static inline void memphis__lib_free(void *p)
{
	memphis__enter();
	free(p);
	memphis__leave();
}

/* The calling thread's own stack, [lo, hi), as its registration found it (thread.c:
 * pthread_getattr_np); both 0 until then, and in a thread the library never attached. The
 * call-site chains (callsite.c) read stack words above their caller only inside it. */
extern __thread uint64_t memphis__self_stack_lo __attribute__((tls_model("initial-exec")));
extern __thread uint64_t memphis__self_stack_hi __attribute__((tls_model("initial-exec")));

static inline void memphis__self_set_stack(uint64_t lo, uint64_t hi)
{
	memphis__self_stack_lo = lo;
	memphis__self_stack_hi = hi;
}

/* The calling thread's kernel tid (cached after the first call). */
pid_t memphis__gettid(void);

/* bytes of fresh zeroed memory (a private anonymous mapping, not reserved against the
 * commit limit until touched) by the raw syscall: the mmap symbol is the interposer of
 * lib/mmap.c. NULL when the kernel refuses. */
void *memphis__map_anon(size_t bytes);

/* Keep the calling thread on the CPU it runs on until memphis__unpin (the library's start,
 * which starts threads and waits on them: the program's main thread must not be moved
 * meanwhile, or it first touches its stack's deeper pages on another node). The library's
 * threads started meanwhile call memphis__unpin_self first: the mask they inherited is
 * set back to the one before. Best effort: nothing when the mask cannot be read or set. */
void memphis__pin(void);
void memphis__unpin(void);
void memphis__unpin_self(void);
/* libc's pthread_create: the next definition after the library's (dlsym RTLD_NEXT, looked
 * up once), which the library's own interposer (thread.c) calls too. NULL if none. */
typedef int memphis__pthread_create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *),
				       void *);
memphis__pthread_create_fn *memphis__real_pthread_create(void);
/* pthread_create for one of the library's own threads (I/O, drain): the next definition
 * after the library's, libc's, not the first one (a preloaded wrapper such as likwid-pin's,
 * which pins every thread it sees to the next CPU of its list, shifting the program's
 * threads by ours, and which divides by its list's length, 0, when called before its own
 * constructor has run: preloaded objects start after the library). A sanitizer's runtime
 * must see every thread: there it is pthread_create. */
int memphis__own_thread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
				void *arg);
/* The calling thread is one of the library's own (I/O, drain): named `name` (what top -H
 * and /proc/PID/task/TID/comm show; 15 characters at most) and, where the mask it
 * inherited is one CPU, moved to the other CPUs of that CPU's NUMA node (every other CPU
 * without NUMA), as far as the process's cpuset allows. It inherits the program's first
 * thread's mask, which an OpenMP runtime's constructor may have narrowed to one CPU before
 * ours ran (OMP_PLACES, OMP_PROC_BIND): there it took that CPU's time from the master
 * thread, whom the team waits for at every barrier (in the 2-node guest the master ran 10
 * to 25 times as slowly as the other thread). A mask of several CPUs (taskset, numactl,
 * a cgroup) is kept; a `taskset -c` of the whole program to one CPU is left for the
 * node's others, a cgroup's one CPU is not. Best effort; call inside memphis__enter
 * (libnuma allocates). */
void memphis__own_thread(const char *name);

/* CLOCK_MONOTONIC in ns: the time base of every record. */
static inline uint64_t memphis__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* MEMPHIS_SELF_H */
