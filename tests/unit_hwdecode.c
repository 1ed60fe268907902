/* tests/unit_hwdecode.c - hardware sample decoders (include/memphis/hwdecode.h) against
 * the documented bit layouts: AMD IBS op registers as in the kernel's asm/amd-ibs.h (each
 * register value below is built from named bit positions of that header), and perf's
 * union perf_mem_data_src built with PERF_MEM_S() of <linux/perf_event.h>.
 * Table-driven, each case keeping its source line. TAP output. No hardware involved: no
 * machine of the project has an IBS or PEBS PMU.
 */
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "memphis/hwdecode.h"

#include "tap.h"

/* asm/amd-ibs.h bit positions */
#define CTL_OP_VAL (1ULL << 18)
#define DATA_RIP_INVALID (1ULL << 38)
#define D2_SRC_LO(x) ((unsigned long long)(x) & 7)
#define D2_RMT_NODE (1ULL << 4)
#define D2_SRC_HI(x) (((unsigned long long)(x) & 3) << 6)
#define D3_LD (1ULL << 0)
#define D3_ST (1ULL << 1)
#define D3_DC_MISS (1ULL << 7)
#define D3_LIN_VALID (1ULL << 17)
#define D3_L2_MISS (1ULL << 20)
#define D3_LAT(x) ((unsigned long long)(x) << 32)
#define D3_TLB_LAT(x) ((unsigned long long)(x) << 48) /* must not leak into latency */

#define RIP 0x401a2bULL
#define LIN 0x7f00dead0008ULL

struct ibs_case {
	int line;
	const char *what;
	unsigned long long ctl, data, data2, data3;
	int zen4;
	/* expected */
	int ret;
	int ip_valid, addr_valid, is_load, is_store, miss, remote;
	unsigned src, latency;
};

static const struct ibs_case ibs_cases[] = {
	{ __LINE__, "op_val clear: not a sample", 0, 0, 0, D3_LD | D3_LIN_VALID, 0,
	  -1, 0, 0, 0, 0, 0, 0, MEMPHIS_SRC_NA, 0 },
	{ __LINE__, "load hitting L1: address, no latency",
	  CTL_OP_VAL, 0, 0, D3_LD | D3_LIN_VALID | D3_TLB_LAT(77), 0,
	  0, 1, 1, 1, 0, 0, 0, MEMPHIS_SRC_L1, 0 },
	{ __LINE__, "load missing L1, hitting L2",
	  CTL_OP_VAL, 0, 0, D3_LD | D3_LIN_VALID | D3_DC_MISS | D3_LAT(40), 0,
	  0, 1, 1, 1, 0, 1, 0, MEMPHIS_SRC_L2, 40 },
	{ __LINE__, "Zen 3: local DRAM (DataSrc 3, RmtNode 0)",
	  CTL_OP_VAL, 0, D2_SRC_LO(3), D3_LD | D3_LIN_VALID | D3_DC_MISS | D3_L2_MISS | D3_LAT(300), 0,
	  0, 1, 1, 1, 0, 1, 0, MEMPHIS_SRC_LOCAL_RAM, 300 },
	{ __LINE__, "Zen 3: remote DRAM (DataSrc 3, RmtNode 1)",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_RMT_NODE,
	  D3_LD | D3_LIN_VALID | D3_DC_MISS | D3_L2_MISS | D3_LAT(650) | D3_TLB_LAT(0xffff), 0,
	  0, 1, 1, 1, 0, 1, 1, MEMPHIS_SRC_REMOTE_RAM, 650 },
	{ __LINE__, "Zen 3: local cache (DataSrc 2)",
	  CTL_OP_VAL, 0, D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS | D3_LAT(90), 0,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_L3, 90 },
	{ __LINE__, "Zen 3: another node's cache (DataSrc 4, RmtNode 1)",
	  CTL_OP_VAL, 0, D2_SRC_LO(4) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS | D3_LAT(200), 0,
	  0, 1, 0, 1, 0, 1, 1, MEMPHIS_SRC_FAR_CACHE, 200 },
	{ __LINE__, "Zen 3: I/O (DataSrc 7) is never remote",
	  CTL_OP_VAL, 0, D2_SRC_LO(7) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS, 0,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_IO, 0 },
	{ __LINE__, "Zen 3: high DataSrc bits ignored without the Zen 4 extension",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_SRC_HI(1), D3_LD | D3_DC_MISS | D3_L2_MISS, 0,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_LOCAL_RAM, 0 },
	{ __LINE__, "Zen 4: own CCX cache (ext DataSrc 1)",
	  CTL_OP_VAL, 0, D2_SRC_LO(1), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_L3, 0 },
	{ __LINE__, "Zen 4: near CCX cache (ext DataSrc 2)",
	  CTL_OP_VAL, 0, D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_NEAR_CACHE, 0 },
	{ __LINE__, "Zen 4: remote DRAM (ext DataSrc 3, RmtNode 1)",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_RMT_NODE, D3_LD | D3_LIN_VALID | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 1, 1, 0, 1, 1, MEMPHIS_SRC_REMOTE_RAM, 0 },
	{ __LINE__, "Zen 4: far CCX cache (ext DataSrc 5 = lo 5)",
	  CTL_OP_VAL, 0, D2_SRC_LO(5) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 1, MEMPHIS_SRC_FAR_CACHE, 0 },
	{ __LINE__, "Zen 4: extension memory (ext DataSrc 8 = hi 1, lo 0)",
	  CTL_OP_VAL, 0, D2_SRC_HI(1), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_CXL, 0 },
	{ __LINE__, "Zen 4: peer agent memory (ext DataSrc 12 = hi 1, lo 4)",
	  CTL_OP_VAL, 0, D2_SRC_HI(1) | D2_SRC_LO(4), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_CXL, 0 },
	{ __LINE__, "Zen 4: PMEM (ext DataSrc 6)",
	  CTL_OP_VAL, 0, D2_SRC_LO(6), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_PMEM, 0 },
	{ __LINE__, "store: address kept, no source, remote or latency",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_RMT_NODE, D3_ST | D3_LIN_VALID | D3_DC_MISS | D3_LAT(500), 0,
	  0, 1, 1, 0, 1, 1, 0, MEMPHIS_SRC_NA, 0 },
	{ __LINE__, "RIP invalid: ip not used",
	  CTL_OP_VAL, DATA_RIP_INVALID, 0, D3_LD, 0,
	  0, 0, 0, 1, 0, 0, 0, MEMPHIS_SRC_L1, 0 },
	{ __LINE__, "non-memory op with a stale valid-address bit: no address",
	  CTL_OP_VAL, 0, 0, D3_LIN_VALID, 0,
	  0, 1, 0, 0, 0, 0, 0, MEMPHIS_SRC_NA, 0 },
};

