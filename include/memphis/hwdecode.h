/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * include/memphis/hwdecode.h - what a hardware memory sample says about its access: AMD IBS
 * op registers (perf's PERF_SAMPLE_RAW payload) and perf's union perf_mem_data_src with the
 * sample weight (Intel PEBS load latency and stores, and IBS when the kernel fills them in).
 * Pure inline functions on __u64 values, no library calls, so that the kernel module
 * (kmod/) and the library (lib/) share one decoder.
 *
 * One convention for both vendors: an IBS op is first turned into the perf_mem_data_src
 * value the kernel's perf_ibs_parse_ld_st_data (arch/x86/events/amd/ibs.c, v6.1 and later,
 * as of torvalds/linux 003c0414318a) would give it (memphis_ibs_data_src), and every access
 * is then classified from a perf_mem_data_src (memphis_mem_src_decode). So a raw IBS record
 * and one the kernel translated come out the same, and so do IBS and PEBS. Consequences of
 * that convention: Zen 3 DataSrc 4 ("remote cache") is remote whatever RmtNode says, and
 * Zen 4 DataSrc 2 (another CCX of the same node) carries mem_remote with hops 0, which
 * <linux/perf_event.h> defines as "remote core, same node": src NEAR_CACHE, not remote
 * (as perf c2c counts it).
 *
 * Layouts: IBS op MSRs as in the kernel's arch/x86/include/asm/amd-ibs.h (AMD PPR for
 * Family 19h): IBS_OP_CTL En bit 17, Val 18; IBS_OP_DATA TagToRet 16-31, RipInvalid 38;
 * IBS_OP_DATA2 DataSrcLo 0-2, RmtNode 4, CacheHitSt 5, DataSrcHi 6-7 (Zen 4); IBS_OP_DATA3
 * LdOp 0, StOp 1, DcL1TlbMiss 2, DcL2TlbMiss 3, DcMiss 7, UC 14, Locked 15, MissNoMabAlloc
 * 16, LinAddrValid 17, PhyAddrValid 18, L2Miss 20, SwPf 21, MemWidth 22-25, DcMissLat
 * 32-47. IBS caps (CPUID Fn8000_001B EAX): BrnTrgt bit 5, RipInvalidChk 7, OpData4 10,
 * Zen4 extensions 11. perf_mem_data_src as in <linux/perf_event.h> (mem_op 0-4, mem_lvl
 * 5-18, mem_snoop 19-23, mem_lock 24-25, mem_dtlb 26-32, mem_lvl_num 33-36, mem_remote 37,
 * mem_hops 43-45; LVLNUM_UNC 0x08 from v6.8).
 *
 * Tested against these documented layouts and against published register values of real
 * samples (tests/unit/unit_hwdecode.c); untested on hardware: no machine of the project has an
 * IBS or PEBS PMU.
 */
#ifndef MEMPHIS_HWDECODE_H
#define MEMPHIS_HWDECODE_H

#include <linux/types.h>

/* IBS op registers in the order of perf's raw IBS sample (after its 32-bit caps word);
 * BR_TARGET and OP_DATA4 follow only when the caps announce them. */
enum memphis_ibs_reg {
	MEMPHIS_IBS_OP_CTL, MEMPHIS_IBS_OP_RIP, MEMPHIS_IBS_OP_DATA, MEMPHIS_IBS_OP_DATA2,
	MEMPHIS_IBS_OP_DATA3, MEMPHIS_IBS_DC_LINAD, MEMPHIS_IBS_DC_PHYSAD, MEMPHIS_IBS_NREGS,
	MEMPHIS_IBS_BR_TARGET = MEMPHIS_IBS_NREGS, MEMPHIS_IBS_OP_DATA4, MEMPHIS_IBS_NREGS_MAX
};

/* IBS capability bits (CPUID Fn8000_001B EAX, the caps word of the raw sample). */
#define MEMPHIS_IBS_CAPS_BRNTRGT (1u << 5)
#define MEMPHIS_IBS_CAPS_RIPINVALIDCHK (1u << 7)
#define MEMPHIS_IBS_CAPS_OPDATA4 (1u << 10)
#define MEMPHIS_IBS_CAPS_ZEN4 (1u << 11)
#define MEMPHIS_IBS_CAPS_OPDTLBPGSIZE (1u << 19) /* Zen 5: DTLB bits valid with PhyAddrValid */

