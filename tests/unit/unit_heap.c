/* tests/unit/unit_heap.c - the heap index of memphis-report (post/run/heap.c, the heap objects of
 * a run; not lib/heap.c, the library's allocation interposer, which the shell tests cover):
 * which allocation holds an address at a time, with reuse after free, reuse without a free,
 * small objects inside a freed big one, the site map's runs (no frees: an object ends where
 * a later one overlapping it starts), and a million reused objects (lookup time printed,
 * not asserted).
 * Table-driven; TAP output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <memphis/format.h>

#include "run/heap.h"

#include "tap.h"

static void test_heap(void)
{
	/* addr, size, t_alloc; frees below */
	struct memphis_rec_alloc al[] = {
		{ .time = 10, .addr = 0x1000, .size = 0x100 },  /* 0: freed at 20 */
		{ .time = 30, .addr = 0x1000, .size = 0x80 },   /* 1: same address, reused */
		{ .time = 5, .addr = 0x2000, .size = 0x1000 },  /* 2: big, never freed */
		{ .time = 40, .addr = 0x5000, .size = 0x10 },   /* 3: reuse without a free: ends at 50 */
		{ .time = 50, .addr = 0x5000, .size = 0x20 },   /* 4 */
		{ .time = 1, .addr = 0x10000, .size = 0x100000 }, /* 5: huge, freed at 2 */
		{ .time = 3, .addr = 0x10100, .size = 0x10 },   /* 6: inside 5's old range */
	};
	struct memphis_rec_free fr[] = { { .time = 20, .addr = 0x1000 }, { .time = 2, .addr = 0x10000 },
					 { .time = 99, .addr = 0xdead } };
	static const struct {
		uint64_t addr, t;
		int want; /* record index, -1 none */
		const char *what;
	} cases[] = {
		{ 0x1000, 15, 0, "live object at its start" },
		{ 0x10ff, 15, 0, "live object at its last byte" },
		{ 0x1100, 15, -1, "one past the end" },
		{ 0x1010, 25, -1, "after its free, before the reuse" },
		{ 0x1010, 35, 1, "the reusing allocation" },
		{ 0x1090, 35, -1, "beyond the smaller reuse" },
		{ 0x1000, 5, -1, "before the first allocation" },
		{ 0x2fff, 100, 2, "never freed object, late" },
		{ 0x5008, 45, 3, "reuse without free: older one before" },
		{ 0x5018, 55, 4, "reuse without free: newer one after" },
		{ 0x5008, 55, 4, "reuse without free: same byte, newer" },
		{ 0x10100, 4, 6, "small object inside a freed big one" },
		{ 0x20000, 4, -1, "freed big object's range later" },
		{ 0x20000, 1, 5, "big object while live" },
		{ 0x10ffff, 1, 5, "the object that ends highest, at its last byte" },
		{ 0x110000, 1, -1, "the highest end: above every object" },
		{ 0x7f0000000000, 1, -1, "far above every object" },
	};
	struct mr_heap h;

	ok(mr_heap_build(&h, al, sizeof(al) / sizeof(al[0]), fr, sizeof(fr) / sizeof(fr[0])) == 0,
	   "heap: build");
	ok(h.unmatched_frees == 1, "heap: one free without allocation (%zu)", h.unmatched_frees);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mr_heap_obj *o = mr_heap_find(&h, cases[i].addr, cases[i].t);
		int got = o ? (int)o->tag : -1;
		ok(got == cases[i].want, "heap: %s (0x%" PRIx64 " at %" PRIu64 "): %d, want %d",
		   cases[i].what, cases[i].addr, cases[i].t, got, cases[i].want);
	}
	mr_heap_free(&h);

	/* a million objects, each address reused 4 times over time */
	{
		size_t n = 1000000;
		struct memphis_rec_alloc *a = calloc(n, sizeof(*a));
		struct memphis_rec_free *f = calloc(n, sizeof(*f));
		struct timespec t0, t1;
		size_t bad = 0;
		double ns;

		if (!a || !f) {
			ok(0, "heap: allocate the big case");
			return;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t slot = i / 4, gen = i % 4;
			a[i] = (struct memphis_rec_alloc){ .time = gen * 100 + 1, .addr = 0x100000 + slot * 64,
							   .size = 48 };
			f[i] = (struct memphis_rec_free){ .time = gen * 100 + 50, .addr = 0x100000 + slot * 64 };
		}
		ok(mr_heap_build(&h, a, n, f, n) == 0, "heap: build 1,000,000 objects");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (size_t i = 0; i < n; i++) {
			uint64_t slot = (i * 7919) % (n / 4), gen = i % 4;
			const struct mr_heap_obj *o = mr_heap_find(&h, 0x100000 + slot * 64 + 8, gen * 100 + 10);
			bad += !o || o->tag != slot * 4 + gen;
			bad += mr_heap_find(&h, 0x100000 + slot * 64 + 8, gen * 100 + 60) != NULL;
			bad += mr_heap_find(&h, 0x100000 + slot * 64 + 50, gen * 100 + 10) != NULL;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (3.0 * (double)n);
		ok(bad == 0, "heap: 3,000,000 lookups among 1,000,000 reused objects right (%zu wrong)", bad);
		printf("# heap lookup among 1,000,000 objects: %.0f ns\n", ns);
		mr_heap_free(&h);
		free(a);
		free(f);
	}
}

