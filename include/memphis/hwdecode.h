/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * include/memphis/hwdecode.h - what a hardware memory sample says about its access: AMD IBS
 * op registers and perf's union perf_mem_data_src (Intel PEBS load latency, and IBS once the
 * kernel translates it). Pure inline functions on __u64 values, no library calls, so that
 * the kernel module (kmod/) and the library (lib/) share one decoder.
 *
 * Layouts: IBS op MSRs as in the kernel's arch/x86/include/asm/amd-ibs.h (AMD PPR for
 * Family 19h Model 01h, 55898 rev 0.35): IBS_OP_CTL.op_val bit 18; IBS_OP_DATA
 * op_rip_invalid bit 38; IBS_OP_DATA2 data_src_lo bits 0-2, rmt_node bit 4, data_src_hi
 * bits 6-7 (Zen 4 extension); IBS_OP_DATA3 ld_op 0, st_op 1, dc_miss 7,
 * dc_lin_addr_valid 17, l2_miss 20, dc_miss_lat 32-47. perf_mem_data_src as in
 * <linux/perf_event.h> (mem_op bits 0-4, mem_lvl 5-18, mem_lvl_num 33-36, mem_remote 37).
 *
 * Tested only against these documented bit layouts (tests/unit_hwdecode.c): no machine of
 * the project has an IBS or PEBS PMU, so no real hardware sample has been decoded yet.
 */
#ifndef MEMPHIS_HWDECODE_H
#define MEMPHIS_HWDECODE_H

#include <linux/types.h>

/* IBS op registers in the order of perf's raw IBS sample (after its 32-bit caps word). */
enum memphis_ibs_reg {
	MEMPHIS_IBS_OP_CTL, MEMPHIS_IBS_OP_RIP, MEMPHIS_IBS_OP_DATA, MEMPHIS_IBS_OP_DATA2,
	MEMPHIS_IBS_OP_DATA3, MEMPHIS_IBS_DC_LINAD, MEMPHIS_IBS_DC_PHYSAD, MEMPHIS_IBS_NREGS
};

/* Where the data came from, coarse enough for every vendor. */
enum memphis_hw_src {
	MEMPHIS_SRC_NA = 0,        /* not reported (stores, non-memory ops, unknown codes) */
	MEMPHIS_SRC_L1,            /* first-level data cache hit */
	MEMPHIS_SRC_LFB,           /* line fill buffer / miss address buffer */
	MEMPHIS_SRC_L2,
	MEMPHIS_SRC_L3,            /* the core's own last-level cache (AMD: its CCX) */
	MEMPHIS_SRC_NEAR_CACHE,    /* another cache of the same node (AMD: another CCX) */
	MEMPHIS_SRC_FAR_CACHE,     /* a cache of another node */
	MEMPHIS_SRC_LOCAL_RAM,
	MEMPHIS_SRC_REMOTE_RAM,
	MEMPHIS_SRC_PMEM,
	MEMPHIS_SRC_CXL,           /* extension memory (CXL), peer-agent memory */
	MEMPHIS_SRC_IO,
	MEMPHIS_SRC_UNCACHED,
};

struct memphis_hw_access {
	__u64 ip;          /* the sampled instruction (when ip_valid) */
	__u64 addr;        /* its data address, linear (when addr_valid) */
	__u32 latency;     /* cycles the access took, 0 when not reported */
	__u8 valid;        /* the sample describes one retired op */
	__u8 ip_valid, addr_valid;
	__u8 is_load, is_store;
	__u8 miss;         /* missed the first-level data cache */
	__u8 remote;       /* served by another node (memory or cache), per the hardware */
	__u8 src;          /* enum memphis_hw_src */
};

static inline __u64 memphis__bits(__u64 v, unsigned int lo, unsigned int n)
{
	return (v >> lo) & ((1ULL << n) - 1);
}

/* Decode one IBS op sample: r[MEMPHIS_IBS_NREGS] as perf's raw record carries them; zen4:
 * the CPU implements the DataSrc extension (data_src_hi, Family 19h Model 10h and later:
 * CPUID Fn8000_001B EAX bit 11, "IbsOpData4/Zen4 IBS extensions" in the kernel). Data
 * source, remote and latency are reported for loads only (the hardware leaves them
 * undefined for stores). Returns 0, or -1 when the op sample is not valid (op_val clear). */
static inline int memphis_ibs_op_decode(const __u64 *r, int zen4,
					struct memphis_hw_access *out)
{
	__u64 data = r[MEMPHIS_IBS_OP_DATA], data2 = r[MEMPHIS_IBS_OP_DATA2];
	__u64 data3 = r[MEMPHIS_IBS_OP_DATA3];
	unsigned int ds;

