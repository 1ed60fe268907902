/* tests/unit/unit_hwdecode.c - hardware sample decoders (include/memphis/hwdecode.h) against
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
#define CTL_OP_EN (1ULL << 17)
#define CTL_OP_VAL ((1ULL << 18) | CTL_OP_EN) /* En and Val: a sample */
#define CTL_VAL_ONLY (1ULL << 18)
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
	{ __LINE__, "op_val clear: not a sample", CTL_OP_EN, 0, 0, D3_LD | D3_LIN_VALID, 0,
	  -1, 0, 0, 0, 0, 0, 0, MEMPHIS_SRC_NA, 0 },
	{ __LINE__, "Val without En (a stale register): not a sample", CTL_VAL_ONLY, 0, 0,
	  D3_LD | D3_LIN_VALID, 0, -1, 0, 0, 0, 0, 0, 0, MEMPHIS_SRC_NA, 0 },
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
	{ __LINE__, "Zen 4: near CCX cache (ext DataSrc 2): remote with hops 0, the same node: "
	  "not remote (W4)", CTL_OP_VAL, 0, D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
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
	{ __LINE__, "Zen 4: peer agent memory (ext DataSrc 12): no level in the kernel's table",
	  CTL_OP_VAL, 0, D2_SRC_HI(1) | D2_SRC_LO(4), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_NA, 0 },
	{ __LINE__, "Zen 4: PMEM (ext DataSrc 6)",
	  CTL_OP_VAL, 0, D2_SRC_LO(6), D3_LD | D3_DC_MISS | D3_L2_MISS, 1,
	  0, 1, 0, 1, 0, 1, 0, MEMPHIS_SRC_PMEM, 0 },
	{ __LINE__, "store missing L1, L2 hit: address kept, OP_DATA2 and latency unused",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_RMT_NODE, D3_ST | D3_LIN_VALID | D3_DC_MISS | D3_LAT(500), 0,
	  0, 1, 1, 0, 1, 1, 0, MEMPHIS_SRC_L2, 0 },
	{ __LINE__, "store missing L2: OP_DATA2 (loads only) ignored, no source",
	  CTL_OP_VAL, 0, D2_SRC_LO(3) | D2_RMT_NODE,
	  D3_ST | D3_LIN_VALID | D3_DC_MISS | D3_L2_MISS | D3_LAT(500), 0,
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
	{ __LINE__, "L3 miss, lvl bits only: missed L3, source unknown", S(OP, LOAD) | S(LVL, MISS) | S(LVL, L3), 1, 0, 0, MEMPHIS_SRC_L3_MISS },
	{ __LINE__, "uncached", S(OP, LOAD) | S(LVL, HIT) | S(LVL, UNC), 1, 0, 0, MEMPHIS_SRC_UNCACHED },
	{ __LINE__, "store, L1 hit", S(OP, STORE) | S(LVL, HIT) | S(LVL, L1), 0, 1, 0, MEMPHIS_SRC_L1 },
	{ __LINE__, "lvl_num RAM, remote", S(OP, LOAD) | S(LVLNUM, RAM) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_REMOTE_RAM },
	{ __LINE__, "lvl_num RAM, local", S(OP, LOAD) | S(LVLNUM, RAM), 1, 0, 0, MEMPHIS_SRC_LOCAL_RAM },
	{ __LINE__, "lvl_num any cache, remote (another node's cache)",
	  S(OP, LOAD) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
	{ __LINE__, "lvl_num L3, remote", S(OP, LOAD) | S(LVLNUM, L3) | S(REMOTE, REMOTE), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
	/* W4: uapi PERF_MEM_HOPS_0 "remote core, same node"; perf c2c's c2c_decode_stats()
	 * counts remote only with hops above 0 */
	{ __LINE__, "any cache, remote, hops 0: another core of this node: near, not remote",
	  S(OP, LOAD) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 0), 1, 0, 0, MEMPHIS_SRC_NEAR_CACHE },
	{ __LINE__, "lvl_num L3, remote, hops 0: another core's L3 in this node",
	  S(OP, LOAD) | S(LVLNUM, L3) | S(REMOTE, REMOTE) | S(HOPS, 0), 1, 0, 0, MEMPHIS_SRC_NEAR_CACHE },
	{ __LINE__, "lvl_num RAM, remote, hops 0: this node's DRAM",
	  S(OP, LOAD) | S(LVLNUM, RAM) | S(REMOTE, REMOTE) | S(HOPS, 0), 1, 0, 0, MEMPHIS_SRC_LOCAL_RAM },
	{ __LINE__, "any cache, remote, hops 1 (another node, same socket): far",
	  S(OP, LOAD) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 1), 1, 0, 1, MEMPHIS_SRC_FAR_CACHE },
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

/* ---- the kernel's IBS -> perf_mem_data_src mapping (perf_ibs_parse_ld_st_data), one case
 * per documented bit; expected values built with PERF_MEM_S() of <linux/perf_event.h>. */
#define D2_HIT_ST (1ULL << 5)
#define D3_L1TLB_MISS (1ULL << 2)
#define D3_L2TLB_MISS (1ULL << 3)
#define D3_UC (1ULL << 14)
#define D3_LOCKED (1ULL << 15)
#define D3_NO_MAB (1ULL << 16)
#define D3_PHY_VALID (1ULL << 18)
#define D3_SW_PF (1ULL << 21)
#define D3_WIDTH(w) ((unsigned long long)(w) << 22)
#define DATA_TAG_TO_RET(x) ((unsigned long long)(x) << 16)
#define LVLNUM_UNC 0x08ULL /* PERF_MEM_LVLNUM_UNC (v6.8), absent from older headers */
#define OPNA (S(OP, NA) | S(LVL, NA) | S(SNOOP, NA) | S(LOCK, NA) | S(TLB, NA) | S(LVLNUM, NA))
#define LD S(OP, LOAD)
#define ST S(OP, STORE)
#define HIT(x) (S(LVL, x) | S(LVL, HIT))
#define SN_NA S(SNOOP, NA)
#define LK_NA S(LOCK, NA)
#define TLB_NA S(TLB, NA)
#define TLB_L1 (S(TLB, L1) | S(TLB, HIT))
#define REM1 (S(REMOTE, REMOTE) | S(HOPS, 1))
#define ZEN4 MEMPHIS_IBS_CAPS_ZEN4
#define RIPCHK MEMPHIS_IBS_CAPS_RIPINVALIDCHK
#define OPDTLB (1u << 19) /* IBS_CAPS_OPDTLBPGSIZE, arch/x86/include/asm/perf_event.h */

struct ds_case {
	int line;
	const char *what;
	unsigned long long data2, data3;
	unsigned caps, family, model;
	unsigned long long want;  /* the kernel's data_src */
	unsigned src, remote, hitm, locked, l2_miss;
};

static const struct ds_case ds_cases[] = {
	{ __LINE__, "non-memory op: PERF_MEM_NA", 0, D3_LIN_VALID, 0, 0x17, 0x31,
	  OPNA, MEMPHIS_SRC_NA, 0, 0, 0, 0 },
	{ __LINE__, "load, L1 hit, no address: TLB n/a",
	  0, D3_LD, 0, 0x17, 0x31, LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "load, L1 hit, L1 TLB hit", 0, D3_LD | D3_LIN_VALID, 0, 0x17, 0x31,
	  LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | TLB_L1, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "L1 TLB miss, L2 TLB hit", 0, D3_LD | D3_LIN_VALID | D3_L1TLB_MISS, 0, 0x17, 0x31,
	  LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | S(TLB, L2) | S(TLB, HIT),
	  MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "both TLBs missed", 0, D3_LD | D3_LIN_VALID | D3_L1TLB_MISS | D3_L2TLB_MISS,
	  0, 0x17, 0x31, LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | S(TLB, L2) | S(TLB, MISS),
	  MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "Locked", 0, D3_LD | D3_LOCKED, 0, 0x17, 0x31,
	  LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | S(LOCK, LOCKED) | TLB_NA, MEMPHIS_SRC_L1, 0, 0, 1, 0 },
	{ __LINE__, "uncached (UC) wins over DcMiss", D2_SRC_LO(3), D3_LD | D3_UC | D3_DC_MISS, 0, 0x17, 0x31,
	  LD | HIT(UNC) | (LVLNUM_UNC << PERF_MEM_LVLNUM_SHIFT) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_UNCACHED, 0, 0, 0, 0 },
	{ __LINE__, "UC with DataSrc 7 (I/O) is I/O", D2_SRC_LO(7), D3_LD | D3_UC | D3_DC_MISS | D3_L2_MISS,
	  0, 0x17, 0x31, LD | HIT(IO) | S(LVLNUM, IO) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_IO, 0, 0, 0, 1 },
	{ __LINE__, "L2 hit", 0, D3_LD | D3_DC_MISS, 0, 0x17, 0x31,
	  LD | HIT(L2) | S(LVLNUM, L2) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_L2, 0, 0, 0, 0 },
	{ __LINE__, "Zen 3 erratum #1293: SwPf, L2Miss clear: no L2 hit, OP_DATA2 ignored",
	  D2_SRC_LO(3) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_SW_PF, 0, 0x19, 0x01,
	  LD | S(LVL, NA) | S(LVLNUM, NA) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_NA, 0, 0, 0, 0 },
	{ __LINE__, "Zen 3 erratum #1293: MissNoMabAlloc: an LFB (MAB) hit",
	  D2_SRC_LO(3) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS | D3_NO_MAB, 0, 0x19, 0x01,
	  LD | HIT(LFB) | S(LVLNUM, LFB) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_LFB, 0, 0, 0, 0 },
	{ __LINE__, "erratum #1293 not on Zen 3 model 0x10+: remote DRAM",
	  D2_SRC_LO(3) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS | D3_NO_MAB, 0, 0x19, 0x11,
	  LD | HIT(REM_RAM1) | S(LVLNUM, RAM) | REM1 | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_REMOTE_RAM, 1, 0, 0, 1 },
	{ __LINE__, "erratum #1293 not applied when the CPU is unknown",
	  D2_SRC_LO(3), D3_LD | D3_DC_MISS | D3_SW_PF, 0, 0, 0,
	  LD | HIT(L2) | S(LVLNUM, L2) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_L2, 0, 0, 0, 0 },
	{ __LINE__, "Zen 3 DataSrc 2, CacheHitSt 0 on Zen 2 (17h): HITM",
	  D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS, 0, 0x17, 0x31,
	  LD | HIT(L3) | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(HOPS, 0) | S(SNOOP, HITM) | LK_NA | TLB_NA,
	  MEMPHIS_SRC_L3, 0, 1, 0, 1 },
	{ __LINE__, "CacheHitSt 1: clean, no HITM", D2_SRC_LO(2) | D2_HIT_ST, D3_LD | D3_DC_MISS | D3_L2_MISS,
	  0, 0x17, 0x31, LD | HIT(L3) | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(HOPS, 0) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_L3, 0, 0, 0, 1 },
	{ __LINE__, "CacheHitSt not valid on Family 19h model 0x21: no HITM",
	  D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS, 0, 0x19, 0x21,
	  LD | HIT(L3) | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(HOPS, 0) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_L3, 0, 0, 0, 1 },
	{ __LINE__, "CacheHitSt not trusted for an unknown CPU", D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS,
	  0, 0, 0, LD | HIT(L3) | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(HOPS, 0) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_L3, 0, 0, 0, 1 },
	{ __LINE__, "Zen 3 DataSrc 3 RmtNode 0: local DRAM", D2_SRC_LO(3), D3_LD | D3_DC_MISS | D3_L2_MISS,
	  0, 0x19, 0x11, LD | HIT(LOC_RAM) | S(LVLNUM, RAM) | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_LOCAL_RAM, 0, 0, 0, 1 },
	{ __LINE__, "Zen 3 DataSrc 4: remote cache, remote whatever RmtNode says",
	  D2_SRC_LO(4), D3_LD | D3_DC_MISS | D3_L2_MISS, 0, 0x17, 0x31,
	  LD | HIT(REM_CCE2) | S(LVLNUM, ANY_CACHE) | REM1 | SN_NA | LK_NA | TLB_NA,
	  MEMPHIS_SRC_FAR_CACHE, 1, 0, 0, 1 },
	{ __LINE__, "Zen 3 DataSrc 7 RmtNode 1: I/O, RmtNode not applicable",
	  D2_SRC_LO(7) | D2_RMT_NODE, D3_LD | D3_DC_MISS | D3_L2_MISS, 0, 0x17, 0x31,
	  LD | HIT(IO) | S(LVLNUM, IO) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_IO, 0, 0, 0, 1 },
	{ __LINE__, "no DataSrc, MissNoMabAlloc: LFB", 0, D3_LD | D3_DC_MISS | D3_L2_MISS | D3_NO_MAB,
	  0, 0x17, 0x31, LD | HIT(LFB) | S(LVLNUM, LFB) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_LFB, 0, 0, 0, 1 },
	{ __LINE__, "store missing L2: OP_DATA2 not used, MAB", D2_SRC_LO(3) | D2_RMT_NODE,
	  D3_ST | D3_DC_MISS | D3_L2_MISS | D3_NO_MAB, 0, 0x17, 0x31,
	  ST | HIT(LFB) | S(LVLNUM, LFB) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_LFB, 0, 0, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 1: L3", D2_SRC_LO(1), D3_LD | D3_DC_MISS | D3_L2_MISS, ZEN4, 0x19, 0x11,
	  LD | HIT(L3) | S(LVLNUM, L3) | S(SNOOP, HITM) | LK_NA | TLB_NA, MEMPHIS_SRC_L3, 0, 1, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 2: near CCX, HITM", D2_SRC_LO(2), D3_LD | D3_DC_MISS | D3_L2_MISS,
	  ZEN4, 0x19, 0x11, LD | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(HOPS, 0) |
	  S(SNOOP, HITM) | LK_NA | TLB_NA, MEMPHIS_SRC_NEAR_CACHE, 0, 1, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 5: far CCX (another node), HITM", D2_SRC_LO(5) | D2_RMT_NODE,
	  D3_LD | D3_DC_MISS | D3_L2_MISS, ZEN4, 0x19, 0x11,
	  LD | HIT(REM_CCE2) | S(LVLNUM, ANY_CACHE) | REM1 | S(SNOOP, HITM) | LK_NA | TLB_NA,
	  MEMPHIS_SRC_FAR_CACHE, 1, 1, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 3 RmtNode 1: remote DRAM", D2_SRC_LO(3) | D2_RMT_NODE,
	  D3_LD | D3_DC_MISS | D3_L2_MISS, ZEN4, 0x19, 0x11,
	  LD | HIT(REM_RAM1) | S(LVLNUM, RAM) | REM1 | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 6 RmtNode 1: remote PMEM", D2_SRC_LO(6) | D2_RMT_NODE,
	  D3_LD | D3_DC_MISS | D3_L2_MISS, ZEN4, 0x19, 0x11,
	  LD | S(LVLNUM, PMEM) | REM1 | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_PMEM, 1, 0, 0, 1 },
	{ __LINE__, "Zen 4 DataSrc 8 (hi bits 1, lo 0): CXL", D2_SRC_HI(1), D3_LD | D3_DC_MISS | D3_L2_MISS,
	  ZEN4, 0x19, 0x11, LD | S(LVLNUM, CXL) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_CXL, 0, 0, 0, 1 },
	{ __LINE__, "hi bits without Zen 4 caps: DataSrc 0, no source", D2_SRC_HI(1), D3_LD | D3_DC_MISS | D3_L2_MISS,
	  0, 0x19, 0x11, LD | S(LVL, NA) | S(LVLNUM, NA) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_NA, 0, 0, 0, 1 },
	/* M5: IBS_CAPS_OPDTLBPGSIZE (Zen 5): perf_ibs_get_tlb_lvl() returns with TLB n/a
	 * unless PhyAddrValid (0b347a4218da "perf/amd/ibs: Update DTLB/PageSize decode logic") */
	{ __LINE__, "Zen 5 (caps OpDtlbPgSize): TLB bits without PhyAddrValid: TLB n/a",
	  0, D3_LD | D3_LIN_VALID, ZEN4 | OPDTLB, 0x1a, 0x02,
	  LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | TLB_NA, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "Zen 5 (caps OpDtlbPgSize): with PhyAddrValid the TLB bits hold",
	  0, D3_LD | D3_LIN_VALID | D3_PHY_VALID | D3_L1TLB_MISS, ZEN4 | OPDTLB, 0x1a, 0x02,
	  LD | HIT(L1) | S(LVLNUM, L1) | SN_NA | LK_NA | S(TLB, L2) | S(TLB, HIT), MEMPHIS_SRC_L1, 0, 0, 0, 0 },
};

static void run_ds(const struct ds_case *c)
{
	__u64 r[MEMPHIS_IBS_NREGS] = { CTL_OP_VAL, RIP, 0, c->data2, c->data3, LIN, 0x1000 };
	struct memphis_hw_access a;
	unsigned long long got = memphis_ibs_data_src(r, c->caps, c->family, c->model);
	int ret = memphis_ibs_decode(r, c->caps, c->family, c->model, &a);
	int ok = got == c->want && ret == 0 && a.data_src == c->want && a.src == c->src &&
		 a.remote == c->remote && a.hitm == c->hitm && a.locked == c->locked &&
		 a.l2_miss == c->l2_miss;

	if (!ok)
		printf("# got %#llx want %#llx; src %d remote %d hitm %d locked %d l2_miss %d\n", got,
		       c->want, a.src, a.remote, a.hitm, a.locked, a.l2_miss);
	tap(ok, c->line, "ibs data_src: %s", c->what);
}

/* ---- records built from published real-hardware values (HW-BACKENDS.md §1) */

/* payload: caps word then the registers, as perf's PERF_SAMPLE_RAW carries them after its
 * u32 size; returns the size. Unaligned on purpose (odd start). */
static __u32 raw_payload(unsigned char *buf, __u32 caps, const __u64 *regs, int n)
{
	memcpy(buf, &caps, 4);
	for (int i = 0; i < n; i++)
		memcpy(buf + 4 + 8 * i, &regs[i], 8);
	return 4u + 8u * (__u32)n;
}

static void test_real_ibs(void)
{
	unsigned char store[80], *buf = store + 1;
	struct memphis_hw_access a;
	__u32 size, caps;
	__u64 r[MEMPHIS_IBS_NREGS_MAX];
	/* tools/perf/Documentation/perf-amd-ibs.txt: an Op sample (a kernel store, Zen 3+) */
	const __u64 doc[] = { 0x000002c30006186aULL, 0xffffffff8204aea7ULL, 0x0000010002550001ULL,
			      0x13, 0x31960092ULL, 0xff110008a5398920ULL, 0x8a5398920ULL };
	/* a Zen 4 l3missonly DRAM load, equivalent to a published Genoa record: caps 0xbff
	 * (BrnTrgt, no OpData4), user addresses of our own */
	const __u64 zen4[] = { 0x5410007f424ULL, 0x401a2bULL, 0x4f70200ULL, 0x23,
			       0x1dc14d700a1ULL, 0x7f3c3b5784ULL, 0x11f7c3b5784ULL, 0x401a36ULL };

	size = raw_payload(buf, 0x3ff & ~MEMPHIS_IBS_CAPS_BRNTRGT, doc, 7);
	ok(size == 60 && memphis_ibs_raw_regs(buf, size, &caps, r) == 7 && r[6] == 0x8a5398920ULL,
	   "doc sample: 60-byte payload, 7 registers");
	ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x01, &a) == 0 && a.valid && a.ip_valid &&
	   a.ip == 0xffffffff8204aea7ULL, "doc sample: En+Val, RIP valid");
	ok(a.is_store && !a.is_load && a.miss && a.l2_miss && a.latency == 0 && a.ins_lat == 0 &&
	   a.width == 32, "doc sample: a 32-byte store that missed L1 and L2, no latency "
	   "(stores have none) (store %d miss %d l2 %d lat %u width %u)", a.is_store, a.miss,
	   a.l2_miss, a.latency, a.width);
	ok(a.addr_valid && a.addr == 0xff110008a5398920ULL && !a.addr_user && a.phys_valid &&
	   a.phys == 0x8a5398920ULL, "doc sample: linear and physical address valid; a kernel "
	   "address, not a user one");
	ok(a.data_src == (ST | S(LVL, NA) | S(LVLNUM, NA) | SN_NA | LK_NA | TLB_L1) &&
	   a.data_src == 0x1e29080024ULL && a.src == MEMPHIS_SRC_NA && !a.remote,
	   "doc sample: the kernel's data_src %#llx: store, level n/a (OP_DATA2 RmtNode is for "
	   "loads only), L1 TLB hit", (unsigned long long)a.data_src);

	size = raw_payload(buf, 0xbff, zen4, 8);
	ok(size == 68 && memphis_ibs_raw_regs(buf, size, &caps, r) == 8 && caps == 0xbff &&
	   r[MEMPHIS_IBS_BR_TARGET] == 0x401a36ULL, "Zen 4: 68-byte payload with BR_TARGET");
	ok(memphis_ibs_raw_decode(buf, size - 8, 0x19, 0x11, &a) == -1,
	   "Zen 4: caps announce BR_TARGET, 60 bytes are short: refused");
	ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == 0 && a.is_load && !a.is_store &&
	   a.addr_valid && a.addr_user && a.addr == 0x7f3c3b5784ULL && a.phys_valid,
	   "Zen 4: a load with valid user linear and physical addresses");
	ok(a.src == MEMPHIS_SRC_LOCAL_RAM && !a.remote && a.latency == 476 && a.width == 4 &&
	   a.ins_lat == 0x4f7, "Zen 4: DataSrc 3 (DRAM), RmtNode 0: local DRAM, DcMissLat 476, "
	   "width 4, TagToRet %u", a.ins_lat);
	ok(a.data_src == (LD | HIT(LOC_RAM) | S(LVLNUM, RAM) | SN_NA | LK_NA | TLB_L1),
	   "Zen 4: the kernel's data_src %#llx", (unsigned long long)a.data_src);
	{
		__u64 rm[8];
		memcpy(rm, zen4, sizeof(rm));
		rm[MEMPHIS_IBS_OP_DATA2] |= D2_RMT_NODE;
		size = raw_payload(buf, 0xbff & ~MEMPHIS_IBS_CAPS_BRNTRGT, rm, 7);
		ok(size == 60 && memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == 0 &&
		   a.src == MEMPHIS_SRC_REMOTE_RAM && a.remote && a.latency == 476,
		   "Zen 4 without BR_TARGET (60 bytes), RmtNode 1: remote DRAM");
		rm[MEMPHIS_IBS_OP_DATA] |= DATA_RIP_INVALID;
		rm[MEMPHIS_IBS_OP_DATA3] &= ~(D3_LIN_VALID | D3_PHY_VALID);
		raw_payload(buf, 0xbff & ~MEMPHIS_IBS_CAPS_BRNTRGT, rm, 7);
		ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == 0 && !a.ip_valid && !a.ip &&
		   !a.addr_valid && !a.addr && !a.phys_valid,
		   "RipInvalid, LinAddrValid and PhyAddrValid clear: no ip, no addresses");
		rm[MEMPHIS_IBS_OP_DATA3] &= ~3ULL; /* neither LdOp nor StOp */
		rm[MEMPHIS_IBS_OP_DATA3] |= D3_LIN_VALID;
		raw_payload(buf, 0xbff & ~MEMPHIS_IBS_CAPS_BRNTRGT, rm, 7);
		ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == 0 && a.valid && !a.has_src &&
		   !a.addr_valid && a.data_src == OPNA && !a.latency,
		   "non-memory op: valid sample, no address, no source, no latency");
		rm[MEMPHIS_IBS_OP_CTL] &= ~(1ULL << 17);
		raw_payload(buf, 0xbff & ~MEMPHIS_IBS_CAPS_BRNTRGT, rm, 7);
		ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == -1, "En clear: refused");
		/* M4: PhyAddrValid kept with DC_PHYSAD zeroed for a reader without
		 * perf_allow_kernel() (50a53b60e141, 723a290326e0) */
		memcpy(rm, zen4, sizeof(rm));
		rm[MEMPHIS_IBS_DC_PHYSAD] = 0;
		raw_payload(buf, 0xbff & ~MEMPHIS_IBS_CAPS_BRNTRGT, rm, 7);
		ok(memphis_ibs_raw_decode(buf, size, 0x19, 0x11, &a) == 0 && !a.phys_valid && !a.phys &&
		   a.addr_valid, "PhyAddrValid with a physical address of 0: no physical address (M4)");
	}
	{
		__u64 r4[9];
		memcpy(r4, zen4, sizeof(zen4));
		r4[8] = 0x5a5a;
		size = raw_payload(buf, 0xbff | MEMPHIS_IBS_CAPS_OPDATA4, r4, 9);
		ok(size == 76 && memphis_ibs_raw_regs(buf, size, &caps, r) == 9 &&
		   r[MEMPHIS_IBS_OP_DATA4] == 0x5a5a && r[MEMPHIS_IBS_BR_TARGET] == 0x401a36ULL,
		   "caps with OpData4: OP_DATA4 after BR_TARGET");
	}
	ok(memphis_ibs_raw_decode(buf, 3, 0, 0, &a) == -1, "payload shorter than its caps word");
}

