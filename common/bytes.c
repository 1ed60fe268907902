/* common/bytes.c - a size as users write it (bytes.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bytes.h"

int mph_parse_bytes(const char *s, uint64_t *bytes)
{
	static const char units[] = "kmgt";
	const char *u;
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	if (*end) {
		u = strchr(units, end[0] | 0x20);
		if (!u || !*u || (end[1] && strcasecmp(end + 1, "ib") && strcasecmp(end + 1, "b")))
			return -EINVAL;
		for (long k = 0; k <= u - units; k++) {
			if (v > (1ull << 62) / 1024)
				return -EINVAL;
			v *= 1024;
		}
	}
	if (v > 1ull << 62)
		return -EINVAL;
	*bytes = v;
	return 0;
}
