/* tests/unit/unit_advice.c - post/report/advice.c on hand-made thread x block matrices: each rule on a
 * pattern made for it, and each threshold on both of its sides (docs/advice.md); the parts
 * of a partitioned placement on hand-made sampled pages. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/advice.h"
#include "tap.h"

#define T 4   /* threads */
#define NB 256

static struct mr_pattern_thread threads[T];
static uint64_t tb[T * NB];

/* A pattern of span bytes whose [thread][block] samples are cell(t, b, arg). */
static struct mr_pattern make(uint64_t span, uint64_t (*cell)(size_t, uint32_t, int), int arg)
{
	struct mr_pattern p;

	memset(&p, 0, sizeof(p));
	p.laid = 1;
	p.span = span;
	p.nblocks = NB;
	p.block = span / NB;
	p.threads = threads;
	p.nthreads = T;
	p.tb = tb;
	for (size_t t = 0; t < T; t++) {
		threads[t] = (struct mr_pattern_thread){ (uint32_t)(100 + t), (int)t, (uint32_t)(t / 2),
							 0, 0 };
		for (uint32_t b = 0; b < NB; b++) {
			tb[t * NB + b] = cell(t, b, arg);
			threads[t].samples += tb[t * NB + b];
		}
		p.samples += threads[t].samples;
	}
	p.reads = p.samples;
	p.rw_known = 1;
	return p;
}

/* Each thread its own quarter; arg: blocks each range spills into the next one's. */
static uint64_t own_quarter(size_t t, uint32_t b, int spill)
{
	uint32_t lo = (uint32_t)t * (NB / T), hi = lo + NB / T + (uint32_t)spill;

	return b >= lo && b < hi ? 2 : 0;
}

/* Every thread everywhere (a random gather). */
static uint64_t everywhere(size_t t, uint32_t b, int arg)
{
	(void)arg;
	return (t + b) % 3 ? 1 : 2;
}

/* Thread 0 takes arg % of the samples, the others share the rest. */
static uint64_t one_thread(size_t t, uint32_t b, int pct)
{
	(void)b;
	return t == 0 ? (uint64_t)pct * 3 : (uint64_t)(100 - pct);
}

/* Only arg samples in all, in block 0 of thread 0. */
static uint64_t few(size_t t, uint32_t b, int n)
{
	return t == 0 && b == 0 ? (uint64_t)n : 0;
}

/* Own quarters, and thread 3 reads a little of everything. */
static uint64_t quarter_and_noise(size_t t, uint32_t b, int arg)
{
	(void)arg;
	if (t == 3)
		return b % 64 == 0; /* 4 samples: under 2 % */
	return own_quarter(t, b, 0) * 4;
}

static uint64_t page_no[128], page_nodes[128 * 2];

/* A 2-node pattern whose sampled pages are lo .. hi - 1, each with n0 samples by node 0's
 * threads up to page cut (excluded), n1 by node 1's from it; the parts' count into *n. */
static struct mr_pattern paged(uint64_t lo, uint64_t hi, uint64_t cut, uint64_t n0, uint64_t n1)
{
	struct mr_pattern p;

	memset(&p, 0, sizeof(p));
	p.nnodes = 2;
	p.page_no = page_no;
	p.page_nodes = page_nodes;
	for (uint64_t pg = lo; pg < hi && p.npages < 128; pg++) {
		page_no[p.npages] = pg;
		page_nodes[p.npages * 2] = pg < cut ? n0 : 0;
		page_nodes[p.npages * 2 + 1] = pg < cut ? 0 : n1;
		p.samples += pg < cut ? n0 : n1;
		p.npages++;
	}
	return p;
}

/* The parts of p as "OFF:NODE ..." */
static const char *parts(const struct mr_pattern *p)
{
	static char buf[256];
	uint64_t out[128][2];
	size_t n = mr_advice_ranges(p, 4096, out), len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && len < sizeof(buf) - 48; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu:%llu", i ? " " : "",
					(unsigned long long)out[i][0], (unsigned long long)out[i][1]);
	return buf;
}

