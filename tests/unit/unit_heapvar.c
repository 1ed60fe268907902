/* tests/unit/unit_heapvar.c - the store analysis after an allocation call (post/binary/heapvar.c,
 * mr_heapvar_scan) on hand-assembled x86-64 code, case by case: what it reports that the
 * code does with the pointer returned in %rax. Each case's code starts at the return
 * address 0x1000, or at its function's start 0x1000 (the access paths held at the call);
 * its events are printed one per line ("reg R PC-END", "static PC ADDR", "frame PC REG
 * OFF", "through PC REG OFF", "return PC", "path PC ROOT STEPS": ROOT "static ADDR",
 * "frame REG OFF @PC", "reg REG @PC" or "arg REG @PC", an argument register not written
 * since the start; registers by DWARF number: 0 rax, 3 rbx, 5 rdi, 6 rbp, 7 rsp) and
 * compared with the expected text. (The DWARF naming of the events is checked end to end
 * by t_heapvar.sh, t_grids.sh and t_golden.sh.) TAP output; exit 1 on failure. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "binary/heapvar.h"

#include "tap.h"

#define BASE 0x1000

struct hcase {
	int line;
	const char *what;
	const char *code;   /* hex bytes */
	const char *events; /* expected, one per line */
	unsigned ret;       /* the return address's offset: the code is its function from its
			     * start (0: the code starts at the return address) */
};

static const struct hcase cases[] = {
	{ __LINE__, "mov %rax,0x100(%rip); ret: a static store, then returned",
	  "48 89 05 00 01 00 00 c3",
	  "reg 0 0x1000-0x1008\nstatic 0x1000 0x1107\nreturn 0x1007\n", 0 },
	{ __LINE__, "mov %rax,%rbx; call; mov %rbx,-0x18(%rbp): rbx survives the call",
	  "48 89 c3 e8 fb 00 00 00 48 89 5d e8 c3",
	  "reg 0 0x1000-0x1008\nreg 3 0x1003-0x100d\nframe 0x1008 6 -24\n", 0 },
	{ __LINE__, "mov %rax,%rdi; call; mov %rdi,0x100(%rip): rdi dies in the call",
	  "48 89 c7 e8 fb 00 00 00 48 89 3d 00 01 00 00 c3",
	  "reg 0 0x1000-0x1008\nreg 5 0x1003-0x1008\n", 0 },
	{ __LINE__, "test; je L; ret; L: mov %rax,0x100(%rip); ret: both sides of the branch",
	  "48 85 c0 74 01 c3 48 89 05 00 01 00 00 c3",
	  "reg 0 0x1000-0x1006\nreg 0 0x1006-0x100e\nreturn 0x1005\nstatic 0x1006 0x110d\n"
	  "return 0x100d\n", 0 },
	{ __LINE__, "mov %rax,-8(%rbp); mov $0,%eax; mov -8(%rbp),%rax; ret: through a frame slot",
	  "48 89 45 f8 b8 00 00 00 00 48 8b 45 f8 c3",
	  "reg 0 0x1000-0x1009\nframe 0x1000 6 -8\nreg 0 0x100d-0x100e\nreturn 0x100d\n", 0 },
	{ __LINE__, "xor %eax,%eax; ret: overwritten, not returned",
	  "31 c0 c3",
	  "reg 0 0x1000-0x1002\n", 0 },
	{ __LINE__, "jmp . : a loop ends (visits are bounded)",
	  "eb fe",
	  "reg 0 0x1000-0x1002\n", 0 },
	{ __LINE__, "mov %rax,%rbx; mov %rbx,0x10(%rsp); mov 8(%rbx),%rbx; ret: a load overwrites",
	  "48 89 c3 48 89 5c 24 10 48 8b 5b 08 c3",
	  "reg 0 0x1000-0x100d\nreg 3 0x1003-0x100c\nframe 0x1003 7 16\nreturn 0x100c\n", 0 },
	{ __LINE__, "undecodable bytes: nothing past them", "ff ff", "reg 0 0x1000-0x1000\n", 0 },
	{ __LINE__, "mov %rax,0x8(%rdi); ret: a store through a pointer, then returned",
	  "48 89 47 08 c3",
	  "reg 0 0x1000-0x1005\nthrough 0x1000 5 8\nreturn 0x1004\n", 0 },
	/* access paths (u[k][j] = p), the base computed before the call */
	{ __LINE__, "mov u(%rip),%rdx; mov (%rdx,%r10,8),%rbp; call; mov %rax,(%rbp,%rbx): u[][] "
	  "(%rbp a register holding u[k])",
	  "48 8b 15 00 01 00 00 4a 8b 2c d2 e8 f0 ff ff ff 48 89 44 1d 00 c3",
	  "reg 0 0x1010-0x1016\npath 0x1010 static 0x1107 +0 +0[] +0[]\nreturn 0x1015\n", 0x10 },
	{ __LINE__, "mov (%rdi),%rax; mov 8(%rax),%rax; spill; call; reload; store indexed: "
	  "(*rdi)->[8][] through a frame slot",
	  "48 8b 07 48 8b 40 08 48 89 44 24 08 e8 ef ff ff ff 48 8b 4c 24 08 4a 89 04 e9 c3",
	  "reg 0 0x1011-0x101b\npath 0x1016 arg 5 @0x1000 +0 +0 +8 +0[]\nreturn 0x101a\n", 0x11 },
	{ __LINE__, "a spill, then sub $16,%rsp: the slot's offset moved, the spill forgotten",
	  "48 89 44 24 08 48 83 ec 10 e8 f2 ff ff ff 48 8b 4c 24 08 4a 89 04 e9 c3",
	  "reg 0 0x100e-0x1018\npath 0x1013 frame 7 8 @0x100e +0 +0[]\nreturn 0x1017\n", 0x0e },
	{ __LINE__, "-O0: mov -0x18(%rbp),%rax; add %rcx,%rax; mov (%rax),%rax; lea (%rax,%rsi,8); "
	  "mov %rdx,(%rax): u[][] from a frame variable",
	  "e8 fb ff ff ff 48 89 c2 48 8b 45 e8 48 c1 e1 03 48 01 c8 48 8b 00 48 8d 04 f0 48 89 10 "
	  "c3",
	  "reg 0 0x1005-0x100c\nreg 1 0x1008-0x101e\npath 0x101a frame 6 -24 @0x1008 +0 +0[] +0[]\n",
	  0x05 },
	{ __LINE__, "mov %rax,%fs:0x10(%rbx): thread-local, no path",
	  "e8 fb ff ff ff 64 48 89 43 10 c3", "reg 0 0x1005-0x100b\nreturn 0x100a\n", 0x05 },
	{ __LINE__, "mov v(%rip),%rbx; lea (,%r10,8),%rax; add %rax,%rbx; call; mov (%rbx),%r14; "
	  "add %r12,%r14; mov %rax,(%r14): v[][] by pointer arithmetic",
	  "48 8b 1d 00 01 00 00 4a 8d 04 d5 00 00 00 00 48 01 c3 e8 e9 ff ff ff 4c 8b 33 4d 01 e6 "
	  "49 89 06 c3",
	  "reg 0 0x1017-0x1021\npath 0x101d static 0x1107 +0 +0[] +0[]\nreturn 0x1020\n", 0x17 },
	{ __LINE__, "mov u(%rip),%rax; mov %r12,%r15; add (%rax,%rbx),%r15: the copied register is "
	  "the index, the load through u the pointer",
	  "48 8b 05 00 01 00 00 4d 89 e7 4c 03 3c 18 e8 ed ff ff ff 49 89 07 c3",
	  "reg 0 0x1013-0x1017\npath 0x1013 static 0x1107 +0 +0[] +0[]\nreturn 0x1016\n", 0x13 },
};