/* perf_mem_data_src fields (<linux/perf_event.h> values, spelled out for kernel and user). */
#define MEMPHIS_MEM_OP_NA 0x01ULL
#define MEMPHIS_MEM_OP_LOAD 0x02ULL
#define MEMPHIS_MEM_OP_STORE 0x04ULL
#define MEMPHIS_MEM_LVL(x) ((__u64)(x) << 5)
#define MEMPHIS_LVL_NA 0x01
#define MEMPHIS_LVL_HIT 0x02
#define MEMPHIS_LVL_MISS 0x04
#define MEMPHIS_LVL_L1 0x08
#define MEMPHIS_LVL_LFB 0x10
#define MEMPHIS_LVL_L2 0x20
#define MEMPHIS_LVL_L3 0x40
#define MEMPHIS_LVL_LOC_RAM 0x80
#define MEMPHIS_LVL_REM_RAM1 0x100
#define MEMPHIS_LVL_REM_RAM2 0x200
#define MEMPHIS_LVL_REM_CCE1 0x400
#define MEMPHIS_LVL_REM_CCE2 0x800
#define MEMPHIS_LVL_IO 0x1000
#define MEMPHIS_LVL_UNC 0x2000
#define MEMPHIS_MEM_SNOOP(x) ((__u64)(x) << 19)
#define MEMPHIS_SNOOP_NA 0x01
#define MEMPHIS_SNOOP_HITM 0x10
#define MEMPHIS_MEM_LOCK(x) ((__u64)(x) << 24)
#define MEMPHIS_LOCK_NA 0x01
#define MEMPHIS_LOCK_LOCKED 0x02
#define MEMPHIS_MEM_TLB(x) ((__u64)(x) << 26)
#define MEMPHIS_TLB_NA 0x01
#define MEMPHIS_TLB_HIT 0x02
#define MEMPHIS_TLB_MISS 0x04
#define MEMPHIS_TLB_L1 0x08
#define MEMPHIS_TLB_L2 0x10
#define MEMPHIS_MEM_LVLNUM(x) ((__u64)(x) << 33)
#define MEMPHIS_LVLNUM_L1 0x01
#define MEMPHIS_LVLNUM_L2 0x02
#define MEMPHIS_LVLNUM_L3 0x03
#define MEMPHIS_LVLNUM_L4 0x04
#define MEMPHIS_LVLNUM_L2_MHB 0x05 /* L2 miss handling buffer (v6.11) */
#define MEMPHIS_LVLNUM_MSC 0x06    /* memory-side cache (v6.11) */
#define MEMPHIS_LVLNUM_UNC 0x08
#define MEMPHIS_LVLNUM_CXL 0x09
#define MEMPHIS_LVLNUM_IO 0x0a
#define MEMPHIS_LVLNUM_ANY_CACHE 0x0b
#define MEMPHIS_LVLNUM_LFB 0x0c
#define MEMPHIS_LVLNUM_RAM 0x0d
#define MEMPHIS_LVLNUM_PMEM 0x0e
#define MEMPHIS_LVLNUM_NA 0x0f
#define MEMPHIS_MEM_REMOTE (1ULL << 37)
#define MEMPHIS_MEM_HOPS(x) ((__u64)(x) << 43)
#define MEMPHIS_HOPS_0 0x01 /* remote core, same node */
#define MEMPHIS_HOPS_1 0x02 /* remote node, same socket */
/* The kernel's PERF_MEM_NA: nothing known (what software events report). */
#define MEMPHIS_PERF_MEM_NA (MEMPHIS_MEM_OP_NA | MEMPHIS_MEM_LVL(MEMPHIS_LVL_NA) |	\
			     MEMPHIS_MEM_SNOOP(MEMPHIS_SNOOP_NA) |			\
			     MEMPHIS_MEM_LOCK(MEMPHIS_LOCK_NA) |			\
			     MEMPHIS_MEM_TLB(MEMPHIS_TLB_NA) |				\
			     MEMPHIS_MEM_LVLNUM(MEMPHIS_LVLNUM_NA))

/* Highest user-space address plus one on x86-64 (five-level paging: 57-bit user half).
 * Instruction and data addresses at or above it are the kernel's; the library's hardware
 * backends never keep them (the one limit of ibs.c and pebs.c). */
#define MEMPHIS_USER_ADDR_END (1ULL << 56)