int main(void)
{
	struct mr_advice a;
	struct mr_pattern p;

	mr_advice_classify(NULL, 0, 0, &a);
	ok(a.kind == MR_ADVICE_NONE && !mr_advice_name(a.kind), "no pattern: no advice");
	p = make(1 << 20, few, 60);
	p.laid = 0;
	mr_advice_classify(&p, 60, 0, &a);
	ok(a.kind == MR_ADVICE_NONE, "a pattern without layout: no advice");

	p = make(1 << 20, few, MR_ADVICE_MIN_SAMPLES - 1);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_TOO_FEW && a.shape == MR_ADVICE_TOO_FEW &&
	   !strcmp(mr_advice_name(a.kind), "too_few"), "%d samples: too_few",
	   MR_ADVICE_MIN_SAMPLES - 1);
	p = make(1 << 20, few, MR_ADVICE_MIN_SAMPLES);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_MOVE_IT && !strcmp(mr_advice_name(a.kind), "move"),
	   "%d samples, all of one thread: move (got %s)", MR_ADVICE_MIN_SAMPLES,
	   mr_advice_name(a.kind));

	p = make(64 << 20, own_quarter, 0);
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED && a.active == T && a.block_bytes == (64u << 20) / T &&
	   a.own > 0.99 && a.max_overlap == 0 && !strcmp(mr_advice_name(a.kind), "partitioned"),
	   "own quarters, half remote: partitioned, block span/4 (got %s, %zu threads, block %llu)",
	   mr_advice_name(a.kind), a.active, (unsigned long long)a.block_bytes);
	p = make(64 << 20, own_quarter, 0);
	for (size_t t = 0; t < T; t++) /* only blocks 0 .. 127 used: 2 threads, 64 each */
		if (t >= 2) {
			p.samples -= threads[t].samples;
			threads[t].samples = 0;
			for (uint32_t b = 0; b < NB; b++)
				tb[t * NB + b] = 0;
		}
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED && a.active == 2 && a.block_bytes == (16u << 20),
	   "half the array used by 2 threads: partitioned, block = used bytes / 2 (got %s, %llu)",
	   mr_advice_name(a.kind), (unsigned long long)a.block_bytes);
	p = make(64 << 20, own_quarter, 1);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED, "own quarters overlapping by one block: partitioned");
	p = make(64 << 20, own_quarter, NB / T);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE && a.max_overlap > MR_ADVICE_OVERLAP,
	   "each thread on two quarters, overlapping by half: not partitioned (got %s)",
	   mr_advice_name(a.kind));
	p = make(64 << 20, quarter_and_noise, 0);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED && a.active == 3,
	   "a thread under %.0f %% of the samples is ignored: partitioned by 3 (got %s, %zu)",
	   100 * MR_ADVICE_ACTIVE, mr_advice_name(a.kind), a.active);

	p = make(64 << 20, own_quarter, 0);
	mr_advice_classify(&p, 9, 91, &a);
	ok(a.kind == MR_ADVICE_LOCAL && a.shape == MR_ADVICE_PARTITIONED,
	   "9 %% remote: local, shape partitioned (got %s)", mr_advice_name(a.kind));
	mr_advice_classify(&p, 10, 90, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED, "10 %% remote: partitioned (got %s)",
	   mr_advice_name(a.kind));
	mr_advice_classify(&p, 0, 0, &a);
	ok(a.kind == MR_ADVICE_PARTITIONED && a.remote < 0,
	   "no sample with both nodes known: the shape, remote unknown");

	p = make(64 << 20, everywhere, 0);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE && !strcmp(mr_advice_name(a.kind), "interleave"),
	   "every thread everywhere, 64 MiB: interleave (got %s)", mr_advice_name(a.kind));
	/* the same with its blocks' homes known: threads 0, 1 on node 0, 2, 3 on node 1 */
	static uint32_t home[NB];
	p.home = home;
	p.nnodes = 2;
	for (uint32_t b = 0; b < NB; b++)
		home[b] = 0;
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE && !a.spread, "... every page on node 0: interleave "
	   "(got %s)", mr_advice_name(a.kind));
	for (uint32_t b = 0; b < NB; b++)
		home[b] = b < NB * 3 / 4 ? 0 : 1;
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_SPREAD && a.shape == MR_ADVICE_INTERLEAVE &&
	   !strcmp(mr_advice_name(a.kind), "spread"),
	   "... 25 %% of the blocks on node 1 (%.0f %% of an even share): spread, shape "
	   "interleave (got %s)", 100 * MR_ADVICE_SPREAD_MIN, mr_advice_name(a.kind));
	home[NB * 3 / 4] = 0;
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE, "... one block fewer on node 1: interleave (got %s)",
	   mr_advice_name(a.kind));
	for (uint32_t b = 0; b < NB; b++)
		home[b] = b % 4 ? 2 : b % 8 ? 0 : 1; /* 3/4 where none of its threads runs */
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_SPREAD, "... a quarter of the blocks homed, half of them on "
	   "each node, the rest unknown (nnodes 2): spread (got %s)", mr_advice_name(a.kind));
	p.nnodes = 3;
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE, "... the rest on node 2, where none of its threads "
	   "runs: interleave (got %s)", mr_advice_name(a.kind));
	for (uint32_t b = 0; b < NB; b++)
		home[b] = b % 2;
	p.nnodes = 2;
	mr_advice_classify(&p, p.samples / 20, p.samples, &a);
	ok(a.kind == MR_ADVICE_LOCAL && a.spread, "... half the blocks on each node, 5 %% remote: "
	   "local (got %s)", mr_advice_name(a.kind));
	for (size_t t = 0; t < T; t++)
		threads[t].node = 0;
	mr_advice_classify(&p, p.samples / 2, p.samples / 2, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE, "... every thread on node 0: interleave, not spread "
	   "(got %s)", mr_advice_name(a.kind));
	p = make(256 << 10, everywhere, 0);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_REPLICATE && !strcmp(mr_advice_name(a.kind), "replicate"),
	   "every thread everywhere, 256 KiB, no store: replicate (got %s)",
	   mr_advice_name(a.kind));
	p = make(MR_ADVICE_SMALL, everywhere, 0);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_REPLICATE, "... %llu bytes (the limit): replicate",
	   (unsigned long long)MR_ADVICE_SMALL);
	p = make(MR_ADVICE_SMALL + (MR_ADVICE_SMALL >> 4), everywhere, 0);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE, "... over the size limit: interleave (got %s)",
	   mr_advice_name(a.kind));
	p = make(256 << 10, everywhere, 0);
	p.writes = (p.samples + 19) / 20; /* 5 % */
	p.reads = p.samples - p.writes;
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE, "... 5 %% stores: interleave (got %s)",
	   mr_advice_name(a.kind));
	p.writes = p.samples / 25; /* 4 % */
	p.reads = p.samples - p.writes;
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_REPLICATE, "... 4 %% stores: replicate (got %s)",
	   mr_advice_name(a.kind));
	p.rw_known = 0;
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_INTERLEAVE && a.writes < 0,
	   "... loads and stores unknown: never replicate (got %s)", mr_advice_name(a.kind));

	p = make(256 << 10, everywhere, 0);
	for (uint32_t b = 0; b < NB; b++) /* thread 0 ran 15 times longer: 83 % of the samples */
		tb[b] *= 15;
	threads[0].samples *= 15;
	p.samples = 0;
	for (size_t t = 0; t < T; t++)
		p.samples += threads[t].samples;
	p.reads = p.samples;
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_MOVE_IT, "thread 0 with %.0f %% of the samples, totals unknown: move",
	   100 * a.top_share);
	for (size_t t = 0; t < T; t++) /* ... and as many of all its samples as the others */
		threads[t].all = threads[t].samples + threads[t].samples / 10;
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_REPLICATE && a.top_share < 0.3,
	   "... each thread's samples on it 91 %% of all its samples: the same use, replicate "
	   "(got %s, top %.0f %%)", mr_advice_name(a.kind), 100 * a.top_share);
	p = make(64 << 20, one_thread, 90);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind == MR_ADVICE_MOVE_IT && a.top == 0 && a.top_share >= MR_ADVICE_MOVE,
	   "one thread %.0f %% of the samples: move (got %s)", 100 * a.top_share,
	   mr_advice_name(a.kind));
	p = make(64 << 20, one_thread, 50);
	mr_advice_classify(&p, p.samples, 0, &a);
	ok(a.kind != MR_ADVICE_MOVE_IT && a.top_share < MR_ADVICE_MOVE,
	   "one thread %.0f %% of the samples: not move (got %s)", 100 * a.top_share,
	   mr_advice_name(a.kind));

	p = paged(0, 100, 44, 10, 10);
	ok(!strcmp(parts(&p), "0:0 180224:1"), "pages 0-43 node 0's, 44-99 node 1's: cut at page "
	   "44 (got %s)", parts(&p));
	page_nodes[43 * 2 + 1] = 4; /* the boundary page shared, node 0 most */
	page_nodes[44 * 2] = 3;
	ok(!strcmp(parts(&p), "0:0 180224:1"), "... pages 43 and 44 shared: the same cut (got %s)",
	   parts(&p));
	p = paged(0, 100, 44, 10, 10);
	page_nodes[10 * 2 + 1] = 12; /* a halo, under 2 % of the samples */
	ok(!strcmp(parts(&p), "0:0 180224:1"), "... 12 samples of node 1 on page 10: no part of "
	   "their own (got %s)", parts(&p));
	for (int k = 10; k < 13; k++) /* a run worth its two switches */
		page_nodes[k * 2 + 1] = 40;
	ok(!strcmp(parts(&p), "0:0 40960:1 53248:0 180224:1"), "... 40 on pages 10-12 each: "
	   "a part of node 1 (got %s)", parts(&p));
	p = paged(20, 40, 25, 10, 10);
	for (size_t i = 5; i < p.npages; i++) /* 20-24 node 0's, 25-29 unsampled, 30-44 node 1's */
		page_no[i] += 5;
	ok(!strcmp(parts(&p), "0:0 110592:1"), "sampled from page 20, node 0 to 24, nothing on "
	   "25-29, node 1 from 30: the first part from 0, the cut half way at 27 (got %s)",
	   parts(&p));
	p = paged(0, 100, 44, 10, 10);
	p.align = 256; /* the first byte 256 bytes into its page: the cut on a page boundary */
	ok(!strcmp(parts(&p), "0:0 179968:1"), "... the variable 256 bytes into its first page: "
	   "the cut 256 bytes before (got %s)", parts(&p));
	p = paged(0, 100, 0, 10, 10);
	ok(!strcmp(parts(&p), "0:1"), "all of node 1: one part (got %s)", parts(&p));
	p = paged(0, 0, 0, 10, 10);
	ok(!strcmp(parts(&p), ""), "no sampled page: no part");
	return tap_done();
}
