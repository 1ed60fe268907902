/* tests/unit/unit_radix.c - post/base/radix.c: mr_radix_sort against qsort by (key, index), on keys of
 * every width (one byte, all 64 bits, a few values with many ties), and its stability;
 * mr_radix_sort_then against qsort by (key, second key, index). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/radix.h"
#include "tap.h"

static int cmp_key_index(const void *a, const void *b)
{
	const struct mr_keyidx *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Sort n keys drawn by kind (0: all 64 bits, 1: the low byte, 2: eight values spread over
 * every byte, 3: one value) both ways; the number of pairs that differ. */
static size_t differ(size_t n, int kind, uint64_t *r)
{
	struct mr_keyidx *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	struct mr_keyidx *want = malloc((n + 1) * sizeof(*want));
	const struct mr_keyidx *got;
	size_t bad = 0;

	if (!a || !b || !want) {
		free(a);
		free(b);
		free(want);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k;

		*r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
		k = kind == 0 ? *r : kind == 1 ? *r & 255 : kind == 2 ? (*r % 8) * 0x0123456789abcdefull
								     : 42;
		a[i] = want[i] = (struct mr_keyidx){ k, i };
	}
	qsort(want, n, sizeof(*want), cmp_key_index);
	got = mr_radix_sort(a, b, n);
	for (size_t i = 0; i < n; i++)
		bad += got[i].key != want[i].key || got[i].i != want[i].i;
	free(a);
	free(b);
	free(want);
	return bad;
}

struct rec {
	uint32_t pad;
	uint64_t hi, lo;
};

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->pad > y->pad) - (x->pad < y->pad);
}

/* n records of keys from few values (long runs of one key), their second keys in order
 * within a run or not (shuffled); the pairs that differ from qsort by (key, second key,
 * index). */
static size_t differ_then(size_t n, int shuffled, uint64_t *r)
{
	struct rec *rec = malloc((n + 1) * sizeof(*rec)), *want = malloc((n + 1) * sizeof(*want));
	struct mr_keyidx *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	const struct mr_keyidx *got;
	size_t bad = 0;

	if (!rec || !want || !a || !b) {
		free(rec);
		free(want);
		free(a);
		free(b);
		return SIZE_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		*r ^= *r << 13, *r ^= *r >> 7, *r ^= *r << 17;
		rec[i] = (struct rec){ (uint32_t)i, *r % 16 * 0x100000000ull,
				       shuffled ? (*r >> 20) % 64 : i / 3 };
		want[i] = rec[i];
		a[i] = (struct mr_keyidx){ rec[i].hi, i };
	}
	qsort(want, n, sizeof(*want), cmp_rec);
	got = mr_radix_sort_then(a, b, n, rec, sizeof(*rec), offsetof(struct rec, lo));
	for (size_t i = 0; i < n; i++)
		bad += got[i].i != want[i].pad || got[i].key != want[i].lo;
	free(rec);
	free(want);
	free(a);
	free(b);
	return bad;
}

int main(void)
{
	static const char *kinds[] = { "all 64 bits", "one byte", "8 values over every byte",
				       "one value" };
	static const size_t sizes[] = { 0, 1, 2, 255, 256, 257, 100000 };
	uint64_t r = 88172645463325252ull;

	for (int kind = 0; kind < 4; kind++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t bad = differ(sizes[s], kind, &r);

			ok(bad == 0, "%zu keys, %s: the order of qsort by (key, index) (%zu differ)",
			   sizes[s], kinds[kind], bad);
		}
	for (int shuffled = 0; shuffled < 2; shuffled++)
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			size_t bad = differ_then(sizes[s], shuffled, &r);

			ok(bad == 0, "then: %zu records, second keys %s within a key: the order of "
			   "qsort by (key, second key, index) (%zu differ)", sizes[s],
			   shuffled ? "shuffled" : "in order", bad);
		}
	return tap_done();
}
