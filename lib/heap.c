/* lib/heap.c - heap objects: the interposed allocator records allocations with their call
 * site and time, and their frees, so the report can name a sampled address by the
 * allocation that was live at the sample's time: every allocation of 4 KiB or more, 1 in
 * `sample_every` smaller ones with their frees, and, with the site map (heapmap.c), the
 * other small ones where the map does not name their bytes by their chain already.
 *
 * Contract with the program: the real allocator (the next one in symbol order, normally
 * glibc's) does all allocation; we only observe. Re-entrancy: dlsym() allocates while we
 * resolve the real functions, so those first requests come from a small static arena;
 * backtrace() and the library's own allocations run inside the library (self.h:
 * memphis__enter) and are not recorded. The real allocator runs inside the library too:
 * a signal handler that calls the public API while its thread is in malloc gets -EDEADLK
 * instead of deadlocking on the allocator's lock. Call-site chains are unwound once per
 * chain and then read back from the stack (callsite.c). Records are kept in mmap'ed chunks
 * (never our own malloc) and handed to the drain thread's write function; when it falls
 * far behind, records are dropped and counted. This file stands on self.c, callsite.c,
 * heaplive.c and heapmap.c alone (none allocates): every other file of the library
 * allocates through it, so it must not call them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "callsite.h"
#include "heap.h"
#include "heaplive.h"
#include "heapmap.h"
#include "memphis/format.h"
#include "place.h"
#include "self.h"

#define EXPORT __attribute__((visibility("default")))
#define CHUNK_RECS 4096
#define MAX_PENDING_CHUNKS 64

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

/* Static arena for allocations made while dlsym() resolves the real functions. */
static _Alignas(16) unsigned char arena[65536];
static size_t arena_used;
static int resolving;

#define CHUNK_BYTES (CHUNK_RECS * sizeof(struct memphis_rec_alloc))

/* Records waiting for the drain thread, oldest chunk first so the file stays in time
 * order. One stream for allocations, one for frees; both under heap_lock. */
struct chunk {
	struct chunk *next;
	size_t n;
	_Alignas(8) unsigned char rec[CHUNK_BYTES];
};
struct stream {
	uint16_t type;        /* MPH_BLK_ALLOCS or MPH_BLK_FREES */
	size_t size;          /* bytes per record */
	struct chunk *cur;    /* being filled */
	struct chunk *full;   /* filled, oldest first */
	struct chunk **tail;  /* where the next filled chunk goes */
};

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct stream allocs = { MPH_BLK_ALLOCS, sizeof(struct memphis_rec_alloc), NULL, NULL,
				&allocs.full };
static struct stream frees = { MPH_BLK_FREES, sizeof(struct memphis_rec_free), NULL, NULL,
			       &frees.full };
static unsigned pending; /* filled chunks of both streams */
/* Chunks written, kept for the next records (at most SPARE_CHUNKS): a new mapping's pages
 * were each a page fault and a page zeroed in the program's thread, most of what recording
 * cost an allocation-heavy program's time beyond the records' instructions (issue 38). */
#define SPARE_CHUNKS 8u
static struct chunk *spare;
static unsigned nspare;
static uint64_t dropped;
static int recording; /* 1 once the run directory exists, 0 after the last flush / in a fork child */
static int depth = 1;
static uint64_t heap_min;
static unsigned sample_every = 1; /* allocations under MEMPHIS__HEAP_SAMPLE_BELOW: 1 in this */
static int mapped;                 /* the others recorded when the site map does not know them */
static uint64_t unsampled;         /* sampled but not recorded: the live table was full */

/* Small allocations are recorded 1 in sample_every on average: each thread counts down a
 * random gap (mean sample_every, so a periodic allocation pattern does not alias), and
 * an unsampled allocation costs a TLS decrement. While small ones are sampled, the frees
 * recorded are those of the blocks recorded, of any size, found in the live set
 * (heaplive.h). */
static __thread unsigned gap_left __attribute__((tls_model("initial-exec")));
static __thread unsigned gap_rng __attribute__((tls_model("initial-exec")));
/* The site map's records of a thread extend its run when they can (put_mapped): its latest
 * such record, while no flush has taken it (`taken` counts the flushes), of the same chain,
 * when the block begins within MPH_ALLOC_RUN_GAP bytes after its end. A program filling
 * fresh memory with its rows, one allocation after another, then makes a record per flush
 * rather than one per row (6 M live rows: 600 MB of records and 2.8x the run time). */
