/* tests/unit/unit_kmod_decode.c - records of /dev/memphismod into samples (lib/backend/kmod_record.h), the
 * module's own conversion of a perf sample into a record (memphismod_rec_fill of
 * include/memphis/memphismod_rec.h, the code the module's NMI handler runs), and the uapi
 * layout both sides compile against (include/memphis/memphismod.h).
 *
 * Table-driven: each case builds one record from fields (the rest zero), decodes it with
 * the record size and CPU count of the case, and checks the result; a failing case names
 * its source line. Also: a record larger than this library knows (a newer module) decodes
 * the same, and the uapi structs keep their first-version sizes and offsets. The module's
 * conversion is fed samples built from published real-hardware values (PEBS data_src and
 * weights of a Skylake-SP capture, the IBS op registers of a Zen 4 DRAM load and of the
 * kernel's perf-amd-ibs documentation), each record then decoded by the library as READ
 * would hand it over. TAP output.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "kmod_record.h"
#include "memphis/memphismod.h"
#include "memphis/memphismod_rec.h"

#include "ibs_kernel_src.h"
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
	{ __LINE__, "data source without address (IBS op, no valid linear address): NOADDR|LOAD",
	  USER_IP, 0, PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVLNUM, L2), 0, 100, 101, 0, D, 0, V0, 4,
	  0, MPH_S_NOADDR | MPH_S_LOAD, 0, 1, 0 },
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

/* ins_lat is read only from records that have it: a first-version record (192 bytes)
 * followed by anything reads ins_lat 0. */
static void test_ins_lat(void)
{
	unsigned char buf[V0 + 64];
	struct memphismod_record r = { .time = 1, .ip = USER_IP, .addr = 0x601000, .pid = 100,
				       .tid = 101, .flags = A | MEMPHISMOD_REC_INS_LAT,
				       .ins_lat = 77 };
	struct memphis__kmod_sample out;
	int ret;

	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, &r, sizeof(r));
	ret = memphis__kmod_decode(buf, MEMPHISMOD_RECORD_SIZE_VER1, 4, &out);
	ok(ret == 0 && out.s.ins_lat == 77, "decode: ins_lat of a %d-byte record", MEMPHISMOD_RECORD_SIZE_VER1);
	ret = memphis__kmod_decode(buf, V0, 4, &out);
	ok(ret == 0 && out.s.ins_lat == 0 && out.s.addr == 0x601000,
	   "decode: a first-version record (192 bytes, then 0xa5 bytes) has no ins_lat");
	r.ins_lat = 0x12345;
	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.s.ins_lat == 0xffff, "decode: ins_lat beyond the sample's 16 bits saturates");
}

/* A LOST record (samples of one thread dropped on a full buffer) and a page-fault record
 * of the FAULTS stream decode as what they are, never as samples. */
static void test_lost_fault(void)
{
	struct memphismod_record r = { .time = 5, .weight = 37, .pid = 100, .tid = 101, .cpu = 2,
				       .flags = MEMPHISMOD_REC_LOST };
	struct memphis__kmod_sample out;
	int ret;

	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.lost == 37 && out.s.tid == 101 && out.s.cpu == 2 && out.pid == 100 &&
	   out.s.time == 5 && !out.fault && !out.has_regs,
	   "decode: a LOST record (ip 0) gives its thread's dropped samples");
	r.cpu = 4;
	ok(memphis__kmod_decode(&r, sizeof(r), 4, &out) == -ERANGE,
	   "decode: a LOST record with a cpu beyond nr_cpus is refused");
	r.cpu = 2;
	r.weight = 0;
	ok(memphis__kmod_decode(&r, sizeof(r), 4, &out) == -EINVAL,
	   "decode: a LOST record of 0 samples is refused (it would read as a sample at ip 0)");
	r.weight = 37;
	r.flags |= K;
	ok(memphis__kmod_decode(&r, sizeof(r), 4, &out) == -EPERM,
	   "decode: a LOST record with the kernel flag is refused");
	r = (struct memphismod_record){ .time = 6, .ip = USER_IP, .addr = 0x601000, .pid = 100,
					.tid = 102, .cpu = 1,
					.flags = MEMPHISMOD_REC_FAULT | A };
	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.fault && out.s.addr == 0x601000 && out.s.ip == USER_IP &&
	   out.s.tid == 102 && out.s.cpu == 1 && out.s.time == 6 && out.lost == 0,
	   "decode: a page-fault record gives ip, address, thread, cpu and time");
	r.addr = 0xffff888000001000ull;
	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.fault && out.s.addr == 0,
	   "decode: a page-fault record's kernel address is never passed on");
	r.addr = 0x601000;
	r.ip = KERN_IP;
	ok(memphis__kmod_decode(&r, sizeof(r), 4, &out) == -EPERM,
	   "decode: a page-fault record with a kernel ip is refused");
	r = (struct memphismod_record){ .ip = USER_IP, .pid = 100, .tid = 101, .flags = R };
	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.lost == 0 && !out.fault && !out.throttled,
	   "decode: a sample is neither LOST nor a fault nor throttled");
	r.flags = R | MEMPHISMOD_REC_THROTTLED;
	ret = memphis__kmod_decode(&r, sizeof(r), 4, &out);
	ok(ret == 0 && out.throttled && out.has_regs && out.s.ip == USER_IP && out.lost == 0,
	   "decode: a sample with REC_THROTTLED is still a sample and counts one throttle");
}

