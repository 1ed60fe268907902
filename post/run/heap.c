/* post/run/heap.c - interval index of heap objects over time (see heap.h). */
#include "heap.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "search.h"

int mr_heap_begin(struct mr_heap *h, size_t nallocs)
{
	memset(h, 0, sizeof(*h));
	h->obj = mph_big_alloc((nallocs ? nallocs : 1) * sizeof(*h->obj));
	if (!h->obj)
		return -ENOMEM;
	h->cap = nallocs;
	return 0;
}

int mr_heap_add(struct mr_heap *h, uint64_t addr, uint64_t size, uint64_t t0, uint32_t tag)
{
	if (!h->obj || h->n >= h->cap || h->n >= MR_HEAP_FREED)
		return -ENOSPC;
	if (!addr)
		return 0;
	/* group holds the order added until the sort has used it */
	h->obj[h->n] = (struct mr_heap_obj){ .addr = addr, .end = addr + (size ? size : 1),
					     .t0 = t0, .t1 = UINT64_MAX, .tag = tag,
					     .group = (uint32_t)h->n };
	h->n++;
	return 0;
}

/* The order of the sort: (addr, t0, order added). */
static int obj_before(const struct mr_heap_obj *a, const struct mr_heap_obj *b)
{
	if (a->addr != b->addr)
		return a->addr < b->addr;
	if (a->t0 != b->t0)
		return a->t0 < b->t0;
	return a->group < b->group;
}

static void insertion_sort(struct mr_heap_obj *o, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct mr_heap_obj x = o[i];
		size_t j = i;

		for (; j > 0 && obj_before(&x, &o[j - 1]); j--)
			o[j] = o[j - 1];
		o[j] = x;
	}
}

/* Byte d of the 16-byte key (addr, t0), most significant first. */
static unsigned key_byte(const struct mr_heap_obj *o, unsigned d)
{
	return (unsigned)((d < 8 ? o->addr : o->t0) >> (8 * (7 - (d & 7)))) & 255u;
}

/* Sort o[0..n) in place by (addr, t0, order added), the entries' keys equal in their
 * bytes before d: most significant digit first (American flag sort), skipping the bytes
 * no entry differs in (addresses and times share their high bytes), insertion sort below
 * 32 entries and among entries of one key. No memory beyond the stack: the records of a
 * run are most of the report's memory, and a copy to sort them was as much again. */
static void sort_from(struct mr_heap_obj *o, size_t n, unsigned d)
{
	size_t count[256], next[256], end;
	uint64_t da = 0, dt = 0;

	if (n <= 32) {
		insertion_sort(o, n);
		return;
	}
	for (size_t i = 1; i < n; i++) {
		da |= o[i].addr ^ o[0].addr;
		dt |= o[i].t0 ^ o[0].t0;
	}
	while (d < 16 && !(((d < 8 ? da : dt) >> (8 * (7 - (d & 7)))) & 255u))
		d++;
	if (d == 16) { /* one key: by the order added */
		insertion_sort(o, n);
		return;
	}
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
		count[key_byte(&o[i], d)]++;
	end = 0;
	for (unsigned b = 0; b < 256; b++) {
		next[b] = end;
		end += count[b];
	}
	/* each bucket's entries swapped into place: next[b] is the first not yet placed */
	end = 0;
	for (unsigned b = 0; b < 256; b++) {
		end += count[b];
		while (next[b] < end) {
			unsigned v = key_byte(&o[next[b]], d);

			if (v == b) {
				next[b]++;
			} else {
				struct mr_heap_obj t = o[next[v]];

				o[next[v]++] = o[next[b]];
				o[next[b]] = t;
			}
		}
	}
	end = 0;
	for (unsigned b = 0; b < 256; b++) {
		if (count[b] > 1)
			sort_from(o + end, count[b], d + 1);
		end += count[b];
	}
}