struct perf_case {
	int line;
	const char *what;
	unsigned long long data_src, weight;
	int weight_struct;
	unsigned long long addr;
	/* expected */
	int has_src, is_load, is_store, remote, hitm;
	unsigned src, latency, ins_lat, addr_user;
};

static const struct perf_case perf_cases[] = {
	{ __LINE__, "SKX 0x10268100142 (LOAD, L1 hit), weight 0x47", 0x10268100142ULL, 0x47, 1,
	  0x7ffd1000, 1, 1, 0, 0, 0, MEMPHIS_SRC_L1, 0x47, 0, 1 },
	{ __LINE__, "SKX 0x11868100242 (LOAD, LFB hit, lvlnum 0xc), weight 0xe1", 0x11868100242ULL,
	  0xe1, 1, 0x7ffd1040, 1, 1, 0, 0, 0, MEMPHIS_SRC_LFB, 0xe1, 0, 1 },
	{ __LINE__, "WEIGHT_STRUCT var2 is the instruction latency", 0x11868100242ULL,
	  (0x1234ULL << 32) | 0xe1, 1, 0x7ffd1040, 1, 1, 0, 0, 0, MEMPHIS_SRC_LFB, 0xe1, 0x1234, 1 },
	{ __LINE__, "IvyBridge 0x68100142 (lvl bits only: L1 hit), plain WEIGHT 7", 0x68100142ULL, 7, 0,
	  0xffff881817d63e02ULL, 1, 1, 0, 0, 0, MEMPHIS_SRC_L1, 7, 0, 0 },
	{ __LINE__, "PERF_MEM_NA 0x1e05080021 (software event): no source", 0x1e05080021ULL, 0, 1,
	  0x601000, 0, 0, 0, 0, 0, MEMPHIS_SRC_NA, 0, 0, 1 },
	{ __LINE__, "remote DRAM (lvl REM_RAM1, lvlnum RAM, remote, hops 1)",
	  LD | HIT(REM_RAM1) | S(LVLNUM, RAM) | REM1 | S(SNOOP, HIT), 310, 1, 0x601040,
	  1, 1, 0, 1, 0, MEMPHIS_SRC_REMOTE_RAM, 310, 0, 1 },
	{ __LINE__, "remote cache HITM (REM_CCE1, any cache, remote)",
	  LD | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) | S(REMOTE, REMOTE) | S(SNOOP, HITM), 250, 1, 0x601080,
	  1, 1, 0, 1, 1, MEMPHIS_SRC_FAR_CACHE, 250, 0, 1 },
	{ __LINE__, "local L3 HITM (another core's modified line)",
	  LD | HIT(L3) | S(LVLNUM, L3) | S(SNOOP, HITM), 80, 1, 0x6010c0,
	  1, 1, 0, 0, 1, MEMPHIS_SRC_L3, 80, 0, 1 },
	{ __LINE__, "store, L1 hit (precise store)", ST | HIT(L1) | S(LVLNUM, L1), 0, 1, 0x601100,
	  1, 0, 1, 0, 0, MEMPHIS_SRC_L1, 0, 0, 1 },
	{ __LINE__, "weight above 32 bits, plain WEIGHT: clamped", 0x68100142ULL, 1ULL << 40, 0, 0x601100,
	  1, 1, 0, 0, 0, MEMPHIS_SRC_L1, 0xffffffffu, 0, 1 },
};

