/* common/bytes.h - a size as users write it (MEMPHIS_MAX_BYTES, memphis-report --tier-budget). */
#ifndef MPH_BYTES_H
#define MPH_BYTES_H

#include <stdint.h>

/* Parse a size: decimal bytes, or with a unit K, M, G, T (powers of 1024, any case, "B" or
 * "iB" may follow: 512M, 2GiB), at most 2^62. 0 or -EINVAL. */
int mph_parse_bytes(const char *s, uint64_t *bytes);

#endif /* MPH_BYTES_H */