/* A value of h->starts: the first entry starting in the block (bits 0-31) and either
 * (EVEN clear) the number of entries starting there (bits 32-62), or (EVEN set) the
 * entries' number (bits 32-41), first offset in the block / 8 (bits 42-50) and distance
 * apart / 8 (bits 51-59), where they lie evenly spaced at distinct multiples of 8 bytes:
 * an array of equal objects, whose upper bound is then computed without reading one. */
#define EVEN (1ull << 63)
#define EVEN_COUNT(v) ((size_t)((v) >> 32) & 1023u)
#define EVEN_FIRST(v) ((uint64_t)((v) >> 42 & 511u) * 8)
#define EVEN_STEP(v) ((uint64_t)((v) >> 51 & 511u) * 8)

/* The first entry with obj.addr > addr (n if none), for n > 0: among those starting in
 * addr's 4 KiB block when there are, else first among the fan-out's run starts, then in a
 * run. */
static size_t upper(const struct mr_heap *h, uint64_t addr)
{
	const uint64_t *v = mph_u64map_get(&h->starts, addr >> 12);
	size_t lo, hi;

	if (v && (*v & EVEN)) {
		uint64_t off = addr & 4095u, first = EVEN_FIRST(*v), step = EVEN_STEP(*v);
		size_t n = EVEN_COUNT(*v), k;

		if (off < first)
			return (size_t)(uint32_t)*v;
		k = n > 1 ? (size_t)((off - first) / step) + 1 : 1;
		return (size_t)(uint32_t)*v + (k < n ? k : n);
	}
	if (v) {
		lo = (size_t)(uint32_t)*v;
		return lo + mph_upper_bound(h->obj + lo, (size_t)(*v >> 32), sizeof(*h->obj),
					    offsetof(struct mr_heap_obj, addr), addr);
	}
	lo = mph_upper_bound(h->top, h->ntop, sizeof(*h->top), 0, addr);
	if (lo == 0)
		return 0;
	hi = lo * MR_HEAP_FANOUT < h->n ? lo * MR_HEAP_FANOUT : h->n;
	lo = (lo - 1) * MR_HEAP_FANOUT;
	return lo + mph_upper_bound(h->obj + lo, hi - lo, sizeof(*h->obj),
				    offsetof(struct mr_heap_obj, addr), addr);
}

/* EVEN set in the h->starts value of the block whose first entry is i, when its entries
 * qualify; returns the number of its entries. */
static size_t mark_even(struct mr_heap *h, size_t i)
{
	uint64_t *v = mph_u64map_get(&h->starts, h->obj[i].addr >> 12);
	size_t n = (size_t)(*v >> 32);
	uint64_t first = h->obj[i].addr & 4095u;
	uint64_t step = n > 1 ? h->obj[i + 1].addr - h->obj[i].addr : 8;

	if (first % 8 || step % 8 || step == 0)
		return n;
	for (size_t k = 2; k < n; k++)
		if (h->obj[i + k].addr != h->obj[i].addr + k * step)
			return n;
	*v = EVEN | step / 8 << 51 | first / 8 << 42 | (uint64_t)n << 32 | (uint32_t)*v;
	return n;
}