static __thread struct memphis_rec_alloc *run __attribute__((tls_model("initial-exec")));
static __thread uint64_t run_key __attribute__((tls_model("initial-exec")));
static __thread uint64_t run_taken __attribute__((tls_model("initial-exec")));
static uint64_t taken;


/* sample_small's draw of the next gap; returns 1 (this allocation is sampled). */
static __attribute__((noinline)) int sample_next(void)
{
	if (!gap_rng)
		gap_rng = (unsigned)memphis__gettid() * 2654435761u | 1;
	gap_rng ^= gap_rng << 13;
	gap_rng ^= gap_rng >> 17;
	gap_rng ^= gap_rng << 5;
	gap_left = 1 + gap_rng % (2 * sample_every - 1); /* the next gap, mean sample_every */
	return 1;
}

/* 1 when this small allocation is one of the sampled ones. */
static inline int sample_small(void)
{
	if (gap_left > 1) {
		gap_left--;
		return 0;
	}
	return sample_next();
}

static void *arena_alloc(size_t size, size_t align)
{
	size_t start = (arena_used + align - 1) & ~(align - 1);

	if (start + size > sizeof(arena))
		return NULL;
	arena_used = start + size;
	return arena + start;
}

static int in_arena(const void *p)
{
	return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + sizeof(arena);
}

