/* common/crc32c.h - CRC-32C (Castagnoli), the checksum of the run directory's blocks.
 *
 * One value, three ways to get it: mph_crc32c() (incremental; the SSE4.2 crc32 instruction
 * when the CPU has it, a bitwise loop otherwise), mph_crc32c_fast() (three interleaved
 * instruction streams joined with zlib's GF(2) combine, for large payloads) and the two
 * halves mph_crc32c_hw()/mph_crc32c_sw() for tests. Internal to memphis, not installed:
 * the format (docs/format.md) names the checksum, any CRC-32C implementation reads it.
 */
#ifndef MPH_CRC32C_H
#define MPH_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32C of data[0..n) continued from `crc`: mph_crc32c(0, p, n) starts one, and
 * mph_crc32c(mph_crc32c(0, a, na), b, nb) is the CRC of a||b. Cannot fail. */
uint32_t mph_crc32c(uint32_t crc, const void *data, size_t n);

/* The same as mph_crc32c(0, data, n), faster for n of a few KiB and more. Cannot fail. */
uint32_t mph_crc32c_fast(const void *data, size_t n);

/* The CRC of A||B from crc(A), crc(B) and the length of B (zlib's crc32_combine). */
uint32_t mph_crc32c_combine(uint32_t crc_a, uint32_t crc_b, size_t len_b);

/* The raw register steps behind mph_crc32c (no pre/post inversion): _sw is the portable
 * bitwise loop, _hw the SSE4.2 instruction and may be called only when
 * __builtin_cpu_supports("sse4.2"). Exposed so tests can check that both agree. */
uint32_t mph_crc32c_sw(uint32_t reg, const void *data, size_t n);
uint32_t mph_crc32c_hw(uint32_t reg, const void *data, size_t n);

#endif /* MPH_CRC32C_H */