/* A big object freed early, then a million small ones where it was (the threads' malloc
 * arenas in the hole a freed temporary left): an address in none of them must not walk
 * back over all of them (memphis-report took 67 s on prog_manyobj). */
static void test_big_under_many(void)
{
	size_t n = 1000000, worst = 0, bad = 0;
	struct memphis_rec_alloc *a = calloc(n + 1, sizeof(*a));
	struct memphis_rec_free f = { .time = 2, .addr = 0x10000000 };
	struct timespec t0, t1;
	struct mr_heap h;
	double ns;

	if (!a) {
		ok(0, "heap: allocate the big-under-many case");
		return;
	}
	a[0] = (struct memphis_rec_alloc){ .time = 1, .addr = 0x10000000, .size = 1ull << 30 };
	for (size_t i = 1; i <= n; i++) /* 48 bytes used of every 64 */
		a[i] = (struct memphis_rec_alloc){ .time = 10 + i, .addr = 0x10000000 + i * 64,
						   .size = 48 };
	ok(mr_heap_build(&h, a, n + 1, &f, 1) == 0, "heap: build one freed big object under 1,000,000");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 1; i <= n; i++) {
		uint64_t at = 0x10000000 + ((i * 7919) % n + 1) * 64;
		size_t steps = 0;
		const struct mr_heap_obj *o = mr_heap_find_steps(&h, at + 56, 1ull << 40, &steps);

		bad += o != NULL;
		o = mr_heap_find_steps(&h, at + 8, 1ull << 40, &steps);
		bad += !o || o->addr != at;
		bad += mr_heap_find_steps(&h, at + 8, 1, &steps) != &h.obj[0];
		worst = steps > worst ? steps : worst;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (3.0 * (double)n);
	ok(bad == 0, "heap: 3,000,000 lookups in gaps, in the small objects, in the big one right (%zu wrong)",
	   bad);
	ok(worst <= 4, "heap: at most 4 object starts looked at per 3 lookups (worst %zu; a walk "
	   "over every object below would look at up to 1,000,000)", worst);
	printf("# heap lookup with a freed big object under 1,000,000: %.0f ns\n", ns);
	mr_heap_free(&h);
	free(a);
}

/* A random history of n objects of 1 byte to 12 KiB at 0x100000 + [0, window), allocated and
 * freed (the oldest live one) at random times, no two live ones overlapping: a[0, *na) and
 * f[0, *nf), t1[i] the free time of a[i] (UINT64_MAX: never freed); *r the generator's
 * state. Returns the time after the last event, 0 when out of memory. */
static uint64_t random_history(uint64_t window, size_t n, uint64_t *r, struct memphis_rec_alloc *a,
			       struct memphis_rec_free *f, uint64_t *t1, size_t *na, size_t *nf)
{
	unsigned char *used = calloc(window, 1);
	uint64_t t = 1;

