/* tests/unit/ibs_kernel_src.h - the same IBS op registers with the PERF_SAMPLE_DATA_SRC that two
 * kernels write for them (review W1), for the library's (unit_hwbackend.c) and the
 * module's (unit_kmod_decode.c) tests: each path must make one and the same, correct
 * sample of both, because both decode the registers and never the kernel's field.
 *  - k61: perf_ibs_get_mem_lvl() of kernels 6.1 to 6.5 (torvalds/linux
 *    arch/x86/events/amd/ibs.c @d5984d29afdb, the v6.3-v6.5 state, unchanged since the
 *    v6.1 "perf mem" IBS series): mem_lvl only, no mem_lvl_num / mem_remote / mem_hops,
 *    on a PERF_MEM_NA without LVLNUM NA (5c6e623f1b8e, v6.6, added it). Zen 4 DataSrc 2
 *    ("a peer cache in a near CCX") is LVL REM_CCE1|HIT: another node's cache if read as
 *    it stands.
 *  - k66: the g_data_src[] / g_zen4_data_src[] tables of 8bfc20baa935 (v6.6; as stored at
 *    @003c0414318a): L() = LVL x|HIT, LN() = LVLNUM, REM, HOPS().
 * Every op is a load that missed L1 and L2 with a valid linear address and an L1 TLB hit
 * (TLB L1|HIT), not locked, CacheHitSt 1 (clean: snoop NA), DcMissLat 300. */
#ifndef MEMPHIS_TESTS_IBS_KERNEL_SRC_H
#define MEMPHIS_TESTS_IBS_KERNEL_SRC_H

#include <linux/perf_event.h>

#include "memphis/hwdecode.h"

#define KS_LD PERF_MEM_S(OP, LOAD)
#define KS_L(x) (PERF_MEM_S(LVL, x) | PERF_MEM_S(LVL, HIT))
#define KS_LN(x) PERF_MEM_S(LVLNUM, x)
#define KS_REM PERF_MEM_S(REMOTE, REMOTE)
#define KS_HOPS(x) PERF_MEM_S(HOPS, x)
#define KS_TAIL (PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, L1) | \
		 PERF_MEM_S(TLB, HIT))
#define KS_D3 (1ULL | 1ULL << 7 | 1ULL << 17 | 1ULL << 20 | 300ULL << 32) /* LdOp DcMiss
		 * LinAddrValid L2Miss, DcMissLat 300 */
#define KS_HITST (1ULL << 5)
#define KS_RMT (1ULL << 4)
#define KS_ZEN4 0xbdfu /* a Genoa's caps (RipInvalidChk, Zen4 extensions) but BrnTrgt: 7 registers */
#define KS_ZEN3 0x3dfu /* caps without the Zen 4 extensions and BrnTrgt */

struct ks_case {
	const char *what;
	unsigned caps, family, model;
	unsigned long long data2;
	unsigned long long k61, k66;
	unsigned src;   /* what memphis must say */
	int remote;
};

static const struct ks_case ks_cases[] = {
	{ "Zen 4 DataSrc 2, another CCX of the node", KS_ZEN4, 0x19, 0x11, 2 | KS_HITST,
	  KS_LD | KS_L(REM_CCE1) | KS_TAIL,
	  KS_LD | KS_L(REM_CCE1) | KS_LN(ANY_CACHE) | KS_REM | KS_HOPS(0) | KS_TAIL,
	  MEMPHIS_SRC_NEAR_CACHE, 0 },
	{ "Zen 4 DataSrc 1, the CCX's own L3", KS_ZEN4, 0x19, 0x11, 1 | KS_HITST,
	  KS_LD | KS_L(L3) | KS_TAIL, KS_LD | KS_L(L3) | KS_LN(L3) | KS_TAIL, MEMPHIS_SRC_L3, 0 },
	{ "Zen 4 DataSrc 5, a CCX of another node", KS_ZEN4, 0x19, 0x11, 5 | KS_HITST,
	  KS_LD | KS_L(REM_CCE2) | KS_TAIL,
	  KS_LD | KS_L(REM_CCE2) | KS_LN(ANY_CACHE) | KS_REM | KS_HOPS(1) | KS_TAIL,
	  MEMPHIS_SRC_FAR_CACHE, 1 },
	{ "Zen 4 DataSrc 3 RmtNode 1, another node's DRAM", KS_ZEN4, 0x19, 0x11, 3 | KS_RMT | KS_HITST,
	  KS_LD | KS_L(REM_RAM1) | KS_TAIL,
	  KS_LD | KS_L(REM_RAM1) | KS_LN(RAM) | KS_REM | KS_HOPS(1) | KS_TAIL,
	  MEMPHIS_SRC_REMOTE_RAM, 1 },
	{ "Zen 3 DataSrc 2, a cache of the node", KS_ZEN3, 0x19, 0x21, 2 | KS_HITST,
	  KS_LD | KS_L(L3) | KS_L(REM_CCE1) | KS_TAIL,
	  KS_LD | KS_L(L3) | KS_L(REM_CCE1) | KS_LN(ANY_CACHE) | KS_HOPS(0) | KS_TAIL,
	  MEMPHIS_SRC_L3, 0 },
};

#endif /* MEMPHIS_TESTS_IBS_KERNEL_SRC_H */
