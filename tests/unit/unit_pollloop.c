/* tests/unit/unit_pollloop.c - post/binary/pollloop.c: fences and poll loops in code bytes, as
 * GCC 12 compiles them on this machine (objdump of each case in its comment), and loops that
 * are not waits. Table-driven; TAP output. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "binary/pollloop.h"

#include "tap.h"

/* while (flag[k] == 0) __sync_synchronize();  (gcc -O2)
 *  0: lea 0x0(%rip),%rdx; 7: movslq %edi,%rdi; a: mov (%rdx,%rdi,4),%eax; d: test; f: jne 25
 * 11: nopl; 18: lock orq $0,(%rsp); 1e: mov (%rdx,%rdi,4),%eax; 21: test; 23: je 18; 25: ret */
static const uint8_t sync_o2[] = {
	0x48, 0x8d, 0x15, 0x00, 0x00, 0x00, 0x00, 0x48, 0x63, 0xff, 0x8b, 0x04, 0xba, 0x85, 0xc0,
	0x75, 0x14, 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00,
	0x8b, 0x04, 0xba, 0x85, 0xc0, 0x74, 0xf3, 0xc3,
};
/* the same at -O0: 7: jmp f; 9: lock orq $0,(%rsp); f: mov -0x4(%rbp),%eax; 12: cltq;
 * 14: lea 0(,%rax,4),%rdx; 1c: lea 0x0(%rip),%rax; 23: mov (%rdx,%rax,1),%eax; 26: test;
 * 28: je 9; 2a: nop; 2b: nop; 2c: pop %rbp; 2d: ret */
static const uint8_t sync_o0[] = {
	0x55, 0x48, 0x89, 0xe5, 0x89, 0x7d, 0xfc, 0xeb, 0x06, 0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00,
	0x8b, 0x45, 0xfc, 0x48, 0x98, 0x48, 0x8d, 0x14, 0x85, 0x00, 0x00, 0x00, 0x00, 0x48, 0x8d,
	0x05, 0x00, 0x00, 0x00, 0x00, 0x8b, 0x04, 0x02, 0x85, 0xc0, 0x74, 0xdf, 0x90, 0x90, 0x5d,
	0xc3,
};
/* gfortran -O2: do; !$omp flush(isync); if (isync(k) /= 0) exit; end do
 * 0: lock orq $0,(%rsp); 6: movslq (%rsi),%rax; 9: mov (%rdi,%rax,4),%eax; c: test; e: je 0 */
static const uint8_t flush_f[] = {
	0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00, 0x48, 0x63, 0x06, 0x8b, 0x04, 0x87, 0x85, 0xc0, 0x74,
	0xf0, 0xc3,
};
/* an acquire load polled with pause: 0: jmp 4; 2: pause; 4: mov (%rdx),%eax; 6: test;
 * 8: je 2; a: ret */
static const uint8_t pause_acq[] = { 0xeb, 0x02, 0xf3, 0x90, 0x8b, 0x02, 0x85, 0xc0, 0x74, 0xf8, 0xc3 };
/* libgomp's bounded spin (a counter in %rax): 0: pause; 2: add $1,%rax; 6: cmp %rdx,%rax;
 * 9: je 20; b: mov 0(%rbp),%ecx; e: cmp %ecx,%ebx; 10: je 0; 12: ret */
static const uint8_t spin_count[] = {
	0xf3, 0x90, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xd0, 0x74, 0x15, 0x8b, 0x4d, 0x00, 0x39,
	0xcb, 0x74, 0xee, 0xc3,
};
/* a list walk: 0: mov %rdi,%rax; 3: mov (%rdi),%rdi; 6: test %rdi,%rdi; 9: jne 0;
 * b: mov 0x8(%rax),%eax; e: ret */
static const uint8_t walk[] = { 0x48, 0x89, 0xf8, 0x48, 0x8b, 0x3f, 0x48, 0x85, 0xff, 0x75, 0xf5,
				0x8b, 0x40, 0x08, 0xc3 };
/* a search by index: 0: mov %rdx,%rax; 3: add $1,%rdx; 7: cmp %esi,-0x4(%rdi,%rdx,4);
 * b: jne 0; d: ret */
static const uint8_t find[] = { 0x48, 0x89, 0xd0, 0x48, 0x83, 0xc2, 0x01, 0x39, 0x74, 0x97, 0xfc,
				0x75, 0xf3, 0xc3 };
/* a poll that calls: 0: call; 5: mov 0x0(%rip),%eax; b: test; d: je 0; f: ret */
static const uint8_t calls[] = { 0xe8, 0x00, 0x00, 0x00, 0x00, 0x8b, 0x05, 0x00, 0x00, 0x00, 0x00,
				 0x85, 0xc0, 0x74, 0xf1, 0xc3 };