	if (!used)
		return 0;
	while (*na < n) {
		*r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
		if (*r % 3 == 0 && *na > *nf) { /* free the oldest live one */
			for (size_t i = 0; i < *na; i++)
				if (t1[i] == UINT64_MAX) {
					f[(*nf)++] = (struct memphis_rec_free){ .time = t, .addr = a[i].addr };
					t1[i] = t;
					memset(used + (a[i].addr - 0x100000), 0, a[i].size);
					break;
				}
		} else {
			uint64_t size = 1 + (*r >> 8) % (*r % 7 ? 200 : 12288);
			uint64_t at = (*r >> 24) % (window - size);

			if (!memchr(used + at, 1, size)) {
				memset(used + at, 1, size);
				a[*na] = (struct memphis_rec_alloc){ .time = t, .addr = 0x100000 + at,
								     .size = size };
				t1[(*na)++] = UINT64_MAX;
			}
		}
		t++;
	}
	free(used);
	return t;
}

/* Objects of 1 byte to 12 KiB, allocated and freed at random in a window (no two live
 * ones overlap), so that 4 KiB blocks hold many starts, none, or a start above an
 * address that an object from an earlier block covers: every lookup, and the gap of
 * objects around the address (mr_heap_gap), checked against a scan of all records. */
static void test_random_against_scan(uint64_t window)
{
	enum { N = 4000, LOOKUPS = 30000 };
	const uint64_t WINDOW = window;
	static struct memphis_rec_alloc a[N];
	static struct memphis_rec_free f[N];
	static uint64_t t1[N];
	size_t na = 0, nf = 0, bad = 0, badgap = 0, gaps = 0;
	uint64_t r = 88172645463325252ull, t = random_history(WINDOW, N, &r, a, f, t1, &na, &nf);
	struct mr_heap h;

	if (!t) {
		ok(0, "heap: allocate the random case");
		return;
	}
	ok(mr_heap_build(&h, a, na, f, nf) == 0, "heap: build %zu random objects in %" PRIu64 " KiB",
	   na, window >> 10);
	for (size_t k = 0; k < LOOKUPS; k++) {
		uint64_t addr, when;
		const struct mr_heap_obj *o;
		long want = -1;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		addr = 0x100000 + r % WINDOW, when = (r >> 32) % (t + 1);
		for (size_t i = 0; i < na; i++)
			if (addr >= a[i].addr && addr < a[i].addr + a[i].size && when >= a[i].time &&
			    when < t1[i])
				want = (long)i;
		o = mr_heap_find(&h, addr, when);
		bad += (o ? (long)o->tag : -1) != want;
		/* the gap: no record meets it at any time; none found when one holds addr */
		uint64_t lo, hi;
		int gap = mr_heap_gap(&h, addr, &lo, &hi), held = 0, met = 0;

		for (size_t i = 0; i < na; i++) {
			held |= addr >= a[i].addr && addr < a[i].addr + a[i].size;
			met |= gap && a[i].addr < hi && a[i].addr + a[i].size > lo;
		}
		badgap += gap ? met || addr < lo || addr >= hi : !held;
		gaps += gap;
	}
	ok(bad == 0, "heap: %d random lookups agree with a scan of the records (%zu differ)", LOOKUPS,
	   bad);
	ok(badgap == 0 && gaps > 0, "heap: %zu gaps around addresses no object ever held, none met "
	   "by a record, and none where one did (%zu wrong)", gaps, badgap);
	mr_heap_free(&h);
}

/* The site map's runs (lib/heapmap.h): small blocks recorded without their frees, or with
 * frees the index keeps out (keep_below). Random blocks of 1 byte to 12 KiB, allocated and
 * freed in a window (no two live ones overlap), looked up at random: an address finds the
 * latest block allocated by then that covers it (in a block live then: that block), as a
 * scan of the records says. */