	*out = (struct memphis_hw_access){ 0 };
	if (!memphis__bits(r[MEMPHIS_IBS_OP_CTL], 18, 1))
		return -1;
	out->valid = 1;
	out->ip_valid = !memphis__bits(data, 38, 1);
	out->ip = out->ip_valid ? r[MEMPHIS_IBS_OP_RIP] : 0;
	out->is_load = (__u8)memphis__bits(data3, 0, 1);
	out->is_store = (__u8)memphis__bits(data3, 1, 1);
	if ((out->is_load || out->is_store) && memphis__bits(data3, 17, 1)) {
		out->addr_valid = 1;
		out->addr = r[MEMPHIS_IBS_DC_LINAD];
	}
	out->miss = (__u8)memphis__bits(data3, 7, 1);
	if (!out->is_load)
		return 0;
	if (!out->miss) {
		out->src = MEMPHIS_SRC_L1;
		return 0;
	}
	out->latency = (__u32)memphis__bits(data3, 32, 16);
	if (!memphis__bits(data3, 20, 1)) { /* missed L1, not L2 */
		out->src = MEMPHIS_SRC_L2;
		return 0;
	}
	ds = (unsigned int)memphis__bits(data2, 0, 3);
	if (zen4)
		ds |= (unsigned int)memphis__bits(data2, 6, 2) << 3;
	out->remote = (__u8)memphis__bits(data2, 4, 1);
	if (zen4) {
		switch (ds) {
		case 1: out->src = MEMPHIS_SRC_L3; break;
		case 2: out->src = MEMPHIS_SRC_NEAR_CACHE; break;
		case 3: out->src = out->remote ? MEMPHIS_SRC_REMOTE_RAM : MEMPHIS_SRC_LOCAL_RAM; break;
		case 5: out->src = MEMPHIS_SRC_FAR_CACHE; break;
		case 6: out->src = MEMPHIS_SRC_PMEM; break;
		case 7: out->src = MEMPHIS_SRC_IO; break;
		case 8: case 12: out->src = MEMPHIS_SRC_CXL; break;
		default: out->src = MEMPHIS_SRC_NA; break;
		}
	} else {
		switch (ds) {
		case 2: out->src = MEMPHIS_SRC_L3; break;
		case 3: out->src = out->remote ? MEMPHIS_SRC_REMOTE_RAM : MEMPHIS_SRC_LOCAL_RAM; break;
		case 4: out->src = out->remote ? MEMPHIS_SRC_FAR_CACHE : MEMPHIS_SRC_NEAR_CACHE; break;
		case 7: out->src = MEMPHIS_SRC_IO; break;
		default: out->src = MEMPHIS_SRC_NA; break;
		}
	}
	if (out->src == MEMPHIS_SRC_IO || out->src == MEMPHIS_SRC_NA)
		out->remote = 0; /* rmt_node is meaningful for memory and caches only */
	return 0;
}

/* Decode perf's union perf_mem_data_src (PERF_SAMPLE_DATA_SRC) into op, level and remote.
 * mem_lvl_num (with mem_remote) is preferred when set; the older mem_lvl bits answer
 * otherwise (a level counts when reported as a hit). Leaves ip, addr, latency alone. */
static inline void memphis_mem_src_decode(__u64 v, struct memphis_hw_access *out)
{
	__u64 op = memphis__bits(v, 0, 5), lvl = memphis__bits(v, 5, 14);
	__u64 num = memphis__bits(v, 33, 4);
	int remote = (int)memphis__bits(v, 37, 1);

	out->is_load = (op & 0x02) != 0;  /* PERF_MEM_OP_LOAD */
	out->is_store = (op & 0x04) != 0; /* PERF_MEM_OP_STORE */
	out->remote = 0;
	out->src = MEMPHIS_SRC_NA;
	switch (num) {
	case 0x01: out->src = MEMPHIS_SRC_L1; break;                    /* LVLNUM_L1 */
	case 0x02: out->src = MEMPHIS_SRC_L2; break;                    /* LVLNUM_L2 */
	case 0x03: out->src = remote ? MEMPHIS_SRC_FAR_CACHE : MEMPHIS_SRC_L3; break;
	case 0x09: out->src = MEMPHIS_SRC_CXL; break;                   /* LVLNUM_CXL */
	case 0x0a: out->src = MEMPHIS_SRC_IO; break;                    /* LVLNUM_IO */
	case 0x0b: out->src = remote ? MEMPHIS_SRC_FAR_CACHE : MEMPHIS_SRC_NEAR_CACHE; break;
	case 0x0c: out->src = MEMPHIS_SRC_LFB; break;                   /* LVLNUM_LFB */
	case 0x0d: out->src = remote ? MEMPHIS_SRC_REMOTE_RAM : MEMPHIS_SRC_LOCAL_RAM; break;
	case 0x0e: out->src = MEMPHIS_SRC_PMEM; break;                  /* LVLNUM_PMEM */
	default: break;                                                 /* 0, L4, NA */
	}
	if (out->src != MEMPHIS_SRC_NA) {
		out->remote = (__u8)(remote && out->src != MEMPHIS_SRC_IO);
		out->miss = out->src != MEMPHIS_SRC_L1;
		return;
	}
	if (!(lvl & 0x02)) /* PERF_MEM_LVL_HIT */
		return;
	if (lvl & 0x08)
		out->src = MEMPHIS_SRC_L1;
	else if (lvl & 0x10)
		out->src = MEMPHIS_SRC_LFB;
	else if (lvl & 0x20)
		out->src = MEMPHIS_SRC_L2;
	else if (lvl & 0x40)
		out->src = MEMPHIS_SRC_L3;
	else if (lvl & 0x80)
		out->src = MEMPHIS_SRC_LOCAL_RAM;
	else if (lvl & 0x300)
		out->src = MEMPHIS_SRC_REMOTE_RAM;
	else if (lvl & 0xc00)
		out->src = MEMPHIS_SRC_FAR_CACHE;
	else if (lvl & 0x1000)
		out->src = MEMPHIS_SRC_IO;
	else if (lvl & 0x2000)
		out->src = MEMPHIS_SRC_UNCACHED;
	out->remote = out->src == MEMPHIS_SRC_REMOTE_RAM || out->src == MEMPHIS_SRC_FAR_CACHE;
	out->miss = out->src != MEMPHIS_SRC_L1 && out->src != MEMPHIS_SRC_NA;
}

#endif /* MEMPHIS_HWDECODE_H */
