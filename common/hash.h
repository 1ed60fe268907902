/* common/hash.h - the 64-bit hashes of memphis's tables, one copy of each constant.
 * Header-only: all are small and on hot paths. */
#ifndef MPH_HASH_H
#define MPH_HASH_H

#include <stddef.h>
#include <stdint.h>

/* 2^64 / golden ratio: Fibonacci hashing multiplies by it and keeps the top bits. */
#define MPH_GOLDEN64 0x9e3779b97f4a7c15ull

/* Slot of key in a table of 2^bits slots (1 <= bits <= 63) by Fibonacci hashing. */
static inline size_t mph_fib_slot(uint64_t key, unsigned bits)
{
	return (size_t)((key * MPH_GOLDEN64) >> (64 - bits));
}

/* A well-mixed 64-bit hash of x (MurmurHash3's finaliser); a bijection. */
static inline uint64_t mph_hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* FNV-1a: the hash of no bytes, and the prime each byte multiplies by. */
#define MPH_FNV1A_SEED 0xcbf29ce484222325ull
#define MPH_FNV1A_PRIME 0x100000001b3ull

/* FNV-1a of the bytes p[0..len) continued from h (MPH_FNV1A_SEED: from none), so that a
 * key of several parts hashes as their concatenation. */
static inline uint64_t mph_fnv1a_more(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * MPH_FNV1A_PRIME;
	return h;
}

/* FNV-1a of the bytes s[0..len). */
static inline uint64_t mph_fnv1a(const char *s, size_t len)
{
	return mph_fnv1a_more(MPH_FNV1A_SEED, s, len);
}

/* FNV-1a of the string s, never UINT64_MAX (0 instead), so that it can be a key of
 * struct mph_u64map, whose empty slots are UINT64_MAX. */
static inline uint64_t mph_hash_str(const char *s)
{
	uint64_t h = MPH_FNV1A_SEED;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * MPH_FNV1A_PRIME;
	return h == UINT64_MAX ? 0 : h;
}

#endif /* MPH_HASH_H */
