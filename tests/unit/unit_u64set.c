/* tests/unit/unit_u64set.c - common/u64set: new vs known keys, key 0, growth past many doublings
 * with page-aligned keys (the library's use), take() returning every key once and leaving
 * an empty set that can be used again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"
#include "u64set.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(void)
{
	struct mph_u64set s = { 0 };
	size_t n = 0, bad = 0, keys = 200000;
	uint64_t *all;

	tap(mph_u64set_add(&s, 0) == 1, __LINE__, "mph_u64set_add: key 0 is new");
	tap(mph_u64set_add(&s, 0) == 0, __LINE__, "mph_u64set_add: key 0 again is known");
	for (uint64_t k = 1; k <= keys; k++)
		bad += mph_u64set_add(&s, k << 12) != 1;
	for (uint64_t k = 1; k <= keys; k++)
		bad += mph_u64set_add(&s, k << 12) != 0;
	tap(bad == 0 && s.n == keys + 1, __LINE__,
	    "%zu page-aligned keys: each new once, known after growth (%zu wrong)", keys, bad);
	all = mph_u64set_take(&s, &n);
	tap(all && n == keys + 1, __LINE__, "mph_u64set_take: returns all %zu keys", keys + 1);
	if (all) {
		qsort(all, n, sizeof(*all), cmp_u64);
		bad = 0;
		for (size_t i = 0; i < n; i++)
			bad += all[i] != (uint64_t)i << 12;
		tap(bad == 0, __LINE__, "mph_u64set_take: every key exactly once (%zu wrong)", bad);
	}
	free(all);
	tap(s.n == 0 && s.cap == 0 && s.slot == NULL, __LINE__, "the set is empty after take");
	tap(mph_u64set_add(&s, 7) == 1, __LINE__, "an emptied set is usable again");
	all = mph_u64set_take(&s, &n);
	tap(all && n == 1 && all[0] == 7, __LINE__, "take after reuse gives the one key");
	free(all);
	all = mph_u64set_take(&s, &n);
	tap(all && n == 0, __LINE__, "take of an empty set: an empty array, not NULL");
	free(all);
	return tap_done();
}
