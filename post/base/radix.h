/* post/base/radix.h - a stable sort of (key, index) pairs by their 64-bit key.
 *
 * For tables of up to millions of entries (symbols, heap objects, frees) where qsort's
 * comparator calls and element copies were the larger part of opening a run: one read of
 * the keys finds them in order already, or which bytes differ among them (addresses and
 * times differ in their low bytes only), a second their histograms, then a pass per such
 * byte. Stable: pairs of equal keys keep their order, so sorting by a second key and then
 * by a first gives (first, second). */
#ifndef MR_RADIX_H
#define MR_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mr_keyidx {
	uint64_t key;
	size_t i;
};

/* Sort a[0..n) by key with tmp[0..n) as scratch; returns whichever of a and tmp holds the
 * sorted pairs. */
struct mr_keyidx *mr_radix_sort(struct mr_keyidx *a, struct mr_keyidx *tmp, size_t n);

/* mr_radix_sort, then each run of pairs of one key ordered by a second key: the uint64_t
 * at byte lo_off of record a[k].i of base (records of stride bytes), and by index. The
 * pairs come out in the order of (key, second key, index), their keys replaced by the
 * second ones. For tables whose runs of one key are short or in order already (an
 * address allocated again, a thread's entries by time): a run out of order is sorted by
 * qsort. */
struct mr_keyidx *mr_radix_sort_then(struct mr_keyidx *a, struct mr_keyidx *tmp, size_t n,
				     const void *base, size_t stride, size_t lo_off);

/* The pairs and the scratch of a sort of n (at least one each): 0, or -ENOMEM with
 * neither allocated. */
int mr_keyidx_alloc(size_t n, struct mr_keyidx **a, struct mr_keyidx **tmp);

/* A new array of the n records of size bytes at base in the order of o (o[k].i: the
 * record that goes k-th), or NULL when out of memory. Inline: size is the caller's
 * constant, so each copy is too. */
static inline void *mr_keyidx_gather(const void *base, size_t size, const struct mr_keyidx *o,
				     size_t n)
{
	unsigned char *out = malloc((n ? n : 1) * size);

	for (size_t k = 0; out && k < n; k++)
		memcpy(out + k * size, (const unsigned char *)base + o[k].i * size, size);
	return out;
}

#endif /* MR_RADIX_H */
