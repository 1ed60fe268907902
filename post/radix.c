/* post/radix.c - stable LSD radix sort of (key, index) pairs (see radix.h). */
#include "radix.h"

#include <string.h>

struct mr_kv *mr_radix_sort(struct mr_kv *a, struct mr_kv *tmp, size_t n)
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
		struct mr_kv *t;

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
