/* lib/insn.h - from a software (task-clock) sample to the memory access it stands for.
 *
 * The timer sample's IP is the instruction *after* the one that held up retirement, so a
 * sample is attributed to the execution predecessor of the sampled IP, and that
 * instruction's data address is rebuilt from the sampled user registers (DESIGN §3.1).
 * decode.c holds the pure part (bytes + registers -> access), code.c finds function bytes
 * in the running process and caches results per IP.
 */
#ifndef MEMPHIS_INSN_H
#define MEMPHIS_INSN_H

#include <stddef.h>
#include <stdint.h>

/* Registers in the order perf_event delivers them for sample_regs_user = MEMPHIS__REGS_MASK
 * (PERF_REG_X86_AX..IP, then R8..R15), plus the thread's fs_base and gs_base recorded by
 * the library (0 when unknown). */
enum memphis__reg {
	MPH_AX, MPH_BX, MPH_CX, MPH_DX, MPH_SI, MPH_DI, MPH_BP, MPH_SP, MPH_IP,
	MPH_R8, MPH_R9, MPH_R10, MPH_R11, MPH_R12, MPH_R13, MPH_R14, MPH_R15,
	MPH_NREGS
};
#define MEMPHIS__REGS_MASK 0xff01ffull
/* The page faults' sample_regs_user: BX BP SP IP R12-R15, what unwinding a first touch
 * needs (the CFA is SP or BP based; the callee-saved registers are what a caller's frame
 * may still use). The kernel's cost grows with the registers copied: 32 MiB of first
 * touches (8,192 faults) took 44 ms with these and the stack, 49 ms with all 17 and the
 * stack, 34 ms with neither, 26 ms unprofiled (medians of 10). */
#define MEMPHIS__FAULT_REGS_MASK 0xf001c2ull
#define MEMPHIS__REG_NONE 0xff /* struct memphis__insn base/index: none (or RIP, see rip_rel) */
#define MEMPHIS__REG_BAD  0xfe /* ... a register the sample does not carry: no address */

struct memphis__regs {
	uint64_t r[MPH_NREGS];
	uint64_t fs_base;
	uint64_t gs_base;
};

/* What one instruction does to memory, independent of register values. */
struct memphis__insn {
	uint8_t length;      /* bytes, 0 if undecodable */
	uint8_t is_mem;      /* has an explicit memory operand that is accessed (not LEA/NOP) */
	uint8_t is_load, is_store;
	uint8_t is_branch;   /* call, jmp, jcc, ret, loop, syscall...: control leaves linearly */
	uint8_t is_vsib;     /* gather/scatter: address not rebuildable */
	uint8_t base, index; /* enum memphis__reg, or 0xff for none / RIP / unsupported */
	uint8_t scale;       /* 1, 2, 4, 8 */
	uint8_t rip_rel;
	uint8_t addr32;      /* 32-bit address size: mask the sum to 32 bits */
	uint8_t segment;     /* 0 none/ds/ss/es/cs, 1 fs, 2 gs */
	uint8_t clobbers;    /* the instruction writes its own base or index register:
	                      * MEMPHIS__CLOBBER_BASE | MEMPHIS__CLOBBER_INDEX, 0 if neither */
	uint8_t is_prefetch; /* prefetch hint: address exact, but neither load nor store */
	uint8_t is_stack;    /* implicit stack access of push/pop/leave: base is SP and disp is
	                      * already relative to SP *after* the instruction (the sampled SP) */
	uint8_t breaks_flow; /* call, jmp, ret, iret: the next instruction in memory does not
	                      * execute right after this one (it has no execution successor) */
	uint8_t rep_string;  /* a string instruction with a rep prefix (rep movs, rep stos,
	                      * repe cmps...): interrupted between iterations, it is sampled at
	                      * its own address, with the current iteration's rsi/rdi */
	uint8_t base2;       /* a string instruction's other memory operand (movs writes [rdi]
	                      * where it reads [rsi]; cmps reads both): its base, else
	                      * MEMPHIS__REG_NONE */
	uint8_t store2;      /* that operand is written */
	int64_t disp;
	uint64_t branch_target; /* for direct jmp/jcc/call: absolute target, else 0 */
};

#define MEMPHIS__CLOBBER_BASE  1
#define MEMPHIS__CLOBBER_INDEX 2