/* Where the data came from, coarse enough for every vendor. */
enum memphis_hw_src {
	MEMPHIS_SRC_NA = 0,        /* not reported (non-memory ops, unknown codes) */
	MEMPHIS_SRC_L1,            /* first-level data cache hit */
	MEMPHIS_SRC_LFB,           /* line fill buffer / miss address buffer, L2's miss buffer */
	MEMPHIS_SRC_L2,
	MEMPHIS_SRC_L3,            /* the core's own last-level cache (AMD: its CCX) */
	MEMPHIS_SRC_NEAR_CACHE,    /* another cache of the same node (AMD: another CCX), an L4
	                            * or memory-side cache */
	MEMPHIS_SRC_FAR_CACHE,     /* a cache of another node */
	MEMPHIS_SRC_LOCAL_RAM,
	MEMPHIS_SRC_REMOTE_RAM,
	MEMPHIS_SRC_PMEM,
	MEMPHIS_SRC_CXL,           /* extension memory (CXL), peer-agent memory */
	MEMPHIS_SRC_IO,
	MEMPHIS_SRC_UNCACHED,
	MEMPHIS_SRC_L1_MISS,       /* missed L1; the level that served it not reported */
	MEMPHIS_SRC_L3_MISS,       /* missed L3 (DRAM or another cache); which not reported */
	MEMPHIS_SRC_COUNT
};

struct memphis_hw_access {
	__u64 ip;          /* the sampled instruction (when ip_valid) */
	__u64 addr;        /* its data address, linear (when addr_valid) */
	__u32 latency;     /* cycles the access took (IBS DcMissLat, PEBS weight var1), 0 when
	                    * not reported */
	__u8 valid;        /* the sample describes one retired op */
	__u8 ip_valid, addr_valid;
	__u8 is_load, is_store;
	__u8 miss;         /* missed the first-level data cache */
	__u8 remote;       /* the hardware says another node (mem_remote, but not with hops 0:
	                    * "remote core, same node", e.g. AMD's other CCX) */
	__u8 src;          /* enum memphis_hw_src */
	/* appended for issue 12 */
	__u64 phys;        /* physical data address (when phys_valid) */
	__u64 data_src;    /* union perf_mem_data_src, the kernel's convention for both vendors */
	__u16 ins_lat;     /* instruction latency (IBS TagToRet, PEBS weight var2), 0 unknown */
	__u16 width;       /* access width in bytes (IBS MemWidth), 0 unknown */
	__u8 phys_valid;
	__u8 addr_user;    /* addr_valid and addr below MEMPHIS_USER_ADDR_END */
	__u8 hitm;         /* snoop hit modified: the line was dirty in another cache */
	__u8 locked;       /* a locked (atomic) access */
	__u8 l2_miss;      /* missed L2 as well (IBS; PEBS: a level beyond L2) */
	__u8 has_src;      /* data_src names a load or a store (not PERF_MEM_NA) */
};

static inline __u64 memphis__bits(__u64 v, unsigned int lo, unsigned int n)
{
	return (v >> lo) & ((1ULL << n) - 1);
}

/* Decode perf's union perf_mem_data_src (PERF_SAMPLE_DATA_SRC) into op, level, remote,
 * HITM and lock. Sets data_src, has_src, is_load, is_store, src, remote, miss, l2_miss,
 * hitm and locked; leaves ip, addr, latency and the rest alone. The rules, each for a row
 * of a kernel table (tests/unit/unit_hwdecode.c replays them, citing the table):
 *  - A miss: mem_lvl MISS without HIT names the level that was missed (by mem_lvl_num,
 *    else the mem_lvl bits), not the one that served it: L3 gives L3_MISS (Intel ds.c
 *    pebs_data_source[0x00] "ukn L3", Lion Cove 0x0f), L1 or L2 L1_MISS (precise stores:
 *    precise_datala_hsw(), precise_store_data()); miss set, never remote.
 *  - Otherwise mem_lvl_num names the level when set: L4 and MSC (a memory-side cache, SKL
 *    client eDRAM, Lion Cove 0x10) are a cache of the node (NEAR_CACHE, FAR_CACHE when
 *    remote), L2_MHB (Lion Cove 0x06) a miss buffer (LFB); L3 with the mem_lvl hit bit
 *    REM_RAM1/2 is remote DRAM (Sandy Bridge to Broadwell 0x0b: "L3 miss, shared", lvl_num
 *    L3). The older mem_lvl bits answer when lvl_num is 0 or NA (a level counts when
 *    reported as a hit).
 *  - Remote: mem_remote, except with mem_hops HOPS_0, "remote core, same node"
 *    (<linux/perf_event.h>; perf c2c counts it as local): a cache there is NEAR_CACHE.
 *    Any cache of another core: remote FAR_CACHE, hops 0 NEAR_CACHE, local with the L3
 *    level bit L3, else NEAR_CACHE. I/O and unknown levels are never remote. */
