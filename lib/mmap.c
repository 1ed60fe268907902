/* lib/mmap.c - arrays the program maps itself are heap objects: mmap, mmap64, munmap and
 * mremap, interposed, record the program's anonymous private mappings as allocations named
 * by their call site (MPH_ALLOC_MMAP), their unmapping as frees.
 *
 * Recorded: a MAP_ANONYMOUS | MAP_PRIVATE mapping of at least heap_min bytes (its length
 * rounded up to whole pages), made by the program, not by the library (memphis__inside),
 * that is not a stack (MAP_STACK, MAP_GROWSDOWN: a stack the program hands to
 * pthread_attr_setstack, a coroutine's). Never sampled: mappings are large. Not seen at all,
 * so never recorded twice: glibc's own mappings (malloc's large blocks, pthread_create's
 * stacks, ld.so's loading) are made by calls inside libc and ld.so that do not go through
 * the mmap symbol; the real allocator also runs inside the library (heap.c), so another
 * allocator's mmap through it is not recorded either.
 *
 * Unmapping: the recorded mappings still mapped are kept in a table sorted by address.
 * munmap of [lo, hi) ends every recorded mapping it touches (a free of its start); the part
 * left of one on either side stays an object of the same call site, recorded anew (so the
 * common "map more, unmap the head and tail to an alignment" keeps its name; a hole
 * punched in the middle leaves two objects). MAP_FIXED over a recorded range, and a new
 * mapping found on a range we still hold (unmapped behind our back, by a raw syscall), do
 * the same. mremap is realloc: the old range ends (its remains as above) and, when it was
 * recorded, the new one is recorded as MPH_ALLOC_MREMAP from mremap's call site.
 *
 * The table changes before the real munmap or mremap runs: another thread may get the
 * freed range as soon as the kernel gives it back, and its record must come after ours; a
 * call that then fails puts the ranges back (new records of the same call sites). errno is
 * the real call's. The real functions: the next definitions (dlsym RTLD_NEXT, resolved in
 * a constructor or on first use), the raw syscalls while they are being resolved.
 *
 * Lock order: map lock -> heap lock. The map lock is held inside the library, so a signal
 * handler that maps memory on the thread holding it is passed through untracked instead of
 * deadlocking. Stands on heap.c and self.c.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "heap.h"
#include "memphis/format.h"
#include "place.h"
#include "self.h"

#define EXPORT __attribute__((visibility("default")))
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define MAX_MAPS (1u << 16) /* recorded mappings live at once; more are counted, not recorded */
#define SAVED 2             /* ranges a failed munmap or mremap puts back (on the stack) */

typedef void *mmap_fn(void *, size_t, int, int, int, off_t);
typedef int munmap_fn(void *, size_t);
typedef void *mremap_fn(void *, size_t, size_t, int, ...);

static mmap_fn *real_mmap, *real_mmap64;
static munmap_fn *real_munmap;
static mremap_fn *real_mremap;
static int resolved; /* 1 once resolution started: the pointers left NULL mean syscalls */
static uint64_t page = 4096;

/* One recorded mapping still mapped: [rec.addr, end). */
struct map {
	uint64_t end;
	struct memphis_rec_alloc rec;
};

static pthread_mutex_t map_lock = PTHREAD_MUTEX_INITIALIZER;
static struct map *tab; /* sorted by address, ranges disjoint; under map_lock */
static size_t ntab, captab; /* ntab is also read without the lock: 0, nothing to end */

__attribute__((constructor)) static void resolve(void)
{
	if (__atomic_exchange_n(&resolved, 1, __ATOMIC_ACQ_REL))
		return;
	memphis__enter(); /* dlsym may allocate */
	page = (uint64_t)getpagesize();
	__atomic_store_n(&real_mmap64, (mmap_fn *)dlsym(RTLD_NEXT, "mmap64"), __ATOMIC_RELEASE);
	__atomic_store_n(&real_munmap, (munmap_fn *)dlsym(RTLD_NEXT, "munmap"), __ATOMIC_RELEASE);
	__atomic_store_n(&real_mremap, (mremap_fn *)dlsym(RTLD_NEXT, "mremap"), __ATOMIC_RELEASE);
	__atomic_store_n(&real_mmap, (mmap_fn *)dlsym(RTLD_NEXT, "mmap"), __ATOMIC_RELEASE);
	memphis__leave();
}