/* ---- the module's conversion (memphismod_rec_fill), then the library's decode ---- */

#define UTOP 0x00007ffffffff000ull /* TASK_SIZE_MAX with 4-level paging */
#define F_ADDR PERF_SAMPLE_ADDR
#define F_DSRC PERF_SAMPLE_DATA_SRC
#define F_WS PERF_SAMPLE_WEIGHT_STRUCT
#define F_RAW PERF_SAMPLE_RAW
#define K_CLK MEMPHISMOD_KIND_CPU_CLOCK
#define K_IBS MEMPHISMOD_KIND_IBS_OP
#define K_PEBS MEMPHISMOD_KIND_PEBS_LDLAT

/* PEBS load latency, Xeon Platinum 8173M (public capture, see ../shared/HW-BACKENDS.md):
 * data_src 0x10268100142 = LOAD, L1 hit (lvl_num L1); 0x11868100242 = LOAD, LFB hit. */
#define PEBS_SRC_L1 0x10268100142ull
#define PEBS_SRC_LFB 0x11868100242ull
/* IBS op registers of a Zen 4 DRAM load (perf record -e ibs_op/l3missonly=1/, caps 0xbff):
 * OP_DATA2 0x23 (DataSrc 3 = DRAM, RmtNode 0), OP_DATA3 0x1dc14d700a1 (LdOp, DcMiss,
 * MissNoMabAlloc, lin+phys valid, L2Miss, DcMissLat 476), OP_DATA 0x4f70200 (TagToRet
 * 0x4f7). The RIP and linear address were kernel addresses there; user ones stand in. */
#define ZEN4_CAPS 0xbffu
static const __u64 ibs_zen4_dram[MEMPHIS_IBS_NREGS] = {
	0x5410007f424ull, 0x401a2cull, 0x4f70200ull, 0x23ull, 0x1dc14d700a1ull,
	0x7f3a5c3b5784ull, 0x11f7c3b5784ull,
};
/* The same load served by another node's DRAM (OP_DATA2 RmtNode set). */
static const __u64 ibs_zen4_remote[MEMPHIS_IBS_NREGS] = {
	0x5410007f424ull, 0x401a2cull, 0x4f70200ull, 0x33ull, 0x1dc14d700a1ull,
	0x7f3a5c3b5784ull, 0x11f7c3b5784ull,
};
/* tools/perf/Documentation/perf-amd-ibs.txt: a kernel store, RIP and DC_LINAD kernel. */
static const __u64 ibs_doc_store[MEMPHIS_IBS_NREGS] = {
	0x000002c30006186aull, 0xffffffff8204aea7ull, 0x0000010002550001ull, 0x13ull,
	0x31960092ull, 0xff110008a5398920ull, 0x8a5398920ull,
};
/* An ALU op: op valid, neither load nor store. */
static const __u64 ibs_alu[MEMPHIS_IBS_NREGS] = { 0x5410007f424ull, 0x401a2cull, 0x4f70200ull };
/* op_val clear: no sample. */
static const __u64 ibs_invalid[MEMPHIS_IBS_NREGS] = { 0x5410003f424ull, 0x401a2cull, 0, 0x23ull,
						       0x1dc14d700a1ull, 0x7f3a5c3b5784ull };