static inline void memphis_mem_src_decode(__u64 v, struct memphis_hw_access *out)
{
	__u64 op = memphis__bits(v, 0, 5), lvl = memphis__bits(v, 5, 14);
	__u64 num = memphis__bits(v, 33, 4), hops = memphis__bits(v, 43, 3);
	int near = memphis__bits(v, 37, 1) && hops == MEMPHIS_HOPS_0; /* this node, another core */
	int remote = memphis__bits(v, 37, 1) && !near;

	out->data_src = v;
	out->is_load = (op & MEMPHIS_MEM_OP_LOAD) != 0;
	out->is_store = (op & MEMPHIS_MEM_OP_STORE) != 0;
	out->has_src = out->is_load || out->is_store;
	out->hitm = (memphis__bits(v, 19, 5) & MEMPHIS_SNOOP_HITM) != 0;
	out->locked = (memphis__bits(v, 24, 2) & MEMPHIS_LOCK_LOCKED) != 0;
	out->remote = 0;
	out->src = MEMPHIS_SRC_NA;
	if ((lvl & MEMPHIS_LVL_MISS) && !(lvl & MEMPHIS_LVL_HIT)) {
		__u64 missed = num >= MEMPHIS_LVLNUM_L1 && num <= MEMPHIS_LVLNUM_L3 ? num
			     : (lvl & MEMPHIS_LVL_L3) ? MEMPHIS_LVLNUM_L3
			     : (lvl & MEMPHIS_LVL_L2) ? MEMPHIS_LVLNUM_L2
			     : (lvl & MEMPHIS_LVL_L1) ? MEMPHIS_LVLNUM_L1 : 0;

		out->src = missed == MEMPHIS_LVLNUM_L3 ? MEMPHIS_SRC_L3_MISS
			 : missed ? MEMPHIS_SRC_L1_MISS : MEMPHIS_SRC_NA;
		out->miss = missed != 0;
		out->l2_miss = missed >= MEMPHIS_LVLNUM_L2;
		return;
	}
	switch (num) {
	case MEMPHIS_LVLNUM_L1: out->src = MEMPHIS_SRC_L1; break;
	case MEMPHIS_LVLNUM_L2: out->src = MEMPHIS_SRC_L2; break;
	case MEMPHIS_LVLNUM_L3:
		if ((lvl & MEMPHIS_LVL_HIT) && (lvl & (MEMPHIS_LVL_REM_RAM1 | MEMPHIS_LVL_REM_RAM2))) {
			out->src = MEMPHIS_SRC_REMOTE_RAM;
			remote = 1;
		} else {
			out->src = remote ? MEMPHIS_SRC_FAR_CACHE : near ? MEMPHIS_SRC_NEAR_CACHE
							 : MEMPHIS_SRC_L3;
		}
		break;
	case MEMPHIS_LVLNUM_L4:
	case MEMPHIS_LVLNUM_MSC:
		out->src = remote ? MEMPHIS_SRC_FAR_CACHE : MEMPHIS_SRC_NEAR_CACHE;
		break;
	case MEMPHIS_LVLNUM_L2_MHB: out->src = MEMPHIS_SRC_LFB; break;
	case MEMPHIS_LVLNUM_UNC: out->src = MEMPHIS_SRC_UNCACHED; break;
	case MEMPHIS_LVLNUM_CXL: out->src = MEMPHIS_SRC_CXL; break;
	case MEMPHIS_LVLNUM_IO: out->src = MEMPHIS_SRC_IO; break;
	case MEMPHIS_LVLNUM_ANY_CACHE:
		if (remote)
			out->src = MEMPHIS_SRC_FAR_CACHE;
		else if (near)
			out->src = MEMPHIS_SRC_NEAR_CACHE;
		else
			out->src = (lvl & MEMPHIS_LVL_L3) ? MEMPHIS_SRC_L3 : MEMPHIS_SRC_NEAR_CACHE;
		break;
	case MEMPHIS_LVLNUM_LFB: out->src = MEMPHIS_SRC_LFB; break;
	case MEMPHIS_LVLNUM_RAM:
		out->src = remote ? MEMPHIS_SRC_REMOTE_RAM : MEMPHIS_SRC_LOCAL_RAM;
		break;
	case MEMPHIS_LVLNUM_PMEM: out->src = MEMPHIS_SRC_PMEM; break;
	default: break;                                                 /* 0, NA */
	}
	if (out->src == MEMPHIS_SRC_NA && (lvl & MEMPHIS_LVL_HIT)) {
		if (lvl & MEMPHIS_LVL_L1)
			out->src = MEMPHIS_SRC_L1;
		else if (lvl & MEMPHIS_LVL_LFB)
			out->src = MEMPHIS_SRC_LFB;
		else if (lvl & MEMPHIS_LVL_L2)
			out->src = MEMPHIS_SRC_L2;
		else if (lvl & MEMPHIS_LVL_L3)
			out->src = MEMPHIS_SRC_L3;
		else if (lvl & MEMPHIS_LVL_LOC_RAM)
			out->src = MEMPHIS_SRC_LOCAL_RAM;
		else if (lvl & (MEMPHIS_LVL_REM_RAM1 | MEMPHIS_LVL_REM_RAM2))
			out->src = MEMPHIS_SRC_REMOTE_RAM;
		else if (lvl & (MEMPHIS_LVL_REM_CCE1 | MEMPHIS_LVL_REM_CCE2))
			out->src = MEMPHIS_SRC_FAR_CACHE;
		else if (lvl & MEMPHIS_LVL_IO)
			out->src = MEMPHIS_SRC_IO;
		else if (lvl & MEMPHIS_LVL_UNC)
			out->src = MEMPHIS_SRC_UNCACHED;
		remote = out->src == MEMPHIS_SRC_REMOTE_RAM || out->src == MEMPHIS_SRC_FAR_CACHE;
	}
	out->remote = (__u8)(remote && out->src != MEMPHIS_SRC_NA && out->src != MEMPHIS_SRC_IO);
	out->miss = out->src != MEMPHIS_SRC_L1 && out->src != MEMPHIS_SRC_NA;
	out->l2_miss = out->miss && out->src != MEMPHIS_SRC_LFB && out->src != MEMPHIS_SRC_L2;
}

