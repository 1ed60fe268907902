/* tests/unit_radix.c - post/radix.c: mr_radix_sort against qsort by (key, index), on keys of
 * every width (one byte, all 64 bits, a few values with many ties), and its stability. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "radix.h"
#include "tap.h"

static int cmp_key_index(const void *a, const void *b)
{
	const struct mr_kv *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Sort n keys drawn by kind (0: all 64 bits, 1: the low byte, 2: eight values spread over
 * every byte, 3: one value) both ways; the number of pairs that differ. */
static size_t differ(size_t n, int kind, uint64_t *r)
{
	struct mr_kv *a = malloc((n + 1) * sizeof(*a)), *b = malloc((n + 1) * sizeof(*b));
	struct mr_kv *want = malloc((n + 1) * sizeof(*want));
	const struct mr_kv *got;
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
		a[i] = want[i] = (struct mr_kv){ k, i };
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
	return tap_done();
}
