/* post/binary/unwind.c - the call chain of a STACKS entry, unwound by elfutils' libdwfl (the
 * way perf's tools/perf/util/unwind-libdw.c does it, but with one Dwfl per set of objects
 * instead of one per sample): the entry's registers are the thread's initial state, its
 * stack bytes the only memory, and the objects' CFI (.eh_frame, else .debug_frame) the
 * rules. */
#include "unwind.h"

#include "base/infile.h"
#include "cfi.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* DWARF x86-64 register numbers */
#define DW_RBP 6
#define DW_RSP 7
#define DW_NREGS 17 /* rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */

struct mr_unwind {
	Dwfl *dwfl;
	int attached;
	mr_unwind_module_fn *module_at;
	void *arg;
	/* the entry being unwound and the chain so far */
	const struct memphis_rec_stack *st;
	const uint8_t *bytes;
	struct mr_frame *f;
	size_t n, max;
	uint64_t missing;  /* a frame's address that no reported object covers, 0: none */
	int cut;           /* a read beyond the stack bytes failed */
};

/* No separate debug files are looked for (nor fetched from a debuginfod server): the CFI
 * is the objects' own .eh_frame or .debug_frame. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)mod, (void)userdata, (void)modname, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* The one thread there is: the entry's. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl, (void)arg, (void)thread_argp;
	return 0;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

/* Memory is the entry's stack bytes only: a read outside them fails (ends the chain). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct mr_unwind *u = arg;
	uint64_t sp = u->st->regs[7];

	(void)dwfl;
	if (addr < sp || addr - sp > u->st->stack_len || u->st->stack_len - (addr - sp) < 8) {
		u->cut = 1;
		return false;
	}
	memcpy(result, u->bytes + (addr - sp), sizeof(*result));
	return true;
}

/* perf's order (AX BX CX DX SI DI BP SP IP R8..R15) to DWARF's (rax rdx rcx rbx rsi rdi
 * rbp rsp r8..r15 rip). */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	static const unsigned from_perf[DW_NREGS] = { 0, 3, 2, 1, 4, 5, 6, 7, 9, 10, 11, 12,
						      13, 14, 15, 16, 8 };
	const struct mr_unwind *u = arg;
	Dwarf_Word dw[DW_NREGS];

	for (unsigned i = 0; i < DW_NREGS; i++)
		dw[i] = u->st->regs[from_perf[i]];
	return dwfl_thread_state_registers(thread, 0, DW_NREGS, dw);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct mr_unwind *mr_unwind_new(mr_unwind_module_fn *module_at, void *arg)
{
	struct mr_unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->dwfl = dwfl_begin(&offline_callbacks);
	if (!u->dwfl) {
		free(u);
		return NULL;
	}
	u->module_at = module_at;
	u->arg = arg;
	return u;
}

void mr_unwind_free(struct mr_unwind *u)
{
	if (!u)
		return;
	dwfl_end(u->dwfl);
	free(u);
}

/* Report the object holding pc to the Dwfl (attaching the thread state after the first,
 * which tells libdwfl the architecture). Returns 0, or -1 when pc is in no object or the
 * object cannot be read. */
static int report_object(struct mr_unwind *u, uint64_t pc)
{
	const char *file;
	uint64_t bias;
	Dwfl_Module *m;
	int fd;

	if (u->module_at(u->arg, pc, &file, &bias) < 0 ||
	    (fd = mr_in_open(file, MR_IN_MAX_ELF, 0)) < 0)
		return -1;
	dwfl_report_begin_add(u->dwfl);
	m = dwfl_report_elf(u->dwfl, file, file, fd, bias, true);
	dwfl_report_end(u->dwfl, NULL, NULL);
	if (!m)
		close(fd); /* the module owns it only when reported */
	if (!m || !dwfl_addrmodule(u->dwfl, pc))
		return -1;
	if (!u->attached) {
		if (!dwfl_attach_state(u->dwfl, NULL, 1, &thread_callbacks, u))
			return -1;
		u->attached = 1;
	}
	return 0;
}

/* One frame: keep it, give its SP (the callee's CFA) to the frame before, stop after max
 * frames (one more is unwound for the last CFA) or at a frame in no reported object. */
static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct mr_unwind *u = arg;
	Dwarf_Addr pc, sp;
	bool activation;

	if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	if (u->n && dwfl_frame_reg(state, DW_RSP, &sp) == 0)
		u->f[u->n - 1].cfa = sp;
	if (u->n == u->max)
		return DWARF_CB_ABORT;
	u->f[u->n++] = (struct mr_frame){ .pc = pc };
	/* a return address's call is the byte before it */
	if (!dwfl_addrmodule(u->dwfl, activation ? pc : pc - 1)) {
		u->missing = activation ? pc : pc - 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

int mr_unwind_chain(struct mr_unwind *u, const struct memphis_rec_stack *st, const uint8_t *bytes,
		    struct mr_frame *f, size_t max, int *cut)
{
	uint64_t tried = 0;

	if (max > MR_UNWIND_MAX_FRAMES)
		max = MR_UNWIND_MAX_FRAMES;
	if (cut)
		*cut = 0;
	if (!max || st->regs[8] == 0)
		return 0;
	u->st = st;
	u->bytes = bytes;
	u->f = f;
	u->max = max;
	if (!u->attached && report_object(u, st->regs[8]) < 0)
		return 0;
	/* each pass that meets an object not yet reported reports it and starts again */
	for (size_t pass = 0; pass <= max; pass++) {
		u->n = 0;
		u->missing = 0;
		u->cut = 0;
		dwfl_getthread_frames(u->dwfl, (pid_t)(st->tid ? st->tid : 1), frame_cb, u);
		if (!u->missing || u->missing == tried || report_object(u, u->missing) < 0)
			break;
		tried = u->missing;
	}
	if (cut)
		*cut = u->cut;
	return (int)u->n;
}

int mr_unwind_rule(struct mr_unwind *u, uint64_t pc, struct mr_unwind_rule *r)
{
	Dwfl_Module *m = dwfl_addrmodule(u->dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;
	struct mr_cfi_frame f;

	if (!m && report_object(u, pc) == 0)
		m = dwfl_addrmodule(u->dwfl, pc);
	cfi = m ? dwfl_module_eh_cfi(m, &bias) : NULL;

	if (!cfi && m)
		cfi = dwfl_module_dwarf_cfi(m, &bias);
	if (!cfi || mr_cfi_frame(cfi, pc - bias, &f) || (f.cfa_reg != DW_RSP && f.cfa_reg != DW_RBP))
		return -1;
	if (f.cfa_off < INT32_MIN || f.cfa_off > INT32_MAX || f.bp_off < INT32_MIN ||
	    f.bp_off > INT32_MAX)
		return -1;
	*r = (struct mr_unwind_rule){ .cfa_off = (int32_t)f.cfa_off, .cfa_bp = f.cfa_reg == DW_RBP,
				      .bp_saved = f.bp_saved != 0, .bp_off = (int32_t)f.bp_off };
	return 0;
}
