/* tests/unit/unit_hwsrc.c - data sources and latencies of hardware samples (post/report/hwsrc.c):
 * shares by source, loads and stores apart, mean and p90 within the stated 6.25 %, HITM,
 * the hardware-vs-page remote disagreement, soft samples left out. TAP output. */
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/hwsrc.h"

#include "tap.h"

#define S(a, s) PERF_MEM_S(a, s)
#define LD S(OP, LOAD)
#define ST S(OP, STORE)
#define HIT(x) (S(LVL, x) | S(LVL, HIT))

static struct memphis_rec_sample smp(unsigned long long ds, uint32_t weight, uint16_t flags)
{
	struct memphis_rec_sample s = { 0 };

	s.data_src = ds;
	s.weight = weight;
	s.flags = (uint16_t)(flags | MPH_S_EXACT | MPH_S_HWADDR);
	return s;
}

int main(void)
{
	struct mr_hwsrc h;
	struct memphis_rec_sample s;
	const struct mr_hw_stat *st;
	struct mr_hw_stat m = { 0 };
	const unsigned long long l1 = 0x10268100142ULL, lfb = 0x11868100242ULL;
	const unsigned long long rdram = LD | HIT(REM_RAM1) | S(LVLNUM, RAM) | S(REMOTE, REMOTE);
	const unsigned long long rhitm = LD | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) |
					 S(REMOTE, REMOTE) | S(SNOOP, HITM);
	const unsigned long long store = ST | HIT(L1) | S(LVLNUM, L1);
	double p90;

	ok(mr_hwsrc_init(&h) == 0, "init");
	/* variable 1, line 10: 100 loads with latencies 1..100: 60 L1 (1..60), 20 LFB
	 * (61..80), 20 remote DRAM (81..100), the last 20 judged local by page home */
	for (uint32_t w = 1; w <= 100; w++) {
		s = smp(w <= 60 ? l1 : w <= 80 ? lfb : rdram, w, MPH_S_LOAD);
		mr_hwsrc_add(&h, 0, 1, 10, &s, 0);
	}
	/* variable 1, line 11: 10 stores (no latency), 5 remote-cache HITM loads of 300 judged
	 * remote, 1 soft-like sample with a REMOTE_HW flag only (no data source) judged local */
	for (int i = 0; i < 10; i++) {
		s = smp(store, 0, MPH_S_STORE);
		mr_hwsrc_add(&h, 0, 1, 11, &s, -1);
	}
	for (int i = 0; i < 5; i++) {
		s = smp(rhitm, 300, MPH_S_LOAD);
		mr_hwsrc_add(&h, 0, 1, 11, &s, 1);
	}
	s = smp(0, 0, MPH_S_LOAD | MPH_S_REMOTE_HW);
	mr_hwsrc_add(&h, 0, 1, 11, &s, 0);

	st = mr_hwsrc_get(&h, 0, 1, 10);
	ok(st && st->n == 100 && st->loads == 100 && st->stores == 0, "line 10: 100 loads");
	ok(st && st->src[0][MEMPHIS_SRC_L1] == 60 && st->src[0][MEMPHIS_SRC_LFB] == 20 &&
	   st->src[0][MEMPHIS_SRC_REMOTE_RAM] == 20, "line 10: 60 L1, 20 LFB, 20 remote DRAM");
	ok(st && st->hw_remote == 20 && st->disagree == 20,
	   "line 10: 20 hardware-remote samples on pages of the local node: 20 disagree");
	ok(st && fabs(mr_hw_lat_mean(st) - 50.5) < 1e-9, "line 10: mean latency 50.5 (%g)",
	   st ? mr_hw_lat_mean(st) : -1);
	p90 = st ? mr_hw_lat_pct(st, 90) : 0;
	ok(fabs(p90 - 90) <= 90 * 0.0625, "line 10: p90 %g within 6.25 %% of 90", p90);
	st = mr_hwsrc_get(&h, 0, 1, 11);
	ok(st && st->n == 16 && st->stores == 10 && st->loads == 6 &&
	   st->src[1][MEMPHIS_SRC_L1] == 10 && st->src[0][MEMPHIS_SRC_FAR_CACHE] == 5 &&
	   st->src[0][MEMPHIS_SRC_NA] == 1, "line 11: 10 L1 stores, 5 remote-cache loads, 1 n/a");
	ok(st && st->hitm == 5 && st->hw_remote == 6 && st->disagree == 1 && st->page_remote == 5,
	   "line 11: 5 HITM; 6 hardware-remote (flag without source counts), 1 disagrees");
	ok(st && st->lat_n == 5 && mr_hw_lat_mean(st) == 300 &&
	   fabs(mr_hw_lat_pct(st, 90) - 300) <= 300 * 0.0625, "line 11: latency of loads only");
	mr_hw_stat_merge(&m, mr_hwsrc_get(&h, 0, 1, 10));
	mr_hw_stat_merge(&m, mr_hwsrc_get(&h, 0, 1, 11));
	ok(m.n == 116 && m.loads == 106 && m.stores == 10 && m.disagree == 21 && m.lat_n == 105,
	   "variable 1: lines merged");
	ok(h.total == 116 && !mr_hwsrc_get(&h, 0, 2, 10) && !mr_hwsrc_get(&h, 1, 1, 10), "totals; an unknown key is NULL");
	s = smp(0, 1, 0);
	s.flags = MPH_S_EXACT;
	ok(!mr_hw_sample(&s) && mr_hw_sample(&(struct memphis_rec_sample){ .data_src = 0x1e05080021ULL }),
	   "a soft sample is not a hardware one; any data source is");
	/* W4: another CCX of the node (IBS Zen 4 DataSrc 2, the kernel's g_zen4_data_src[]):
	 * mem_remote with hops 0, "remote core, same node": not hardware-remote; on a page of
	 * the sampling node nothing disagrees, on another node's page it does */
	{
		const unsigned long long nearccx = LD | HIT(REM_CCE1) | S(LVLNUM, ANY_CACHE) |
						   S(REMOTE, REMOTE) | S(HOPS, 0);

		s = smp(nearccx, 120, MPH_S_LOAD);
		mr_hwsrc_add(&h, 0, 3, 12, &s, 0);
		mr_hwsrc_add(&h, 0, 3, 12, &s, 0);
		mr_hwsrc_add(&h, 0, 3, 12, &s, 1);
		st = mr_hwsrc_get(&h, 0, 3, 12);
		ok(st && st->n == 3 && st->src[0][MEMPHIS_SRC_NEAR_CACHE] == 3 && st->hw_remote == 0 &&
		   st->page_remote == 1 && st->disagree == 1,
		   "another CCX of the node (remote, hops 0): near cache, not hardware-remote; "
		   "disagrees only on another node's page");
	}
	/* orders and ranges: node 1 gets variable 1 line 10 (2 samples) and variable 2 line
	 * 10 (1); ids above the limits count as 0, nodes above theirs as the largest */
	{
		struct mr_hw_order byvar, bynode;
		struct mr_hw_stat sum;
		size_t first, cnt;

		s = smp(rdram, 500, MPH_S_LOAD);
		mr_hwsrc_add(&h, 1, 1, 10, &s, 1);
		mr_hwsrc_add(&h, 1, 1, 10, &s, 1);
		mr_hwsrc_add(&h, 1, 2, 10, &s, 0);
		mr_hwsrc_add(&h, 70000, MR_HW_ID_MAX + 5u, 10, &s, 0);
		ok(mr_hwsrc_get(&h, MR_HW_NODE_MAX, 0, 10) && mr_hwsrc_get(&h, 1, 1, 10)->n == 2,
		   "out-of-range ids and nodes are clamped");
		ok(mr_hw_order_init(&byvar, &h, MR_HW_VAR, MR_HW_LINE) == 0 &&
		   mr_hw_order_init(&bynode, &h, MR_HW_NODE, MR_HW_VAR) == 0, "orders");
		ok(mr_hwsrc_sum(&h, &byvar, 1, MR_HW_ANY, &sum) == 3 && sum.n == 118 &&
		   sum.page_remote == 7, "variable 1 over nodes and lines: 3 entries, 118 samples");
		ok(mr_hwsrc_sum(&h, &byvar, 1, 10, &sum) == 2 && sum.n == 102, "variable 1 line 10");
		ok(mr_hwsrc_sum(&h, &bynode, 1, MR_HW_ANY, &sum) == 2 && sum.n == 3 &&
		   sum.disagree == 1, "node 1: 3 samples, 1 disagrees");
		ok(mr_hwsrc_sum(&h, &bynode, 0, 1, &sum) == 2 && sum.n == 116, "node 0 variable 1");
		cnt = mr_hw_order_range(&bynode, MR_HW_NODE_MAX, MR_HW_ANY, &first);
		ok(cnt == 1 && mr_hwsrc_field(&h, bynode.idx[first], MR_HW_VAR) == 0, "the clamped node");
		ok(mr_hwsrc_sum(&h, &bynode, 3, MR_HW_ANY, &sum) == 0 && sum.n == 0 &&
		   mr_hw_order_range(&byvar, MR_HW_ID_MAX, MR_HW_ANY, &first) == 0, "empty ranges");
		for (size_t i = 1; i < byvar.n; i++)
			if (byvar.key[i - 1] >= byvar.key[i])
				cnt = 0;
		ok(cnt == 1, "keys strictly ascending");
		mr_hw_order_free(&byvar);
		mr_hw_order_free(&bynode);
	}
	/* the bucket error bound, exhaustively on the bucket edges */
	{
		int bad = 0;
		for (uint64_t w = 1; w < (1ull << 32); w = w * 3 / 2 + 1) {
			double v = mr_hw_bucket_value(mr_hw_bucket((uint32_t)w));
			if (fabs(v - (double)w) > (double)w * 0.0625)
				bad++;
		}
		ok(!bad && mr_hw_bucket(15) == 15 && mr_hw_bucket(0xffffffffu) == MR_HW_BUCKETS - 1,
		   "buckets: every weight within 6.25 %% (%d off)", bad);
	}
	mr_hwsrc_free(&h);
	/* coverage NOTEs (lib/drain.c): parsed, summed by event, hybrid pairs merged */
	{
		struct mr_hw_cov c, sum[4];
		uint32_t region = 0;
		size_t n = 0;

		ok(mr_hw_cov_parse("hw coverage: region=3 enabled_ns=900 running_ns=600 "
				   "event=cpu_core/MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", &region, &c) &&
		   region == 3 && c.enabled_ns == 900 && c.running_ns == 600 &&
		   !strcmp(c.event, "cpu_core/MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30"),
		   "coverage note parsed: region, times, the event's whole name");
		ok(!mr_hw_cov_parse("not sampled: 2 threads", &region, &c) &&
		   !mr_hw_cov_parse("hw coverage: region=3 enabled_ns=5 running_ns=6 event=x", &region, &c) &&
		   !mr_hw_cov_parse("hw coverage: region=3 enabled_ns=5 running_ns=4 event=", &region, &c),
		   "other notes, running above enabled and no event name are not coverage");
		mr_hw_cov_add(sum, &n, 4, &c);                   /* core, region 3 */
		mr_hw_cov_parse("hw coverage: region=4 enabled_ns=100 running_ns=100 "
				"event=cpu_core/MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", &region, &c);
		mr_hw_cov_add(sum, &n, 4, &c);                   /* core, region 4 */
		mr_hw_cov_parse("hw coverage: region=3 enabled_ns=1000 running_ns=350 "
				"event=cpu_atom/MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30", &region, &c);
		mr_hw_cov_add(sum, &n, 4, &c);
		mr_hw_cov_parse("hw coverage: region=3 enabled_ns=1000 running_ns=500 event=ibs_op",
				&region, &c);
		mr_hw_cov_add(sum, &n, 4, &c);
		ok(n == 3 && sum[0].enabled_ns == 1000 && sum[0].running_ns == 700,
		   "summed by event over regions");
		mr_hw_cov_merge_hybrid(sum, &n);
		ok(n == 2 && !strcmp(sum[0].event, "MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=30") &&
		   sum[0].enabled_ns == 1000 && sum[0].running_ns == 1000 && !strcmp(sum[1].event, "ibs_op"),
		   "hybrid: cpu_core and cpu_atom of one event merged, running times added, the "
		   "enabled time either's (%s %llu/%llu)", sum[0].event,
		   (unsigned long long)sum[0].running_ns, (unsigned long long)sum[0].enabled_ns);
	}
	return tap_done();
}
