/* tests/fuzz/fuzz_pollloop.c - libFuzzer entry for fences and poll loops in code bytes
 * (post/binary/pollloop.c): the code comes from the profiled program's files, so any bytes.
 * Input: two bytes, the instruction's offset into the code (little endian, modulo its
 * length), then the code. Checks, besides ASan/UBSan: a loop's head is in the code, at or
 * before the instruction, at most MR_POLL_MAX_BYTES before it; its pass's reads (the input
 * as the copied stack, registers pointing into it) no more than room was given. Built by
 * `make fuzz`, run by t_fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>

#include "binary/pollloop.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mr_poll_regs r = { .stack = data, .stack_len = size };
	uint64_t out[4];
	size_t len, at, head = 0;

	if (size < 3)
		return 0;
	len = size - 2;
	at = ((size_t)data[0] | (size_t)data[1] << 8) % len;
	if (mr_poll_fence(data + 2 + at, len - at) > 1)
		abort();
	if (!mr_poll_loop(data + 2, len, at, &head))
		return 0;
	if (head > at || at - head > MR_POLL_MAX_BYTES)
		abort();
	for (int i = 0; i < 16; i++)
		r.gpr[i] = 0x10000 + (uint64_t)i * (size / 16);
	r.gpr[4] = 0x10000;
	if (mr_poll_reads(data + 2, len, head, 0x400000, &r, out, 4) > 4)
		abort();
	return 0;
}