int mr_heap_sort(struct mr_heap *h)
{
	uint64_t *block = NULL;
	size_t nblocks = 0;
	int sorted = 1;

	if (!h->obj)
		return -ENOMEM;
	for (size_t i = 1; i < h->n && sorted; i++)
		sorted = obj_before(&h->obj[i - 1], &h->obj[i]);
	if (!sorted)
		sort_from(h->obj, h->n, 0);
	/* the lookups' first level and blocks' map, which the frees need too; the map sized
	 * by the blocks holding a start: a lookup per sample of heap memory reads it, and
	 * small objects packed in few blocks (10^5 of 64 bytes: 1,563) then keep their slots
	 * in a few cache lines, where a map sized by the objects spread them over 512 KiB */
	for (size_t i = 0; i < h->n; i++)
		nblocks += i == 0 || h->obj[i - 1].addr >> 12 != h->obj[i].addr >> 12;
	h->ntop = (h->n + MR_HEAP_FANOUT - 1) / MR_HEAP_FANOUT;
	h->top = malloc((h->ntop ? h->ntop : 1) * sizeof(*h->top));
	if (!h->top || mph_u64map_init(&h->starts, nblocks)) {
		mr_heap_free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n; i++) {
		struct mr_heap_obj *o = &h->obj[i];

		o->group = i > 0 && h->obj[i - 1].addr == o->addr ? h->obj[i - 1].group : (uint32_t)i;
		/* entries are sorted by address: a block's are contiguous, counted through the
		 * value its first one inserted (valid until the next insertion) */
		if (i == 0 || h->obj[i - 1].addr >> 12 != o->addr >> 12) {
			block = mph_u64map_put(&h->starts, o->addr >> 12, (uint64_t)i);
			if (!block) {
				mr_heap_free(h);
				return -ENOMEM;
			}
		}
		*block += 1ull << 32;
	}
	for (size_t i = 0; i < h->n; i += mark_even(h, i))
		;
	for (size_t i = 0; i < h->ntop; i++)
		h->top[i] = h->obj[i * MR_HEAP_FANOUT].addr;
	return 0;
}

void mr_heap_add_free(struct mr_heap *h, uint64_t addr, uint64_t t)
{
	size_t u, g, a;
	struct mr_heap_obj *o;

	if (!h->top) /* not sorted, or failed */
		return;
	u = h->n ? upper(h, addr) : 0;
	if (u == 0 || h->obj[u - 1].addr != addr) {
		h->unmatched_frees++;
		return;
	}
	g = h->obj[u - 1].group & ~MR_HEAP_FREED;
	/* among entries [g, u) (t0 ascending) the last allocated before t, else the first if
	 * allocated at t */
	a = g + mph_upper_bound(h->obj + g, u - g, sizeof(*h->obj),
				offsetof(struct mr_heap_obj, t0), t - 1);
	if (t == 0 || a == g) {
		if (h->obj[g].t0 != t) {
			h->unmatched_frees++;
			return;
		}
		a = g + 1;
	}
	o = &h->obj[a - 1];
	if (o->end - o->addr < h->keep_below)
		return;
	if (o->t1 != UINT64_MAX)
		h->unmatched_frees++; /* its second free: the later one is the stray */
	if (t < o->t1) {
		o->t1 = t;
		o->group |= MR_HEAP_FREED;
	}
}

/* o ends at t where a later record overlapping it starts then (not a free). */
static void supersede(struct mr_heap_obj *o, uint64_t t)
{
	if (t < o->t1) {
		o->t1 = t;
		o->group &= ~MR_HEAP_FREED;
	}
}

/* The end of the group that starts at g: the first entry at another address. Galloping
 * from g: a group is most often one entry, and a binary search over all the entries after
 * it cost end_overlapped two thirds of the heap's building (10^5 objects). */
static size_t group_end(const struct mr_heap *h, size_t g)
{
	uint64_t addr = h->obj[g].addr;
	size_t lo = g + 1, step = 1;

	while (lo < h->n && h->obj[lo].addr == addr) {
		size_t hi = h->n - lo > step ? lo + step : h->n;

		if (h->obj[hi - 1].addr != addr)
			return lo + mph_upper_bound(h->obj + lo, hi - lo, sizeof(*h->obj),
						    offsetof(struct mr_heap_obj, addr), addr);
		lo = hi;
		step *= 2;
	}
	return lo;
}

/* Objects at different addresses that overlap end where the later one starts (each keeps
 * the bytes no later record covers, but an answer of its bytes holds no longer): for each
 * entry i, each group of entries starting inside i's bytes: i ends at the first of them
 * allocated after it, and the last of them allocated before it ends at i's start. Costs a
 * few binary searches per pair of an entry and a group starting inside it: nothing where
 * objects never overlap. */
