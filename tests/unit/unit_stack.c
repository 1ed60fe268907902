/* tests/unit/unit_stack.c - memphis__stack_parse of perf record tails (abi, the registers of a
 * sample_regs_user mask, size, the stack bytes, dyn_size): all 17 registers of a sample,
 * and the page faults' fewer, each put where its register belongs in perf's full order
 * with the others 0; a tail shorter than it says is refused. The entries buffered for a
 * STACKS block: in layout 2 (format 3) an entry whose thread's last whole entry differs in
 * a few registers and words is a DELTA of it (common/stacks2.c reads it back), one that
 * differs much is whole; a thread at two depths in turn has a base for each; in layout 1
 * (MEMPHIS_FORMAT=2) every entry is whole. TAP. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "insn.h"
#include "stack.h"
#include "stacks2.h"
#include "writer.h"

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

/* Buffer three entries of thread 7 (1 KiB stacks): a base, one with a register and a
 * word changed, one with every word changed; then check the buffer's forms. */
static void test_stackbuf(unsigned format)
{
	static uint64_t regs[MEMPHIS_STACK_NREGS], words[128], base_words[128];
	struct memphis__stackbuf b = { 0 };
	struct memphis__ustack u = { .regs = regs, .bytes = (const unsigned char *)words, .len = 1024 };
	struct memphis_rec_stack e, got;
	struct memphis_rec_stack_delta d;
	unsigned char bytes[1024];
	const char *why;
	size_t size = 0, full = sizeof(e) + 1024;

	memphis__writer_set_format(format);
	for (int i = 0; i < MEMPHIS_STACK_NREGS; i++)
		regs[i] = 0x1000u + (uint64_t)i;
	for (int i = 0; i < 128; i++)
		words[i] = base_words[i] = 0x7f0000000000u + (uint64_t)i;
	ok(memphis__stackbuf_add(&b, MPH_STACK_SAMPLE, 100, NULL, 7, &u) == 0, "format %u: a base", format);
	regs[0] = 42;
	words[5] = 99;
	ok(memphis__stackbuf_add(&b, MPH_STACK_SAMPLE, 101, NULL, 7, &u) == 0, "format %u: a near one", format);
	for (int i = 0; i < 128; i++)
		words[i] = (uint64_t)i * 3;
	ok(memphis__stackbuf_add(&b, MPH_STACK_SAMPLE, 102, NULL, 7, &u) == 0, "format %u: a far one", format);
	if (format == 2) {
		ok(b.n == 3 * full && b.count == 3, "format 2: three whole entries (%zu bytes)", b.n);
	} else {
		memcpy(&d, b.p + full, sizeof(d));
		ok(d.form == MPH_STACK_DELTA && d.base == 0 && d.regmask == 1 && d.nwords == 1 &&
		   mph_stk2_parse(b.p + full, b.n - full, &d, &size, &why) == 0 &&
		   size == sizeof(d) + 8 + 16 + 8, "format 3: the near one is a DELTA of the base (%zu bytes)", size);
		memcpy(&got, b.p, sizeof(got));
		memcpy(bytes, b.p + sizeof(got), sizeof(bytes));
		mph_stk2_apply(b.p + full, &d, &got, bytes);
		base_words[5] = 99;
		ok(got.time == 101 && got.regs[0] == 42 && got.regs[1] == 0x1001 &&
		   !memcmp(bytes, base_words, sizeof(bytes)), "format 3: ... which reads back whole");
		memcpy(&e, b.p + full + size, sizeof(e));
		ok(e.reserved == MPH_STACK_OWN && e.time == 102 && b.n == full + size + full,
		   "format 3: the far one is whole (%zu bytes in all)", b.n);
	}
	memphis__stackbuf_free(&b);
}

/* A thread that waits at two depths in turn (libgomp's barrier): 1 KiB stacks at two stack
 * pointers 40 bytes apart, each visited twice with a word changed. The second visit of
 * each depth is a DELTA of that depth's first entry, not of the other depth's, which is
 * shifted. */
static void test_two_depths(void)
{
	static uint64_t regs[MEMPHIS_STACK_NREGS], frames[256], deep[128], shallow[128];
	struct memphis__stackbuf b = { 0 };
	struct memphis__ustack u = { .regs = regs, .len = 1024 };
	struct memphis_rec_stack_delta d[2];
	size_t full = sizeof(struct memphis_rec_stack) + 1024, size[2] = { 0, 0 }, off = 2 * full;
	const char *why;
	int rc = 0;

	memphis__writer_set_format(3);
	for (int i = 0; i < 256; i++)
		frames[i] = 0x7f0000000000u + (uint64_t)i * 8;
	memcpy(deep, frames, sizeof(deep));
	memcpy(shallow, frames + 5, sizeof(shallow));
	for (int k = 0; k < 4; k++) {
		uint64_t *w = k % 2 ? shallow : deep;

		if (k >= 2)
			w[3] = 7;
		regs[MPH_SP] = k % 2 ? 0x7ffc0028u : 0x7ffc0000u;
		u.bytes = (const unsigned char *)w;
		rc |= memphis__stackbuf_add(&b, MPH_STACK_SAMPLE, 100 + (uint64_t)k, NULL, 7, &u);
	}
	for (int k = 0; k < 2 && !rc; k++) {
		memcpy(&d[k], b.p + off, sizeof(d[k]));
		if (d[k].form != MPH_STACK_DELTA || mph_stk2_parse(b.p + off, b.n - off, &d[k],
								    &size[k], &why))
			rc = -1;
		off += size[k];
	}
	ok(!rc && d[0].base == 0 && d[1].base == 1 && d[0].nwords == 1 && d[1].nwords == 1 &&
	   off == b.n && b.count == 4, "two depths in turn: two whole entries, then a DELTA of "
	   "each (%zu and %zu bytes)", size[0], size[1]);
	memphis__stackbuf_free(&b);
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
	test_stackbuf(3);
	test_stackbuf(2);
	test_two_depths();
	return tap_done();
}
