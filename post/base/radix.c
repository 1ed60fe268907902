/* post/base/radix.c - stable LSD radix sort of (key, index) pairs (see radix.h). */
#include "radix.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mr_keyidx *mr_radix_sort(struct mr_keyidx *a, struct mr_keyidx *tmp, size_t n)
{
	size_t count[8][256];
	unsigned digit[8], nd = 0;
	uint64_t differ = 0;
	int sorted = 1;

	for (size_t i = 1; i < n; i++) {
		differ |= a[i].key ^ a[0].key;
		sorted &= a[i - 1].key <= a[i].key;
	}
	if (sorted)
		return a; /* in order already: nothing to move */
	for (unsigned d = 0; d < 8; d++)
		if ((differ >> (8 * d)) & 255)
			digit[nd++] = d;
	/* the histograms of the bytes that differ, in one read of the keys */
	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < nd; k++)
			count[k][(a[i].key >> (8 * digit[k])) & 255]++;
	for (unsigned k = 0; k < nd; k++) {
		unsigned shift = 8 * digit[k];
		size_t sum = 0, *c = count[k];
		struct mr_keyidx *t;

		for (size_t v = 0; v < 256; v++) {
			size_t m = c[v];

			c[v] = sum;
			sum += m;
		}
		for (size_t i = 0; i < n; i++)
			tmp[c[(a[i].key >> shift) & 255]++] = a[i];
		t = a;
		a = tmp;
		tmp = t;
	}
	return a;
}

static int cmp_kv(const void *a, const void *b)
{
	const struct mr_keyidx *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

struct mr_keyidx *mr_radix_sort_then(struct mr_keyidx *a, struct mr_keyidx *tmp, size_t n,
				     const void *base, size_t stride, size_t lo_off)
{
	const unsigned char *p = base;
	struct mr_keyidx *s = mr_radix_sort(a, tmp, n);

	for (size_t g = 0, e; g < n; g = e) {
		int sorted = 1;

		for (e = g + 1; e < n && s[e].key == s[g].key; e++)
			;
		for (size_t k = g; k < e; k++) {
			memcpy(&s[k].key, p + s[k].i * stride + lo_off, sizeof(uint64_t));
			sorted &= k == g || s[k - 1].key <= s[k].key;
		}
		if (!sorted)
			qsort(s + g, e - g, sizeof(*s), cmp_kv);
	}
	return s;
}

int mr_keyidx_alloc(size_t n, struct mr_keyidx **a, struct mr_keyidx **tmp)
{
	*a = malloc((n ? n : 1) * sizeof(**a));
	*tmp = malloc((n ? n : 1) * sizeof(**tmp));
	if (*a && *tmp)
		return 0;
	free(*a);
	free(*tmp);
	*a = *tmp = NULL;
	return -ENOMEM;
}