static void resolve(void)
{
	if (real_malloc || resolving)
		return;
	resolving = 1;
	real_calloc = dlsym(RTLD_NEXT, "calloc");
	real_realloc = dlsym(RTLD_NEXT, "realloc");
	real_free = dlsym(RTLD_NEXT, "free");
	real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = dlsym(RTLD_NEXT, "memalign");
	real_valloc = dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	__atomic_store_n(&real_malloc, (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc"), __ATOMIC_RELEASE);
	resolving = 0;
}

/* Append one record to the stream (caller holds heap_lock): 0, or -1 when it is dropped
 * (and counted) because the writer is too far behind or no memory is left. */
static int append(struct stream *st, const void *rec)
{
	if (!st->cur || (st->cur->n + 1) * st->size > CHUNK_BYTES) {
		struct chunk *c = NULL;

		if (pending < MAX_PENDING_CHUNKS && spare) {
			c = spare;
			spare = c->next;
			nspare--;
		} else if (pending < MAX_PENDING_CHUNKS) {
			c = memphis__map_anon(sizeof(*c));
		}
		if (!c) {
			dropped++;
			return -1;
		}
		if (st->cur) {
			*st->tail = st->cur;
			st->tail = &st->cur->next;
			pending++;
		}
		c->n = 0;
		c->next = NULL;
		st->cur = c;
	}
	memcpy(st->cur->rec + st->cur->n++ * st->size, rec, st->size);
	return 0;
}

int memphis__heap_recording(void)
{
	return !memphis__inside() && __atomic_load_n(&recording, __ATOMIC_RELAXED);
}

int memphis__heap_wanted(uint64_t size)
{
	return memphis__heap_recording() && size >= heap_min;
}

/* The calling thread's last chain read by record_chosen: an allocation loop calls from one
 * site at one depth, and its chain is then the words at the same distances from
 * record_chosen's CFA, checked there without a call, callsite.c's locks or bounds (they
 * held for this CFA when kept). */
struct chain_memo {
	uint64_t site, cfa, key;
	uint32_t n;
	uint64_t off[MEMPHIS_MAX_FRAMES], ra[MEMPHIS_MAX_FRAMES];
};
static __thread struct chain_memo memo __attribute__((tls_model("initial-exec")));

/* The key of the chain from `site` when the memo holds it at CFA cfa; 0 when it does not. */
static inline __attribute__((always_inline)) uint64_t memo_chain(const void *site, uint64_t cfa)
{
	uint64_t w;

	if (memo.site != (uint64_t)(uintptr_t)site || memo.cfa != cfa)
		return 0;
	for (uint32_t k = 1; k < memo.n; k++) {
		memcpy(&w, (const void *)(uintptr_t)(cfa + memo.off[k]), sizeof(w));
		if (w != memo.ra[k])
			return 0;
	}
	return memo.key;
}

/* r's call-site chain from `site` (frames and nframes); returns its key. Its own frame,
 * called from one place per kind of recording: callsite.c keeps a chain's return addresses
 * as distances from this frame's CFA. memo_cfa: the caller's CFA where the memo is to hold
 * the chain (record_chosen's), 0 for none. */
static __attribute__((noinline)) uint64_t site_chain(struct memphis_rec_alloc *r,
						     const void *site, uint64_t memo_cfa)
{
	uint64_t cfa = (uint64_t)(uintptr_t)__builtin_dwarf_cfa(), offs[MEMPHIS_MAX_FRAMES], key;

	r->frames[0] = (uint64_t)(uintptr_t)site;
	r->nframes = 1;
	if (depth <= 1)
		return memphis__callsite_key(r);
	key = memphis__callsite_chain(r, cfa, depth, offs);
	memo.site = 0;
	if (memo_cfa && offs[0] != UINT64_MAX && key) {
		for (uint32_t k = 0; k < r->nframes; k++)
			memo.off[k] = offs[k] + (cfa - memo_cfa);
		memcpy(memo.ra, r->frames, r->nframes * sizeof(r->frames[0]));
		memo.n = r->nframes;
		memo.key = key;
		memo.cfa = memo_cfa;
		memo.site = r->frames[0];
	}
	return key;
}

/* The rest of r, its chain set: now, this thread, the block; the frames unused zero. */
static void describe_block(struct memphis_rec_alloc *r, const void *p, uint64_t size, int kind)
{
	r->time = memphis__now();
	r->addr = (uint64_t)(uintptr_t)p;
	r->size = size;
	r->tid = (uint32_t)memphis__gettid();
	r->kind = (uint16_t)kind;
	memset(&r->frames[r->nframes], 0, (MEMPHIS_MAX_FRAMES - r->nframes) * sizeof(r->frames[0]));
}

void memphis__heap_describe(struct memphis_rec_alloc *r, const void *p, uint64_t size, int kind,
			    const void *site)
{
	site_chain(r, site, 0);
	describe_block(r, p, size, kind);
}

/* The recording's own work runs in frames of its own, never inlined into an interposer:
 * memphis-report tells the runtime code it calls (memcpy, the clock) from the program's
 * by the first libmemphis frame above it (post/attrib/attrib_self.c). */
__attribute__((noinline)) void memphis__heap_put_alloc(const struct memphis_rec_alloc *r)
{
	int err = errno;

	int rc;

	memphis__enter();
	pthread_mutex_lock(&heap_lock);
	rc = append(&allocs, r);
	pthread_mutex_unlock(&heap_lock);
	if (rc == 0)
		memphis__heapmap_note(r);
	memphis__leave();
	errno = err;
}

__attribute__((noinline)) void memphis__heap_put_free(uint64_t addr)
{
	struct memphis_rec_free r = { 0 };
	int err = errno;

	memphis__enter();
	r.time = memphis__now();
	r.addr = addr;
	r.tid = (uint32_t)memphis__gettid();
	pthread_mutex_lock(&heap_lock);
	append(&frees, &r);
	pthread_mutex_unlock(&heap_lock);
	memphis__leave();
	errno = err;
}

/* Record r, a small block from chain `key` while the site map is on: a sampled one (its free
 * recorded too) as a record of its own, which the thread's run may reach over; one the map
 * did not know by extending the thread's run, or as a record that may start one. */
static __attribute__((noinline)) void put_mapped(struct memphis_rec_alloc *r, uint64_t key,
						 int sampled)
{
	struct memphis_rec_alloc *x = run;
	int rc = 0, extend;

	pthread_mutex_lock(&heap_lock);
	extend = x && run_taken == taken && run_key == key && r->addr >= x->addr + x->size &&
		 r->addr - (x->addr + x->size) <= MPH_ALLOC_RUN_GAP;
	if (extend) {
		x->size = r->addr + r->size - x->addr;
		if (!sampled) {
			uint64_t *count = &x->frames[MEMPHIS_MAX_FRAMES - 1];

			*count = x->kind & MPH_ALLOC_F_RUN ? *count + 1 : 2;
			x->kind |= MPH_ALLOC_F_RUN;
		}
	}
	if (sampled || !extend) {
		rc = append(&allocs, r);
		if (!sampled) { /* a new run (a sampled record leaves the run as it is) */
			run = rc == 0 && r->nframes < MEMPHIS_MAX_FRAMES
				      ? (struct memphis_rec_alloc *)(void *)(allocs.cur->rec +
									 (allocs.cur->n - 1) * allocs.size)
				      : NULL;
			run_key = key;
			run_taken = taken;
		}
	}
	pthread_mutex_unlock(&heap_lock);
	if (rc == 0)
		memphis__heapmap_note(r);
}

void memphis__heap_unrecorded(void)
{
	__atomic_add_fetch(&unsampled, 1, __ATOMIC_RELAXED);
}

/* record_alloc of an allocation to be recorded: sampled (when small), or `known_ok`, an
 * unsampled small one, recorded when the site map does not know it already (memo_cfa:
 * record_map's CFA, where the memo is to hold the chain). */
static __attribute__((noinline)) void record_chosen(void *p, size_t size, int kind, void *site,
						     int known_ok, uint64_t memo_cfa)
{
	struct memphis_rec_alloc r;
	uint64_t key;
	int err;

	if (!known_ok && sample_every > 1 && memphis__live_add((uintptr_t)p) < 0) {
		memphis__heap_unrecorded();
		return;
	}
	err = errno;
	memphis__enter();
	key = site_chain(&r, site, memo_cfa);
	if (known_ok && memphis__heapmap_known((uintptr_t)p, size, key)) {
		;
	} else if (mapped && size < MEMPHIS__HEAP_SAMPLE_BELOW) {
		describe_block(&r, p, size, kind);
		put_mapped(&r, key, !known_ok);
	} else {
		describe_block(&r, p, size, kind);
		memphis__heap_put_alloc(&r);
	}
	memphis__leave();
	errno = err;
}

/* record_alloc of an unsampled small allocation with the site map on: nothing when the chain
 * is the thread's last (the memo) and the map knows the block, as in an allocation loop;
 * nothing here calls out (errno and the library's depth untouched). Else record_chosen. */
static __attribute__((noinline, no_sanitize_address)) void record_map(void *p, size_t size,
									int kind, void *site)
{
	uint64_t cfa = (uint64_t)(uintptr_t)__builtin_dwarf_cfa(), key = memo_chain(site, cfa);

	if (key && memphis__heapmap_known((uintptr_t)p, size, key))
		return;
	record_chosen(p, size, kind, site, 1, cfa);
}

/* Carry out the placement plan for p (place.h), its chain read as a record's: the same
 * chain the advice's run recorded for this site. */
static __attribute__((noinline)) void place_alloc(void *p, size_t size, void *site)
{
	struct memphis_rec_alloc r;
	int err;

	if (memphis__inside() || !memphis__place_site_wanted((uint64_t)(uintptr_t)site))
		return;
	err = errno;
	memphis__enter();
	site_chain(&r, site, 0);
	memphis__place_block((uint64_t)(uintptr_t)p, size, r.frames, r.nframes);
	memphis__leave();
	errno = err;
}

void memphis__heap_place(void *p, size_t size, const void *site)
{
	if (p && size >= memphis__place_min)
		place_alloc(p, size, (void *)(uintptr_t)site);
}

/* Record an allocation of `size` bytes at p, called from `site`. errno is kept: the
 * program sees the real allocator's. Inline in each interposer: an allocation left
 * unrecorded costs a few loads and a TLS decrement, and with the site map its chain (read
 * back from the stack) and a look at the map's words for its bytes. */
static inline __attribute__((always_inline)) void record_alloc(void *p, size_t size, int kind,
								void *site)
{
	if (__builtin_expect(memphis__place_min != 0, 0) && p && size >= memphis__place_min)
		place_alloc(p, size, site);
	if (!p || !memphis__heap_wanted(size))
		return;
	if (sample_every > 1 && size < MEMPHIS__HEAP_SAMPLE_BELOW && !sample_small()) {
		if (mapped)
			record_map(p, size, kind, site);
		return;
	}
	record_chosen(p, size, kind, site, 0, 0);
}

/* Whether the free of live block p is to be recorded: 0 no, 1 yes, 2 yes and p was
 * taken out of the live set (small allocations are sampled: it was recorded). Called before the
 * block is given back. */
static inline __attribute__((always_inline)) int free_wanted(void *p)
{
	if (!p || memphis__inside() || !__atomic_load_n(&recording, __ATOMIC_RELAXED))
		return 0;
	if (sample_every > 1)
		return memphis__live_take((uintptr_t)p) ? 2 : 0; /* 0: a block never recorded */
	return 1;
}

/* Record the free of p (free_wanted said so). */
static void record_free(void *p)
{
	memphis__heap_put_free((uint64_t)(uintptr_t)p);
}

EXPORT void *malloc(size_t size)
{
	void *p;

	if (!__atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE)) {
		resolve();
		if (!real_malloc)
			return arena_alloc(size, 16);
	}
	memphis__enter(); /* a signal handler calling the API now gets -EDEADLK */
	p = real_malloc(size);
	memphis__leave();
	record_alloc(p, size, MPH_ALLOC_MALLOC, __builtin_return_address(0));
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	void *p;

	if (!__atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE)) {
		resolve();
		if (!real_malloc) {
			if (size && n > SIZE_MAX / size)
				return NULL;
			return arena_alloc(n * size, 16); /* static storage: already zero */
		}
	}
	memphis__enter();
	p = real_calloc(n, size);
	memphis__leave();
	record_alloc(p, n * size, MPH_ALLOC_CALLOC, __builtin_return_address(0));
	return p;
}