/* The data source the kernel's IBS driver writes for a remote DRAM load (since the perf
 * mem IBS series): LOAD, lvl HIT|REM_RAM1, lvl_num RAM, remote. */
#define IBS_KSRC_REMOTE_DRAM (PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | \
			      PERF_MEM_S(LVL, REM_RAM1) | PERF_MEM_S(LVLNUM, RAM) | \
			      PERF_MEM_S(REMOTE, REMOTE))

struct fcase {
	int line;
	const char *what;
	/* sample */
	__u64 kind, sample_flags, addr, data_src, weight;
	const __u64 *ibs;
	__u64 ip;
	__u8 ours, user_mode, wstruct, zen3;
	/* expected record */
	int verdict;
	__u32 rflags;
	__u64 raddr, rweight;
	__u32 rins_lat;
	int rsrc; /* -1: data_src must be the sample's; else enum memphis_hw_src decoded */
	/* expected sample after the library's decode */
	__u16 sflags;
};

#define SRC_SAME (-1)
static const struct fcase fcases[] = {
	{ __LINE__, "PEBS L1 hit (SKX data_src 0x10268100142, weight 0x47, struct)",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0x7ffd1234, PEBS_SRC_L1, 0x47, NULL, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A | D | W, 0x7ffd1234, 0x47, 0, SRC_SAME,
	  MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "PEBS LFB hit (SKX data_src 0x11868100242, weight 0xe1, instruction latency 0x102)",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0x601040, PEBS_SRC_LFB, (0x102ull << 32) | 0xe1, NULL,
	  USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A | D | W | MEMPHISMOD_REC_INS_LAT, 0x601040, 0xe1, 0x102, SRC_SAME,
	  MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "PEBS with plain WEIGHT: the whole value is the latency",
	  K_PEBS, F_ADDR | F_DSRC | PERF_SAMPLE_WEIGHT, 0x601040, PEBS_SRC_L1, 0x47, NULL, USER_IP,
	  1, 1, 0, 0, MEMPHISMOD_REC_KEEP, A | D | W, 0x601040, 0x47, 0, SRC_SAME,
	  MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "PEBS: fields the driver did not flag are not read (garbage stays out)",
	  K_PEBS, F_ADDR, 0x601040, PEBS_SRC_L1, 0x47, NULL, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A, 0x601040, 0, 0, 0, MPH_S_EXACT | MPH_S_HWADDR },
	{ __LINE__, "PEBS: a kernel data address is refused, the sample kept without it",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0xffff888012345678ull, PEBS_SRC_L1, 0x47, NULL, USER_IP,
	  1, 1, 1, 0, MEMPHISMOD_REC_KEEP, D | W, 0, 0x47, 0, SRC_SAME, MPH_S_NOADDR | MPH_S_LOAD },
	{ __LINE__, "PEBS: data address 0 is no address",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0, PEBS_SRC_L1, 0x47, NULL, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, D | W, 0, 0x47, 0, SRC_SAME, MPH_S_NOADDR | MPH_S_LOAD },
	{ __LINE__, "PEBS: another process's sample is dropped",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0x601040, PEBS_SRC_L1, 0x47, NULL, USER_IP, 0, 1, 1, 0,
	  MEMPHISMOD_REC_FOREIGN, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "PEBS: a kernel ip is dropped",
	  K_PEBS, F_ADDR | F_DSRC | F_WS, 0x601040, PEBS_SRC_L1, 0x47, NULL, KERN_IP, 1, 0, 1, 0,
	  MEMPHISMOD_REC_KERNEL_IP, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS raw (no driver data source): Zen 4 local DRAM load, latency 476, TagToRet 0x4f7",
	  K_IBS, F_RAW, 0, 0, 0, ibs_zen4_dram, 0x401a2c, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A | D | W | MEMPHISMOD_REC_INS_LAT, 0x7f3a5c3b5784ull, 476, 0x4f7,
	  MEMPHIS_SRC_LOCAL_RAM, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "IBS raw: remote DRAM load (RmtNode): REMOTE_HW",
	  K_IBS, F_RAW, 0, 0, 0, ibs_zen4_remote, 0x401a2c, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A | D | W | MEMPHISMOD_REC_INS_LAT, 0x7f3a5c3b5784ull, 476, 0x4f7,
	  MEMPHIS_SRC_REMOTE_RAM, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD | MPH_S_REMOTE_HW },
	{ __LINE__, "IBS raw on Zen 3 (erratum 1293, MissNoMabAlloc set): DataSrc and RmtNode not "
	  "believed, the MAB hit instead (as the kernel's driver): LFB, no remote",
	  K_IBS, F_RAW, 0, 0, 0, ibs_zen4_remote, 0x401a2c, 1, 1, 1, 1,
	  MEMPHISMOD_REC_KEEP, A | D | W | MEMPHISMOD_REC_INS_LAT, 0x7f3a5c3b5784ull, 476, 0x4f7,
	  MEMPHIS_SRC_LFB, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "IBS raw: the documentation's kernel store is dropped (kernel RIP)",
	  K_IBS, F_RAW, 0, 0, 0, ibs_doc_store, 0xffffffff8204aea7ull, 1, 0, 1, 0,
	  MEMPHISMOD_REC_KERNEL_IP, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS raw: a user store to a kernel linear address keeps no address (and no "
	  "instruction latency: the driver gives TagToRet for load misses only)",
	  K_IBS, F_RAW, 0, 0, 0, ibs_doc_store, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, D, 0, 0, 0, MEMPHIS_SRC_NA,
	  MPH_S_NOADDR | MPH_S_STORE },
	{ __LINE__, "IBS raw: an op that neither loads nor stores is dropped",
	  K_IBS, F_RAW, 0, 0, 0, ibs_alu, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_NOMEM, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS raw: op_val clear is dropped",
	  K_IBS, F_RAW, 0, 0, 0, ibs_invalid, USER_IP, 1, 1, 1, 0,
	  MEMPHISMOD_REC_NOMEM, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS without raw registers and without a driver data source is dropped",
	  K_IBS, 0, 0, 0, 0, NULL, USER_IP, 1, 1, 1, 0, MEMPHISMOD_REC_NOMEM, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS, driver-filled fields never win over the raw registers (W1): a driver's "
	  "remote DRAM for a local DRAM load is local DRAM, 476 / 0x4f7",
	  K_IBS, F_ADDR | F_DSRC | F_WS | F_RAW, 0x7f3a5c3b5784ull, IBS_KSRC_REMOTE_DRAM,
	  (0x4f7ull << 32) | 476, ibs_zen4_dram, 0x401a2c, 1, 1, 1, 0,
	  MEMPHISMOD_REC_KEEP, A | D | W | MEMPHISMOD_REC_INS_LAT, 0x7f3a5c3b5784ull, 476, 0x4f7,
	  MEMPHIS_SRC_LOCAL_RAM, MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD },
	{ __LINE__, "IBS, a driver data source without raw registers is dropped (W1: only the "
	  "registers are decoded)", K_IBS, F_DSRC | F_ADDR, 0x601000, IBS_KSRC_REMOTE_DRAM, 0,
	  NULL, USER_IP, 1, 1, 1, 0, MEMPHISMOD_REC_NOMEM, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "IBS: another process's op (per-CPU event before 6.2) is dropped",
	  K_IBS, F_RAW, 0, 0, 0, ibs_zen4_dram, 0x401a2c, 0, 1, 1, 0,
	  MEMPHISMOD_REC_FOREIGN, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "clock: user mode, registers to be copied by the handler",
	  K_CLK, 0, 0, 0, 0, NULL, USER_IP, 1, 1, 0, 0,
	  MEMPHISMOD_REC_KEEP, R, 0, 0, 0, 0, MPH_S_NOADDR | MPH_S_NOPRED },
	{ __LINE__, "clock: kernel mode is dropped",
	  K_CLK, 0, 0, 0, 0, NULL, USER_IP, 1, 0, 0, 0, MEMPHISMOD_REC_KERNEL_IP, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "clock: ip 0 is dropped",
	  K_CLK, 0, 0, 0, 0, NULL, 0, 1, 1, 0, 0, MEMPHISMOD_REC_KERNEL_IP, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "clock: another process is dropped",
	  K_CLK, 0, 0, 0, 0, NULL, USER_IP, 0, 1, 0, 0, MEMPHISMOD_REC_FOREIGN, 0, 0, 0, 0, 0, 0 },
};

static void run_fcase(const struct fcase *c)
{
	struct memphismod_sample_in in = {
		.kind = c->kind, .sample_flags = c->sample_flags, .addr = c->addr,
		.data_src = c->data_src, .weight = c->weight, .ibs_regs = c->ibs,
		.ibs_caps = ZEN4_CAPS, .pid = 100, .tid = 101, .cpu = 3, .ip = c->ip,
		.time = 555, .user_top = UTOP, .ours = c->ours, .user_mode = c->user_mode,
		.weight_struct = c->wstruct,
		/* Zen 3 (erratum 1293) or Zen 4 Genoa */
		.cpu_family = 0x19, .cpu_model = c->zen3 ? 0x01 : 0x11,
	};
	struct memphismod_record r;
	struct memphis__kmod_sample out;
	struct memphis_hw_access a = { 0 };
	int v, ok, zero = 1;

	memset(&r, 0xa5, sizeof(r)); /* a reused ring slot */
	v = (int)memphismod_rec_fill(&in, &r);
	ok = v == c->verdict;
	if (ok && v != MEMPHISMOD_REC_KEEP) {
		const unsigned char *p = (const unsigned char *)&r;
		for (size_t i = 0; i < sizeof(r); i++) /* untouched */
			ok &= p[i] == 0xa5;
	}
	if (ok && v == MEMPHISMOD_REC_KEEP) {
		for (int i = 0; i < MEMPHISMOD_NREGS; i++)
			zero &= r.regs[i] == 0;
		memphis_mem_src_decode(r.data_src, &a);
		ok = r.flags == c->rflags && r.addr == c->raddr && r.weight == c->rweight &&
		     r.ins_lat == c->rins_lat && r.time == 555 && r.ip == c->ip && r.pid == 100 &&
		     r.tid == 101 && r.cpu == 3 && r.reserved == 0 && zero &&
		     (c->rsrc == SRC_SAME ? r.data_src == ((r.flags & D) ? c->data_src : 0)
					  : (int)a.src == c->rsrc);
		/* then as READ hands it to the library */
		ok = ok && memphis__kmod_decode(&r, sizeof(r), 4, &out) == 0 &&
		     out.s.flags == c->sflags && out.s.addr == c->raddr && out.pid == 100 &&
		     out.s.weight == ((r.flags & W) ? c->rweight : 1) && out.s.ins_lat == c->rins_lat;
	}
	if (!ok)
		printf("# got verdict %d flags %#x addr %#llx weight %llu ins_lat %u data_src %#llx "
		       "(src %d) sample flags %#x\n", v, r.flags, (unsigned long long)r.addr,
		       (unsigned long long)r.weight, r.ins_lat, (unsigned long long)r.data_src, a.src,
		       out.s.flags);
	tap(ok, c->line, "module conversion: %s", c->what);
}

/* One decoder: what the module records for raw IBS registers is the data source the
 * shared decoder (memphis_ibs_data_src, also the library's ibs backend's) gives them, on
 * Zen 3 and Zen 4 alike. */
static void test_one_ibs_decoder(void)
{
	static const __u64 *const regs[] = { ibs_zen4_dram, ibs_zen4_remote, ibs_doc_store };
	int bad = 0;

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (unsigned model = 0x01; model <= 0x11; model += 0x10) {
			struct memphismod_sample_in in = {
				.kind = K_IBS, .sample_flags = F_RAW, .ibs_regs = regs[i],
				.ibs_caps = ZEN4_CAPS, .pid = 1, .tid = 1, .ip = USER_IP, .time = 1,
				.user_top = UTOP, .ours = 1, .user_mode = 1, .cpu_family = 0x19,
				.cpu_model = model,
			};
			struct memphismod_record r = { 0 };
			__u64 want = memphis_ibs_data_src(regs[i], ZEN4_CAPS, 0x19, model);

			if (memphismod_rec_fill(&in, &r) != MEMPHISMOD_REC_KEEP || r.data_src != want) {
				printf("# case %zu model %#x: data_src %#llx, the decoder's %#llx\n", i,
				       model, (unsigned long long)r.data_src, (unsigned long long)want);
				bad++;
			}
		}
	ok(!bad, "module conversion: raw IBS registers give the shared decoder's data source");
}

/* W1: the driver's DATA_SRC of a 6.1-6.5 kernel and of a 6.6+ one for the same registers
 * (tests/unit/ibs_kernel_src.h): the module records the registers' data source, the same for
 * both, and the library decodes it to the right source and remote flag. */
static void test_ibs_kernel_src(void)
{
	for (size_t i = 0; i < sizeof(ks_cases) / sizeof(ks_cases[0]); i++) {
		const struct ks_case *c = &ks_cases[i];
		const __u64 regs[MEMPHIS_IBS_NREGS] = { 3ull << 17, USER_IP, 0, c->data2, KS_D3,
							0x7f0000001000ull, 0 };
		struct memphismod_sample_in in = {
			.kind = K_IBS, .sample_flags = F_RAW | F_ADDR | F_DSRC | F_WS,
			.addr = 0x7f0000001000ull, .weight = 300, .ibs_regs = regs, .ibs_caps = c->caps,
			.pid = 1, .tid = 1, .ip = USER_IP, .time = 1, .user_top = UTOP, .ours = 1,
			.weight_struct = 1, .cpu_family = c->family, .cpu_model = c->model,
		};
		struct memphismod_record r61, r66;
		struct memphis__kmod_sample out;
		struct memphis_hw_access a = { 0 };
		int v61, v66;

		in.data_src = c->k61;
		v61 = (int)memphismod_rec_fill(&in, &r61);
		in.data_src = c->k66;
		v66 = (int)memphismod_rec_fill(&in, &r66);
		memphis_mem_src_decode(r66.data_src, &a);
		ok(v61 == MEMPHISMOD_REC_KEEP && v66 == MEMPHISMOD_REC_KEEP &&
		   !memcmp(&r61, &r66, sizeof(r61)) && r66.data_src == c->k66 && a.src == c->src &&
		   memphis__kmod_decode(&r66, sizeof(r66), 4, &out) == 0 &&
		   !!(out.s.flags & MPH_S_REMOTE_HW) == c->remote && out.s.weight == 300,
		   "W1 module: %s: the 6.1 driver's data_src %#llx and the 6.6 one's %#llx give one "
		   "record, the registers' (%#llx, src %u)", c->what, c->k61, c->k66,
		   (unsigned long long)r66.data_src, a.src);
	}
}

/* M1: an IBS op whose RIP the CPU marked invalid (OP_DATA bit 38, with caps RipInvalidChk):
 * the kernel leaves the interrupted ip in regs. The module keeps the op's address and data
 * source, flags the ip, and the library takes no instruction for the op (ip 0) but keeps
 * where the CPU was (sampled_ip), as lib/backend/ibs.c does. */
static void test_ibs_rip_invalid(void)
{
	__u64 regs[MEMPHIS_IBS_NREGS];
	struct memphismod_sample_in in = {
		.kind = K_IBS, .sample_flags = F_RAW, .ibs_regs = regs, .ibs_caps = ZEN4_CAPS,
		.pid = 1, .tid = 1, .ip = USER_IP, .time = 1, .user_top = UTOP, .ours = 1,
		.cpu_family = 0x19, .cpu_model = 0x11,
	};
	struct memphismod_record r = { 0 };
	struct memphis__kmod_sample out;

	memcpy(regs, ibs_zen4_dram, sizeof(regs));
	ok(memphismod_rec_fill(&in, &r) == MEMPHISMOD_REC_KEEP &&
	   !(r.flags & MEMPHISMOD_REC_IP_INEXACT) && memphis__kmod_decode(&r, sizeof(r), 4, &out) == 0 &&
	   out.s.ip == USER_IP, "M1 module: a valid RIP is the sample's instruction");
	regs[2] |= 1ull << 38; /* OP_DATA RipInvalid */
	ok(memphismod_rec_fill(&in, &r) == MEMPHISMOD_REC_KEEP && (r.flags & MEMPHISMOD_REC_IP_INEXACT) &&
	   r.addr == ibs_zen4_dram[5] && memphis__kmod_decode(&r, sizeof(r), 4, &out) == 0 &&
	   out.s.ip == 0 && out.s.sampled_ip == USER_IP && out.s.addr == ibs_zen4_dram[5] &&
	   (out.s.flags & MPH_S_HWADDR),
	   "M1 module: RipInvalid: the address is kept, no instruction is the op's (ip 0, sampled ip %#llx)",
	   (unsigned long long)out.s.sampled_ip);
}

/* The first version of the ABI must never change: sizes and the offsets readers rely on. */
static void test_layout(void)
{
	tap(sizeof(struct memphismod_record) == MEMPHISMOD_RECORD_SIZE_VER1 &&
	    offsetof(struct memphismod_record, ins_lat) == MEMPHISMOD_RECORD_SIZE_VER0 &&
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
	    "uapi: record layout of ABI version 1 (192 bytes, then ins_lat appended: 200)");
	tap(sizeof(struct memphismod_version) == MEMPHISMOD_VERSION_SIZE_VER0 &&
	    sizeof(struct memphismod_config) == MEMPHISMOD_CONFIG_SIZE_VER1 &&
	    offsetof(struct memphismod_config, ldlat) == MEMPHISMOD_CONFIG_SIZE_VER0 &&
	    sizeof(struct memphismod_start) == MEMPHISMOD_START_SIZE_VER1 &&
	    offsetof(struct memphismod_start, exclude_tid) == MEMPHISMOD_START_SIZE_VER0 &&
	    sizeof(struct memphismod_read) == MEMPHISMOD_READ_SIZE_VER1 &&
	    offsetof(struct memphismod_read, throttled) == MEMPHISMOD_READ_SIZE_VER0 &&
	    sizeof(struct memphismod_faults) == MEMPHISMOD_FAULTS_SIZE_VER0 &&
	    offsetof(struct memphismod_faults, exclude_tid) == 16 &&
	    offsetof(struct memphismod_version, size) == 0 &&
	    offsetof(struct memphismod_config, size) == 0 &&
	    offsetof(struct memphismod_start, size) == 0 &&
	    offsetof(struct memphismod_read, size) == 0 &&
	    offsetof(struct memphismod_faults, size) == 0, __LINE__,
	    "uapi: argument structs start with size, keep their version-0 sizes and only grow at the end");
	tap(MEMPHISMOD_NREGS == MPH_NREGS, __LINE__,
	    "uapi: the record carries the 17 registers of lib/insn.h");
	tap(_IOC_SIZE(MEMPHISMOD_IOC_READ) == 8 && _IOC_TYPE(MEMPHISMOD_IOC_READ) == 0xB7 &&
	    _IOC_NR(MEMPHISMOD_IOC_GET_VERSION) == 1 && _IOC_NR(MEMPHISMOD_IOC_READ) == 5 &&
	    _IOC_SIZE(MEMPHISMOD_IOC_FAULTS) == 8 && _IOC_NR(MEMPHISMOD_IOC_FAULTS) == 6,
	    __LINE__, "uapi: command numbers encode only the size header");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++)
		run_dcase(&dcases[i]);
	test_ins_lat();
	test_lost_fault();
	for (size_t i = 0; i < sizeof(fcases) / sizeof(fcases[0]); i++)
		run_fcase(&fcases[i]);
	test_one_ibs_decoder();
	test_ibs_kernel_src();
	test_ibs_rip_invalid();
	test_layout();
	return tap_done();
}