static void run_perf(const struct perf_case *c)
{
	struct memphis_hw_access a;
	int ok;

	memphis_perf_decode(c->data_src, c->weight, c->weight_struct, c->addr, 1, &a);
	ok = a.valid && a.has_src == c->has_src && a.is_load == c->is_load &&
	     a.is_store == c->is_store && a.remote == c->remote && a.hitm == c->hitm &&
	     a.src == c->src && a.latency == c->latency && a.ins_lat == c->ins_lat &&
	     a.addr_valid && a.addr == c->addr && a.addr_user == c->addr_user &&
	     a.data_src == c->data_src;
	if (!ok)
		printf("# got has_src %d load %d store %d remote %d hitm %d src %d lat %u ins %u user %d\n",
		       a.has_src, a.is_load, a.is_store, a.remote, a.hitm, a.src, a.latency,
		       a.ins_lat, a.addr_user);
	tap(ok, c->line, "perf data_src %#llx: %s", c->data_src, c->what);
}

/* ---- every row of the kernel's Intel PEBS data-source encoders (arch/x86/events/intel/
 * ds.c), each value built as the kernel builds it (its P(), OP_LH, LEVEL() and REM
 * spelled with PERF_MEM_S()), with what memphis must make of it:
 *  - pebs_data_source[] (Sandy Bridge and later), intel_pmu_pebs_data_source_nhm(),
 *    intel_pmu_pebs_data_source_skl(pmem), precise_store_data(), precise_datala_hsw():
 *    torvalds/linux ds.c @00ed905ab8e5, the same rows in the v6.5 file below;
 *  - __intel_pmu_pebs_data_source_grt() (ADL E-core), __intel_pmu_pebs_data_source_cmt()
 *    (MTL E-core), store_latency_data() (SPR/ADL P-core mem-stores: a load row with mem_op
 *    STORE): ds.c of v6.5 (intel_pmu_pebs_data_source_mtl);
 *  - lnc_pebs_data_source[] and lnl_latency_data() (Lion Cove P-core: Lunar and Arrow
 *    Lake): "perf/x86/intel: Support new data source for Lunar Lake" (Kan Liang, v6.11),
 *    with the uapi's PERF_MEM_LVLNUM_L2_MHB 0x05 and _MSC 0x06 it adds.
 * A missed level is not a source (review W2, W3); an L4 / memory-side cache is a cache of
 * the node, L2's miss buffer a miss buffer (M10); SNB-BDW 0x0b is remote DRAM although its
 * lvl_num says L3 (M12). TLB and lock bits, which ds.c ORs in afterwards, change none of it
 * (the SKX capture's values in perf_cases carry them). */