static void run_ibs(const struct ibs_case *c)
{
	__u64 r[MEMPHIS_IBS_NREGS] = { 0 };
	struct memphis_hw_access a;
	int ret, ok;

	r[MEMPHIS_IBS_OP_CTL] = c->ctl;
	r[MEMPHIS_IBS_OP_RIP] = RIP;
	r[MEMPHIS_IBS_OP_DATA] = c->data;
	r[MEMPHIS_IBS_OP_DATA2] = c->data2;
	r[MEMPHIS_IBS_OP_DATA3] = c->data3;
	r[MEMPHIS_IBS_DC_LINAD] = LIN;
	r[MEMPHIS_IBS_DC_PHYSAD] = 0x12345000;
	ret = memphis_ibs_op_decode(r, c->zen4, &a);
	ok = ret == c->ret;
	if (ok && ret == 0)
		ok = a.valid && a.ip_valid == c->ip_valid && a.ip == (c->ip_valid ? RIP : 0) &&
		     a.addr_valid == c->addr_valid && a.addr == (c->addr_valid ? LIN : 0) &&
		     a.is_load == c->is_load && a.is_store == c->is_store && a.miss == c->miss &&
		     a.remote == c->remote && a.src == c->src && a.latency == c->latency;
	if (!ok)
		printf("# got ret %d ip_valid %d addr_valid %d load %d store %d miss %d remote %d "
		       "src %d latency %u\n", ret, a.ip_valid, a.addr_valid, a.is_load, a.is_store,
		       a.miss, a.remote, a.src, a.latency);
	tap(ok, c->line, "ibs: %s", c->what);
}

struct src_case {
	int line;
	const char *what;
	unsigned long long v;
	int is_load, is_store, remote;
	unsigned src;
};

