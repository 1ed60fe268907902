/* post/crc.h - CRC-32C of large payloads, the same value as memphis_crc32c(0, p, n)
 * (memphis/crc32c.h) computed faster: three interleaved crc32 instruction streams (its
 * latency is three times its throughput) joined with the GF(2) combine of zlib. */
#ifndef MR_CRC_H
#define MR_CRC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of p[0..n), equal to memphis_crc32c(0, p, n). */
uint32_t mr_crc32c(const void *p, size_t n);

/* The CRC of A||B from crc(A), crc(B) and the length of B. */
uint32_t mr_crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b);

#endif /* MR_CRC_H */