static void test_map_against_scan(int with_frees)
{
	enum { N = 3000, LOOKUPS = 20000 };
	const uint64_t WINDOW = 64 << 10;
	static struct memphis_rec_alloc a[N];
	static struct memphis_rec_free f[N];
	static uint64_t t1[N];
	size_t na = 0, nf = 0, bad = 0, live_hits = 0;
	uint64_t r = 0x2545f4914f6cdd1dull, t = random_history(WINDOW, N, &r, a, f, t1, &na, &nf);
	struct mr_heap h;

	if (!t) {
		ok(0, "heap: allocate the site map case");
		return;
	}
	if (mr_heap_begin(&h, na) == 0) {
		h.keep_below = UINT64_MAX;
		for (size_t i = 0; i < na; i++)
			mr_heap_add(&h, a[i].addr, a[i].size, a[i].time, (uint32_t)i);
		if (mr_heap_sort(&h) == 0)
			for (size_t i = 0; with_frees && i < nf; i++)
				mr_heap_add_free(&h, f[i].addr, f[i].time);
	}
	ok(mr_heap_finish(&h) == 0, "heap: site map: build %zu blocks%s", na,
	   with_frees ? ", their frees kept out" : " without frees");
	for (size_t k = 0; k < LOOKUPS; k++) {
		uint64_t addr, when;
		const struct mr_heap_obj *o;
		long want = -1, live = -1;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		addr = 0x100000 + r % WINDOW, when = (r >> 32) % (t + 1);
		for (size_t i = 0; i < na; i++) {
			if (addr < a[i].addr || addr >= a[i].addr + a[i].size || when < a[i].time)
				continue;
			live = when < t1[i] ? (long)i : live;
			want = want < 0 || a[i].time > a[want].time ? (long)i : want;
		}
		o = mr_heap_find(&h, addr, when);
		bad += (o ? (long)o->tag : -1) != want || (live >= 0 && want != live);
		live_hits += live >= 0;
	}
	ok(bad == 0 && live_hits > 0, "heap: site map: %d random lookups agree with a scan (%zu in "
	   "live blocks; %zu differ)", LOOKUPS, live_hits, bad);
	mr_heap_free(&h);
}

/* The index's order, which the lookups rely on: by address, allocation time and record,
 * from records in no order (threads' blocks interleave), with ties in address and time,
 * and records of address 0 left out. */
static void test_order(void)
{
	enum { N = 5000 };
	static struct memphis_rec_alloc a[N];
	uint64_t r = 0x9e3779b97f4a7c15ull;
	size_t zero = 0, bad = 0;
	struct mr_heap h;

	for (size_t i = 0; i < N; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		/* 64 addresses (one of them 0) and 16 times: most records tie with others */
		a[i] = (struct memphis_rec_alloc){ .time = (r >> 40) % 16 + (1ull << 50),
						   .addr = (r % 64) * 0x1000000000ull, .size = 8 };
		zero += a[i].addr == 0;
	}
	if (!ok(mr_heap_build(&h, a, N, NULL, 0) == 0, "heap: build %d records in no order", N))
		return;
	for (size_t i = 0; i < h.n; i++) {
		const struct mr_heap_obj *o = &h.obj[i], *p = i ? &h.obj[i - 1] : NULL;

		bad += o->addr != a[o->tag].addr || o->t0 != a[o->tag].time || !o->addr;
		bad += p && (p->addr > o->addr || (p->addr == o->addr && (p->t0 > o->t0 ||
									  (p->t0 == o->t0 && p->tag >= o->tag))));
	}
	ok(h.n == N - zero && bad == 0, "heap: %zu of %d records (%zu at address 0 left out) "
	   "ordered by address, time and record (%zu out of order)", h.n, N, zero, bad);
	mr_heap_free(&h);
}

/* The streaming build (issue 38): frees come in any order (FREES blocks of threads
 * interleave), each ending the object allocated last before it at its address; a free at
 * the very time of a reuse ends the older object, a free at an object's own allocation
 * time ends that one, a second free of one object and a free before any allocation are
 * strays; an allocation past the room asked for is refused. */
