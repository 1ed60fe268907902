/* tests/unit_kmod_decode.c - records of /dev/memphismod into samples (lib/backend/kmod_record.h), and the
 * uapi layout both sides compile against (include/memphis/memphismod.h).
 *
 * Table-driven: each case builds one record from fields (the rest zero), decodes it with
 * the record size and CPU count of the case, and checks the result; a failing case names
 * its source line. Also: a record larger than this library knows (a newer module) decodes
 * the same, and the uapi structs keep their first-version sizes and offsets. TAP output.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kmod_record.h"
#include "memphis/memphismod.h"

#include "tap.h"

#define USER_IP 0x401234ull
#define KERN_IP 0xffffffff81000000ull

struct dcase {
	int line;
	const char *what;
	/* record */
	uint64_t ip, addr, data_src, weight;
	uint32_t pid, tid, cpu, flags;
	int regs; /* fill regs[] with 0x1000 + index */
	/* decode arguments */
	size_t rec_size;
	uint32_t ncpus;
	/* expected */
	int ret;
	uint16_t sflags;
	uint64_t saddr;
	uint32_t sweight;
	int has_regs;
};

#define R MEMPHISMOD_REC_REGS
#define A MEMPHISMOD_REC_ADDR
#define D MEMPHISMOD_REC_DATA_SRC
#define W MEMPHISMOD_REC_WEIGHT
#define K MEMPHISMOD_REC_KERNEL
#define V0 MEMPHISMOD_RECORD_SIZE_VER0

static const struct dcase dcases[] = {
	{ __LINE__, "cpu clock with registers: to be rebuilt, weight 1",
	  USER_IP, 0, 0, 0, 100, 101, 1, R, 1, V0, 4,
	  0, MPH_S_NOADDR | MPH_S_NOPRED, 0, 1, 1 },
	{ __LINE__, "no registers, no address: NOADDR|NOPRED",
	  USER_IP, 0, 0, 0, 100, 101, 0, 0, 0, V0, 4,
	  0, MPH_S_NOADDR | MPH_S_NOPRED, 0, 1, 0 },
	{ __LINE__, "event address and data source (PEBS layout): EXACT|HWADDR|LOAD, weight kept",
	  USER_IP, 0x7fff0000, PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L1),
	  250, 100, 101, 2, A | D | W, 0, V0, 4,
	  0, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD, 0x7fff0000, 250, 0 },
	{ __LINE__, "data source says remote DRAM: REMOTE_HW",
	  USER_IP, 0x7fff0000, PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, RAM) |
	  PERF_MEM_S(REMOTE, REMOTE), 400, 100, 101, 2, A | D | W, 0, V0, 4,
	  0, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD | MPH_S_REMOTE_HW, 0x7fff0000, 400, 0 },
	{ __LINE__, "data source ignored unless flagged",
	  USER_IP, 0x7fff0000, PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVLNUM, RAM) |
	  PERF_MEM_S(REMOTE, REMOTE), 0, 100, 101, 2, A, 0, V0, 4,
	  0, MPH_S_EXACT | MPH_S_HWADDR, 0x7fff0000, 1, 0 },
	{ __LINE__, "address wins over registers (no predecessor search)",
	  USER_IP, 0x601000, 0, 0, 100, 101, 0, A | R, 1, V0, 4,
	  0, MPH_S_EXACT | MPH_S_HWADDR, 0x601000, 1, 0 },
	{ __LINE__, "kernel data address is never passed on",
	  USER_IP, 0xffff888000001000ull, 0, 0, 100, 101, 0, A, 0, V0, 4,
	  0, MPH_S_NOADDR, 0, 1, 0 },
	{ __LINE__, "weight above 32 bits saturates",
	  USER_IP, 0x601000, 0, 1ull << 40, 100, 101, 0, A | W, 0, V0, 4,
	  0, MPH_S_EXACT | MPH_S_HWADDR, 0x601000, UINT32_MAX, 0 },
	{ __LINE__, "kernel ip refused",
	  KERN_IP, 0, 0, 0, 100, 101, 0, R, 1, V0, 4, -EPERM, 0, 0, 0, 0 },
	{ __LINE__, "kernel flag refused even with a user-looking ip",
	  USER_IP, 0, 0, 0, 100, 101, 0, R | K, 1, V0, 4, -EPERM, 0, 0, 0, 0 },
	{ __LINE__, "ip 0 refused",
	  0, 0, 0, 0, 100, 101, 0, R, 1, V0, 4, -EPERM, 0, 0, 0, 0 },
	{ __LINE__, "cpu beyond the module's nr_cpus refused",
	  USER_IP, 0, 0, 0, 100, 101, 4, R, 1, V0, 4, -ERANGE, 0, 0, 0, 0 },
	{ __LINE__, "cpu beyond the 16-bit sample field refused",
	  USER_IP, 0, 0, 0, 100, 101, 70000, R, 1, V0, 100000, -ERANGE, 0, 0, 0, 0 },
	{ __LINE__, "last cpu accepted",
	  USER_IP, 0, 0, 0, 100, 101, 3, R, 1, V0, 4,
	  0, MPH_S_NOADDR | MPH_S_NOPRED, 0, 1, 1 },
	{ __LINE__, "tid 0 refused",
	  USER_IP, 0, 0, 0, 100, 0, 0, R, 1, V0, 4, -ERANGE, 0, 0, 0, 0 },
	{ __LINE__, "record shorter than version 0 refused",
	  USER_IP, 0, 0, 0, 100, 101, 0, R, 1, V0 - 8, 4, -EINVAL, 0, 0, 0, 0 },
	{ __LINE__, "longer record (newer module) decodes",
	  USER_IP, 0, 0, 0, 100, 101, 0, R, 1, V0 + 64, 4,
	  0, MPH_S_NOADDR | MPH_S_NOPRED, 0, 1, 1 },
	{ __LINE__, "unknown flag bits ignored",
	  USER_IP, 0, 0, 0, 100, 101, 0, R | (1u << 20), 1, V0, 4,
	  0, MPH_S_NOADDR | MPH_S_NOPRED, 0, 1, 1 },
};

