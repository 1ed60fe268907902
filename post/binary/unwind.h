/* post/binary/unwind.h - the call chain of one STACKS entry (the user registers and the top of
 * the user stack of a sample or first touch), unwound with elfutils' libdwfl from the CFI
 * of the ELF objects mapped at the entry's time.
 *
 * One struct mr_unwind holds one Dwfl for one set of objects (one maps snapshot) and is
 * used by one thread: objects are reported to it lazily, the first time the chain reaches
 * an address no reported object covers (the caller's module_at answers where it lies).
 * The stack is read only from the entry's bytes: a frame whose registers were saved
 * beyond them ends the chain.
 */
#ifndef MR_UNWIND_H
#define MR_UNWIND_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <memphis/format.h>

#define MR_UNWIND_MAX_FRAMES 8

struct mr_frame {
	uint64_t pc;   /* frame 0: the sampled instruction; others: the return address */
	uint64_t cfa;  /* the frame's canonical frame address (the caller's SP after the
			* return), 0 when the chain ended before its caller */
};

/* Where the ELF object holding runtime address pc lies: its file (kept by the caller
 * while the struct mr_unwind lives) and bias (runtime address - ELF vaddr). Returns 0, or
 * -1 when pc is in no object. */
typedef int mr_unwind_module_fn(void *arg, uint64_t pc, const char **file, uint64_t *bias);

struct mr_unwind;

/* A new unwinder asking module_at(arg, ...) for objects. NULL when out of memory. */
struct mr_unwind *mr_unwind_new(mr_unwind_module_fn *module_at, void *arg);
/* Free u and its Dwfl (NULL accepted). */
void mr_unwind_free(struct mr_unwind *u);

/* The call chain of entry st (its stack bytes at bytes, st->stack_len of them) into f[0..n),
 * innermost first, at most max (<= MR_UNWIND_MAX_FRAMES) frames. *cut (when not NULL) is
 * set when a read beyond the stack bytes ended the chain: another entry with the same
 * frames but more stack might go on. Returns n >= 0 (0: not even the sampled instruction
 * is in a known object). */
int mr_unwind_chain(struct mr_unwind *u, const struct memphis_rec_stack *st, const uint8_t *bytes,
		    struct mr_frame *f, size_t max, int *cut);

/* How the frame executing at pc (the sampled instruction, or a return address - 1) gives
 * its caller's frame, when its CFI is simple enough to replay on any entry's stack bytes
 * (then the same for every entry through pc, so the words it reads can key a cache): the
 * CFA is SP or BP plus cfa_off, the return address lies at CFA - 8, the caller's SP is
 * the CFA and its BP this frame's own or the word at CFA + bp_off. */
struct mr_unwind_rule {
	int32_t cfa_off;
	int32_t bp_off;
	uint8_t cfa_bp;   /* CFA = BP + cfa_off, else SP + cfa_off */
	uint8_t bp_saved; /* the caller's BP at CFA + bp_off, else unchanged */
};

/* The rule of pc into *r (the object holding pc reported first, when it is not yet).
 * Returns 0, or -1 (pc is in no object, or its CFI is not known or has a rule of another
 * kind). */
int mr_unwind_rule(struct mr_unwind *u, uint64_t pc, struct mr_unwind_rule *r);

/* The 8-byte word of entry st at address addr into *w: 0, or -1 outside its stack bytes. */
static inline int mr_unwind_word(const struct memphis_rec_stack *st, const uint8_t *bytes,
				 uint64_t addr, uint64_t *w)
{
	uint64_t off = addr - st->regs[7];

	if (addr < st->regs[7] || off > st->stack_len || st->stack_len - off < 8)
		return -1;
	memcpy(w, bytes + off, 8);
	return 0;
}

/* Replay rule r of the frame whose SP and BP are *sp and *bp on entry st's stack bytes:
 * they become the caller's, the frame's return address goes to *ra. 0, or -1 when a word
 * it needs lies outside the stack bytes. Inline: a cached chain is replayed per sample. */
static inline int mr_unwind_replay(const struct mr_unwind_rule *r,
				   const struct memphis_rec_stack *st, const uint8_t *bytes,
				   uint64_t *sp, uint64_t *bp, uint64_t *ra)
{
	uint64_t cfa = (r->cfa_bp ? *bp : *sp) + (uint64_t)(int64_t)r->cfa_off;

	if (mr_unwind_word(st, bytes, cfa - 8, ra))
		return -1;
	if (r->bp_saved && mr_unwind_word(st, bytes, cfa + (uint64_t)(int64_t)r->bp_off, bp))
		return -1;
	*sp = cfa;
	return 0;
}

#endif /* MR_UNWIND_H */