/* Zen 3 erratum #1293 (Family 19h models 0-0Fh): OP_DATA2 and L2Miss are wrong when SwPf or
 * MissNoMabAlloc is set. family/model 0: unknown, not applied. */
static inline int memphis__ibs_erratum_1293(__u64 data3, unsigned int family, unsigned int model)
{
	return family == 0x19 && model <= 0xf &&
	       (memphis__bits(data3, 21, 1) || memphis__bits(data3, 16, 1));
}

/* The perf_mem_data_src value the kernel's perf_ibs_parse_ld_st_data gives this IBS op
 * (r: OP_CTL..DC_PHYSAD; caps: the raw sample's caps word, of which ZEN4 counts;
 * family/model: the CPU, for erratum #1293 and CacheHitSt validity, which is trusted only
 * when they are given and the kernel trusts it: not on Family 19h models 0-0Fh and
 * 20h-5Fh). A non-memory op gives MEMPHIS_PERF_MEM_NA. */
static inline __u64 memphis_ibs_data_src(const __u64 *r, __u32 caps, unsigned int family,
					 unsigned int model)
{
	__u64 data2 = r[MEMPHIS_IBS_OP_DATA2], data3 = r[MEMPHIS_IBS_OP_DATA3];
	__u64 v, lvl; /* every field of PERF_MEM_NA is set below: op, lvl, lvlnum, snoop, ... */
	int zen4 = (caps & MEMPHIS_IBS_CAPS_ZEN4) != 0, load = (int)memphis__bits(data3, 0, 1);
	unsigned int ds;
	int rmt, hitst_ok;

	if (!load && !memphis__bits(data3, 1, 1))
		return MEMPHIS_PERF_MEM_NA;
	v = load ? MEMPHIS_MEM_OP_LOAD : MEMPHIS_MEM_OP_STORE;
	if (memphis__ibs_erratum_1293(data3, family, model))
		data2 = 0;
	ds = (unsigned int)memphis__bits(data2, 0, 3);
	if (zen4)
		ds |= (unsigned int)memphis__bits(data2, 6, 2) << 3;
	rmt = (int)memphis__bits(data2, 4, 1);
#define MEMPHIS__L(x) (MEMPHIS_MEM_LVL((x) | MEMPHIS_LVL_HIT))
#define MEMPHIS__LN(x) MEMPHIS_MEM_LVLNUM(x)
#define MEMPHIS__REM1 (MEMPHIS_MEM_REMOTE | MEMPHIS_MEM_HOPS(MEMPHIS_HOPS_1))
	/* level: perf_ibs_get_mem_lvl */
	if (memphis__bits(data3, 14, 1) && ds != 7)
		lvl = MEMPHIS__L(MEMPHIS_LVL_UNC) | MEMPHIS__LN(MEMPHIS_LVLNUM_UNC);
	else if (!memphis__bits(data3, 7, 1))
		lvl = MEMPHIS__L(MEMPHIS_LVL_L1) | MEMPHIS__LN(MEMPHIS_LVLNUM_L1);
	else if (!memphis__bits(data3, 20, 1) && !memphis__ibs_erratum_1293(data3, family, model))
		lvl = MEMPHIS__L(MEMPHIS_LVL_L2) | MEMPHIS__LN(MEMPHIS_LVLNUM_L2);
	else {
		lvl = 0;
		if (load && zen4) {
			switch (ds) {
			case 1: lvl = MEMPHIS__L(MEMPHIS_LVL_L3) | MEMPHIS__LN(MEMPHIS_LVLNUM_L3); break;
			case 2: lvl = MEMPHIS__L(MEMPHIS_LVL_REM_CCE1) | MEMPHIS__LN(MEMPHIS_LVLNUM_ANY_CACHE) |
				      MEMPHIS_MEM_REMOTE | MEMPHIS_MEM_HOPS(MEMPHIS_HOPS_0); break;
			case 3: lvl = rmt ? MEMPHIS__L(MEMPHIS_LVL_REM_RAM1) | MEMPHIS__LN(MEMPHIS_LVLNUM_RAM) | MEMPHIS__REM1
					  : MEMPHIS__L(MEMPHIS_LVL_LOC_RAM) | MEMPHIS__LN(MEMPHIS_LVLNUM_RAM); break;
			case 5: lvl = MEMPHIS__L(MEMPHIS_LVL_REM_CCE2) | MEMPHIS__LN(MEMPHIS_LVLNUM_ANY_CACHE) |
				      MEMPHIS__REM1; break;
			case 6: lvl = MEMPHIS__LN(MEMPHIS_LVLNUM_PMEM) | (rmt ? MEMPHIS__REM1 : 0); break;
			case 7: lvl = MEMPHIS__L(MEMPHIS_LVL_IO) | MEMPHIS__LN(MEMPHIS_LVLNUM_IO); break;
			case 8: lvl = MEMPHIS__LN(MEMPHIS_LVLNUM_CXL) | (rmt ? MEMPHIS__REM1 : 0); break;
			default: break;
			}
		} else if (load) {
			switch (ds) {
			case 2: lvl = MEMPHIS__L(MEMPHIS_LVL_L3) | MEMPHIS__L(MEMPHIS_LVL_REM_CCE1) |
				      MEMPHIS__LN(MEMPHIS_LVLNUM_ANY_CACHE) | MEMPHIS_MEM_HOPS(MEMPHIS_HOPS_0); break;
			case 3: lvl = rmt ? MEMPHIS__L(MEMPHIS_LVL_REM_RAM1) | MEMPHIS__LN(MEMPHIS_LVLNUM_RAM) | MEMPHIS__REM1
					  : MEMPHIS__L(MEMPHIS_LVL_LOC_RAM) | MEMPHIS__LN(MEMPHIS_LVLNUM_RAM); break;
			case 4: lvl = MEMPHIS__L(MEMPHIS_LVL_REM_CCE2) | MEMPHIS__LN(MEMPHIS_LVLNUM_ANY_CACHE) |
				      MEMPHIS__REM1; break;
			case 7: lvl = MEMPHIS__L(MEMPHIS_LVL_IO) | MEMPHIS__LN(MEMPHIS_LVLNUM_IO); break;
			default: break;
			}
		}
		if (!lvl)  /* MAB hit only when no DataSrc: perf_ibs_get_mem_lvl's check_mab */
			lvl = memphis__bits(data3, 16, 1)
				? MEMPHIS__L(MEMPHIS_LVL_LFB) | MEMPHIS__LN(MEMPHIS_LVLNUM_LFB)
				: MEMPHIS_MEM_LVL(MEMPHIS_LVL_NA) | MEMPHIS__LN(MEMPHIS_LVLNUM_NA);
	}
	v |= lvl;
	/* snoop: perf_ibs_get_mem_snoop (CacheHitSt 0 on a cache source: modified elsewhere) */
	hitst_ok = family != 0 && !(family == 0x19 && (model <= 0xf || (model >= 0x20 && model <= 0x5f)));
	if (hitst_ok && load && !(lvl & MEMPHIS_MEM_LVL(MEMPHIS_LVL_L1 | MEMPHIS_LVL_L2)) &&
	    !memphis__bits(data2, 5, 1) &&
	    (zen4 ? (ds == 1 || ds == 2 || ds == 5) : ds == 2))
		v |= MEMPHIS_MEM_SNOOP(MEMPHIS_SNOOP_HITM);
	else
		v |= MEMPHIS_MEM_SNOOP(MEMPHIS_SNOOP_NA);
	/* data TLB: perf_ibs_get_tlb_lvl; with IBS_CAPS_OPDTLBPGSIZE (Zen 5) the TLB bits hold
	 * only with PhyAddrValid (0b347a4218da "perf/amd/ibs: Update DTLB/PageSize decode
	 * logic", v6.15) */
	if (!memphis__bits(data3, 17, 1) ||
	    ((caps & MEMPHIS_IBS_CAPS_OPDTLBPGSIZE) && !memphis__bits(data3, 18, 1)))
		v |= MEMPHIS_MEM_TLB(MEMPHIS_TLB_NA);
	else if (!memphis__bits(data3, 2, 1))
		v |= MEMPHIS_MEM_TLB(MEMPHIS_TLB_L1 | MEMPHIS_TLB_HIT);
	else if (!memphis__bits(data3, 3, 1))
		v |= MEMPHIS_MEM_TLB(MEMPHIS_TLB_L2 | MEMPHIS_TLB_HIT);
	else
		v |= MEMPHIS_MEM_TLB(MEMPHIS_TLB_L2 | MEMPHIS_TLB_MISS);
	v |= MEMPHIS_MEM_LOCK(memphis__bits(data3, 15, 1) ? MEMPHIS_LOCK_LOCKED : MEMPHIS_LOCK_NA);
#undef MEMPHIS__L
#undef MEMPHIS__LN
#undef MEMPHIS__REM1
	return v;
}