static void run_dcase(const struct dcase *c)
{
	unsigned char buf[V0 + 64];
	struct memphismod_record r;
	struct memphis__kmod_sample out;
	int ret, ok;

	memset(&r, 0, sizeof(r));
	r.time = 123456789;
	r.ip = c->ip;
	r.addr = c->addr;
	r.data_src = c->data_src;
	r.weight = c->weight;
	r.pid = c->pid;
	r.tid = c->tid;
	r.cpu = c->cpu;
	r.flags = c->flags;
	for (int i = 0; c->regs && i < MEMPHISMOD_NREGS; i++)
		r.regs[i] = 0x1000 + (uint64_t)i;
	memset(buf, 0xa5, sizeof(buf)); /* a newer module's extra fields: garbage to us */
	memcpy(buf, &r, sizeof(r));
	ret = memphis__kmod_decode(buf, c->rec_size, c->ncpus, &out);
	ok = ret == c->ret;
	if (ok && ret == 0) {
		ok = out.s.flags == c->sflags && out.s.addr == c->saddr &&
		     out.s.weight == c->sweight && out.has_regs == c->has_regs &&
		     out.s.time == 123456789 && out.s.sampled_ip == c->ip && out.s.ip == c->ip &&
		     out.s.tid == c->tid && out.s.cpu == c->cpu && out.pid == c->pid &&
		     out.s.data_src == ((c->flags & D) ? c->data_src : 0);
		for (int i = 0; ok && c->has_regs && i < MPH_NREGS; i++)
			ok = out.regs[i] == 0x1000 + (uint64_t)i;
	}
	if (!ok)
		printf("# got ret %d flags %#x addr %#llx weight %u has_regs %d\n", ret,
		       out.s.flags, (unsigned long long)out.s.addr, out.s.weight, out.has_regs);
	tap(ok, c->line, "decode: %s", c->what);
}

/* The first version of the ABI must never change: sizes and the offsets readers rely on. */
static void test_layout(void)
{
	tap(sizeof(struct memphismod_record) == MEMPHISMOD_RECORD_SIZE_VER0 &&
	    offsetof(struct memphismod_record, time) == 0 &&
	    offsetof(struct memphismod_record, ip) == 8 &&
	    offsetof(struct memphismod_record, addr) == 16 &&
	    offsetof(struct memphismod_record, data_src) == 24 &&
	    offsetof(struct memphismod_record, weight) == 32 &&
	    offsetof(struct memphismod_record, pid) == 40 &&
	    offsetof(struct memphismod_record, tid) == 44 &&
	    offsetof(struct memphismod_record, cpu) == 48 &&
	    offsetof(struct memphismod_record, flags) == 52 &&
	    offsetof(struct memphismod_record, regs) == 56, __LINE__,
	    "uapi: record layout of ABI version 1 (192 bytes)");
	tap(sizeof(struct memphismod_version) == MEMPHISMOD_VERSION_SIZE_VER0 &&
	    sizeof(struct memphismod_config) == MEMPHISMOD_CONFIG_SIZE_VER0 &&
	    sizeof(struct memphismod_start) == MEMPHISMOD_START_SIZE_VER0 &&
	    sizeof(struct memphismod_read) == MEMPHISMOD_READ_SIZE_VER0 &&
	    offsetof(struct memphismod_version, size) == 0 &&
	    offsetof(struct memphismod_config, size) == 0 &&
	    offsetof(struct memphismod_start, size) == 0 &&
	    offsetof(struct memphismod_read, size) == 0, __LINE__,
	    "uapi: argument structs start with size and keep their version-0 sizes");
	tap(MEMPHISMOD_NREGS == MPH_NREGS, __LINE__,
	    "uapi: the record carries the 17 registers of lib/insn.h");
	tap(_IOC_SIZE(MEMPHISMOD_IOC_READ) == 8 && _IOC_TYPE(MEMPHISMOD_IOC_READ) == 0xB7 &&
	    _IOC_NR(MEMPHISMOD_IOC_GET_VERSION) == 1 && _IOC_NR(MEMPHISMOD_IOC_READ) == 5,
	    __LINE__, "uapi: command numbers encode only the size header");
}

int main(void)
{
	size_t nd = sizeof(dcases) / sizeof(dcases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", nd + 4);
	for (size_t i = 0; i < nd; i++)
		run_dcase(&dcases[i]);
	test_layout();
	return n_fail ? 1 : 0;
}