/* a sum: 0: addsd (%rdi),%xmm0; 4: add $8,%rdi; 8: cmp %rax,%rdi; b: jne 0; d: ret */
static const uint8_t sum[] = { 0xf2, 0x0f, 0x58, 0x07, 0x48, 0x83, 0xc7, 0x08, 0x48, 0x39, 0xc7,
			       0x75, 0xf3, 0xc3 };
/* a float reduction over one address (carries %xmm0): 0: addsd (%rdi),%xmm0;
 * 4: comisd %xmm1,%xmm0; 8: jb 0; a: ret */
static const uint8_t accum[] = { 0xf2, 0x0f, 0x58, 0x07, 0x66, 0x0f, 0x2f, 0xc1, 0x72, 0xf6, 0xc3 };
/* a counter in memory at -O0: 0: addl $1,-0x4(%rbp); 4: cmpl $9,-0x4(%rbp); 8: jle 0; a: ret */
static const uint8_t memcount[] = { 0x83, 0x45, 0xfc, 0x01, 0x83, 0x7d, 0xfc, 0x09, 0x7e, 0xf6, 0xc3 };
/* spin with nothing read: 0: pause; 2: jmp 0 */
static const uint8_t noread[] = { 0xf3, 0x90, 0xeb, 0xfc };