static void *call_mmap(mmap_fn *fn, void *addr, size_t len, int prot, int flags, int fd,
		       off_t off)
{
	if (fn)
		return fn(addr, len, prot, flags, fd, off);
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

static int call_munmap(void *addr, size_t len)
{
	munmap_fn *fn = __atomic_load_n(&real_munmap, __ATOMIC_ACQUIRE);

	return fn ? fn(addr, len) : (int)syscall(SYS_munmap, addr, len);
}

/* [lo, *hi) of len bytes at addr, whole pages; 0 when the kernel will refuse it (addr not
 * page-aligned, len 0, or past the end of the address space). */
static int range(const void *addr, size_t len, uint64_t *lo, uint64_t *hi)
{
	*lo = (uint64_t)(uintptr_t)addr;
	if ((*lo & (page - 1)) || !len || len > UINT64_MAX - *lo - page)
		return 0;
	*hi = (*lo + len + page - 1) & ~(page - 1);
	return 1;
}

/* Index of the first entry that ends above lo (caller holds map_lock). */
static size_t first_above(uint64_t lo)
{
	size_t a = 0, b = ntab;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (tab[m].end <= lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Room for one more entry; 0 or -ENOMEM. */
static int grow(void)
{
	size_t cap = captab ? captab * 2 : 256;
	struct map *t;

	if (ntab < captab)
		return 0;
	if (cap > MAX_MAPS)
		return -ENOMEM;
	t = call_mmap(__atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE), NULL, cap * sizeof(*t),
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return -ENOMEM;
	if (tab) {
		memcpy(t, tab, ntab * sizeof(*t));
		call_munmap(tab, captab * sizeof(*t));
	}
	tab = t;
	captab = cap;
	return 0;
}

/* End every recorded mapping in [lo, hi): a free of each, and the parts left outside the
 * range recorded anew. Up to `max` of the ended ones, cut to the range, go to saved[]
 * (for a failed call to put back). Returns how many were ended. Caller holds map_lock. */
static size_t carve(uint64_t lo, uint64_t hi, struct map *saved, size_t max)
{
	size_t i = first_above(lo), j = i, keep = 0;
	struct map piece[2];

	for (; j < ntab && tab[j].rec.addr < hi; j++) {
		struct map *m = &tab[j];
		memphis__heap_put_free(m->rec.addr);
		if (j - i < max) {
			struct map *s = &saved[j - i];
			*s = *m;
			s->rec.addr = m->rec.addr > lo ? m->rec.addr : lo;
			s->end = m->end < hi ? m->end : hi;
		}
		if (m->rec.addr < lo) {
			piece[keep] = *m;
			piece[keep++].end = lo;
		}
		if (m->end > hi) {
			piece[keep] = *m;
			piece[keep++].rec.addr = hi;
		}
	}
	if (i == j)
		return 0;
	if (keep > j - i && grow() < 0) { /* a hole punched in the middle: no room for both */
		keep--;
		memphis__heap_unrecorded();
	}
	memmove(&tab[i + keep], &tab[j], (ntab - j) * sizeof(*tab));
	__atomic_store_n(&ntab, ntab - (j - i) + keep, __ATOMIC_RELAXED);
	for (size_t k = 0; k < keep; k++) {
		struct map *m = &tab[i + k];
		*m = piece[k];
		m->rec.time = memphis__now();
		m->rec.size = m->end - m->rec.addr;
		memphis__heap_put_alloc(&m->rec);
	}
	return j - i;
}

/* Record m as a live mapping (now), ending what the table still held in its range. Caller
 * holds map_lock. */
static void put(const struct map *m)
{
	size_t i;

	carve(m->rec.addr, m->end, NULL, 0);
	if (grow() < 0) {
		memphis__heap_unrecorded();
		return;
	}
	i = first_above(m->rec.addr);
	memmove(&tab[i + 1], &tab[i], (ntab - i) * sizeof(*tab));
	tab[i] = *m;
	tab[i].rec.size = m->end - m->rec.addr;
	tab[i].rec.time = memphis__now(); /* after the frees of what it replaced */
	__atomic_store_n(&ntab, ntab + 1, __ATOMIC_RELAXED);
	memphis__heap_put_alloc(&tab[i].rec);
}

/* Put back the n (at most SAVED) ranges a failed call had ended: the same call sites, now. */
static void put_back(const struct map *saved, size_t n)
{
	for (size_t k = 0; k < n && k < SAVED; k++)
		put(&saved[k]);
	if (n > SAVED)
		memphis__heap_unrecorded();
}

/* Record the allocation of [lo, hi) of `kind` from `site`. Inside the library. This and
 * end_range are the recording's own work, in frames of their own (never inlined into an
 * interposer): memphis-report sets aside the runtime code they call (post/attrib/attrib_self.c). */
static __attribute__((noinline)) void record(uint64_t lo, uint64_t hi, int kind, const void *site)
{
	struct map m;

	memphis__heap_describe(&m.rec, (const void *)(uintptr_t)lo, hi - lo, kind, site);
	m.end = hi;
	pthread_mutex_lock(&map_lock);
	put(&m);
	pthread_mutex_unlock(&map_lock);
}

/* End what the table holds in [lo, hi) (up to SAVED of the ended ranges go to saved[]);
 * how many were ended. Inside the library. */
static __attribute__((noinline)) size_t end_range(uint64_t lo, uint64_t hi, struct map *saved)
{
	size_t n;

	pthread_mutex_lock(&map_lock);
	n = carve(lo, hi, saved, saved ? SAVED : 0);
	pthread_mutex_unlock(&map_lock);
	return n;
}

/* mmap and mmap64: the real call through fn, then the record (contract at the top). */
static inline __attribute__((always_inline)) void *
map(mmap_fn *fn, void *addr, size_t len, int prot, int flags, int fd, off_t off, void *site)
{
	void *p = call_mmap(fn, addr, len, prot, flags, fd, off);
	uint64_t lo, hi;
	int err, want;

	if (__builtin_expect(memphis__place_min != 0, 0) && p != MAP_FAILED &&
	    (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE)
		memphis__heap_place(p, len, site);
	if (p == MAP_FAILED || !range(p, len, &lo, &hi) || !memphis__heap_recording())
		return p;
	want = (flags & MAP_ANONYMOUS) && (flags & MAP_TYPE) == MAP_PRIVATE &&
	       !(flags & (MAP_STACK | MAP_GROWSDOWN)) && memphis__heap_wanted(hi - lo);
	if (!want && !((flags & MAP_FIXED) && __atomic_load_n(&ntab, __ATOMIC_RELAXED)))
		return p;
	err = errno;
	memphis__enter();
	if (want)
		record(lo, hi, MPH_ALLOC_MMAP, site);
	else
		end_range(lo, hi, NULL); /* a MAP_FIXED mapping of something else replaced them */
	memphis__leave();
	errno = err;
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	return map(__atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE), addr, len, prot, flags, fd, off,
		   __builtin_return_address(0));
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	mmap_fn *fn;

	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	fn = __atomic_load_n(&real_mmap64, __ATOMIC_ACQUIRE);
	return map(fn ? fn : __atomic_load_n(&real_mmap, __ATOMIC_ACQUIRE), addr, len, prot, flags,
		   fd, off, __builtin_return_address(0));
}

EXPORT int munmap(void *addr, size_t len)
{
	struct map saved[SAVED];
	uint64_t lo, hi;
	size_t n = 0;
	int rc, err;

	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	if (__atomic_load_n(&ntab, __ATOMIC_RELAXED) && range(addr, len, &lo, &hi) &&
	    memphis__heap_recording()) {
		err = errno;
		memphis__enter();
		n = end_range(lo, hi, saved);
		memphis__leave();
		errno = err;
	}
	rc = call_munmap(addr, len);
	if (rc != 0 && n) {
		err = errno;
		memphis__enter();
		pthread_mutex_lock(&map_lock);
		put_back(saved, n);
		pthread_mutex_unlock(&map_lock);
		memphis__leave();
		errno = err;
	}
	return rc;
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	mremap_fn *fn;
	struct map saved[SAVED];
	void *naddr = NULL, *p;
	uint64_t lo, hi, nlo, nhi;
	size_t n = 0;
	int err, want, tracked = 0;

	if (flags & MREMAP_FIXED) { /* as glibc: the fifth argument only with MREMAP_FIXED */
		va_list ap;
		va_start(ap, flags);
		naddr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	if (__atomic_load_n(&ntab, __ATOMIC_RELAXED) && range(old, old_len, &lo, &hi) &&
	    memphis__heap_recording()) {
		err = errno;
		memphis__enter();
		if (flags & MREMAP_DONTUNMAP) { /* the old range stays mapped */
			pthread_mutex_lock(&map_lock);
			size_t i = first_above(lo);
			tracked = i < ntab && tab[i].rec.addr < hi;
			pthread_mutex_unlock(&map_lock);
		} else {
			n = end_range(lo, hi, saved);
			tracked = n > 0;
		}
		memphis__leave();
		errno = err;
	}
	fn = __atomic_load_n(&real_mremap, __ATOMIC_ACQUIRE);
	p = fn ? fn(old, old_len, new_len, flags, naddr)
	       : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, naddr);
	if (!tracked && !(p != MAP_FAILED && (flags & MREMAP_FIXED) &&
			  __atomic_load_n(&ntab, __ATOMIC_RELAXED) && memphis__heap_recording()))
		return p;
	err = errno;
	want = p != MAP_FAILED && range(p, new_len, &nlo, &nhi) && memphis__heap_wanted(nhi - nlo);
	memphis__enter();
	if (p == MAP_FAILED) {
		pthread_mutex_lock(&map_lock);
		put_back(saved, n);
		pthread_mutex_unlock(&map_lock);
	} else if (range(p, new_len, &nlo, &nhi)) {
		if (tracked && want)
			record(nlo, nhi, MPH_ALLOC_MREMAP, __builtin_return_address(0));
		else
			end_range(nlo, nhi, NULL); /* an untracked mapping moved onto them */
	}
	memphis__leave();
	errno = err;
	return p;
}
