/* post/heap.c - interval index of heap objects over time (see heap.h). */
#include "heap.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "radix.h"
#include "search.h"

struct fr {
	uint64_t addr, time;
};

/* The records base[0..n) (stride bytes each) in the order of their uint64_t fields at
 * hi_off, then lo_off, then their index: n pairs whose .i are the records' indexes, of *a
 * or *b (both n long, the caller frees both). NULL when out of memory. */
static const struct mr_keyidx *order_by_two(const void *base, size_t n, size_t stride,
					    size_t hi_off, size_t lo_off, struct mr_keyidx **a,
					    struct mr_keyidx **b)
{
	const unsigned char *p = base;

	if (mr_keyidx_alloc(n, a, b))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		memcpy(&(*a)[i].key, p + i * stride + hi_off, sizeof(uint64_t));
		(*a)[i].i = i;
	}
	return mr_radix_sort_then(*a, *b, n, base, stride, lo_off);
}

int mr_heap_build(struct mr_heap *h, const struct memphis_rec_alloc *allocs, size_t nallocs,
		  const struct memphis_rec_free *frees, size_t nfrees)
{
	struct fr *f = NULL;
	struct mr_keyidx *ka = NULL, *kb = NULL;
	const struct mr_keyidx *ord;
	uint64_t *block;
	size_t n = 0, fi = 0;

	memset(h, 0, sizeof(*h));
	h->obj = malloc((nallocs ? nallocs : 1) * sizeof(*h->obj));
	f = malloc((nfrees ? nfrees : 1) * sizeof(*f));
	/* objects by (address, allocation time, record), frees by (address, time) */
	ord = h->obj && f ? order_by_two(allocs, nallocs, sizeof(*allocs),
					 offsetof(struct memphis_rec_alloc, addr),
					 offsetof(struct memphis_rec_alloc, time), &ka, &kb)
			  : NULL;
	for (size_t k = 0; ord && k < nallocs; k++) {
		size_t i = ord[k].i;

		if (allocs[i].addr == 0 || i > UINT32_MAX)
			continue;
		h->obj[n] = (struct mr_heap_obj){
			.addr = allocs[i].addr,
			.end = allocs[i].addr + (allocs[i].size ? allocs[i].size : 1),
			.t0 = allocs[i].time, .t1 = UINT64_MAX, .tag = (uint32_t)i,
		};
		n++;
	}
	free(ka);
	free(kb);
	ka = kb = NULL;
	ord = ord ? order_by_two(frees, nfrees, sizeof(*frees),
				 offsetof(struct memphis_rec_free, addr),
				 offsetof(struct memphis_rec_free, time), &ka, &kb)
		  : NULL;
	for (size_t k = 0; ord && k < nfrees; k++)
		f[k] = (struct fr){ frees[ord[k].i].addr, frees[ord[k].i].time };
	free(ka);
	free(kb);
	if (!ord) {
		free(h->obj);
		free(f);
		h->obj = NULL;
		return -ENOMEM;
	}
	h->n = n;

	/* Pair each allocation with the first free of its address at or after its time and
	 * before the next allocation at the same address; a reuse without a recorded free
	 * ends the older object where the newer one starts. */
	for (size_t i = 0; i < n; i++) {
		struct mr_heap_obj *o = &h->obj[i];
		int last = i + 1 == n || h->obj[i + 1].addr != o->addr;
		uint64_t next_t0 = last ? UINT64_MAX : h->obj[i + 1].t0;

		while (fi < nfrees && (f[fi].addr < o->addr ||
				       (f[fi].addr == o->addr && f[fi].time < o->t0))) {
			h->unmatched_frees++;
			fi++;
		}
		if (fi < nfrees && f[fi].addr == o->addr && f[fi].time <= next_t0) {
			o->t1 = f[fi].time;
			fi++;
		} else {
			o->t1 = next_t0;
		}
		o->group = (i > 0 && h->obj[i - 1].addr == o->addr) ? h->obj[i - 1].group
								     : (uint32_t)i;
	}
	h->unmatched_frees += nfrees - fi;
	free(f);
	h->addr = malloc((n ? n : 1) * sizeof(*h->addr));
	h->ntop = (n + MR_HEAP_FANOUT - 1) / MR_HEAP_FANOUT;
	h->top = malloc((h->ntop ? h->ntop : 1) * sizeof(*h->top));
	for (h->leaves = 1; h->leaves < n; h->leaves *= 2)
		;
	h->maxend = calloc(2 * h->leaves, sizeof(*h->maxend));
	if (!h->addr || !h->top || !h->maxend) {
		mr_heap_free(h);
		return -ENOMEM;
	}
	if (mph_u64map_init(&h->starts, n / 8 + 16)) {
		mr_heap_free(h);
		return -ENOMEM;
	}
	block = NULL;
	for (size_t i = 0; i < n; i++) {
		h->addr[i] = h->obj[i].addr;
		/* entries are sorted by address: a block's are contiguous, counted through the
		 * value its first one inserted (valid until the next insertion) */
		if (i == 0 || h->addr[i - 1] >> 12 != h->addr[i] >> 12) {
			block = mph_u64map_put(&h->starts, h->addr[i] >> 12, (uint64_t)i);
			if (!block) {
				mr_heap_free(h);
				return -ENOMEM;
			}
		}
		*block += 1ull << 32;
	}
	for (size_t i = 0; i < h->ntop; i++)
		h->top[i] = h->addr[i * MR_HEAP_FANOUT];
	for (size_t i = 0; i < n; i++)
		h->maxend[h->leaves + i] = h->obj[i].end;
	for (size_t k = h->leaves; k-- > 1;)
		h->maxend[k] = h->maxend[2 * k] > h->maxend[2 * k + 1] ? h->maxend[2 * k]
									: h->maxend[2 * k + 1];
	return 0;
}

