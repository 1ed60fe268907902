/* tests/unit/unit_debuginfo_locals.c - mr_debuginfo_cfa and mr_debuginfo_locals
 * (post/binary/debuginfo_locals.c) on this very program (built -O2 -g like every unit test).
 *
 * Functions with local arrays take their registers with getcontext(), which saves them
 * as they are right after the call returns, at a pc inside the function; from that pc and
 * those registers the CFA rule and the locals' frame-relative locations must give back
 * the addresses the function itself took with &var; the same again from a stripped copy
 * of the program whose DWARF is in a separate debug file (objcopy, when installed). TAP
 * output; exit 1 on any failure.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "binary/debuginfo.h"

#include "tap.h"

/* What a probed function hands back: its registers and the true addresses of its arrays. */
struct probe {
	ucontext_t uc;
	uintptr_t big, small, param;
};

static __attribute__((noinline)) double two_arrays(struct probe *p, int n)
{
	volatile double big[100];
	volatile int small[13];
	double sum = 0;

	for (int i = 0; i < 100; i++)
		big[i] = i * n;
	for (int i = 0; i < 13; i++)
		small[i] = i + n;
	p->big = (uintptr_t)&big[37];
	p->small = (uintptr_t)&small[5];
	getcontext(&p->uc);
	for (int i = 0; i < 100; i++)
		sum += big[i];
	for (int i = 0; i < 13; i++)
		sum += small[i];
	return sum;
}

/* A scope that is not the function's outermost one: its array lives in a lexical block. */
static __attribute__((noinline)) long in_block(struct probe *p, int n)
{
	long r = n;

	if (n > 1) {
		volatile long blockarr[40];

		for (int i = 0; i < 40; i++)
			blockarr[i] = i ^ n;
		p->big = (uintptr_t)&blockarr[39];
		getcontext(&p->uc);
		for (int i = 0; i < 40; i++)
			r += blockarr[i];
	}
	return r;
}

/* No local lives in memory here: nothing to find. */
static __attribute__((noinline)) long no_locals(struct probe *p, long n)
{
	getcontext(&p->uc);
	return n * 3;
}

static uint64_t bias;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	bias = info->dlpi_addr;
	return 1;
}

/* x86-64 DWARF register n from a ucontext. */
static uint64_t dwarf_reg(const ucontext_t *uc, int n)
{
	static const int map[17] = { REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
				     REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
				     REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP };

	return n >= 0 && n < 17 ? (uint64_t)uc->uc_mcontext.gregs[map[n]] : 0;
}

/* The name of the local holding address addr in the frame p->uc describes, or NULL;
 * *nlocals: how many locals the pc has. */
static const char *local_at(struct mr_debuginfo *d, const struct probe *p, uintptr_t addr,
			    size_t *nlocals)
{
	uint64_t pc = (uint64_t)p->uc.uc_mcontext.gregs[REG_RIP] - bias, cfa;
	static char name[256];
	struct mr_local *l;
	int64_t off;
	size_t n;
	int reg;

	*nlocals = 0;
	if (mr_debuginfo_cfa(d, pc, &reg, &off))
		return NULL;
	cfa = dwarf_reg(&p->uc, reg) + (uint64_t)off;
	if (mr_debuginfo_locals(d, pc, &l, &n))
		return NULL;
	*nlocals = n;
	name[0] = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = (l[i].reg == MR_REG_CFA ? cfa : dwarf_reg(&p->uc, l[i].reg)) +
			      (uint64_t)l[i].off;

		if (addr >= lo && addr < lo + l[i].size)
			snprintf(name, sizeof(name), "%s", l[i].name);
	}
	free(l);
	return name[0] ? name : NULL;
}

int main(void)
{
	struct mr_debuginfo *d;
	struct probe p;
	char err[512];
	const char *name;
	struct mr_local *l;
	size_t n;
	int reg;
	int64_t off;

	dl_iterate_phdr(first_object, NULL);
	if (!ok(mr_debuginfo_open("/proc/self/exe", &d, err, sizeof(err)) == 0, "open self: %s",
		err))
		return tap_done();

	two_arrays(&p, 3);
	name = local_at(d, &p, p.big, &n);
	ok(name && !strcmp(name, "two_arrays::big"), "&big[37] is two_arrays::big (got %s)",
	   name ? name : "nothing");
	name = local_at(d, &p, p.small, &n);
	ok(name && !strcmp(name, "two_arrays::small"), "&small[5] is two_arrays::small (got %s)",
	   name ? name : "nothing");
	name = local_at(d, &p, (uintptr_t)p.uc.uc_mcontext.gregs[REG_RSP] - 4096, &n);
	ok(!name, "an address below the frame is no local (got %s)", name ? name : "nothing");

	in_block(&p, 5);
	name = local_at(d, &p, p.big, &n);
	ok(name && !strcmp(name, "in_block::blockarr"),
	   "a lexical block's array is in_block::blockarr (got %s)", name ? name : "nothing");

	no_locals(&p, 2);
	name = local_at(d, &p, (uintptr_t)p.uc.uc_mcontext.gregs[REG_RSP], &n);
	ok(!name, "no_locals has no local at its stack pointer (got %s, %zu locals)",
	   name ? name : "nothing", n);

	ok(mr_debuginfo_locals(d, 0, &l, &n) == -ENOENT && !l && !n, "no function at pc 0");
	ok(mr_debuginfo_cfa(d, 0, &reg, &off) == -ENOENT, "no CFA rule at pc 0");
	mr_debuginfo_close(d);

	/* the DWARF in a separate file (.gnu_debuglink), the CFI in the stripped object */
	char dir[] = "/tmp/memphis-locals.XXXXXX", cmd[1024], exe[600];

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	snprintf(exe, sizeof(exe), "%s/self", dir);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && objcopy --only-keep-debug /proc/%d/exe self.debug && "
		 "objcopy --strip-debug --add-gnu-debuglink=self.debug /proc/%d/exe self",
		 dir, (int)getpid(), (int)getpid());
	if (system(cmd) != 0) {
		tap_skip("no objcopy", "separate debug file");
	} else if (ok(mr_debuginfo_open_dir(exe, "/usr/lib/debug", &d, err, sizeof(err)) == 0 &&
		      mr_debuginfo_debug_file(d), "open the stripped copy with its debug file: %s",
		      err)) {
		two_arrays(&p, 4);
		name = local_at(d, &p, p.small, &n);
		ok(name && !strcmp(name, "two_arrays::small"),
		   "stripped copy + debug file: &small[5] is two_arrays::small (got %s)",
		   name ? name : "nothing");
		mr_debuginfo_close(d);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		ok(0, "remove %s", dir);
	return tap_done();
}