#define P(a, b) PERF_MEM_S(a, b)
#define OP_LH (P(OP, LOAD) | P(LVL, HIT))
#define LEVEL(x) P(LVLNUM, x)
#define REM P(REMOTE, REMOTE)
#define SNOOP_NONE_MISS (P(SNOOP, NONE) | P(SNOOP, MISS))
#define LEVEL_L2_MHB (0x05ULL << PERF_MEM_LVLNUM_SHIFT) /* v6.11, not in older headers */
#define LEVEL_MSC (0x06ULL << PERF_MEM_LVLNUM_SHIFT)
/* PERF_MEM_NA as of v6.6 (5c6e623f1b8e adds LVLNUM NA), the base of precise_datala_hsw() */
#define MEM_NA (P(OP, NA) | P(LVL, NA) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA) | LEVEL(NA))
#define AS_STORE(v) (((v) & ~0x1fULL) | P(OP, STORE)) /* store_latency_data(): mem_op STORE */

struct ktab_case {
	int line;
	const char *what;
	unsigned long long v;
	int is_load, is_store;
	unsigned src;
	int remote, hitm, miss, l2_miss;
};

static const struct ktab_case ktab_cases[] = {
	/* pebs_data_source[], Sandy Bridge and later */
	{ __LINE__, "0x00 ukn L3: missed L3, source unknown (W2)",
	  P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA), 1, 0, MEMPHIS_SRC_L3_MISS, 0, 0, 1, 1 },
	{ __LINE__, "0x01 L1 local", OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "0x02 LFB hit", OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_LFB, 0, 0, 1, 0 },
	{ __LINE__, "0x03 L2 hit", OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L2, 0, 0, 1, 0 },
	{ __LINE__, "0x04 L3 hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "0x05 L3 hit, snoop miss", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, MISS),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "0x06 L3 hit, snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "0x07 L3 hit, snoop hitm", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_L3, 0, 1, 1, 1 },
	{ __LINE__, "0x08 L3 miss, snoop hit: another socket's cache",
	  OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HIT), 1, 0, MEMPHIS_SRC_FAR_CACHE, 1, 0, 1, 1 },
	{ __LINE__, "0x09 L3 miss, snoop hitm",
	  OP_LH | P(LVL, REM_CCE1) | REM | LEVEL(L3) | P(SNOOP, HITM), 1, 0, MEMPHIS_SRC_FAR_CACHE, 1, 1, 1, 1 },
	{ __LINE__, "0x0a L3 miss, shared: local DRAM", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_LOCAL_RAM, 0, 0, 1, 1 },
	{ __LINE__, "0x0b L3 miss, shared: remote DRAM, lvl_num L3 notwithstanding (M12)",
	  OP_LH | P(LVL, REM_RAM1) | REM | LEVEL(L3) | P(SNOOP, HIT), 1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 1, 1 },
	{ __LINE__, "0x0c L3 miss, excl: local DRAM", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | SNOOP_NONE_MISS,
	  1, 0, MEMPHIS_SRC_LOCAL_RAM, 0, 0, 1, 1 },
	{ __LINE__, "0x0d L3 miss, excl: remote DRAM",
	  OP_LH | P(LVL, REM_RAM1) | LEVEL(RAM) | REM | SNOOP_NONE_MISS, 1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 1, 1 },
	{ __LINE__, "0x0e I/O", OP_LH | P(LVL, IO) | LEVEL(NA) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_IO, 0, 0, 1, 1 },
	{ __LINE__, "0x0f uncached", OP_LH | P(LVL, UNC) | LEVEL(NA) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_UNCACHED, 0, 0, 1, 1 },
	/* intel_pmu_pebs_data_source_nhm() */
	{ __LINE__, "NHM 0x05 L3 hit, snoop hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "NHM 0x06/0x07 L3 hit, snoop hitm", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_L3, 0, 1, 1, 1 },
	/* intel_pmu_pebs_data_source_skl(pmem): SKX and later servers with pmem, clients with L4 */
	{ __LINE__, "SKL 0x08 server: local PMEM", OP_LH | LEVEL(PMEM) | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_PMEM, 0, 0, 1, 1 },
	{ __LINE__, "SKL 0x09 server: remote PMEM", OP_LH | LEVEL(PMEM) | REM | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_PMEM, 1, 0, 1, 1 },
	{ __LINE__, "SKL 0x08 client: L4 (eDRAM), a cache of the node (M10)", OP_LH | LEVEL(L4) | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_NEAR_CACHE, 0, 0, 1, 1 },
	{ __LINE__, "SKL 0x09 client: remote L4", OP_LH | LEVEL(L4) | REM | P(SNOOP, HIT),
	  1, 0, MEMPHIS_SRC_FAR_CACHE, 1, 0, 1, 1 },
	{ __LINE__, "SKL 0x0b remote DRAM (lvl_num only)", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 1, 1 },
	{ __LINE__, "SKL 0x0c remote cache, forward", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOPX, FWD),
	  1, 0, MEMPHIS_SRC_FAR_CACHE, 1, 0, 1, 1 },
	{ __LINE__, "SKL 0x0d remote cache, hitm", OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_FAR_CACHE, 1, 1, 1, 1 },
	/* __intel_pmu_pebs_data_source_grt() (Gracemont) */
	{ __LINE__, "GRT 0x08 L3 hit, forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	/* __intel_pmu_pebs_data_source_cmt() (Crestmont) */
	{ __LINE__, "CMT 0x08 L3 hit, hitm", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_L3, 0, 1, 1, 1 },
	{ __LINE__, "CMT 0x0a local DRAM", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_LOCAL_RAM, 0, 0, 1, 1 },
	{ __LINE__, "CMT 0x0b remote DRAM", OP_LH | LEVEL(RAM) | REM | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 1, 1 },
	{ __LINE__, "CMT 0x0c remote DRAM, forward", OP_LH | LEVEL(RAM) | REM | P(SNOOPX, FWD),
	  1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 0, 1, 1 },
	{ __LINE__, "CMT 0x0d remote DRAM, hitm", OP_LH | LEVEL(RAM) | REM | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_REMOTE_RAM, 1, 1, 1, 1 },
	/* lnc_pebs_data_source[] and lnl_latency_data() (Lion Cove) */
	{ __LINE__, "LNC 0x00 ukn L3 (W2)", P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA),
	  1, 0, MEMPHIS_SRC_L3_MISS, 0, 0, 1, 1 },
	{ __LINE__, "LNC 0x01/0x02 L1 hit", OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "LNC 0x03 LFB / L1 miss handling buffer", OP_LH | P(LVL, LFB) | LEVEL(LFB) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_LFB, 0, 0, 1, 0 },
	{ __LINE__, "LNC 0x05 L2 hit", OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L2, 0, 0, 1, 0 },
	{ __LINE__, "LNC 0x06 L2 miss handling buffer: a miss buffer (M10)", OP_LH | LEVEL_L2_MHB | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_LFB, 0, 0, 1, 0 },
	{ __LINE__, "LNC 0x08 L3 hit", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "LNC 0x0c L3 hit, forward", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOPX, FWD),
	  1, 0, MEMPHIS_SRC_L3, 0, 0, 1, 1 },
	{ __LINE__, "LNC 0x0d L3 hit, hitm", OP_LH | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM),
	  1, 0, MEMPHIS_SRC_L3, 0, 1, 1, 1 },
	{ __LINE__, "LNC 0x0f L3 miss, snoop hitm: missed L3 (W2)",
	  P(OP, LOAD) | P(LVL, MISS) | P(LVL, L3) | LEVEL(L3) | P(SNOOP, HITM), 1, 0, MEMPHIS_SRC_L3_MISS, 0, 1, 1, 1 },
	{ __LINE__, "LNC 0x10 memory-side cache: a cache of the node (M10)", OP_LH | LEVEL_MSC | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_NEAR_CACHE, 0, 0, 1, 1 },
	{ __LINE__, "LNC 0x11 local memory", OP_LH | P(LVL, LOC_RAM) | LEVEL(RAM) | P(SNOOP, NONE),
	  1, 0, MEMPHIS_SRC_LOCAL_RAM, 0, 0, 1, 1 },
	{ __LINE__, "LNC reserved row (0): lnl_latency_data()'s load of unknown level",
	  P(OP, LOAD) | LEVEL(NA) | P(SNOOP, NA), 1, 0, MEMPHIS_SRC_NA, 0, 0, 0, 0 },
	{ __LINE__, "LNC store (mem-stores, PEBS_ST_HSW): 0x05 as a store", AS_STORE(OP_LH | P(LVL, L2) | LEVEL(L2) | P(SNOOP, NONE)),
	  0, 1, MEMPHIS_SRC_L2, 0, 0, 1, 0 },
	/* store_latency_data(): the load table's row, mem_op STORE (SPR, ADL/MTL P-core) */
	{ __LINE__, "store latency 0x01: an L1 store", AS_STORE(OP_LH | P(LVL, L1) | LEVEL(L1) | P(SNOOP, NONE)),
	  0, 1, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "store latency 0x00: a store that missed L3",
	  AS_STORE(P(OP, LOAD) | P(LVL, MISS) | LEVEL(L3) | P(SNOOP, NA)), 0, 1, MEMPHIS_SRC_L3_MISS, 0, 0, 1, 1 },
	{ __LINE__, "store latency 0x0d (SKL table): remote cache, hitm",
	  AS_STORE(OP_LH | LEVEL(ANY_CACHE) | REM | P(SNOOP, HITM)), 0, 1, MEMPHIS_SRC_FAR_CACHE, 1, 1, 1, 1 },
	/* precise_store_data() (Sandy Bridge to Broadwell precise stores): no lvl_num */
	{ __LINE__, "precise store, L1 hit", P(OP, STORE) | P(SNOOP, NA) | P(LVL, L1) | P(TLB, L2) | P(TLB, HIT) | P(LVL, HIT),
	  0, 1, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "precise store, L1 miss: missed L1, level unknown (W3)",
	  P(OP, STORE) | P(SNOOP, NA) | P(LVL, L1) | P(TLB, L2) | P(TLB, HIT) | P(LVL, MISS),
	  0, 1, MEMPHIS_SRC_L1_MISS, 0, 0, 1, 0 },
	/* precise_datala_hsw() (Skylake and later MEM_INST_RETIRED.ALL_STORES: DATALA_ST) */
	{ __LINE__, "DATALA store, L1 hit", (MEM_NA & ~0x1fULL & ~P(LVL, NA)) | P(OP, STORE) | P(LVL, L1) | P(LVL, HIT),
	  0, 1, MEMPHIS_SRC_L1, 0, 0, 0, 0 },
	{ __LINE__, "DATALA store, L1 miss: missed L1, level unknown (W3)",
	  (MEM_NA & ~0x1fULL & ~P(LVL, NA)) | P(OP, STORE) | P(LVL, L1) | P(LVL, MISS),
	  0, 1, MEMPHIS_SRC_L1_MISS, 0, 0, 1, 0 },
	{ __LINE__, "DATALA store, L1 miss, PERF_MEM_NA of v6.1-v6.5 (no lvl_num NA)",
	  P(OP, STORE) | P(SNOOP, NA) | P(LOCK, NA) | P(TLB, NA) | P(LVL, L1) | P(LVL, MISS),
	  0, 1, MEMPHIS_SRC_L1_MISS, 0, 0, 1, 0 },
	{ __LINE__, "DATALA load (PEBS_LD_HSW): op only, level n/a",
	  (MEM_NA & ~0x1fULL) | P(OP, LOAD), 1, 0, MEMPHIS_SRC_NA, 0, 0, 0, 0 },
};