/* Decode one IBS op sample from its registers r (MEMPHIS_IBS_NREGS of them, OP_CTL first):
 * caps, family and model as for memphis_ibs_data_src. Honours every validity bit: En and
 * Val (else -1), RipInvalid (when caps has RipInvalidChk, as the kernel), LinAddrValid and
 * PhyAddrValid (memory ops only, a physical address 0 counts as none; addr_user says
 * whether the address is a user one),
 * OP_DATA2 for loads only and erratum #1293; latency (DcMissLat) and ins_lat (TagToRet) as
 * the kernel gives them: loads that missed L1 only. Level, remote, HITM and lock come from
 * memphis_ibs_data_src through memphis_mem_src_decode. Returns 0 or -1. */
static inline int memphis_ibs_decode(const __u64 *r, __u32 caps, unsigned int family,
				     unsigned int model, struct memphis_hw_access *out)
{
	__u64 ctl = r[MEMPHIS_IBS_OP_CTL], data = r[MEMPHIS_IBS_OP_DATA];
	__u64 data3 = r[MEMPHIS_IBS_OP_DATA3];
	unsigned int w;

	*out = (struct memphis_hw_access){ 0 };
	if (!memphis__bits(ctl, 17, 1) || !memphis__bits(ctl, 18, 1))
		return -1;
	out->valid = 1;
	out->ip_valid = !((caps & MEMPHIS_IBS_CAPS_RIPINVALIDCHK) && memphis__bits(data, 38, 1));
	out->ip = out->ip_valid ? r[MEMPHIS_IBS_OP_RIP] : 0;
	memphis_mem_src_decode(memphis_ibs_data_src(r, caps, family, model), out);
	if (!out->has_src)
		return 0;
	if (memphis__bits(data3, 17, 1)) {
		out->addr_valid = 1;
		out->addr = r[MEMPHIS_IBS_DC_LINAD];
		out->addr_user = out->addr < MEMPHIS_USER_ADDR_END;
	}
	/* PhyAddrValid with DC_PHYSAD 0: the kernel zeroes the address for readers without
	 * perf_allow_kernel() (50a53b60e141) and keeps the bit (723a290326e0) */
	if (memphis__bits(data3, 18, 1) && r[MEMPHIS_IBS_DC_PHYSAD]) {
		out->phys_valid = 1;
		out->phys = r[MEMPHIS_IBS_DC_PHYSAD];
	}
	w = (unsigned int)memphis__bits(data3, 22, 4);
	out->width = (__u16)(w ? 1u << (w - 1) : 0);
	out->miss = (__u8)memphis__bits(data3, 7, 1);
	out->l2_miss = out->miss && memphis__bits(data3, 20, 1) &&
		       !memphis__ibs_erratum_1293(data3, family, model);
	if (out->is_load && out->miss) {
		out->latency = (__u32)memphis__bits(data3, 32, 16);
		out->ins_lat = (__u16)memphis__bits(data, 16, 16);
	}
	return 0;
}

