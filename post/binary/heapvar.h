/* post/binary/heapvar.h - where the code after an allocation call puts the returned pointer: the
 * store analysis that names a heap object by the variable receiving it (issue 16 item 2).
 *
 * From the return address of a call that returned the pointer in %rax, the code is decoded
 * forward (Zydis) along every path (jumps followed, both sides of conditional branches,
 * bounded), tracking the registers and frame slots that hold the pointer: register moves
 * copy it, a write of anything else kills it, a call kills the caller-saved registers.
 * What the paths do with it is reported as events in the order they were met:
 *   - a 64-bit store of a holding register to a RIP-relative address (a static variable);
 *   - a store to [%rsp + d] or [%rbp + d] (a local in the frame);
 *   - a register that holds it at some pc (maybe a local living in that register);
 *   - a `ret` with %rax holding it (the function returns it to its caller);
 *   - a store to [%reg + d] through another register (maybe a pointer to a struct);
 *   - a store to an element or member reached through pointers from a variable
 *     (`u[l][k][j] = p`, `grid->rows[i] = p`): the access path of the address stored to,
 *     from the variable it starts at (a static, a frame slot, a register at a pc) through
 *     each pointer loaded on the way. Where the base of that address was computed before
 *     the call (kept in a callee-saved register or spilled to the frame), the code from
 *     the function's start to the call is read once, in address order, for the paths the
 *     registers and frame slots hold at the call.
 * Pure: the bytes come from the caller; no DWARF here (heapvar_dwarf.c names them).
 */
#ifndef MR_HEAPVAR_H
#define MR_HEAPVAR_H

#include <stddef.h>
#include <stdint.h>

#define MR_HV_MAX_INSNS 512 /* instructions decoded over all paths of one scan: enough to
			     * reach the ret of a -O0 wrapper that fills its array */
#define MR_HV_MAX_EVENTS 64

enum mr_hv_kind {
	MR_HV_STATIC = 1,  /* stored to the static address `addr` */
	MR_HV_FRAME,       /* stored to [reg + off] with reg %rsp or %rbp */
	MR_HV_REG,         /* register reg holds it at pc (from pc on) */
	MR_HV_RETURN,      /* returned by the `ret` at pc */
	MR_HV_THROUGH,     /* stored to [reg + off] with another base register reg (a
			    * member of the struct that a pointer in reg points to) */
	MR_HV_PATH,        /* stored to the location `path` names (not a THROUGH's) */
};

#define MR_HV_MAX_STEPS 5 /* the first inside the variable, then through up to 4 pointers */

/* One step of an access path: from the location before it (through the pointer held there
 * when it is not the first step), `off` bytes on, plus an index when `indexed`. */
struct mr_hv_step {
	int64_t off;
	int indexed;
};

enum mr_hv_root {
	MR_HV_ROOT_STATIC = 1, /* the static variable holding address `at` */
	MR_HV_ROOT_FRAME,      /* the variable at [reg + off] in the frame at pc `at` */
	MR_HV_ROOT_REG,        /* the variable in register reg at pc `at` */
	MR_HV_ROOT_ARG,        /* the argument the function got in register reg (`at`: where
				* it was first read, not written since the function's start) */
};

/* Where a store went: a variable, then the steps. */
struct mr_hv_path {
	enum mr_hv_root root;
	int reg;               /* FRAME: base, REG: the register (DWARF numbers) */
	int64_t off;           /* FRAME: the slot's offset */
	uint64_t at;
	unsigned nstep;        /* 1..MR_HV_MAX_STEPS */
	struct mr_hv_step step[MR_HV_MAX_STEPS];
};

struct mr_hv_event {
	enum mr_hv_kind kind;
	uint64_t pc;       /* vaddr: of the store or ret; for REG the first pc it holds */
	uint64_t end;      /* REG: it holds in [pc, end) on the path (end: after the
			    * instruction that overwrites it, or where the path stopped) */
	uint64_t addr;     /* STATIC: the vaddr stored to */
	int reg;           /* FRAME, THROUGH: base, REG: the holder; DWARF register number (0 rax,
			    * 3 rbx, 6 rbp, 7 rsp, ...) */
	int64_t off;       /* FRAME, THROUGH: displacement */
	int slot_reg;      /* THROUGH: the base register was loaded from [slot_reg + slot_off]
			    * (%rsp or %rbp: a pointer variable in the frame, as at -O0); -1 */
	int64_t slot_off;
	struct mr_hv_path path; /* PATH */
};

/* Scan code[0, len), the bytes at vaddr base, from the return address ret (inside it);
 * func (0: unknown), the start of the function holding ret, when it lies in the bytes
 * too: the paths held at the call are read from there. Writes up to max events to ev, in
 * the order the paths met them (breadth first), and returns their count. */
size_t mr_heapvar_scan(const uint8_t *code, size_t len, uint64_t base, uint64_t func,
		       uint64_t ret, struct mr_hv_event *ev, size_t max);

/* The path of what register reg (DWARF number) holds as the call that returns to ret is
 * made (an argument), read from func, the function's start, as mr_heapvar_scan does, into
 * *out; *addr_of: it holds the location's address, not the value there. 0, or -ENOENT. */
int mr_heapvar_arg(const uint8_t *code, size_t len, uint64_t base, uint64_t func, uint64_t ret,
		   int reg, struct mr_hv_path *out, int *addr_of);

#endif /* MR_HEAPVAR_H */
