/* tests/unit_crc.c - the three-stream CRC-32C of memphis-report (post/crc.c) against the
 * library's bytewise memphis_crc32c (include/memphis/crc32c.h) at sizes around its block
 * boundaries and unaligned starts, and the standard check value. TAP output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <memphis/crc32c.h>

#include "crc.h"

#include "tap.h"

static void test_crc(void)
{
	static const size_t sizes[] = { 0, 1, 7, 4095, 4096, 4097, 229376, 229381, 1 << 20 };
	unsigned char *buf = malloc((1 << 20) + 16);
	uint32_t x = 12345;
	size_t bad = 0;

	if (!buf) {
		ok(0, "crc: buffer");
		return;
	}
	for (size_t i = 0; i < (1 << 20) + 16; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (size_t off = 0; off < 3; off++)
			bad += mr_crc32c(buf + off, sizes[i]) != memphis_crc32c(0, buf + off, sizes[i]);
	ok(bad == 0, "crc: three-stream CRC-32C equals memphis_crc32c (%zu differ)", bad);
	ok(mr_crc32c("123456789", 9) == 0xe3069283u, "crc: check value of \"123456789\"");
	free(buf);
}

int main(void)
{
	test_crc();
	return tap_done();
}
