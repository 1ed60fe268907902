/* memphis/crc32c.h - CRC-32C (Castagnoli) of block payloads, shared by writer and readers.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (every x86-64 since 2008) and a
 * bitwise loop otherwise; both give the same value. memphis_crc32c(0, p, n) starts a CRC;
 * pass the previous result as `crc` to continue over more bytes.
 */
#ifndef MEMPHIS_CRC32C_H
#define MEMPHIS_CRC32C_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

__attribute__((target("sse4.2"))) static inline uint32_t
memphis__crc32c_hw(uint32_t crc, const unsigned char *p, size_t n)
{
	uint64_t c = crc;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		c = __builtin_ia32_crc32di(c, v);
	}
	for (; n > 0; n--, p++)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p);
	return (uint32_t)c;
}

static inline uint32_t memphis__crc32c_sw(uint32_t crc, const unsigned char *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
	}
	return crc;
}

static inline uint32_t memphis_crc32c(uint32_t crc, const void *data, size_t n)
{
	static int has_hw = -1;

	if (has_hw < 0)
		has_hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
	crc = ~crc;
	crc = has_hw ? memphis__crc32c_hw(crc, data, n) : memphis__crc32c_sw(crc, data, n);
	return ~crc;
}

#endif /* MEMPHIS_CRC32C_H */