#define S(a, s) PERF_MEM_S(a, s)
static const struct src_case src_cases[] = {
	{ __LINE__, "zero: nothing known", 0, 0, 0, 0, MEMPHIS_SRC_NA },
	{ __LINE__, "load, L1 hit (lvl bits)", S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1), 1, 0, 0, MEMPHIS_SRC_L1 },
	{ __LINE__, "load, LFB hit", S(OP, LOAD) | S(LVL, HIT) | S(LVL, LFB), 1, 0, 0, MEMPHIS_SRC_LFB },
	{ __LINE__, "load, L3 hit", S(OP, LOAD) | S(LVL, HIT) | S(LVL, L3), 1, 0, 0, MEMPHIS_SRC_L3 },
	{ __LINE__, "load, local DRAM", S(OP, LOAD) | S(LVL, HIT) | S(LVL, LOC_RAM), 1, 0, 0, MEMPHIS_SRC_LOCAL_RAM },
	{ __LINE__, "load, remote DRAM 1 hop", S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_RAM1), 1, 0, 1, MEMPHIS_SRC_REMOTE_RAM },
	{ __LINE__, "load, remote DRAM 2 hops", S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_RAM2), 1, 0, 1, MEMPHIS_SRC_REMOTE_RAM },
	{ __LINE__, "load, remote cache", S(OP, LOAD) | S(LVL, HIT) | S(LVL, REM_CCE1), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
	{ __LINE__, "L3 miss without a level that hit: unknown", S(OP, LOAD) | S(LVL, MISS) | S(LVL, L3), 1, 0, 0, MEMPHIS_SRC_NA },
	{ __LINE__, "uncached", S(OP, LOAD) | S(LVL, HIT) | S(LVL, UNC), 1, 0, 0, MEMPHIS_SRC_UNCACHED },
	{ __LINE__, "store, L1 hit", S(OP, STORE) | S(LVL, HIT) | S(LVL, L1), 0, 1, 0, MEMPHIS_SRC_L1 },
	{ __LINE__, "lvl_num RAM, remote", S(OP, LOAD) | S(LVLNUM, RAM) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_REMOTE_RAM },
	{ __LINE__, "lvl_num RAM, local", S(OP, LOAD) | S(LVLNUM, RAM), 1, 0, 0, MEMPHIS_SRC_LOCAL_RAM },
	{ __LINE__, "lvl_num any cache, remote (another node's cache)",
	  S(OP, LOAD) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
	{ __LINE__, "lvl_num L3, remote", S(OP, LOAD) | S(LVLNUM, L3) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
	{ __LINE__, "lvl_num wins over lvl bits",
	  S(OP, LOAD) | S(LVL, HIT) | S(LVL, L1) | S(LVLNUM, L2), 1, 0, 0, MEMPHIS_SRC_L2 },
	{ __LINE__, "lvl_num PMEM", S(OP, LOAD) | S(LVLNUM, PMEM), 1, 0, 0, MEMPHIS_SRC_PMEM },
	{ __LINE__, "lvl_num CXL", S(OP, LOAD) | S(LVLNUM, CXL), 1, 0, 0, MEMPHIS_SRC_CXL },
	{ __LINE__, "lvl_num I/O with the remote bit: not remote",
	  S(OP, LOAD) | S(LVLNUM, IO) | S(REMOTE, REMOTE), 1, 0, 0, MEMPHIS_SRC_IO },
	{ __LINE__, "lvl_num NA falls back to lvl bits",
	  S(OP, LOAD) | S(LVLNUM, NA) | S(LVL, HIT) | S(LVL, L2), 1, 0, 0, MEMPHIS_SRC_L2 },
};

static void run_src(const struct src_case *c)
{
	struct memphis_hw_access a;
	int ok;

	memset(&a, 0, sizeof(a));
	a.ip = 7;
	memphis_mem_src_decode(c->v, &a);
	ok = a.is_load == c->is_load && a.is_store == c->is_store && a.remote == c->remote &&
	     a.src == c->src && a.ip == 7;
	if (!ok)
		printf("# got load %d store %d remote %d src %d\n", a.is_load, a.is_store, a.remote,
		       a.src);
	tap(ok, c->line, "perf_mem_data_src %#llx: %s", c->v, c->what);
}

int main(void)
{
	size_t ni = sizeof(ibs_cases) / sizeof(ibs_cases[0]);
	size_t ns = sizeof(src_cases) / sizeof(src_cases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("1..%zu\n", ni + ns);
	for (size_t i = 0; i < ni; i++)
		run_ibs(&ibs_cases[i]);
	for (size_t i = 0; i < ns; i++)
		run_src(&src_cases[i]);
	return n_fail ? 1 : 0;
}