void mr_heap_free(struct mr_heap *h)
{
	if (!h)
		return;
	free(h->obj);
	free(h->addr);
	free(h->top);
	free(h->maxend);
	mph_u64map_free(&h->starts);
	h->obj = NULL;
	h->addr = NULL;
	h->top = NULL;
	h->maxend = NULL;
	h->n = h->ntop = h->leaves = 0;
}

/* The largest index j < i whose object ends after addr, or SIZE_MAX when none: up the
 * tree while the left siblings end at or before addr, then down to the rightmost leaf
 * that ends after it. */
static size_t prev_reaching(const struct mr_heap *h, size_t i, uint64_t addr)
{
	size_t k;

	if (i >= h->leaves) { /* every entry is below i */
		if (h->maxend[1] <= addr)
			return SIZE_MAX;
		k = 1;
	} else {
		for (k = h->leaves + i; k > 1; k /= 2)
			if ((k & 1) && h->maxend[k - 1] > addr)
				break;
		if (k <= 1)
			return SIZE_MAX;
		k--;
	}
	while (k < h->leaves)
		k = h->maxend[2 * k + 1] > addr ? 2 * k + 1 : 2 * k;
	return k - h->leaves;
}

/* The first entry with obj.addr > addr (n if none), for n > 0: among those starting in
 * addr's 4 KiB block when there are, else first among the fan-out's block starts, then in
 * a block. */
static size_t upper(const struct mr_heap *h, uint64_t addr)
{
	const uint64_t *v = mph_u64map_get(&h->starts, addr >> 12);
	size_t lo, hi;

	if (v) {
		lo = (size_t)(uint32_t)*v;
		return lo + mph_upper_bound(h->addr + lo, (size_t)(*v >> 32), sizeof(*h->addr), 0,
					    addr);
	}
	lo = mph_upper_bound(h->top, h->ntop, sizeof(*h->top), 0, addr);
	if (lo == 0)
		return 0;
	hi = lo * MR_HEAP_FANOUT < h->n ? lo * MR_HEAP_FANOUT : h->n;
	lo = (lo - 1) * MR_HEAP_FANOUT;
	return lo + mph_upper_bound(h->addr + lo, hi - lo, sizeof(*h->addr), 0, addr);
}

/* The highest end of entries [0, i): up the max tree from both ends of the leaves. */
static uint64_t prefix_maxend(const struct mr_heap *h, size_t i)
{
	uint64_t m = 0;

	for (size_t l = h->leaves, r = h->leaves + i; l < r; l /= 2, r /= 2) {
		if (l & 1)
			m = h->maxend[l] > m ? h->maxend[l] : m;
		l += l & 1;
		if (r & 1)
			m = h->maxend[r - 1] > m ? h->maxend[r - 1] : m;
	}
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
		*hi = h->addr[u];
	*lo = prefix_maxend(h, u);
	return *lo <= addr;
}

const struct mr_heap_obj *mr_heap_find_steps(const struct mr_heap *h, uint64_t addr, uint64_t t,
					     size_t *steps)
{
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
		size_t g = h->obj[i].group, last, a;

		*steps += 1;
		last = g + mph_upper_bound(h->addr + g, lo - g, sizeof(*h->addr), 0, h->obj[g].addr);
		/* among entries [g, last) (same addr, t0 ascending) the last with t0 <= t */
		a = g + mph_upper_bound(h->obj + g, last - g, sizeof(*h->obj),
					offsetof(struct mr_heap_obj, t0), t);
		if (a > g) {
			const struct mr_heap_obj *c = &h->obj[a - 1];
			if (t < c->t1 && addr < c->end)
				return c;
		}
		i = g;
	}
	return NULL;
}

const struct mr_heap_obj *mr_heap_find(const struct mr_heap *h, uint64_t addr, uint64_t t)
{
	size_t steps = 0;

	return mr_heap_find_steps(h, addr, t, &steps);
}