/* "path PC ROOT": ROOT "static ADDR", "frame REG OFF @PC" or "reg REG @PC", then each step
 * " +OFF" (" +OFF[]" when indexed), a newline. Returns the length. */
static size_t path_text(char *b, size_t len, const struct mr_hv_event *e)
{
	const struct mr_hv_path *p = &e->path;
	size_t pos = 0;

	if (p->root == MR_HV_ROOT_STATIC)
		pos += (size_t)snprintf(b, len, "path 0x%" PRIx64 " static 0x%" PRIx64, e->pc, p->at);
	else if (p->root == MR_HV_ROOT_FRAME)
		pos += (size_t)snprintf(b, len, "path 0x%" PRIx64 " frame %d %" PRId64 " @0x%" PRIx64,
					e->pc, p->reg, p->off, p->at);
	else
		pos += (size_t)snprintf(b, len, "path 0x%" PRIx64 " %s %d @0x%" PRIx64, e->pc,
					p->root == MR_HV_ROOT_ARG ? "arg" : "reg", p->reg, p->at);
	for (unsigned k = 0; k < p->nstep && pos < len; k++)
		pos += (size_t)snprintf(b + pos, len - pos, " +%" PRId64 "%s", p->step[k].off,
					p->step[k].indexed ? "[]" : "");
	if (pos < len)
		pos += (size_t)snprintf(b + pos, len - pos, "\n");
	return pos;
}

