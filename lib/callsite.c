/* lib/callsite.c - an allocation's call-site chain (contract in callsite.h).
 *
 * Unwinding by the CFI (libgcc's _Unwind_Backtrace, what backtrace() runs) costs about
 * 2,000 instructions a frame, 14,000 a chain of an allocation from main(); most sites are
 * called from one chain or a few. So a chain unwound is kept by its site with where its
 * return addresses lay on the stack, as distances from the CFA the caller gives (heap.c's
 * describer), and the next allocation from that site takes its chain from those stack
 * words when each of them still holds the return address kept: a caller's return address
 * lies at a fixed distance from its callee's as long as each frame has a fixed size at
 * its return address. Where one has not (alloca, a VLA, the site called from elsewhere)
 * the word there is something else, the check fails and the chain is unwound (and kept)
 * anew; a stale copy of the very return address at the very distance could pass it, so a
 * chain taken from the stack names the right site always and its callers as the unwinder
 * would, but for such a coincidence (tests/lib/t_heapchain.sh compares every chain of a
 * program that changes them under the same site with the unwinder's). Only words of the
 * calling thread's own stack are read, between the CFA and the top its registration found
 * (self.h): a thread the library never attached, or one on another stack (sigaltstack, a
 * coroutine), always unwinds. A slot is written under its seqlock (odd: being written);
 * a reader that meets a write, or a change, unwinds.
 */
#include <stdint.h>
#include <string.h>
#include <unwind.h>

#include "callsite.h"
#include "self.h"

#define CHAIN_SLOTS 256u
struct chain {
	unsigned seq;
	uint32_t n;                          /* return addresses after the site */
	uint64_t site;
	uint64_t key;                        /* memphis__callsite_key of the chain */
	uint64_t off[MEMPHIS_MAX_FRAMES];    /* [0]: the site's word, [k]: frames[k]'s */
	uint64_t ra[MEMPHIS_MAX_FRAMES];     /* [k]: frames[k] ([0]: the site) */
};
static struct chain chains[CHAIN_SLOTS];

static struct chain *chain_of(uint64_t site)
{
	return &chains[(site * 0x9e3779b97f4a7c15ull) >> (64 - 8)];
}

/* The bytes of the calling thread's stack from cfa to its top (0: cfa not in it, or the
 * thread's stack unknown): a word at cfa + off is read when off + 8 <= the room. */
static uint64_t stack_room(uint64_t cfa)
{
	uint64_t hi = memphis__self_stack_hi;

	return cfa < memphis__self_stack_lo || cfa >= hi ? 0 : hi - cfa;
}

/* The stack word at cfa + off, when it lies in the room above cfa. */
static __attribute__((no_sanitize_address)) int stack_word(uint64_t cfa, uint64_t room,
							    uint64_t off, uint64_t *w)
{
	if (room < 8 || off > room - 8)
		return 0;
	memcpy(w, (const void *)(uintptr_t)(cfa + off), sizeof(*w));
	return 1;
}

/* r's frames after the site from the chain kept for it, read on the stack above cfa: 1 with
 * *key its key, or 0 when no chain kept holds there now. */
static __attribute__((no_sanitize_address)) int chain_cached(struct memphis_rec_alloc *r,
							      uint64_t cfa, uint64_t site,
							      uint64_t *key, uint64_t *offs)
{
	struct chain *c = chain_of(site);
	unsigned seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	uint32_t n = __atomic_load_n(&c->n, __ATOMIC_RELAXED);
	uint64_t w, room = stack_room(cfa), lim = room - 8; /* the highest offset read */

	if ((seq & 1) || __atomic_load_n(&c->site, __ATOMIC_RELAXED) != site ||
	    n >= MEMPHIS_MAX_FRAMES || room < 8)
		return 0;
	for (uint32_t k = 0; k <= n; k++) {
		uint64_t want = __atomic_load_n(&c->ra[k], __ATOMIC_RELAXED);
		uint64_t off = __atomic_load_n(&c->off[k], __ATOMIC_RELAXED);

		/* the slot may change meanwhile (seq says so below): each offset is checked */
		if (off > lim)
			return 0;
		memcpy(&w, (const void *)(uintptr_t)(cfa + off), sizeof(w));
		if (w != want)
			return 0;
		r->frames[k] = want;
		offs[k] = off;
	}
	*key = __atomic_load_n(&c->key, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&c->seq, __ATOMIC_RELAXED) != seq)
		return 0;
	r->nframes = (uint16_t)(n + 1);
	return 1;
}

