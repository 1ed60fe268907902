/* tests/unit/unit_heapvar.c - the store analysis after an allocation call (post/binary/heapvar.c,
 * mr_heapvar_scan) on hand-assembled x86-64 code, case by case: what it reports that the
 * code does with the pointer returned in %rax. Each case's code starts at the return
 * address 0x1000; its events are printed one per line ("reg R PC-END", "static PC ADDR",
 * "frame PC REG OFF", "through PC REG OFF", "return PC"; registers by DWARF number: 0 rax, 3 rbx, 5 rdi, 6 rbp,
 * 7 rsp) and compared with the expected text. (The DWARF naming of the events is checked
 * end to end by t_heapvar.sh and t_golden.sh.) TAP output; exit 1 on failure. */
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
};

static const struct hcase cases[] = {
	{ __LINE__, "mov %rax,0x100(%rip); ret: a static store, then returned",
	  "48 89 05 00 01 00 00 c3",
	  "reg 0 0x1000-0x1008\nstatic 0x1000 0x1107\nreturn 0x1007\n" },
	{ __LINE__, "mov %rax,%rbx; call; mov %rbx,-0x18(%rbp): rbx survives the call",
	  "48 89 c3 e8 fb 00 00 00 48 89 5d e8 c3",
	  "reg 0 0x1000-0x1008\nreg 3 0x1003-0x100d\nframe 0x1008 6 -24\n" },
	{ __LINE__, "mov %rax,%rdi; call; mov %rdi,0x100(%rip): rdi dies in the call",
	  "48 89 c7 e8 fb 00 00 00 48 89 3d 00 01 00 00 c3",
	  "reg 0 0x1000-0x1008\nreg 5 0x1003-0x1008\n" },
	{ __LINE__, "test; je L; ret; L: mov %rax,0x100(%rip); ret: both sides of the branch",
	  "48 85 c0 74 01 c3 48 89 05 00 01 00 00 c3",
	  "reg 0 0x1000-0x1006\nreg 0 0x1006-0x100e\nreturn 0x1005\nstatic 0x1006 0x110d\n"
	  "return 0x100d\n" },
	{ __LINE__, "mov %rax,-8(%rbp); mov $0,%eax; mov -8(%rbp),%rax; ret: through a frame slot",
	  "48 89 45 f8 b8 00 00 00 00 48 8b 45 f8 c3",
	  "reg 0 0x1000-0x1009\nframe 0x1000 6 -8\nreg 0 0x100d-0x100e\nreturn 0x100d\n" },
	{ __LINE__, "xor %eax,%eax; ret: overwritten, not returned",
	  "31 c0 c3",
	  "reg 0 0x1000-0x1002\n" },
	{ __LINE__, "jmp . : a loop ends (visits are bounded)",
	  "eb fe",
	  "reg 0 0x1000-0x1002\n" },
	{ __LINE__, "mov %rax,%rbx; mov %rbx,0x10(%rsp); mov 8(%rbx),%rbx; ret: a load overwrites",
	  "48 89 c3 48 89 5c 24 10 48 8b 5b 08 c3",
	  "reg 0 0x1000-0x100d\nreg 3 0x1003-0x100c\nframe 0x1003 7 16\nreturn 0x100c\n" },
	{ __LINE__, "undecodable bytes: nothing past them", "ff ff", "reg 0 0x1000-0x1000\n" },
	{ __LINE__, "mov %rax,0x8(%rdi); ret: a store through a pointer, then returned",
	  "48 89 47 08 c3",
	  "reg 0 0x1000-0x1005\nthrough 0x1000 5 8\nreturn 0x1004\n" },
};

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
		size_t n = mr_heapvar_scan(code, len, BASE, BASE, ev, MR_HV_MAX_EVENTS);
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
			}
		}
		if (!tap(!strcmp(got, c->events), c->line, "%s", c->what))
			for (char *l = strtok(got, "\n"); l; l = strtok(NULL, "\n"))
				printf("# got: %s\n", l);
	}
	tap(mr_heapvar_scan((const uint8_t *)"\xc3", 1, BASE, BASE + 1, NULL, 0) == 0, __LINE__,
	    "a return address outside the code: nothing");
	{ /* 100 register copies (200 REG events), then a static store and a return */
		static const uint8_t copy[] = { 0x48, 0x89, 0xc3, 0x48, 0x89, 0xd8 };
		static const uint8_t tail[] = { 0x48, 0x89, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3 };
		struct mr_hv_event ev[MR_HV_MAX_EVENTS];
		uint8_t code[100 * sizeof(copy) + sizeof(tail)];
		size_t n, stat = 0, ret = 0;

		for (size_t i = 0; i < 100; i++)
			memcpy(code + i * sizeof(copy), copy, sizeof(copy));
		memcpy(code + 100 * sizeof(copy), tail, sizeof(tail));
		n = mr_heapvar_scan(code, sizeof(code), BASE, BASE, ev, MR_HV_MAX_EVENTS);
		for (size_t k = 0; k < n; k++) {
			stat += ev[k].kind == MR_HV_STATIC && ev[k].addr == BASE + 600 + 7 + 0x100;
			ret += ev[k].kind == MR_HV_RETURN;
		}
		tap(n == MR_HV_MAX_EVENTS && stat == 1 && ret == 1, __LINE__,
		    "a full list keeps the store and the return after many copies (%zu events)", n);
	}
	return tap_done();
}
