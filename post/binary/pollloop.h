/* post/binary/pollloop.h - waits the program writes itself, found in its code bytes (issue 41
 * item 3): fences written as a locked no-op on the stack, and poll loops.
 *
 * A fence: GCC emits `lock orq $0,(%rsp)` for __sync_synchronize, a seq-cst
 * __atomic_thread_fence and OpenMP's flush (C and Fortran), Clang `lock orl $0,-N(%rsp)`.
 * Its memory operand is the thread's stack top, which it leaves as it is: no data access.
 *
 * A poll loop: a short loop (a backward branch, at most MR_POLL_MAX_BYTES of at most
 * MR_POLL_MAX_INSNS instructions) that can only leave when another thread changes memory
 * (or a spin count runs out): it calls nothing, writes memory only by atomics (LOCK,
 * XCHG), reads memory, and carries no value from one iteration to the next but counters
 * (each register it reads is one it does not write, one it wrote before in the same
 * iteration, or one it only steps by a constant and uses in no address). So a flag polled
 * with fences, PAUSE or plain acquire loads is one, bounded spins too; a loop that walks a
 * list or an index (the pointer or the index is carried into an address), sums, or counts
 * in memory is not.
 *
 * Pure: the bytes come from the caller.
 */
#ifndef MR_POLLLOOP_H
#define MR_POLLLOOP_H

#include <stddef.h>
#include <stdint.h>

#define MR_POLL_MAX_BYTES 128
#define MR_POLL_MAX_INSNS 32

/* Is the instruction at code[0, len) such a fence? 1 or 0. */
int mr_poll_fence(const uint8_t *code, size_t len);

/* Is the instruction at code[at] in a poll loop? code[0, len) are the bytes around it (at
 * < len). 1 with *head the offset of the loop's first instruction (its backward branch's
 * target), else 0. */
int mr_poll_loop(const uint8_t *code, size_t len, size_t at, size_t *head);

/* The registers of a thread stopped in a poll loop, for mr_poll_reads: the 16 general
 * registers in the x86 encoding's order (rax rcx rdx rbx rsp rbp rsi rdi r8 .. r15), and
 * the bytes copied from its stack pointer upward. */
struct mr_poll_regs {
	uint64_t gpr[16];
	const uint8_t *stack;
	size_t stack_len;
};

/* The data addresses that one pass of the poll loop at code[head] (mr_poll_loop's head)
 * reads, code[0] being at run-time address base, the thread's registers *r taken anywhere
 * in the loop: the pass is emulated from its head (register moves, loads from the copied
 * stack, address arithmetic; a register anything else writes is unknown), which gives
 * every address whose registers are the loop's invariants or computed in the pass, since a
 * poll loop carries no other value. Up to max addresses of reads (atomic ones included,
 * fences not) into out, in the pass's order; returns their count. */
size_t mr_poll_reads(const uint8_t *code, size_t len, size_t head, uint64_t base,
		     const struct mr_poll_regs *r, uint64_t *out, size_t max);

#endif /* MR_POLLLOOP_H */
