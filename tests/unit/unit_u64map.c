/* tests/unit/unit_u64map.c - common/u64map and common/hash: insert, find, growth past many
 * doublings, values that survive growth, absent keys, and the hash helpers' contracts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "hash.h"
#include "tap.h"
#include "u64map.h"

int main(void)
{
	struct mph_u64map m;
	size_t bad = 0, n = 100000;
	uint64_t *v;

	tap(mph_u64map_init(&m, 0) == 0 && m.count == 0 && m.mask + 1 == 16, __LINE__,
	    "mph_u64map_init: an empty map of 16 slots for hint 0");
	tap(mph_u64map_get(&m, 42) == NULL, __LINE__, "mph_u64map_get: absent key gives NULL");
	v = mph_u64map_put(&m, 42, 7);
	tap(v && *v == 7 && m.count == 1, __LINE__, "mph_u64map_put: inserts with the initial value");
	*v += 1;
	v = mph_u64map_put(&m, 42, 100);
	tap(v && *v == 8 && m.count == 1, __LINE__,
	    "mph_u64map_put: an existing key keeps its value (init ignored)");
	v = mph_u64map_put(&m, 0, 5);
	tap(v && *v == 5 && mph_u64map_get(&m, 0) == v, __LINE__, "key 0 is an ordinary key");
	for (uint64_t k = 1; k <= n; k++) {
		uint64_t *p = mph_u64map_put(&m, k * 4096, k);
		bad += !p || *p != k;
	}
	tap(bad == 0, __LINE__, "mph_u64map_put: %zu page-aligned keys through many doublings", n);
	bad = 0;
	for (uint64_t k = 1; k <= n; k++) {
		uint64_t *p = mph_u64map_get(&m, k * 4096);
		bad += !p || *p != k;
	}
	tap(bad == 0 && m.count == n + 2, __LINE__,
	    "mph_u64map_get: every value survives growth (%zu wrong, count %zu)", bad, m.count);
	tap((m.mask + 1) * 3 >= m.count * 4, __LINE__, "the map stays at most 3/4 full");
	tap(mph_u64map_get(&m, 4096 * (n + 1)) == NULL, __LINE__, "a key never put is absent");
	mph_u64map_free(&m);
	tap(m.slot == NULL && m.count == 0, __LINE__, "mph_u64map_free: leaves an empty map");
	mph_u64map_free(&m);
	mph_u64map_free(NULL);
	tap(1, __LINE__, "mph_u64map_free: twice and NULL are harmless");

	tap(mph_hash_str("") == 0xcbf29ce484222325ull, __LINE__,
	    "mph_hash_str: FNV-1a offset basis for the empty string");
	tap(mph_hash_str("a") == 0xaf63dc4c8601ec8cull, __LINE__, "mph_hash_str: FNV-1a of \"a\"");
	tap(mph_fnv1a("abc", 2) == mph_hash_str("ab"), __LINE__,
	    "mph_fnv1a: hashes exactly len bytes");
	tap(mph_hash64(0) == 0 && mph_hash64(1) != 1 && mph_hash64(1) != mph_hash64(2), __LINE__,
	    "mph_hash64: murmur finaliser (0 -> 0, mixes others)");
	tap(mph_fib_slot(1, 10) == (size_t)(MPH_GOLDEN64 >> 54) && mph_fib_slot(UINT64_MAX, 4) < 16,
	    __LINE__, "mph_fib_slot: top bits of key * golden, in range");
	return tap_done();
}