EXPORT void free(void *p)
{
	if (!p || in_arena(p))
		return;
	if (!real_free)
		resolve();
	if (free_wanted(p))
		record_free(p);
	memphis__enter();
	real_free(p);
	memphis__leave();
}

/* realloc, recorded as `kind` from `site` (realloc and reallocarray). */
static inline __attribute__((always_inline)) void *realloc_as(void *old, size_t size, int kind,
							       void *site)
{
	void *p;

	if (old && in_arena(old)) {
		/* Moving out of the bootstrap arena: the old size is unknown, so copy as much
		 * as the arena holds after `old`, at most the new size. */
		size_t avail = (size_t)(arena + sizeof(arena) - (unsigned char *)old);
		p = malloc(size);
		if (p)
			memcpy(p, old, size < avail ? size : avail);
		return p;
	}
	if (!__atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE)) {
		resolve();
		if (!real_malloc)
			return arena_alloc(size, 16);
	}
	int w = free_wanted(old); /* before the real call: old may be gone after it */
	memphis__enter();
	p = real_realloc(old, size);
	memphis__leave();
	if (old && (p || size == 0)) {
		if (w)
			record_free(old);
	} else if (w == 2) {
		memphis__live_add((uintptr_t)old); /* not moved: still the recorded block */
	}
	record_alloc(p, size, kind, site);
	return p;
}