/* Notes on memphis__insn_decode's choices:
 * - the memory operand described is the first explicit one that is accessed; without one,
 *   an implicit one (string instructions, stack), preferring one that is read. LEA, NOP
 *   and other address-generation-only operands are no access (is_mem = 0). A prefetch is
 *   an access (is_mem = 1, is_prefetch = 1): it moves the line and names the right object,
 *   but is neither a load nor a store and never holds up retirement.
 * - push/pop/leave: the stack slot is rebuilt from the sampled SP (is_stack); their
 *   documented SP update is not counted as a clobber. For `push d(%rsp)` (address taken
 *   before the decrement) disp is corrected by the operand size. call/ret/enter keep the
 *   generic rule (base SP written: clobbers); call/ret are never predecessors anyway.
 * - is_load / is_store describe the chosen operand (both for read-modify-write). */

/* Decode the instruction at `bytes` (at most `len` bytes available), located at address
 * `addr`. Returns 0 and fills *out, or -EINVAL if the bytes are not a valid instruction. */
int memphis__insn_decode(const uint8_t *bytes, size_t len, uint64_t addr,
			 struct memphis__insn *out);

/* Rebuild the data address of a decoded memory instruction at `addr` from `regs`.
 * Returns MPH_S_EXACT, MPH_S_APPROX (self-clobbering load: base + disp, one hop off) or
 * MPH_S_NOADDR (VSIB, unknown fs/gs base, unsupported register), OR'd with MPH_S_TLS for
 * fs/gs operands; MPH_S_NONMEM if `insn` has no memory operand. *data_addr is set for
 * EXACT and APPROX, else 0. Flags are enum memphis_sample_flags (memphis/format.h). */
unsigned memphis__insn_address(const struct memphis__insn *insn, uint64_t addr,
			       const struct memphis__regs *regs, uint64_t *data_addr);

/* Find the execution predecessor of `ip` inside the function whose code is
 * `code[0..len)` starting at address `start`: decode linearly from `start`; if `ip` is
 * the target of a branch in the function, the predecessor is the branch source with the
 * highest address (the loop back-edge); else the instruction that ends at `ip`, unless it
 * is a call/jmp/ret (no predecessor). Refinement: when every branch to `ip` is a forward
 * one (source before ip: an if/else merge, the jump into a bottom-tested loop) and the
 * instruction ending at ip falls through, that fall-through is taken (it runs once per
 * iteration, the forward jump once per entry); only without a fall-through does the
 * highest forward source answer. Calls are never branch sources here. Returns the predecessor's address, or 0. When the
 * sweep does not land on `ip` (undecodable bytes, data in code) or cannot allocate, the
 * answer is memphis__insn_predecessor_vote over up to 64 bytes before ip. */
uint64_t memphis__insn_predecessor(const uint8_t *code, size_t len, uint64_t start,
				   uint64_t ip);

/* One linear sweep of a function, kept by code.c so that a function is decoded once. */
struct memphis__edge {
	uint32_t src, dst; /* offsets from the function start of a direct jmp/jcc/loop and its
	                    * target inside the function (calls are not edges) */
};
struct memphis__sweep {
	uint64_t start;     /* address of the first byte */
	uint32_t len;       /* bytes swept (at most MEMPHIS__SWEEP_MAX) */
	uint32_t n_insns;   /* entries of insns[] */
	uint32_t *insns;    /* instruction start offsets, ascending; bit 31 set when the
	                     * instruction breaks the flow (call/jmp/ret); bit 30 marks the
	                     * start of a run of undecodable bytes instead */
	uint32_t n_edges;   /* entries of edges[] */
	struct memphis__edge *edges; /* sorted by dst, then src */
	uint32_t skipped;   /* undecodable bytes stepped over one by one to resynchronise */
	uint32_t skipped_last; /* offset of the last skipped byte (internal to the sweep) */
};
#define MEMPHIS__SWEEP_MAX (1u << 20)
#define MEMPHIS__SWEEP_FLOW (1u << 31)
#define MEMPHIS__SWEEP_BAD  (1u << 30)
#define MEMPHIS__SWEEP_MASK (MEMPHIS__SWEEP_FLOW | MEMPHIS__SWEEP_BAD)

/* Decode `code[0..len)` (a function at `start`) linearly into *out. An undecodable byte is
 * skipped (resynchronise at the next byte), counted in out->skipped; an ip on or right
 * after such bytes has no trustworthy linear predecessor (the vote answers). Returns 0,
 * or -E2BIG if len > MEMPHIS__SWEEP_MAX, -ENOMEM (*out then holds nothing to release).
 * Release with memphis__sweep_release(). */
int memphis__insn_sweep(const uint8_t *code, size_t len, uint64_t start,
			struct memphis__sweep *out);

/* Free the arrays of a sweep filled by memphis__insn_sweep (NULL and zeroed are fine). */
void memphis__sweep_release(struct memphis__sweep *s);

/* Heap bytes a sweep holds (for cache budgets). */
size_t memphis__sweep_bytes(const struct memphis__sweep *s);