static void run_ktab(const struct ktab_case *c)
{
	struct memphis_hw_access a;
	int ok;

	memset(&a, 0, sizeof(a));
	memphis_mem_src_decode(c->v, &a);
	ok = a.is_load == c->is_load && a.is_store == c->is_store && a.src == c->src &&
	     a.remote == c->remote && a.hitm == c->hitm && a.miss == c->miss &&
	     a.l2_miss == c->l2_miss && a.data_src == c->v;
	if (!ok)
		printf("# got load %d store %d src %d remote %d hitm %d miss %d l2_miss %d\n",
		       a.is_load, a.is_store, a.src, a.remote, a.hitm, a.miss, a.l2_miss);
	tap(ok, c->line, "ds.c %#llx: %s", c->v, c->what);
}

int main(void)
{
	size_t ni = sizeof(ibs_cases) / sizeof(ibs_cases[0]);
	size_t ns = sizeof(src_cases) / sizeof(src_cases[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (size_t i = 0; i < ni; i++)
		run_ibs(&ibs_cases[i]);
	for (size_t i = 0; i < ns; i++)
		run_src(&src_cases[i]);
	for (size_t i = 0; i < sizeof(ds_cases) / sizeof(ds_cases[0]); i++)
		run_ds(&ds_cases[i]);
	test_real_ibs();
	for (size_t i = 0; i < sizeof(perf_cases) / sizeof(perf_cases[0]); i++)
		run_perf(&perf_cases[i]);
	for (size_t i = 0; i < sizeof(ktab_cases) / sizeof(ktab_cases[0]); i++)
		run_ktab(&ktab_cases[i]);
	return tap_done();
}