static void test_stream(void)
{
	/* addr, size, t0 */
	static const uint64_t al[][3] = {
		{ 0x1000, 16, 10 }, { 0x1000, 16, 20 }, { 0x1000, 16, 30 }, /* 0-2: reused */
		{ 0x2000, 16, 5 },                                           /* 3: freed twice */
		{ 0x3000, 16, 7 },                                           /* 4: freed at 7 */
	};
	/* in no order: 20 (= object 1's t0) ends object 0; 25 ends 1; 3 and 9 are strays */
	static const uint64_t fr[][2] = { { 0x1000, 25 }, { 0x2000, 9 }, { 0x1000, 20 },
					  { 0x2000, 6 }, { 0x1000, 3 }, { 0x3000, 7 },
					  { 0x4000, 1 } };
	static const struct {
		uint64_t addr, t;
		int want;
	} cases[] = {
		{ 0x1000, 19, 0 }, { 0x1000, 20, 1 }, { 0x1000, 24, 1 }, { 0x1000, 25, -1 },
		{ 0x1000, 29, -1 }, { 0x1000, 31, 2 }, { 0x2000, 5, 3 }, { 0x2000, 6, -1 },
		{ 0x2000, 8, -1 }, { 0x3000, 7, -1 },
	};
	struct mr_heap h;
	size_t bad = 0;

	ok(mr_heap_begin(&h, 5) == 0, "heap stream: begin");
	for (size_t i = 0; i < 5; i++)
		mr_heap_add(&h, al[i][0], al[i][1], al[i][2], (uint32_t)i);
	ok(mr_heap_add(&h, 0x9000, 1, 1, 5) == -ENOSPC, "heap stream: no room past the count given");
	ok(mr_heap_sort(&h) == 0, "heap stream: sort");
	for (size_t i = 0; i < sizeof(fr) / sizeof(fr[0]); i++)
		mr_heap_add_free(&h, fr[i][0], fr[i][1]);
	ok(mr_heap_finish(&h) == 0, "heap stream: finish");
	ok(h.unmatched_frees == 3, "heap stream: strays: a second free, one before any "
	   "allocation, one of no allocation (%zu)", h.unmatched_frees);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct mr_heap_obj *o = mr_heap_find(&h, cases[i].addr, cases[i].t);
		int got = o ? (int)o->tag : -1;

		if (got != cases[i].want) {
			bad++;
			printf("# 0x%" PRIx64 " at %" PRIu64 ": %d, want %d\n", cases[i].addr,
			       cases[i].t, got, cases[i].want);
		}
	}
	ok(bad == 0, "heap stream: frees in no order end the objects they follow (%zu wrong)", bad);
	mr_heap_free(&h);
}

/* The index of random objects with their frees shuffled is the index with them in time
 * order, entry by entry. */
static void test_frees_shuffled(void)
{
	enum { N = 20000 };
	static struct memphis_rec_alloc a[N];
	static struct memphis_rec_free f[N], g[N];
	uint64_t r = 0x2545f4914f6cdd1dull;
	size_t nf = 0, bad = 0;
	struct mr_heap h1, h2;

	for (size_t i = 0; i < N; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		/* 512 addresses over time 2i: most reused, some without a free */
		a[i] = (struct memphis_rec_alloc){ .time = 2 * i + 1, .addr = 0x10000 + (r % 512) * 64,
						   .size = 1 + (r >> 20) % 64 };
		if ((r >> 40) % 8)
			f[nf++] = (struct memphis_rec_free){ .time = 2 * i + 2 + (r >> 50) % 64,
							     .addr = a[i].addr };
	}
	memcpy(g, f, nf * sizeof(*f));
	for (size_t i = nf; i > 1; i--) { /* Fisher-Yates */
		struct memphis_rec_free t;
		size_t j;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		j = r % i;
		t = g[i - 1], g[i - 1] = g[j], g[j] = t;
	}
	if (!ok(mr_heap_build(&h1, a, N, f, nf) == 0 && mr_heap_build(&h2, a, N, g, nf) == 0,
		"heap stream: build with frees in time order and shuffled"))
		return;
	for (size_t i = 0; i < h1.n; i++)
		bad += memcmp(&h1.obj[i], &h2.obj[i], sizeof(h1.obj[i])) != 0;
	ok(h1.n == h2.n && bad == 0 && h1.unmatched_frees == h2.unmatched_frees,
	   "heap stream: %zu entries the same whatever the frees' order (%zu differ; strays %zu, "
	   "%zu)", h1.n, bad, h1.unmatched_frees, h2.unmatched_frees);
	mr_heap_free(&h1);
	mr_heap_free(&h2);
}