/* What _Unwind_Backtrace reports of each frame: its IP (a return address but in the
 * first) and the CFA of the frame before (the callee's: libgcc updates the CFA one frame
 * behind), so frame k's IP, k >= 1, is the word at cfa[k] - 8 (x86-64). */
struct unwound {
	int n, max;
	uint64_t ip[MEMPHIS_MAX_FRAMES + 8], cfa[MEMPHIS_MAX_FRAMES + 8];
};

static _Unwind_Reason_Code unwind_frame(struct _Unwind_Context *ctx, void *arg)
{
	struct unwound *u = arg;
	uint64_t ip = (uint64_t)_Unwind_GetIP(ctx);

	if (u->n >= u->max || !ip) /* 0: past the outermost frame, which backtrace() drops too */
		return _URC_END_OF_STACK;
	u->ip[u->n] = ip;
	u->cfa[u->n] = (uint64_t)_Unwind_GetCFA(ctx);
	u->n++;
	return _URC_NO_REASON;
}

/* r's frames after the site (up to depth in all), unwound from here, and the chain kept when
 * each return address lies where the unwinder says, on this thread's stack, at distances
 * from cfa. This file's frames, memphis__heap_describe's and the interposer's (up to 3 in
 * lib/mmap.c) come before the site. */
static __attribute__((noinline)) void chain_unwind(struct memphis_rec_alloc *r, uint64_t cfa,
						     uint64_t site, int depth, uint64_t *offs)
{
	struct unwound u = { .max = depth + 8 };
	struct chain *c = chain_of(site);
	uint64_t off[MEMPHIS_MAX_FRAMES], w, room = stack_room(cfa);
	unsigned seq;
	int i = 1, keep;

	_Unwind_Backtrace(unwind_frame, &u);
	while (i < u.n && u.ip[i] != site)
		i++;
	if (i >= u.n)
		return;
	/* a word below cfa wraps to a distance stack_word refuses */
	off[0] = u.cfa[i] - 8 - cfa;
	keep = stack_word(cfa, room, off[0], &w) && w == site;
	for (i++; i < u.n && r->nframes < depth; i++) {
		off[r->nframes] = u.cfa[i] - 8 - cfa;
		keep = keep && stack_word(cfa, room, off[r->nframes], &w) && w == u.ip[i];
		r->frames[r->nframes++] = u.ip[i];
	}
	if (keep)
		memcpy(offs, off, r->nframes * sizeof(*off));
	seq = __atomic_load_n(&c->seq, __ATOMIC_RELAXED);
	if (!keep || (seq & 1) ||
	    !__atomic_compare_exchange_n(&c->seq, &seq, seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return; /* another thread is writing the slot: not kept this time */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->site, site, __ATOMIC_RELAXED);
	__atomic_store_n(&c->n, (uint32_t)(r->nframes - 1), __ATOMIC_RELAXED);
	__atomic_store_n(&c->key, memphis__callsite_key(r), __ATOMIC_RELAXED);
	for (unsigned k = 0; k < r->nframes; k++) {
		__atomic_store_n(&c->off[k], off[k], __ATOMIC_RELAXED);
		__atomic_store_n(&c->ra[k], r->frames[k], __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->seq, seq + 2, __ATOMIC_RELEASE);
}

uint64_t memphis__callsite_key(const struct memphis_rec_alloc *r)
{
	uint64_t k = 0;

	for (unsigned i = 0; i < r->nframes && i < MEMPHIS_MAX_FRAMES; i++)
		k = (k ^ r->frames[i]) * 0x9e3779b97f4a7c15ull + i;
	return k;
}

uint64_t memphis__callsite_chain(struct memphis_rec_alloc *r, uint64_t cfa, int depth,
				 uint64_t *offs)
{
	uint64_t key;

	r->nframes = 1;
	offs[0] = UINT64_MAX;
	if (chain_cached(r, cfa, r->frames[0], &key, offs))
		return key;
	offs[0] = UINT64_MAX;
	chain_unwind(r, cfa, r->frames[0], depth, offs);
	return memphis__callsite_key(r);
}
