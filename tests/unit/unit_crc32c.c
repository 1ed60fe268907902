/* tests/unit/unit_crc32c.c - common/crc32c: the check value, incremental use, the hardware and
 * portable loops agreeing, the three-stream form and the combine against the plain CRC. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "crc32c.h"
#include "tap.h"

int main(void)
{
	static const size_t sizes[] = { 0, 1, 7, 8, 9, 23, 24, 25, 767, 768, 769, 1543, 4095, 4096, 4097,
					24575, 24576, 24577, 25343, 25344, 65536,
					100003, 1 << 20 };
	size_t n = 1 << 20, bad;
	unsigned char *buf = malloc(n + 64);
	uint64_t x = 0x243f6a8885a308d3ull;

	if (!buf)
		return 1;
	for (size_t i = 0; i < n + 64; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	tap(mph_crc32c(0, "123456789", 9) == 0xe3069283u, __LINE__,
	    "mph_crc32c: check value of \"123456789\" is 0xe3069283");
	tap(mph_crc32c(0, "", 0) == 0, __LINE__, "mph_crc32c: empty input is 0");
	tap(mph_crc32c(mph_crc32c(0, "12345", 5), "6789", 4) == 0xe3069283u, __LINE__,
	    "mph_crc32c: continuing from a previous CRC equals one pass");
	bad = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t off = 0; off < 3; off++)
			bad += ~mph_crc32c_sw(~0u, buf + off, sizes[i]) !=
			       mph_crc32c(0, buf + off, sizes[i]);
	tap(bad == 0, __LINE__, "mph_crc32c_sw: the portable loop agrees (%zu differ)", bad);
	if (__builtin_cpu_supports("sse4.2")) {
		bad = 0;
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			bad += mph_crc32c_hw(~0u, buf + 3, sizes[i]) !=
			       mph_crc32c_sw(~0u, buf + 3, sizes[i]);
		tap(bad == 0, __LINE__, "mph_crc32c_hw: equals the portable loop (%zu differ)", bad);
	} else {
		tap(1, __LINE__, "mph_crc32c_hw: # SKIP the CPU has no SSE4.2");
	}
	bad = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t off = 0; off < 8; off += 5)
			bad += mph_crc32c_fast(buf + off, sizes[i]) !=
			       mph_crc32c(0, buf + off, sizes[i]);
	tap(bad == 0, __LINE__, "mph_crc32c_fast: three streams equal the plain CRC (%zu differ)",
	    bad);
	bad = 0;
	for (size_t cut = 0; cut <= 100003; cut += 9973)
		bad += mph_crc32c_combine(mph_crc32c(0, buf, cut), mph_crc32c(0, buf + cut, 100003 - cut),
					  100003 - cut) != mph_crc32c(0, buf, 100003);
	tap(bad == 0, __LINE__, "mph_crc32c_combine: crc(A), crc(B) give crc(A||B) (%zu differ)",
	    bad);
	free(buf);
	return tap_done();
}