/* Arrays of equal objects, whose 4 KiB blocks the index keeps as evenly spaced starts (an
 * upper bound computed, not searched): objects of 8, 48 and 4000 bytes end to end, and
 * blocks that must not be taken for even ones: one object missing, one address allocated
 * twice, 12-byte objects at offsets not multiples of 8, a block of one object. Every
 * address of the window and times before, between and after, against a scan. */
static void test_even_blocks(void)
{
	enum { N = 2600 };
	static struct memphis_rec_alloc a[N];
	static uint64_t t1[N];
	struct memphis_rec_free f[1];
	size_t na = 0, bad = 0, looked = 0;
	uint64_t base = 0x400000, p = base;
	struct mr_heap h;

	for (int k = 0; k < 1024; k++, p += 8) /* 2 blocks of 512 */
		a[na++] = (struct memphis_rec_alloc){ .time = 10, .addr = p, .size = 8 };
	for (int k = 0; k < 200; k++, p += 48) /* a start at each offset 48 apart, over blocks */
		if (k != 150) /* one missing in the block of k = 150 */
			a[na++] = (struct memphis_rec_alloc){ .time = 10, .addr = p, .size = 48 };
	p = (p + 4095) & ~4095ull;
	for (int k = 0; k < 100; k++, p += 48) /* one address allocated again after a free */
		a[na++] = (struct memphis_rec_alloc){ .time = 10, .addr = p, .size = 48 };
	a[na++] = (struct memphis_rec_alloc){ .time = 30, .addr = p - 20 * 48, .size = 48 };
	t1[na - 1] = UINT64_MAX;
	f[0] = (struct memphis_rec_free){ .time = 20, .addr = p - 20 * 48 };
	p = ((p + 4095) & ~4095ull) + 4;
	for (int k = 0; k < 600; k++, p += 12) /* unaligned */
		a[na++] = (struct memphis_rec_alloc){ .time = 10, .addr = p, .size = 12 };
	p = ((p + 4095) & ~4095ull) + 1024;
	for (int k = 0; k < 6; k++, p += 4000) /* one start per block, most of it covered */
		a[na++] = (struct memphis_rec_alloc){ .time = 10, .addr = p, .size = 4000 };
	for (size_t i = 0; i < na; i++)
		if (a[i].time == 10)
			t1[i] = a[i].addr == f[0].addr ? 20 : UINT64_MAX;
	ok(mr_heap_build(&h, a, na, f, 1) == 0, "heap: build %zu objects in arrays", na);
	for (uint64_t addr = base - 64; addr < p + 64; addr++) {
		uint64_t when = addr % 4 == 0 ? 5 : addr % 4 == 1 ? 15 : addr % 4 == 2 ? 25 : 35;
		const struct mr_heap_obj *o = mr_heap_find(&h, addr, when);
		long want = -1;

		for (size_t i = 0; i < na; i++)
			if (addr >= a[i].addr && addr < a[i].addr + a[i].size && when >= a[i].time &&
			    when < t1[i])
				want = (long)i;
		bad += (o ? (long)o->tag : -1) != want;
		looked++;
	}
	ok(bad == 0, "heap: %zu addresses in arrays of equal objects agree with a scan (%zu differ)",
	   looked, bad);
	mr_heap_free(&h);
}

int main(void)
{
	test_heap();
	test_stream();
	test_frees_shuffled();
	test_order();
	test_big_under_many();
	test_even_blocks();
	test_random_against_scan(64 << 10); /* dense: most addresses held at some time */
	test_random_against_scan(16 << 20); /* sparse: gaps between the objects */
	test_map_against_scan(0);
	test_map_against_scan(1);
	return tap_done();
}
