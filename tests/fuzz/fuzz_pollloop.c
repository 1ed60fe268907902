/* tests/fuzz/fuzz_pollloop.c - libFuzzer entry for fences and poll loops in code bytes
 * (post/binary/pollloop.c): the code comes from the profiled program's files, so any bytes.
 * Input: two bytes, the instruction's offset into the code (little endian, modulo its
 * length), then the code. Checks, besides ASan/UBSan: a loop's head is in the code, at or
 * before the instruction, at most MR_POLL_MAX_BYTES before it. Built by `make fuzz`, run
 * by t_fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>

#include "binary/pollloop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len, at, head = 0;

	if (size < 3)
		return 0;
	len = size - 2;
	at = ((size_t)data[0] | (size_t)data[1] << 8) % len;
	if (mr_poll_fence(data + 2 + at, len - at) > 1)
		abort();
	if (mr_poll_loop(data + 2, len, at, &head) && (head > at || at - head > MR_POLL_MAX_BYTES))
		abort();
	return 0;
}