/* The registers of perf's raw IBS op payload (PERF_SAMPLE_RAW: `size` bytes after the u32
 * size): a u32 caps word, then OP_CTL..DC_PHYSAD, then BR_TARGET if caps has BrnTrgt and
 * OP_DATA4 if caps has OpData4. Fills r[MEMPHIS_IBS_NREGS_MAX] (absent ones 0) and *caps.
 * The payload need not be aligned. Returns the number of registers, or -1 when size is
 * smaller than the caps announce. */
static inline int memphis_ibs_raw_regs(const void *payload, __u32 size, __u32 *caps,
				       __u64 *r)
{
	const unsigned char *p = (const unsigned char *)payload;
	int n = MEMPHIS_IBS_NREGS, i;

	if (size < 4)
		return -1;
	__builtin_memcpy(caps, p, 4);
	if (*caps & MEMPHIS_IBS_CAPS_BRNTRGT)
		n++;
	if (*caps & MEMPHIS_IBS_CAPS_OPDATA4)
		n++;
	if (size < 4u + 8u * (__u32)n)
		return -1;
	for (i = 0; i < MEMPHIS_IBS_NREGS_MAX; i++)
		r[i] = 0;
	for (i = 0; i < MEMPHIS_IBS_NREGS; i++)
		__builtin_memcpy(&r[i], p + 4 + 8 * i, 8);
	i = MEMPHIS_IBS_NREGS;
	if (*caps & MEMPHIS_IBS_CAPS_BRNTRGT)
		__builtin_memcpy(&r[MEMPHIS_IBS_BR_TARGET], p + 4 + 8 * i++, 8);
	if (*caps & MEMPHIS_IBS_CAPS_OPDATA4)
		__builtin_memcpy(&r[MEMPHIS_IBS_OP_DATA4], p + 4 + 8 * i++, 8);
	return n;
}

