/* tests/unit/unit_stack.c - memphis__stack_parse of perf record tails (abi, the registers of a
 * sample_regs_user mask, size, the stack bytes, dyn_size): all 17 registers of a sample,
 * and the page faults' fewer, each put where its register belongs in perf's full order
 * with the others 0; a tail shorter than it says is refused. TAP. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "insn.h"
#include "stack.h"

#include "tap.h"

/* A record tail for `mask`: abi 2 (64-bit), register k's value 100 + its perf number,
 * `size` stack bytes of value 0xab, dyn_size `dyn`. Returns its length. */
static size_t tail(uint64_t *w, uint64_t mask, uint64_t size, uint64_t dyn)
{
	size_t n = 0;

	w[n++] = 2;
	for (unsigned b = 0; b < 64; b++)
		if (mask >> b & 1)
			w[n++] = 100 + b;
	w[n++] = size;
	memset(&w[n], 0xab, size);
	n += size / 8;
	w[n++] = dyn;
	return n * 8;
}

int main(void)
{
	/* perf's numbers of AX..IP, then R8..R15: the index of each in struct memphis__regs */
	static const unsigned perf_no[MPH_NREGS] = { 0, 1, 2, 3, 4, 5, 6, 7, 8,
						     16, 17, 18, 19, 20, 21, 22, 23 };
	uint64_t w[64];
	struct memphis__ustack u;
	size_t len;
	int good;

	memphis__stack_init(64);

	len = tail(w, MEMPHIS__REGS_MASK, 64, 48);
	ok(memphis__stack_parse(w, len, MEMPHIS__REGS_MASK, &u) == 0 && u.regs == w + 1,
	   "all registers: parsed, read in place");
	good = u.regs != NULL;
	for (unsigned i = 0; good && i < MPH_NREGS; i++)
		good = u.regs[i] == 100 + perf_no[i];
	ok(good, "all registers: each in its place");
	ok(u.bytes == (const unsigned char *)(w + 1 + MPH_NREGS + 1) && u.len == 48,
	   "all registers: the stack bytes and their dyn_size");

	len = tail(w, MEMPHIS__FAULT_REGS_MASK, 64, 64);
	ok(memphis__stack_parse(w, len, MEMPHIS__FAULT_REGS_MASK, &u) == 0 && u.regs == u.some,
	   "fault registers: parsed into the full order");
	good = u.regs != NULL;
	for (unsigned i = 0; good && i < MPH_NREGS; i++)
		good = u.regs[i] ==
		       (MEMPHIS__FAULT_REGS_MASK >> perf_no[i] & 1 ? 100 + perf_no[i] : 0);
	ok(good, "fault registers: BX BP SP IP R12-R15 in their places, the others 0");
	ok(u.regs && u.regs[MPH_SP] == 107 && u.regs[MPH_IP] == 108 && u.regs[MPH_R15] == 123,
	   "fault registers: SP, IP and R15 read");
	ok(u.bytes == (const unsigned char *)(w + 1 + 8 + 1) && u.len == 64,
	   "fault registers: the stack bytes follow the 8 registers");

	ok(memphis__stack_parse(w, len - 16, MEMPHIS__FAULT_REGS_MASK, &u) == -EINVAL,
	   "a tail shorter than its size says: refused");
	ok(memphis__stack_record_extra(0, 8, 256) == 8 + 64 + 8 + 256 + 8 &&
		   memphis__stack_record_extra(1, MPH_NREGS, 256) == 8 + 256 + 8,
	   "record growth: abi and registers only when the record has none already");
	return tap_done();
}
