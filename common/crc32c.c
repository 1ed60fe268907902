/* common/crc32c.c - CRC-32C: the incremental form, the three-stream fast form and the
 * GF(2) combine that joins the streams (see crc32c.h). */
#include "crc32c.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define POLY 0x82f63b78u /* CRC-32C, reflected */

__attribute__((target("sse4.2"))) uint32_t mph_crc32c_hw(uint32_t reg, const void *data,
							  size_t n)
{
	const unsigned char *p = data;
	uint64_t c = reg;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; n > 0; n--, p++)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	return (uint32_t)c;
}

uint32_t mph_crc32c_sw(uint32_t reg, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n--) {
		reg ^= *p++;
		for (int k = 0; k < 8; k++)
			reg = (reg >> 1) ^ (POLY & (0u - (reg & 1u)));
	}
	return reg;
}

uint32_t mph_crc32c(uint32_t crc, const void *data, size_t n)
{
	/* atomic: several threads (the report's workers) may be first at once */
	static _Atomic int has_hw = -1;
	int hw = atomic_load_explicit(&has_hw, memory_order_relaxed);

	if (hw < 0) {
		hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
		atomic_store_explicit(&has_hw, hw, memory_order_relaxed);
	}
	crc = ~crc;
	crc = hw ? mph_crc32c_hw(crc, data, n) : mph_crc32c_sw(crc, data, n);
	return ~crc;
}

/* a * b modulo POLY, reflected bit order (zlib's multmodp). */
static uint32_t multmodp(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ POLY : b >> 1;
	}
	return p;
}

/* x2nmodp's table: x^(2^k) modulo POLY, made once (pthread_once: several threads may
 * check files at once). */
static uint32_t x2n_table[32];
static pthread_once_t x2n_once = PTHREAD_ONCE_INIT;

static void x2n_init(void)
{
	uint32_t p = 1u << 30; /* x^1 */

	x2n_table[0] = p;
	for (int i = 1; i < 32; i++)
		x2n_table[i] = p = multmodp(p, p);
}

/* x^(n * 2^k) modulo POLY. */
static uint32_t x2nmodp(size_t n, unsigned k)
{
	const uint32_t *table = x2n_table;
	uint32_t p;

	pthread_once(&x2n_once, x2n_init);
	p = 1u << 31; /* x^0 */
	while (n) {
		if (n & 1)
			p = multmodp(table[k & 31], p);
		n >>= 1;
		k++;
	}
	return p;
}

uint32_t mph_crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b)
{
	return multmodp(x2nmodp(len_b, 3), crc_a) ^ crc_b;
}

/* Three streams over consecutive runs of `words` 8-byte words; raw register values. */
__attribute__((target("sse4.2"))) static void crc3(const unsigned char *p, size_t words,
						    uint64_t *c0, uint64_t *c1, uint64_t *c2)
{
	const unsigned char *q = p + words * 8, *r = p + 2 * words * 8;
	uint64_t a = *c0, b = *c1, c = *c2;

	for (size_t i = 0; i < words; i++) {
		uint64_t x, y, z;
		memcpy(&x, p + 8 * i, 8);
		memcpy(&y, q + 8 * i, 8);
		memcpy(&z, r + 8 * i, 8);
		a = __builtin_ia32_crc32di(a, x);
		b = __builtin_ia32_crc32di(b, y);
		c = __builtin_ia32_crc32di(c, z);
	}
	*c0 = a;
	*c1 = b;
	*c2 = c;
}

uint32_t mph_crc32c_fast(const void *data, size_t n)
{
	/* x^(8 part) of the last length, with the length in the high half (one atomic word:
	 * the report's workers check blocks at once): the blocks of a file mostly have one
	 * size, and x2nmodp costs more than the three streams of a 4 KiB block */
	static _Atomic uint64_t last;
	const unsigned char *p = data;
	size_t words = n / 24, part = words * 8;
	uint64_t a = 0xffffffffu, b = 0xffffffffu, c = 0xffffffffu;
	uint64_t seen = atomic_load_explicit(&last, memory_order_relaxed);
	uint32_t crc, shift;

	if (n < 4096 || !__builtin_cpu_supports("sse4.2"))
		return mph_crc32c(0, data, n);
	crc3(p, words, &a, &b, &c);
	if (part <= UINT32_MAX && seen >> 32 == part) {
		shift = (uint32_t)seen;
	} else {
		shift = x2nmodp(part, 3);
		if (part <= UINT32_MAX)
			atomic_store_explicit(&last, (uint64_t)part << 32 | shift,
					      memory_order_relaxed);
	}
	crc = multmodp(shift, multmodp(shift, ~(uint32_t)a) ^ ~(uint32_t)b) ^ ~(uint32_t)c;
	/* the tail after the three runs: the CRC goes on over it */
	return mph_crc32c(crc, p + 3 * part, n - 3 * part);
}
