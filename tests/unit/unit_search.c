/* tests/unit/unit_search.c - common/search.h: mph_upper_bound and mph_upper_bound_ptr against a
 * linear count, case by case (empty, before all, ties, after all) and over random arrays. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "search.h"
#include "tap.h"

struct elem {
	uint32_t pad;
	uint64_t key;
	char tail[3];
};

static size_t linear(const struct elem *e, size_t n, uint64_t x)
{
	size_t c = 0;

	while (c < n && e[c].key <= x)
		c++;
	return c;
}

int main(void)
{
	static const struct {
		int line;
		uint64_t keys[6];
		size_t n;
		uint64_t x;
		size_t want;
	} cases[] = {
		{ __LINE__, { 0 }, 0, 5, 0 },
		{ __LINE__, { 10, 20, 30 }, 3, 5, 0 },
		{ __LINE__, { 10, 20, 30 }, 3, 10, 1 },
		{ __LINE__, { 10, 20, 30 }, 3, 25, 2 },
		{ __LINE__, { 10, 20, 30 }, 3, 30, 3 },
		{ __LINE__, { 10, 20, 30 }, 3, UINT64_MAX, 3 },
		{ __LINE__, { 10, 20, 20, 20, 30 }, 5, 20, 4 },
		{ __LINE__, { 0, 0, 1 }, 3, 0, 2 },
		{ __LINE__, { UINT64_MAX, UINT64_MAX }, 2, UINT64_MAX - 1, 0 },
	};
	struct elem e[64];
	const void *ptrs[64];
	uint64_t r = 88172645463325252ull;
	size_t bad = 0;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t got, gotp;

		for (size_t i = 0; i < cases[c].n; i++) {
			e[i].key = cases[c].keys[i];
			ptrs[i] = &e[i];
		}
		got = mph_upper_bound(e, cases[c].n, sizeof(e[0]), offsetof(struct elem, key),
				      cases[c].x);
		gotp = mph_upper_bound_ptr(ptrs, cases[c].n, offsetof(struct elem, key), cases[c].x);
		tap(got == cases[c].want && gotp == cases[c].want, cases[c].line,
		    "%zu keys, x=%llu: %zu elements <= x (got %zu, via pointers %zu)", cases[c].n,
		    (unsigned long long)cases[c].x, cases[c].want, got, gotp);
	}
	for (int round = 0; round < 2000; round++) {
		size_t n = (size_t)(round % 64);
		uint64_t k = 0, x;

		for (size_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			k += r % 4; /* ties are common */
			e[i].key = k;
			ptrs[i] = &e[i];
		}
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		x = r % (k + 3);
		bad += mph_upper_bound(e, n, sizeof(e[0]), offsetof(struct elem, key), x) !=
		       linear(e, n, x);
		bad += mph_upper_bound_ptr(ptrs, n, offsetof(struct elem, key), x) != linear(e, n, x);
	}
	tap(bad == 0, __LINE__, "2000 random sorted arrays agree with a linear count (%zu differ)",
	    bad);
	/* an empty table may have no storage (found by fuzz_debuginfo under UBSan) */
	ok(mph_upper_bound(NULL, 0, sizeof(e[0]), offsetof(struct elem, key), 7) == 0 &&
	       mph_upper_bound_ptr(NULL, 0, offsetof(struct elem, key), 7) == 0,
	   "an empty table given as NULL: 0 elements");
	return tap_done();
}