EXPORT void *realloc(void *old, size_t size)
{
	return realloc_as(old, size, MPH_ALLOC_REALLOC, __builtin_return_address(0));
}

/* glibc's reallocarray: ENOMEM and NULL when n * size overflows (nothing else is called),
 * else realloc(old, n * size). */
EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc_as(old, bytes, MPH_ALLOC_REALLOCARRAY, __builtin_return_address(0));
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	int rc;

	if (!real_malloc)
		resolve();
	if (!real_posix_memalign)
		return ENOMEM;
	memphis__enter();
	rc = real_posix_memalign(out, align, size);
	memphis__leave();
	if (rc == 0)
		record_alloc(*out, size, MPH_ALLOC_POSIX_MEMALIGN, __builtin_return_address(0));
	return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	void *p;

	if (!real_malloc)
		resolve();
	if (!real_aligned_alloc)
		return NULL;
	memphis__enter();
	p = real_aligned_alloc(align, size);
	memphis__leave();
	record_alloc(p, size, MPH_ALLOC_ALIGNED_ALLOC, __builtin_return_address(0));
	return p;
}

EXPORT void *memalign(size_t align, size_t size)
{
	void *p;

	if (!real_malloc)
		resolve();
	if (!real_memalign)
		return NULL;
	memphis__enter();
	p = real_memalign(align, size);
	memphis__leave();
	record_alloc(p, size, MPH_ALLOC_MEMALIGN, __builtin_return_address(0));
	return p;
}

/* valloc or pvalloc of `size` bytes while the real allocator is being resolved (a
 * re-entrant call from dlsym): page-aligned memory of the bootstrap arena, or ENOMEM. */
static void *arena_pages(size_t size)
{
	size_t pg = (size_t)getpagesize();
	void *p = size <= sizeof(arena) ? arena_alloc(size ? size : 1, pg) : NULL;

	if (!p)
		errno = ENOMEM;
	return p;
}

