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

/* The three-stream form runs streams of two fixed lengths, so the shift that joins them is
 * a constant: the register times x^(8 LEN) modulo POLY, linear in the register, as four
 * tables of its bytes (Mark Adler's crc32c.c does the same). A shift is four lookups; a
 * shift by a block's own length (x2nmodp) cost more than the streams of a 4 KiB block. */
#define LONG_LEN 8192 /* bytes a stream */
#define SHORT_LEN 256
static uint32_t shift_long[4][256], shift_short[4][256];
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

/* tab[k][v] = (v << 8k) * x^(8 len) modulo POLY: the single bits by multmodp, the rest as
 * XORs of them (the product is linear). */
static void shift_table(uint32_t tab[4][256], size_t len)
{
	uint32_t op = x2nmodp(len, 3);

	for (int k = 0; k < 4; k++) {
		tab[k][0] = 0;
		for (unsigned v = 1; v < 256; v++)
			tab[k][v] = (v & (v - 1)) ? tab[k][v & (v - 1)] ^ tab[k][v & -v]
						  : multmodp(op, (uint32_t)v << (8 * k));
	}
}

static void shift_init(void)
{
	shift_table(shift_long, LONG_LEN);
	shift_table(shift_short, SHORT_LEN);
}

static uint32_t shift(const uint32_t tab[4][256], uint32_t reg)
{
	return tab[0][reg & 0xff] ^ tab[1][(reg >> 8) & 0xff] ^ tab[2][(reg >> 16) & 0xff] ^
	       tab[3][reg >> 24];
}

/* Raw register reg continued over 3 len bytes at p as three streams (the second and third
 * from a zero register), joined. */
__attribute__((target("sse4.2"))) static uint32_t crc3(uint32_t reg, const unsigned char *p,
							size_t len, const uint32_t tab[4][256])
{
	const unsigned char *q = p + len, *r = p + 2 * len;
	uint64_t a = reg, b = 0, c = 0;

	for (size_t i = 0; i < len; i += 8) {
		uint64_t x, y, z;
		memcpy(&x, p + i, 8);
		memcpy(&y, q + i, 8);
		memcpy(&z, r + i, 8);
		a = __builtin_ia32_crc32di(a, x);
		b = __builtin_ia32_crc32di(b, y);
		c = __builtin_ia32_crc32di(c, z);
	}
	return shift(tab, shift(tab, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
}

uint32_t mph_crc32c_fast(const void *data, size_t n)
{
	const unsigned char *p = data;
	uint32_t reg = 0xffffffffu;

	if (n < 3 * SHORT_LEN || !__builtin_cpu_supports("sse4.2"))
		return mph_crc32c(0, data, n);
	pthread_once(&shift_once, shift_init);
	for (; n >= 3 * LONG_LEN; n -= 3 * LONG_LEN, p += 3 * LONG_LEN)
		reg = crc3(reg, p, LONG_LEN, shift_long);
	for (; n >= 3 * SHORT_LEN; n -= 3 * SHORT_LEN, p += 3 * SHORT_LEN)
		reg = crc3(reg, p, SHORT_LEN, shift_short);
	return ~mph_crc32c_hw(reg, p, n);
}