/* The bytes of hex text s into b; their count. */
static size_t parse_hex(const char *s, uint8_t *b, size_t cap)
{
	size_t n = 0;
	unsigned v;
	int used;

	while (n < cap && sscanf(s, " %2x%n", &v, &used) == 1) {
		b[n++] = (uint8_t)v;
		s += used;
	}
	return n;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hcase *c = &cases[i];
		struct mr_hv_event ev[MR_HV_MAX_EVENTS];
		uint8_t code[64];
		size_t len = parse_hex(c->code, code, sizeof(code));
		size_t n = mr_heapvar_scan(code, len, BASE, c->ret ? BASE : 0, BASE + c->ret, ev,
					   MR_HV_MAX_EVENTS);
		char got[1024] = "";
		size_t pos = 0;

		for (size_t k = 0; k < n && pos < sizeof(got); k++) {
			const struct mr_hv_event *e = &ev[k];

			switch (e->kind) {
			case MR_HV_REG:
				pos += (size_t)snprintf(got + pos, sizeof(got) - pos,
							"reg %d 0x%" PRIx64 "-0x%" PRIx64 "\n", e->reg,
							e->pc, e->end);
				break;
			case MR_HV_STATIC:
				pos += (size_t)snprintf(got + pos, sizeof(got) - pos,
							"static 0x%" PRIx64 " 0x%" PRIx64 "\n", e->pc,
							e->addr);
				break;
			case MR_HV_FRAME:
				pos += (size_t)snprintf(got + pos, sizeof(got) - pos,
							"frame 0x%" PRIx64 " %d %" PRId64 "\n", e->pc,
							e->reg, e->off);
				break;
			case MR_HV_THROUGH:
				pos += (size_t)snprintf(got + pos, sizeof(got) - pos,
							"through 0x%" PRIx64 " %d %" PRId64 "\n", e->pc,
							e->reg, e->off);
				break;
			case MR_HV_RETURN:
				pos += (size_t)snprintf(got + pos, sizeof(got) - pos,
							"return 0x%" PRIx64 "\n", e->pc);
				break;
			case MR_HV_PATH:
				pos += path_text(got + pos, sizeof(got) - pos, e);
				break;
			}
		}
		if (!tap(!strcmp(got, c->events), c->line, "%s", c->what))
			for (char *l = strtok(got, "\n"); l; l = strtok(NULL, "\n"))
				printf("# got: %s\n", l);
	}
	tap(mr_heapvar_scan((const uint8_t *)"\xc3", 1, BASE, 0, BASE + 1, NULL, 0) == 0, __LINE__,
	    "a return address outside the code: nothing");
	{ /* lea 0x20(%rsp),%r13; jbe L; mov %rax,%r13; jmp E; L: mov %r13,%rdi; call; E: ret:
	   * the call's %rdi is the frame slot's address, from the jump's state, not from the
	   * code laid out before L */
		static const char hex[] = "4c 8d 6c 24 20 76 05 49 89 c5 eb 08 4c 89 ef e8 ec ff ff ff c3";
		uint8_t code[64];
		size_t len = parse_hex(hex, code, sizeof(code));
		struct mr_hv_path p;
		int addr_of = 0, rc = mr_heapvar_arg(code, len, BASE, BASE, BASE + 0x14, 5, &p, &addr_of);

		tap(rc == 0 && p.root == MR_HV_ROOT_FRAME && p.reg == 7 && p.off == 0x20 && addr_of,
		    __LINE__, "the argument in %%rdi at a call only jumped to: the address of [%%rsp+32]");
		rc = mr_heapvar_arg(code, len, BASE, BASE, BASE + 0x14, 4, &p, &addr_of);
		tap(rc == 0 && p.root == MR_HV_ROOT_ARG && p.reg == 4, __LINE__,
		    "%%rsi, never written: the function's own argument");
	}
	{ /* 100 register copies (200 REG events), then a static store and a return */
		static const uint8_t copy[] = { 0x48, 0x89, 0xc3, 0x48, 0x89, 0xd8 };
		static const uint8_t tail[] = { 0x48, 0x89, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
		struct mr_hv_event ev[MR_HV_MAX_EVENTS];
		uint8_t code[100 * sizeof(copy) + sizeof(tail)];
		size_t n, stat = 0, ret = 0;

		for (size_t i = 0; i < 100; i++)
			memcpy(code + i * sizeof(copy), copy, sizeof(copy));
		memcpy(code + 100 * sizeof(copy), tail, sizeof(tail));
		n = mr_heapvar_scan(code, sizeof(code), BASE, 0, BASE, ev, MR_HV_MAX_EVENTS);
		for (size_t k = 0; k < n; k++) {
			stat += ev[k].kind == MR_HV_STATIC && ev[k].addr == BASE + 600 + 7 + 0x100;
			ret += ev[k].kind == MR_HV_RETURN;
		}
		tap(n == MR_HV_MAX_EVENTS && stat == 1 && ret == 1, __LINE__,
		    "a full list keeps the store and the return after many copies (%zu events)", n);
	}
	return tap_done();
}