/* The predecessor rule of memphis__insn_predecessor over a finished sweep. Returns 1 and
 * sets *pred, 0 when ip has no predecessor (function entry, after call/jmp/ret), or -1
 * when ip is not an instruction start of the sweep (data in code, misaligned sweep, ip
 * outside): the caller then falls back to the vote. */
int memphis__sweep_predecessor(const struct memphis__sweep *s, uint64_t ip, uint64_t *pred);

/* Fallback when no symbol covers `ip`: decode forward from each of the `len` bytes
 * before ip (code[len] is the byte at ip) and let the start offsets whose instruction
 * chain lands exactly on ip vote for the instruction that ends at ip. Returns its
 * address, or 0 when no start lands on ip. Ties go to the candidate of the longest chain.
 * Only the last 256 bytes are used when len is larger. The winner may be a call/jmp/ret:
 * the caller applies the no-predecessor rule (struct memphis__insn.breaks_flow). */
uint64_t memphis__insn_predecessor_vote(const uint8_t *code, size_t len, uint64_t ip);

/* Per-process cache: sampled IP -> (predecessor ip, its decoded instruction). */
struct memphis__code;

/* Create / destroy the cache. Returns NULL on allocation failure. */
struct memphis__code *memphis__code_new(void);
void memphis__code_free(struct memphis__code *c);

/* Forget every cached answer, function, symbol table and mapping (call after
 * dlopen/dlclose or when code at an address was replaced, e.g. a JIT reusing memory;
 * new mappings alone are found without it: a miss re-reads /proc/self/maps). */
void memphis__code_invalidate(struct memphis__code *c);

/* Attribute a software sample of this process taken at `sampled_ip` with `regs`:
 * *ip = the predecessor (or sampled_ip when there is none; sampled_ip itself when it is a
 * rep string instruction, which an interrupt stops between iterations), *data_addr =
 * rebuilt address.
 * Returns enum memphis_sample_flags (one of EXACT/APPROX/NOADDR/NONMEM, plus LOAD/STORE,
 * TLS, NOPRED). No predecessor (function entry, after call/jmp/ret, unknown or unmapped
 * code, any internal failure) is NOPRED|NOADDR with *ip = sampled_ip, *data_addr = 0.
 * Reads code bytes of this process safely (process_vm_readv, or a pipe where that is
 * refused: an unmapped ip never faults). Never prints, never exits.
 * Cost: a repeated ip is a hash hit (~5-15 ns); a new ip in a known function about
 * 1-2 us; the first ip of an ELF file adds opening it and reading its symbols (0.2-0.5 ms
 * for a binary with .symtab). Memory is bounded (3 MiB of answers, 16 MiB of sweeps,
 * 32 MiB of symbols, 256 files); a full cache is emptied and refilled.
 * Not thread-safe: one caller (the drain thread). */
unsigned memphis__code_attribute(struct memphis__code *c, uint64_t sampled_ip,
				 const struct memphis__regs *regs, uint64_t *ip,
				 uint64_t *data_addr);

/* memphis__code_attribute for a sample taken in the kernel, regs the user registers at the
 * kernel's entry (user_ip their IP): a system call (`syscall` just before user_ip) is
 * attributed to that instruction, NONMEM|SYSCALL; otherwise the kernel was entered before
 * the instruction at user_ip ran (a page fault of its access, or an interrupt), which is
 * attributed, with its own data address. Cached as the other answers. */
unsigned memphis__code_attribute_entry(struct memphis__code *c, uint64_t user_ip,
				       const struct memphis__regs *regs, uint64_t *ip,
				       uint64_t *data_addr);

/* Counters of a struct memphis__code since memphis__code_new (for the run's notes and
 * for tests: how many answers came from a symbol's sweep and how many from the vote). */
struct memphis__code_stats {
	uint64_t hits;        /* answers from the IP table */
	uint64_t misses;      /* new IPs resolved */
	uint64_t by_sweep;    /* ... whose predecessor came from a function's sweep */
	uint64_t by_vote;     /* ... from the vote (no symbol, huge function, bad bytes) */
	uint64_t rep_string;  /* ... at a rep string instruction: the sample is its own */
	uint64_t no_pred;     /* ... with no predecessor (NOPRED) */
	uint64_t sweeps;      /* functions decoded */
	uint64_t modules;     /* ELF files whose symbols were read */
	uint64_t modules_bad; /* mapped files without usable symbols */
	uint64_t maps_reads;  /* times /proc/self/maps was read */
	uint64_t flushes;     /* times a full cache was emptied */
};

/* Copy the counters of c into *out (zeroes when c is NULL). */
void memphis__code_stats(const struct memphis__code *c, struct memphis__code_stats *out);

#endif /* MEMPHIS_INSN_H */