static void test_loops(void)
{
	static const struct {
		const char *what;
		const uint8_t *code;
		size_t len, at;
		int want;
		size_t head;
	} cases[] = {
		{ "-O2 __sync_synchronize poll: the fence", sync_o2, sizeof(sync_o2), 0x18, 1, 0x18 },
		{ "-O2 poll: the flag's load", sync_o2, sizeof(sync_o2), 0x1e, 1, 0x18 },
		{ "-O2 poll: the branch back", sync_o2, sizeof(sync_o2), 0x23, 1, 0x18 },
		{ "-O2 poll: the first test before the loop", sync_o2, sizeof(sync_o2), 0x0a, 0, 0 },
		{ "-O2 poll: the ret after it", sync_o2, sizeof(sync_o2), 0x25, 0, 0 },
		{ "-O0 poll: the fence", sync_o0, sizeof(sync_o0), 0x09, 1, 0x09 },
		{ "-O0 poll: cltq", sync_o0, sizeof(sync_o0), 0x12, 1, 0x09 },
		{ "-O0 poll: the flag's load", sync_o0, sizeof(sync_o0), 0x23, 1, 0x09 },
		{ "-O0 poll: the prologue", sync_o0, sizeof(sync_o0), 0x04, 0, 0 },
		{ "Fortran flush poll: the fence", flush_f, sizeof(flush_f), 0, 1, 0 },
		{ "Fortran flush poll: the index load", flush_f, sizeof(flush_f), 6, 1, 0 },
		{ "Fortran flush poll: the flag's load", flush_f, sizeof(flush_f), 9, 1, 0 },
		{ "pause + acquire load", pause_acq, sizeof(pause_acq), 4, 1, 2 },
		{ "pause + acquire load: the pause", pause_acq, sizeof(pause_acq), 2, 1, 2 },
		{ "a bounded spin (a counter)", spin_count, sizeof(spin_count), 0x0b, 1, 0 },
		{ "a list walk", walk, sizeof(walk), 3, 0, 0 },
		{ "a search by index", find, sizeof(find), 7, 0, 0 },
		{ "a poll that calls", calls, sizeof(calls), 5, 0, 0 },
		{ "a sum", sum, sizeof(sum), 0, 0, 0 },
		{ "a float accumulation", accum, sizeof(accum), 0, 0, 0 },
		{ "a counter in memory", memcount, sizeof(memcount), 4, 0, 0 },
		{ "a spin that reads nothing", noread, sizeof(noread), 0, 0, 0 },
		{ "the branch back beyond the bytes", sync_o2, 0x22, 0x1e, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t head = 999;
		int got = mr_poll_loop(cases[i].code, cases[i].len, cases[i].at, &head);

		ok(got == cases[i].want && (!got || head == cases[i].head), "%s: %s (head %zu)",
		   cases[i].what, got ? "a poll loop" : "none", got ? head : 0);
	}
}

static void test_fences(void)
{
	static const struct {
		const char *what;
		uint8_t code[8];
		size_t len;
		int want;
	} cases[] = {
		{ "lock orq $0,(%rsp) (GCC)", { 0xf0, 0x48, 0x83, 0x0c, 0x24, 0x00 }, 6, 1 },
		{ "lock orl $0,-0x40(%rsp) (Clang)", { 0xf0, 0x83, 0x4c, 0x24, 0xc0, 0x00 }, 6, 1 },
		{ "lock addl $0,(%rsp)", { 0xf0, 0x83, 0x04, 0x24, 0x00 }, 5, 1 },
		{ "lock andl $-1,(%rsp)", { 0xf0, 0x83, 0x24, 0x24, 0xff }, 5, 1 },
		{ "lock orq $1,(%rsp): changes the stack", { 0xf0, 0x48, 0x83, 0x0c, 0x24, 0x01 }, 6, 0 },
		{ "orq $0,(%rsp) without lock", { 0x48, 0x83, 0x0c, 0x24, 0x00 }, 5, 0 },
		{ "lock orq $0,(%rax): not the stack", { 0xf0, 0x48, 0x83, 0x08, 0x00 }, 5, 0 },
		{ "lock addl $1,(%rdi): an atomic increment", { 0xf0, 0x83, 0x07, 0x01 }, 4, 0 },
		{ "mfence: no memory operand", { 0x0f, 0xae, 0xf0 }, 3, 0 },
		{ "truncated", { 0xf0, 0x48, 0x83 }, 3, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ok(mr_poll_fence(cases[i].code, cases[i].len) == cases[i].want, "%s: %s",
		   cases[i].what, cases[i].want ? "a fence" : "no fence");
}

/* The addresses one pass reads, from registers taken mid-loop and the copied stack. */
static void test_reads(void)
{
	const uint64_t base = 0x400000, sp = 0x7ffff000;
	uint8_t stack[64] = { 0 };
	struct mr_poll_regs r = { .stack = stack, .stack_len = sizeof(stack) };
	uint64_t out[4];
	size_t n;

	/* -O2: flag at %rdx = 0x601000, k = 5 in %rdi (sign-extended before the loop) */
	r.gpr[2] = 0x601000;
	r.gpr[7] = 5;
	r.gpr[4] = sp;
	n = mr_poll_reads(sync_o2, sizeof(sync_o2), 0x18, base, &r, out, 4);
	ok(n == 1 && out[0] == 0x601000 + 5 * 4, "-O2: one read, flag[5] (%zu: %#llx), the fence none",
	   n, n ? (unsigned long long)out[0] : 0ull);

	/* -O0: k = 7 at -4(%rbp) in the copied stack, flag RIP-relative (lea 0x0(%rip) at
	 * 0x1c, 7 bytes: the next instruction's address); %rax, %rdx garbage from the pass
	 * before */
	memset(&r.gpr, 0, sizeof(r.gpr));
	r.gpr[4] = sp;
	r.gpr[5] = sp + 0x20;
	r.gpr[0] = 0xdead;
	r.gpr[2] = 0xbeef;
	stack[0x1c] = 7;
	n = mr_poll_reads(sync_o0, sizeof(sync_o0), 0x09, base, &r, out, 4);
	ok(n == 2 && out[0] == sp + 0x1c && out[1] == base + 0x23 + 7 * 4,
	   "-O0: k on the stack, then flag[7] through cltq and lea (%zu: %#llx %#llx)", n,
	   n ? (unsigned long long)out[0] : 0ull, n > 1 ? (unsigned long long)out[1] : 0ull);

	/* Fortran: b = 3 (int32) at 16(%rsp) through %rsi, isync at %rdi = 0x602000: isync(b)
	 * at %rdi + 4 * b, b sign-extended by movslq */
	memset(&r.gpr, 0, sizeof(r.gpr));
	memset(stack, 0, sizeof(stack));
	r.gpr[4] = sp;
	r.gpr[6] = sp + 16;
	r.gpr[7] = 0x602000;
	stack[16] = 3;
	n = mr_poll_reads(flush_f, sizeof(flush_f), 0, base, &r, out, 4);
	ok(n == 2 && out[0] == sp + 16 && out[1] == 0x602000 + 3 * 4,
	   "Fortran: b, then isync(b) (%zu: %#llx %#llx)", n, n ? (unsigned long long)out[0] : 0ull,
	   n > 1 ? (unsigned long long)out[1] : 0ull);

	/* the same with b beyond the copied stack: b's address, not isync(b)'s */
	r.stack_len = 16;
	n = mr_poll_reads(flush_f, sizeof(flush_f), 0, base, &r, out, 4);
	ok(n == 1 && out[0] == sp + 16, "Fortran, b not copied: b alone (%zu)", n);
	n = mr_poll_reads(flush_f, sizeof(flush_f), 0, base, &r, out, 0);
	ok(n == 0, "no room: none");
}

int main(void)
{
	test_loops();
	test_fences();
	test_reads();
	return tap_done();
}