/* Decode a raw IBS op payload (memphis_ibs_raw_regs, then memphis_ibs_decode). Returns 0,
 * or -1 for a short payload or an op sample that is not valid. */
static inline int memphis_ibs_raw_decode(const void *payload, __u32 size, unsigned int family,
					 unsigned int model, struct memphis_hw_access *out)
{
	__u64 r[MEMPHIS_IBS_NREGS_MAX];
	__u32 caps;

	*out = (struct memphis_hw_access){ 0 };
	if (memphis_ibs_raw_regs(payload, size, &caps, r) < 0)
		return -1;
	return memphis_ibs_decode(r, caps, family, model, out);
}

/* Decode what the kernel filled in: data_src (PERF_SAMPLE_DATA_SRC), weight
 * (PERF_SAMPLE_WEIGHT: the latency; PERF_SAMPLE_WEIGHT_STRUCT, weight_struct 1: var1_dw in
 * bits 0-31 the latency, var2_w in bits 32-47 the instruction latency), addr
 * (PERF_SAMPLE_ADDR, addr_valid 0 when not sampled or 0). valid is set, ip left 0. */
static inline void memphis_perf_decode(__u64 data_src, __u64 weight, int weight_struct,
				       __u64 addr, int addr_valid, struct memphis_hw_access *out)
{
	*out = (struct memphis_hw_access){ 0 };
	out->valid = 1;
	memphis_mem_src_decode(data_src, out);
	if (weight_struct) {
		out->latency = (__u32)weight;
		out->ins_lat = (__u16)memphis__bits(weight, 32, 16);
	} else {
		out->latency = weight > 0xffffffffULL ? 0xffffffffU : (__u32)weight;
	}
	if (addr_valid && addr) {
		out->addr_valid = 1;
		out->addr = addr;
		out->addr_user = addr < MEMPHIS_USER_ADDR_END;
	}
}

/* The decoder of the first version, kept for its callers: memphis_ibs_decode with caps
 * RipInvalidChk (and Zen4 when zen4), family and model unknown. */
static inline int memphis_ibs_op_decode(const __u64 *r, int zen4, struct memphis_hw_access *out)
{
	return memphis_ibs_decode(r, MEMPHIS_IBS_CAPS_RIPINVALIDCHK |
				  (zen4 ? MEMPHIS_IBS_CAPS_ZEN4 : 0u), 0, 0, out);
}

#endif /* MEMPHIS_HWDECODE_H */
