/* common/search.h - the one binary search of memphis's sorted tables.
 *
 * Every sorted lookup in memphis asks the same question: among elements sorted by a u64
 * key, how many have key <= x? The answer i is the index of the first element with
 * key > x, so element i - 1 (when i > 0) is the last one that starts at or before x. */
#ifndef MPH_SEARCH_H
#define MPH_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Number of leading elements of base[0..n) whose uint64_t key, `key_off` bytes into each
 * element of `stride` bytes, is <= x. The keys must be sorted ascending (ties allowed).
 * Example: i = mph_upper_bound(v, n, sizeof(*v), offsetof(struct var, addr), addr);
 * then v[i - 1] is the last variable starting at or before addr when i > 0.
 * base may be NULL when n is 0 (an empty table). */
static inline size_t mph_upper_bound(const void *base, size_t n, size_t stride, size_t key_off,
				     uint64_t x)
{
	const unsigned char *b;
	size_t lo = 0, hi = n;

	if (n == 0)
		return 0; /* NULL + key_off would be undefined */
	b = (const unsigned char *)base + key_off;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * stride, sizeof(k));
		if (k <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* mph_upper_bound over an array of n pointers to elements sorted by their key at
 * `key_off`. */
static inline size_t mph_upper_bound_ptr(const void *const *ptrs, size_t n, size_t key_off,
					 uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, (const unsigned char *)ptrs[mid] + key_off, sizeof(k));
		if (k <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif /* MPH_SEARCH_H */
