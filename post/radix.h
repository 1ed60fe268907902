/* post/radix.h - a stable sort of (key, index) pairs by their 64-bit key.
 *
 * For tables of up to millions of entries (symbols, heap objects, frees) where qsort's
 * comparator calls and element copies were the larger part of opening a run: one read of
 * the keys finds them in order already, or which bytes differ among them (addresses and
 * times differ in their low bytes only), a second their histograms, then a pass per such
 * byte. Stable: pairs of equal keys keep their order, so sorting by
 * a second key and then by a first gives (first, second). */
#ifndef MR_RADIX_H
#define MR_RADIX_H

#include <stddef.h>
#include <stdint.h>

struct mr_kv {
	uint64_t key;
	size_t i;
};

/* Sort a[0..n) by key with tmp[0..n) as scratch; returns whichever of a and tmp holds the
 * sorted pairs. */
struct mr_kv *mr_radix_sort(struct mr_kv *a, struct mr_kv *tmp, size_t n);

#endif /* MR_RADIX_H */