EXPORT void *valloc(size_t size)
{
	void *p;

	if (!__atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE)) {
		resolve();
		if (!real_malloc)
			return arena_pages(size);
	}
	if (!real_valloc)
		return NULL;
	memphis__enter();
	p = real_valloc(size);
	memphis__leave();
	record_alloc(p, size, MPH_ALLOC_VALLOC, __builtin_return_address(0));
	return p;
}

/* pvalloc: valloc of size rounded up to whole pages (one page for 0), recorded with the
 * rounded size, all of which the program may use (and whose free is then always
 * recorded, as that of any block of a page or more). */
EXPORT void *pvalloc(size_t size)
{
	size_t pg = (size_t)getpagesize();
	size_t whole = size > SIZE_MAX - (pg - 1) ? SIZE_MAX : size ? (size + pg - 1) & ~(pg - 1) : pg;
	void *p;

	if (!__atomic_load_n(&real_malloc, __ATOMIC_ACQUIRE)) {
		resolve();
		if (!real_malloc)
			return arena_pages(whole);
	}
	if (!real_pvalloc) {
		errno = ENOMEM;
		return NULL;
	}
	memphis__enter();
	p = real_pvalloc(size);
	memphis__leave();
	record_alloc(p, whole, MPH_ALLOC_PVALLOC, __builtin_return_address(0));
	return p;
}

static void atfork_prepare(void)
{
	pthread_mutex_lock(&heap_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&heap_lock);
}

static void atfork_child(void)
{
	/* The child is not profiled: its records would belong to the parent's run. */
	recording = 0;
	pthread_mutex_unlock(&heap_lock);
}

/* The real allocator found, chains of callsite_depth frames; the unwinder may allocate on
 * first use (libgcc_s registering frames): now, inside the library, unrecorded. */
static void chains(int callsite_depth)
{
	void *bt[4];

	resolve();
	depth = callsite_depth;
	memphis__enter();
	if (depth > 1)
		backtrace(bt, 4);
	memphis__leave();
}

void memphis__heap_set_depth(int callsite_depth)
{
	chains(callsite_depth);
	pthread_atfork(NULL, NULL, memphis__place_stop); /* a fork child is not placed */
}

void memphis__heap_init(int callsite_depth, uint64_t min_size, unsigned every)
{
	chains(callsite_depth);
	heap_min = min_size;
	sample_every = every ? every : 1;
	mapped = memphis__heapmap_on();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	__atomic_store_n(&recording, 1, __ATOMIC_RELEASE);
}

/* Take every chunk of the stream, the one being filled included (caller holds heap_lock);
 * returns them oldest first. */
static struct chunk *take(struct stream *st)
{
	struct chunk *list;

	if (st->cur) {
		*st->tail = st->cur;
		st->cur = NULL;
	}
	list = st->full;
	st->full = NULL;
	st->tail = &st->full;
	return list;
}

/* Hand the chunks, oldest first, to write; keep them as spares, or unmap them. */
static void write_chunks(memphis__heap_write_fn *write, uint16_t type, size_t size,
			 struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		int kept = 0;

		if (c->n)
			write(type, c->rec, c->n * size);
		pthread_mutex_lock(&heap_lock);
		if (nspare < SPARE_CHUNKS) {
			c->next = spare;
			spare = c;
			nspare++;
			kept = 1;
		}
		pthread_mutex_unlock(&heap_lock);
		if (!kept)
			syscall(SYS_munmap, c, sizeof(*c));
		c = next;
	}
}

uint64_t memphis__heap_flush(memphis__heap_write_fn *write)
{
	struct chunk *a, *f;
	uint64_t drop;

	pthread_mutex_lock(&heap_lock);
	a = take(&allocs);
	f = take(&frees);
	pending = 0; /* both streams are empty now */
	taken++;
	drop = dropped + __atomic_exchange_n(&unsampled, 0, __ATOMIC_RELAXED);
	dropped = 0;
	pthread_mutex_unlock(&heap_lock);
	write_chunks(write, allocs.type, allocs.size, a);
	write_chunks(write, frees.type, frees.size, f);
	return drop;
}

void memphis__heap_stop(void)
{
	__atomic_store_n(&recording, 0, __ATOMIC_RELEASE);
}