static void end_overlapped(struct mr_heap *h)
{
	size_t ge;

	for (size_t g = 0; g < h->n; g = ge) {
		ge = group_end(h, g);
		for (size_t i = g; i < ge; i++) {
			struct mr_heap_obj *o = &h->obj[i];
			size_t he;

			for (size_t hs = ge; hs < h->n && h->obj[hs].addr < o->end; hs = he) {
				size_t a;

				he = group_end(h, hs);
				a = hs + mph_upper_bound(h->obj + hs, he - hs, sizeof(*h->obj),
							 offsetof(struct mr_heap_obj, t0), o->t0);
				if (a < he)
					supersede(o, h->obj[a].t0);
				while (a > hs && h->obj[a - 1].t0 >= o->t0)
					a--;
				if (a > hs)
					supersede(&h->obj[a - 1], o->t0);
			}
		}
	}
}

int mr_heap_finish(struct mr_heap *h)
{
	if (!h->top)
		return -ENOMEM;
	/* an object ends where the next one at its address starts, if not freed before */
	for (size_t i = 0; i + 1 < h->n; i++)
		if (h->obj[i + 1].addr == h->obj[i].addr)
			supersede(&h->obj[i], h->obj[i + 1].t0);
	end_overlapped(h);
	for (h->leaves = 1; h->leaves < h->ntop; h->leaves *= 2)
		;
	h->maxend = calloc(2 * h->leaves, sizeof(*h->maxend));
	if (!h->maxend) {
		mr_heap_free(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < h->n; i++) {
		uint64_t *m = &h->maxend[h->leaves + i / MR_HEAP_FANOUT];

		*m = h->obj[i].end > *m ? h->obj[i].end : *m;
	}
	for (size_t k = h->leaves; k-- > 1;)
		h->maxend[k] = h->maxend[2 * k] > h->maxend[2 * k + 1] ? h->maxend[2 * k]
									: h->maxend[2 * k + 1];
	/* what the building needed and the lookups do not */
	if (h->n < h->cap) {
		struct mr_heap_obj *o = realloc(h->obj, (h->n ? h->n : 1) * sizeof(*h->obj));

		if (o)
			h->obj = o;
		h->cap = h->n;
	}
	return 0;
}

int mr_heap_build(struct mr_heap *h, const struct memphis_rec_alloc *allocs, size_t nallocs,
		  const struct memphis_rec_free *frees, size_t nfrees)
{
	if (mr_heap_begin(h, nallocs))
		return -ENOMEM;
	for (size_t i = 0; i < nallocs && i <= UINT32_MAX; i++)
		mr_heap_add(h, allocs[i].addr, allocs[i].size, allocs[i].time, (uint32_t)i);
	if (mr_heap_sort(h))
		return -ENOMEM;
	for (size_t i = 0; i < nfrees; i++)
		mr_heap_add_free(h, frees[i].addr, frees[i].time);
	return mr_heap_finish(h);
}

void mr_heap_free(struct mr_heap *h)
{
	if (!h)
		return;
	free(h->obj);
	free(h->top);
	free(h->maxend);
	mph_u64map_free(&h->starts);
	h->obj = NULL;
	h->top = NULL;
	h->maxend = NULL;
	h->n = h->ntop = h->leaves = h->cap = 0;
}

/* The largest index j < i whose object ends after addr, or SIZE_MAX when none: back over
 * i's own run, then up the tree while the runs to the left end at or before addr, down to
 * the rightmost run that ends after it, and back over that run. */
static size_t prev_reaching(const struct mr_heap *h, size_t i, uint64_t addr)
{
	size_t r = i / MR_HEAP_FANOUT, k;

	for (size_t j = i; j-- > r * MR_HEAP_FANOUT;)
		if (h->obj[j].end > addr)
			return j;
	if (r == 0)
		return SIZE_MAX;
	if (r >= h->leaves) { /* every run is before i's */
		if (h->maxend[1] <= addr)
			return SIZE_MAX;
		k = 1;
	} else {
		for (k = h->leaves + r; k > 1; k /= 2)
			if ((k & 1) && h->maxend[k - 1] > addr)
				break;
		if (k <= 1)
			return SIZE_MAX;
		k--;
	}
	while (k < h->leaves)
		k = h->maxend[2 * k + 1] > addr ? 2 * k + 1 : 2 * k;
	r = k - h->leaves;
	for (size_t j = (r + 1) * MR_HEAP_FANOUT; j-- > r * MR_HEAP_FANOUT;)
		if (j < h->n && h->obj[j].end > addr)
			return j;
	return SIZE_MAX; /* not reached: the run's highest end is above addr */
}

/* The highest end of entries [0, i): the runs before i's up the max tree from both ends of
 * the leaves, then i's own run. */
static uint64_t prefix_maxend(const struct mr_heap *h, size_t i)
{
	size_t r = i / MR_HEAP_FANOUT;
	uint64_t m = 0;

	for (size_t l = h->leaves, e = h->leaves + r; l < e; l /= 2, e /= 2) {
		if (l & 1)
			m = h->maxend[l] > m ? h->maxend[l] : m;
		l += l & 1;
		if (e & 1)
			m = h->maxend[e - 1] > m ? h->maxend[e - 1] : m;
	}
	for (size_t j = r * MR_HEAP_FANOUT; j < i; j++)
		m = h->obj[j].end > m ? h->obj[j].end : m;
	return m;
}

int mr_heap_gap(const struct mr_heap *h, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	size_t u;

	*lo = 0;
	*hi = UINT64_MAX;
	if (!h->n)
		return 1;
	u = upper(h, addr);
	if (u < h->n)
		*hi = h->obj[u].addr;
	*lo = prefix_maxend(h, u);
	return *lo <= addr;
}

const struct mr_heap_obj *mr_heap_find_steps(const struct mr_heap *h, uint64_t addr, uint64_t t,
					     size_t *steps)
{
	const struct mr_heap_obj *best = NULL;
	size_t lo, i;

	/* at or above every object's end (maxend[1], the root): in none of them; common for
	 * addresses of stacks, TLS and libraries, which lie above the heap */
	if (!h->n || addr >= h->maxend[1])
		return NULL;
	lo = upper(h, addr);
	if (lo == 0)
		return NULL;
	/* each object start at or below addr with an entry reaching past it, nearest first;
	 * entries of one start are one group, all below lo; the nearest is most often the
	 * entry just below lo (an address inside the last object that starts at or below
	 * it), found without the tree */
	i = h->obj[lo - 1].end > addr ? lo - 1 : prev_reaching(h, lo, addr);
	for (; i != SIZE_MAX; i = prev_reaching(h, i, addr)) {
		size_t g = h->obj[i].group & ~MR_HEAP_FREED, last, a, back = 0;

		*steps += 1;
		last = g + mph_upper_bound(h->obj + g, lo - g, sizeof(*h->obj),
					   offsetof(struct mr_heap_obj, addr), h->obj[g].addr);
		/* among entries [g, last) (same addr, t0 ascending) the last with t0 <= t that
		 * covers addr */
		a = g + mph_upper_bound(h->obj + g, last - g, sizeof(*h->obj),
					offsetof(struct mr_heap_obj, t0), t);
		while (a > g && h->obj[a - 1].end <= addr && ++back < MR_HEAP_LOOKBACK)
			a--;
		if (a > g && h->obj[a - 1].end > addr) {
			const struct mr_heap_obj *c = &h->obj[a - 1];

			/* live and not overlapped since: no later record covers addr */
			if (t < c->t1 && (!best || c->t0 > best->t0))
				return c;
			best = !best || c->t0 > best->t0 ? c : best;
		}
		i = g;
	}
	if (best && (best->group & MR_HEAP_FREED) && t >= best->t1)
		return NULL;
	return best;
}

const struct mr_heap_obj *mr_heap_find(const struct mr_heap *h, uint64_t addr, uint64_t t)
{
	size_t steps = 0;

	return mr_heap_find_steps(h, addr, t, &steps);
}
