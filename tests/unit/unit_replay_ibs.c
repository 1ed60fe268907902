/* tests/unit/unit_replay_ibs.c - AMD IBS op samples through the whole parse path, from the
 * register values of two real samples that were published (no public perf.data with IBS
 * samples exists; tests/data/perf/README.md):
 *  - the Op sample of the kernel's tools/perf/Documentation/perf-amd-ibs.txt (a kernel
 *    store that missed L1 and L2; the doc's "perf report -D" dump);
 *  - the Op sample of Kim Phillips' commit "perf tools: Add 'perf -D' IBS raw sample
 *    decoding" (a user-space store hitting L1, ctl 0x9e009e8968 with cnt_ctl=1).
 * Only the values are taken (facts), not the texts. Each is laid out as a PERF_RECORD_SAMPLE
 * exactly as the kernel writes it for memphis's ibs_op event (memphis__ibs_plan's
 * sample_type, with and without the ADDR, WEIGHT_STRUCT and DATA_SRC a 6.1+ kernel adds; RAW
 * as perf_ibs_handle_irq() fills it with caps without and with BR_TARGET and OP_DATA4), and
 * goes through memphis__perf_sample_parse, the raw decoder (memphis_ibs_raw_regs,
 * memphis_ibs_raw_decode), the library's memphis__ibs_sample and the module's
 * memphismod_rec_fill + memphis__kmod_decode. Checked:
 *  - every decoded field against the values the doc and the commit print (no perf needed);
 *  - with perf: the records are written into a perf.data file (one ibs_op attr, the
 *    features perf needs to recognise IBS: arch, an AMD cpuid, the ibs_op PMU mapping) and
 *    `perf report -D` is run on it: perf's own parser and IBS decoder (util/amd-sample-raw.c)
 *    must find the same registers, fields, ip, addr, weight and data_src as memphis - so the
 *    record layout is checked by a parser that is not ours, and the decode by a decoder that
 *    is not ours.
 * TAP output; without perf (make deps installs linux-perf) the perf comparisons are skipped,
 * saying so. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ibs.h"
#include "kmod_record.h"
#include "memphis/hwdecode.h"
#include "memphis/memphismod_rec.h"
#include "perf_ring.h"

#include "perfdata.h"
#include "tap.h"

#define NO_PERF "perf is needed (make deps installs linux-perf)"
#define IBS_TYPE 11u                   /* the ibs_op PMU's type in the fake sysfs */
#define USER_TOP 0x00007ffffffff000ull /* the module's user_top: TASK_SIZE_MAX, 4 levels */
#define NFIELD 26

static char tmp[256];

/* A published sample: its registers, what the doc or commit prints of them, and what a
 * 6.6+ kernel writes beside RAW for it (perf_ibs_parse_ld_st_data). */
struct pub {
	const char *what;
	uint64_t reg[MEMPHIS_IBS_NREGS]; /* OP_CTL, RIP, DATA, DATA2, DATA3, DC_LINAD, DC_PHYSAD */
	/* the fields as printed, in perf -D's names */
	struct { const char *name; unsigned long long v; } f[NFIELD];
	/* the kernel's fields: ADDR (DC_LINAD when LinAddrValid), WEIGHT_STRUCT (0: the
	 * driver fills it for load misses only), DATA_SRC worked out from
	 * perf_ibs_get_mem_lvl / _snoop / _tlb_lvl / _lock (v6.6+) */
	uint64_t k_addr, k_weight, k_data_src;
	/* what memphis makes of it */
	int is_load, is_store, miss, l2_miss, src, user;
};

static const struct pub pubs[] = {
	{ "perf-amd-ibs.txt's op sample (kernel store, L1 and L2 miss)",
	  { 0x000002c30006186aull, 0xffffffff8204aea7ull, 0x0000010002550001ull, 0x13ull,
	    0x31960092ull, 0xff110008a5398920ull, 0x00000008a5398920ull },
	  { { "MaxCnt", 100000 }, { "En", 1 }, { "Val", 1 }, { "CntCtl", 0 }, { "CurCnt", 707 },
	    { "CompToRetCtr", 1 }, { "TagToRetCtr", 597 }, { "BrnRet", 0 }, { "RipInvalid", 0 },
	    { "Microcode", 1 }, { "RmtNode", 1 }, { "DataSrc", 3 }, { "LdOp", 0 }, { "StOp", 1 },
	    { "DcL1TlbMiss", 0 }, { "DcL2TlbMiss", 0 }, { "DcMiss", 1 }, { "DcUcMemAcc", 0 },
	    { "DcLockedOp", 0 }, { "DcMissNoMabAlloc", 0 }, { "DcLinAddrValid", 1 },
	    { "DcPhyAddrValid", 1 }, { "L2Miss", 1 }, { "OpMemWidth", 32 },
	    { "OpDcMissOpenMemReqs", 12 }, { "DcMissLat", 0 } },
	  /* store, DcMiss and L2Miss: OP_DATA2 is for loads only, no MAB: level n/a; TLB L1 hit */
	  0xff110008a5398920ull, 0, 0x1e29080024ull,
	  0, 1, 1, 1, MEMPHIS_SRC_NA, 0 },
	{ "Kim Phillips' op sample (user store, L1 hit, cnt_ctl=1)",
	  { 0x0000009e009e8968ull, 0x000056016b2ea73dull, 0x00000000000b0002ull, 0x2ull,
	    0xc60002ull, 0x00007f133c319ce0ull, 0x0000000270485ce0ull },
	  { { "MaxCnt", 10000000 }, { "En", 1 }, { "Val", 1 }, { "CntCtl", 1 }, { "CurCnt", 158 },
	    { "CompToRetCtr", 2 }, { "TagToRetCtr", 11 }, { "BrnRet", 0 }, { "RipInvalid", 0 },
	    { "Microcode", 0 }, { "RmtNode", 0 }, { "DataSrc", 2 }, { "LdOp", 0 }, { "StOp", 1 },
	    { "DcL1TlbMiss", 0 }, { "DcL2TlbMiss", 0 }, { "DcMiss", 0 }, { "DcUcMemAcc", 0 },
	    { "DcLockedOp", 0 }, { "DcMissNoMabAlloc", 0 }, { "DcLinAddrValid", 1 },
	    { "DcPhyAddrValid", 1 }, { "L2Miss", 0 }, { "OpMemWidth", 4 },
	    { "OpDcMissOpenMemReqs", 0 }, { "DcMissLat", 0 } },
	  /* store, L1 hit (lvl L1|HIT, lvl_num L1), snoop n/a, lock n/a, TLB L1 hit */
	  0x00007f133c319ce0ull, 0, 0x229080144ull,
	  0, 1, 0, 0, MEMPHIS_SRC_L1, 1 },
};

/* The caps words tried: BR_TARGET and OP_DATA4 absent, then each added (60, 68, 76 bytes
 * of registers after the u32 size). RipInvalidChk (bit 7) is set in all. */
#define NCAPS 3
static const uint32_t capss[NCAPS] = { 0x3ffu & ~MEMPHIS_IBS_CAPS_BRNTRGT, 0x3ffu, 0x7ffu };

static unsigned long long pub_field(const struct pub *p, const char *name)
{
	for (int i = 0; i < NFIELD; i++)
		if (p->f[i].name && strcmp(p->f[i].name, name) == 0)
			return p->f[i].v;
	return ~0ull;
}

/* ---- the records ---- */

struct rec {
	uint64_t u[32];               /* 8-byte aligned, as records in a ring */
	size_t n;                     /* bytes */
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy((unsigned char *)r->u + r->n, p, n);
	r->n += n;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

/* The PERF_RECORD_SAMPLE the kernel writes for an ibs_op event of sample_type st:
 * perf_output_sample()'s order (IP, TID, TIME, ADDR, ID, CPU, RAW, WEIGHT, DATA_SRC); misc
 * USER or KERNEL by the ip with EXACT_IP (perf_ibs_handle_irq sets the ip from IbsOpRip);
 * RAW as perf_ibs_handle_irq fills it: u32 size, then u32 caps and OP_CTL..DC_PHYSAD, then
 * BR_TARGET with caps BrnTrgt and OP_DATA4 with caps OpData4, padded with zeros to 8 bytes
 * (perf_prepare_sample; the u32 size counts the padding). -1 for a sample_type bit this
 * builder does not know. */
static int build(struct rec *r, uint64_t st, const struct pub *p, uint32_t caps)
{
	const uint64_t known = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW |
			       PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC;
	uint64_t ip = p->reg[MEMPHIS_IBS_OP_RIP];
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE,
		.misc = (ip < USER_TOP ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL) |
			PERF_RECORD_MISC_EXACT_IP,
	};
	uint32_t size = 4 + 8 * MEMPHIS_IBS_NREGS, pad;

	if (st & ~known)
		return -1;
	size += (caps & MEMPHIS_IBS_CAPS_BRNTRGT) ? 8 : 0;
	size += (caps & MEMPHIS_IBS_CAPS_OPDATA4) ? 8 : 0;
	pad = (4 + size + 7) / 8 * 8 - (4 + size);
	r->n = 0;
	put(r, &h, sizeof(h));
	if (st & PERF_SAMPLE_IP)
		put64(r, ip);
	if (st & PERF_SAMPLE_TID)
		put64(r, (uint64_t)4243 << 32 | 4242); /* pid 4242, tid 4243 */
	if (st & PERF_SAMPLE_TIME)
		put64(r, 1000000000123ull);
	if (st & PERF_SAMPLE_ADDR)
		put64(r, p->k_addr);
	if (st & PERF_SAMPLE_ID)
		put64(r, 1);
	if (st & PERF_SAMPLE_CPU)
		put64(r, 3);
	if (st & PERF_SAMPLE_RAW) {
		uint32_t padded = size + pad;
		put(r, &padded, 4);
		put(r, &caps, 4);
		put(r, p->reg, 8 * MEMPHIS_IBS_NREGS);
		if (caps & MEMPHIS_IBS_CAPS_BRNTRGT)
			put64(r, ip + 0x10);            /* IbsBrTarget */
		if (caps & MEMPHIS_IBS_CAPS_OPDATA4)
			put64(r, 0);                    /* IbsOpData4 */
		put(r, "\0\0\0\0\0\0\0", pad);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put64(r, p->k_weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put64(r, p->k_data_src);
	h.size = (uint16_t)r->n;
	memcpy(r->u, &h, sizeof(h));
	return 0;
}

/* ---- a perf.data file around them ---- */

static void put_str(FILE *f, const char *s)
{
	/* perf's do_write_string: u32 length (NUL included, padded to 64), then the bytes */
	char b[64] = { 0 };
	uint32_t len = 64;

	snprintf(b, sizeof(b), "%s", s);
	fwrite(&len, 4, 1, f);
	fwrite(b, 1, 64, f);
}

/* Write path: header, one attr (a's first 128 bytes: PERF_ATTR_SIZE_VER7, what perf 6.1
 * reads) with id 1, the records, and the features perf -D needs to decode IBS raw data
 * (util/sample-raw.c: arch x86, a cpuid starting "AuthenticAMD", a PMU mapping named
 * ibs_op for the attr's type): HEADER_ARCH (6), HEADER_CPUID (9), HEADER_PMU_MAPPINGS
 * (16), each a file section listed after the data section. 0 or -1. */
static int write_perf_data(const char *path, const struct perf_event_attr *a,
			   const struct rec *recs, int nrec)
{
	enum { HDR = 104, ATTR = 128, FEAT_SIZE = 4 + 64 };
	FILE *f = fopen(path, "wb");
	uint64_t data_off = HDR + ATTR + 16 + 8, data_size = 0, v, feat_off;
	unsigned char attr[ATTR] = { 0 };
	uint32_t u;
	int ok1;

	if (!f)
		return -1;
	for (int i = 0; i < nrec; i++)
		data_size += recs[i].n;
	memcpy(attr, a, sizeof(*a) < ATTR ? sizeof(*a) : ATTR);
	u = ATTR;
	memcpy(attr + 4, &u, 4);
	fwrite("PERFILE2", 1, 8, f);
	v = HDR; fwrite(&v, 8, 1, f);                   /* header size */
	v = ATTR + 16; fwrite(&v, 8, 1, f);             /* attr entry size */
	v = HDR; fwrite(&v, 8, 1, f);                   /* attrs section */
	v = ATTR + 16; fwrite(&v, 8, 1, f);
	fwrite(&data_off, 8, 1, f);                     /* data section */
	fwrite(&data_size, 8, 1, f);
	v = 0; fwrite(&v, 8, 1, f); fwrite(&v, 8, 1, f); /* event types: none */
	v = 1ull << 6 | 1ull << 9 | 1ull << 16;          /* adds_features[0] */
	fwrite(&v, 8, 1, f);
	v = 0; fwrite(&v, 8, 1, f); fwrite(&v, 8, 1, f); fwrite(&v, 8, 1, f);
	fwrite(attr, 1, ATTR, f);
	v = HDR + ATTR + 16; fwrite(&v, 8, 1, f);       /* its ids: one, id 1 */
	v = 8; fwrite(&v, 8, 1, f);
	v = 1; fwrite(&v, 8, 1, f);
	for (int i = 0; i < nrec; i++)
		fwrite(recs[i].u, 1, recs[i].n, f);
	feat_off = data_off + data_size + 3 * 16;
	v = feat_off; fwrite(&v, 8, 1, f);               /* ARCH */
	v = FEAT_SIZE; fwrite(&v, 8, 1, f);
	v = feat_off + FEAT_SIZE; fwrite(&v, 8, 1, f);   /* CPUID */
	v = FEAT_SIZE; fwrite(&v, 8, 1, f);
	v = feat_off + 2 * FEAT_SIZE; fwrite(&v, 8, 1, f); /* PMU_MAPPINGS: u32 n, {u32 type, str} */
	v = 4 + 2 * (4 + FEAT_SIZE); fwrite(&v, 8, 1, f);
	put_str(f, "x86_64");
	put_str(f, "AuthenticAMD,25,1,1");
	u = 2; fwrite(&u, 4, 1, f);
	u = PERF_TYPE_RAW; fwrite(&u, 4, 1, f);
	put_str(f, "cpu");
	u = IBS_TYPE; fwrite(&u, 4, 1, f);
	put_str(f, "ibs_op");
	ok1 = !ferror(f);
	return fclose(f) == 0 && ok1 ? 0 : -1;
}

/* ---- perf report -D's view ---- */

/* One sample as perf report -D prints it: name/value pairs of the IBS lines ("ibs_op_ctl"
 * etc. with the register in hex, then each "Name value" field), and the sample's summary,
 * weight and data_src lines. */
struct perf_view {
	struct { char name[32]; unsigned long long v; } kv[64];
	int nkv;
	uint32_t cpu, pid, tid;
	unsigned long long time, ip, addr, weight, data_src;
	int summary, has_weight, has_data_src;
};

static unsigned long long view_get(const struct perf_view *w, const char *name)
{
	for (int i = 0; i < w->nkv; i++)
		if (strcmp(w->kv[i].name, name) == 0)
			return w->kv[i].v;
	return ~0ull;
}

static void view_add(struct perf_view *w, const char *name, size_t len, unsigned long long v)
{
	if (w->nkv < 64 && len < sizeof(w->kv[0].name)) {
		snprintf(w->kv[w->nkv].name, sizeof(w->kv[0].name), "%.*s", (int)len, name);
		w->kv[w->nkv++].v = v;
	}
}

/* "ibs_op_data3:\t0000000031960092 LdOp 0 StOp 1 ... OpMemWidth 32 bytes ...": the register
 * under the line's key, then each word followed by a number ("DataSrc 3=DRAM" gives 3). */
static void view_ibs_line(struct perf_view *w, const char *line)
{
	const char *colon = strchr(line, ':'), *p;
	char *end;

	if (!colon)
		return;
	view_add(w, line, (size_t)(colon - line), strtoull(colon + 1, &end, 16));
	for (p = end; *p;) {
		const char *word, *num;
		size_t wl;

		while (*p == ' ' || *p == '\t')
			p++;
		word = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		wl = (size_t)(p - word);
		for (num = p; *num == ' '; num++)
			;
		if (wl && ((*word >= 'A' && *word <= 'Z') || (*word >= 'a' && *word <= 'z')) &&
		    *num >= '0' && *num <= '9') {
			view_add(w, word, wl, strtoull(num, &end, 10));
			p = end;
		}
	}
}

/* perf report -D of the file at path: the samples' views, in file order, into w[max].
 * Returns how many, -1 when perf failed. */
static int perf_views(const char *path, struct perf_view *w, int max)
{
	static const char *const keys[] = { "ibs_op_ctl:", "IbsOpRip:", "ibs_op_data:",
					    "ibs_op_data2:", "ibs_op_data3:", "IbsDCLinAd:",
					    "IbsDCPhysAd:" };
	char cmd[600], *out, *line, *save = NULL;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "perf report -f -D -i '%s' 2>/dev/null", path);
	if (pd_run(cmd, &out) != 0) {
		free(out);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct perf_view *c = n >= 0 && n < max ? &w[n] : NULL;
		unsigned long long off, sz;
		unsigned misc;
		char *q;

		if (strstr(line, ": event: 9") && strchr(line, '@')) { /* a sample's dump begins */
			if (++n < max)
				memset(&w[n], 0, sizeof(w[n]));
			continue;
		}
		if (!c)
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (strncmp(line, keys[k], strlen(keys[k])) == 0)
				view_ibs_line(c, line);
		if ((q = strstr(line, "PERF_RECORD_SAMPLE(")) &&
		    sscanf(line, "%u %llu 0x%llx [0x%llx]: PERF_RECORD_SAMPLE(IP, 0x%x): %u/%u: "
			   "0x%llx period: %*u addr: %llx", &c->cpu, &c->time, &off, &sz, &misc,
			   &c->pid, &c->tid, &c->ip, &c->addr) == 9)
			c->summary = 1;
		if (sscanf(line, "... weight: %llu", &c->weight) == 1)
			c->has_weight = 1;
		if (sscanf(line, " . data_src: 0x%llx", &c->data_src) == 1)
			c->has_data_src = 1;
	}
	free(out);
	return n + 1 < max ? n + 1 : max;
}

/* ---- checks ---- */

/* What memphis decodes from a record's registers against the printed fields (get: the
 * doc's or commit's table, or perf's view). Returns 1, or 0 with the first difference. */
static int fields_agree(const struct memphis_hw_access *a, const uint64_t *reg,
			unsigned long long (*get)(const void *, const char *), const void *src,
			char *why, size_t n)
{
	unsigned long long ld = get(src, "LdOp"), miss = get(src, "DcMiss");
	unsigned long long lin_valid = get(src, "DcLinAddrValid");
	unsigned long long tlb = !lin_valid ? MEMPHIS_TLB_NA
			       : !get(src, "DcL1TlbMiss") ? (MEMPHIS_TLB_L1 | MEMPHIS_TLB_HIT)
			       : !get(src, "DcL2TlbMiss") ? (MEMPHIS_TLB_L2 | MEMPHIS_TLB_HIT)
							  : (MEMPHIS_TLB_L2 | MEMPHIS_TLB_MISS);
	static const char *const need[] = { "En", "Val", "RipInvalid", "LdOp", "StOp", "DcMiss",
					    "L2Miss", "DcLockedOp", "DcLinAddrValid",
					    "DcPhyAddrValid", "OpMemWidth", "DcMissLat", "TagToRetCtr",
					    "DcL1TlbMiss", "DcL2TlbMiss", "DcUcMemAcc" };
	const struct { const char *what; unsigned long long ours, want; } c[] = {
		{ "valid (En and Val)", a->valid, get(src, "En") && get(src, "Val") },
		{ "ip_valid (RipInvalid clear)", a->ip_valid, !get(src, "RipInvalid") },
		{ "ip (IbsOpRip)", a->ip, reg[MEMPHIS_IBS_OP_RIP] },
		{ "is_load (LdOp)", a->is_load, ld },
		{ "is_store (StOp)", a->is_store, get(src, "StOp") },
		{ "miss (DcMiss)", a->miss, miss },
		{ "l2_miss (DcMiss and L2Miss)", a->l2_miss, miss && get(src, "L2Miss") },
		{ "locked (DcLockedOp)", a->locked, get(src, "DcLockedOp") },
		{ "addr_valid (DcLinAddrValid)", a->addr_valid, lin_valid },
		{ "addr (IbsDCLinAd)", a->addr, lin_valid ? reg[MEMPHIS_IBS_DC_LINAD] : 0 },
		{ "phys_valid (DcPhyAddrValid)", a->phys_valid, get(src, "DcPhyAddrValid") },
		{ "phys (IbsDCPhysAd)", a->phys,
		  get(src, "DcPhyAddrValid") ? reg[MEMPHIS_IBS_DC_PHYSAD] : 0 },
		{ "width (OpMemWidth)", a->width, get(src, "OpMemWidth") },
		/* latencies as the kernel gives them: load misses only */
		{ "latency (DcMissLat of a load miss)", a->latency, ld && miss ? get(src, "DcMissLat") : 0 },
		{ "ins_lat (TagToRetCtr of a load miss)", a->ins_lat,
		  ld && miss ? get(src, "TagToRetCtr") : 0 },
		{ "data_src TLB (DcL1TlbMiss, DcL2TlbMiss)", memphis__bits(a->data_src, 26, 7), tlb },
		{ "data_src lock (DcLockedOp)", memphis__bits(a->data_src, 24, 2),
		  get(src, "DcLockedOp") ? MEMPHIS_LOCK_LOCKED : MEMPHIS_LOCK_NA },
		{ "uncached (DcUcMemAcc)", a->src == MEMPHIS_SRC_UNCACHED, get(src, "DcUcMemAcc") },
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (get(src, need[i]) == ~0ull) {
			snprintf(why, n, "%s not printed", need[i]);
			return 0;
		}
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		if (c[i].ours != c[i].want) {
			snprintf(why, n, "%s: memphis %#llx, printed %#llx", c[i].what, c[i].ours,
				 c[i].want);
			return 0;
		}
	return 1;
}

static unsigned long long get_pub(const void *p, const char *name)
{
	return pub_field(p, name);
}

static unsigned long long get_view(const void *w, const char *name)
{
	return view_get(w, name);
}

/* The fake sysfs ibs_op PMU memphis__ibs_plan reads: its type and the cnt_ctl format. */
static int fake_sysfs(char *root, size_t n)
{
	char p[1024];
	FILE *f;

	snprintf(root, n, "%s/sys", tmp);
	snprintf(p, sizeof(p), "%s/bus/event_source/devices/ibs_op/format", root);
	for (char *s = p + strlen(tmp) + 1; (s = strchr(s, '/')); s++) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	if (mkdir(p, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/bus/event_source/devices/ibs_op/type", root);
	if (!(f = fopen(p, "w")))
		return -1;
	fprintf(f, "%u\n", IBS_TYPE);
	fclose(f);
	snprintf(p, sizeof(p), "%s/bus/event_source/devices/ibs_op/format/cnt_ctl", root);
	if (!(f = fopen(p, "w")))
		return -1;
	fprintf(f, "config:19\n");
	return fclose(f);
}

/* One record of published sample p with caps word capss[k], for an event of sample_type
 * st: built, parsed, its registers decoded, then made a sample by the library (into *lib)
 * and by the module. */
static void one_record(const char *vname, uint64_t st, const struct pub *p, size_t k,
		       struct rec *r, struct memphis__perf_sample *s, struct memphis_rec_sample *lib)
{
	uint32_t caps = capss[k], rcaps = 0;
	__u64 reg[MEMPHIS_IBS_NREGS_MAX];
	struct memphis_hw_access a = { 0 };
	struct memphismod_sample_in in;
	struct memphismod_record mr;
	struct memphis__kmod_sample ks;
	enum memphismod_rec_verdict v;
	char why[256] = "";
	int parsed, nregs, decoded, kept, same;

	build(r, st, p, caps);
	parsed = memphis__perf_sample_parse(r->u, r->n, st, s) == 0;
	nregs = parsed ? memphis_ibs_raw_regs(s->raw, s->raw_size, &rcaps, reg) : -1;
	ok(parsed && s->ip == p->reg[1] && s->pid == 4242 && s->tid == 4243 &&
	   s->time == 1000000000123ull && s->cpu == 3 && s->id == 1 &&
	   s->raw_size == 4 + 8u * (7 + k) &&
	   s->addr == ((st & PERF_SAMPLE_ADDR) ? p->k_addr : 0) &&
	   s->data_src == ((st & PERF_SAMPLE_DATA_SRC) ? p->k_data_src : 0) &&
	   nregs == 7 + (int)k && rcaps == caps && memcmp(reg, p->reg, sizeof(p->reg)) == 0 &&
	   (!(caps & MEMPHIS_IBS_CAPS_BRNTRGT) || reg[MEMPHIS_IBS_BR_TARGET] == p->reg[1] + 0x10),
	   "%s, %s, caps %#x: the %zu-byte record parses: ip, pid/tid, time, id, cpu, the kernel's "
	   "fields, RAW of %u bytes with the caps word and %d registers", vname, p->what, caps,
	   r->n, s->raw_size, nregs);
	decoded = parsed && memphis_ibs_raw_decode(s->raw, s->raw_size, 0, 0, &a) == 0;
	ok(decoded && fields_agree(&a, p->reg, get_pub, p, why, sizeof(why)) &&
	   a.is_load == p->is_load && a.is_store == p->is_store && a.miss == p->miss &&
	   a.l2_miss == p->l2_miss && a.src == p->src && a.addr_user == p->user &&
	   a.data_src == p->k_data_src,
	   "%s, %s, caps %#x: decoded as printed (op, miss, L2 miss, lock, addresses and their "
	   "validity, width, latencies, TLB, level), data_src %#llx as the kernel's", vname,
	   p->what, caps, (unsigned long long)a.data_src);
	if (why[0])
		printf("# %s\n", why);
	/* the library's sample: the same whatever the caps */
	memset(lib, 0, sizeof(*lib));
	kept = parsed && memphis__ibs_sample(s, st, 0, 0, lib);
	same = k == 0 || memcmp(lib, lib - k, sizeof(*lib)) == 0;
	ok(kept == p->user && same &&
	   (!p->user || (lib->ip == p->reg[1] && lib->addr == p->reg[5] &&
			 lib->flags == (MPH_S_STORE | MPH_S_EXACT | MPH_S_HWADDR) &&
			 lib->tid == 4243 && lib->cpu == 3 && lib->weight == 0 && lib->ins_lat == 0 &&
			 lib->data_src == p->k_data_src)),
	   "%s, %s, caps %#x: memphis__ibs_sample %s", vname, p->what, caps,
	   p->user ? "keeps the store at its exact user address, no latency" : "drops kernel code");
	/* the module's conversion of the same sample, then as READ hands it over */
	in = (struct memphismod_sample_in){
		.kind = MEMPHISMOD_KIND_IBS_OP,
		.sample_flags = PERF_SAMPLE_RAW | (st & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
							 PERF_SAMPLE_WEIGHT_STRUCT)),
		.addr = s->addr, .data_src = s->data_src, .weight = s->weight, .ibs_regs = reg,
		.ibs_caps = rcaps, .pid = s->pid, .tid = s->tid, .cpu = s->cpu, .ip = s->ip,
		.time = s->time, .user_top = USER_TOP, .ours = 1, .weight_struct = 1,
	};
	v = nregs > 0 ? memphismod_rec_fill(&in, &mr) : MEMPHISMOD_REC_NOMEM;
	ok(p->user ? v == MEMPHISMOD_REC_KEEP && memphis__kmod_decode(&mr, sizeof(mr), 64, &ks) == 0 &&
			     ks.s.ip == lib->ip && ks.s.addr == lib->addr &&
			     ks.s.flags == lib->flags && ks.s.data_src == lib->data_src &&
			     ks.s.weight == 1 && ks.s.ins_lat == 0
		   : v == MEMPHISMOD_REC_KERNEL_IP,
	   "%s, %s, caps %#x: the module %s", vname, p->what, caps,
	   p->user ? "records the same sample as the library (weight 1: none given)"
		   : "drops kernel code");
}

/* One plan variant: every published sample with every caps word through one_record and,
 * with perf, compared with perf report -D. */
static void test_variant(const char *root, uint64_t kernel_fields, const char *vname, int have_perf)
{
	struct memphis__ibs_opts o = { .sysfs = root, .period = 100000, .cnt_ctl = 1,
				       .kernel_fields = kernel_fields };
	struct memphis__hw_plan plan;
	char notes[160], why[256], path[512];
	enum { NREC = sizeof(pubs) / sizeof(pubs[0]) * NCAPS };
	struct rec recs[NREC], probe;
	struct memphis__perf_sample ps[NREC];
	struct memphis_rec_sample lib[NREC];
	struct perf_view *views;
	uint64_t st;
	int nrec = 0, nview, err;

	err = memphis__ibs_plan(&o, &plan, notes, sizeof(notes), why, sizeof(why));
	st = err == 0 ? plan.ev[0].attr.sample_type : 0;
	if (!ok(err == 0 && plan.n == 1 && plan.ev[0].attr.type == IBS_TYPE &&
		(st & PERF_SAMPLE_RAW) && build(&probe, st, &pubs[0], capss[0]) == 0,
		"%s: memphis__ibs_plan's ibs_op event, sample_type %#llx (one the record builder "
		"knows)", vname, (unsigned long long)st))
		return;
	for (size_t i = 0; i < sizeof(pubs) / sizeof(pubs[0]); i++)
		for (size_t k = 0; k < NCAPS; k++, nrec++)
			one_record(vname, st, &pubs[i], k, &recs[nrec], &ps[nrec], &lib[nrec]);
	if (!have_perf) {
		tap_skip(NO_PERF, "%s: perf report -D finds the same records and decodes them as "
			 "memphis", vname);
		return;
	}
	snprintf(path, sizeof(path), "%s/ibs-%s.data", tmp, vname);
	views = calloc(NREC + 1, sizeof(*views));
	if (!ok(views && write_perf_data(path, &plan.ev[0].attr, recs, nrec) == 0,
		"%s: the records written into a perf.data file", vname)) {
		free(views);
		return;
	}
	nview = perf_views(path, views, NREC + 1);
	ok(nview == nrec, "%s: perf report -D prints all %d samples (%d)", vname, nrec, nview);
	for (int i = 0; i < nview && i < nrec; i++) {
		const struct pub *p = &pubs[i / NCAPS];
		const struct perf_view *w = &views[i];
		static const char *const regname[] = { "ibs_op_ctl", "IbsOpRip", "ibs_op_data",
						       "ibs_op_data2", "ibs_op_data3", "IbsDCLinAd",
						       "IbsDCPhysAd" };
		struct memphis_hw_access a;
		int regs_same = 1, printed_same = 1;

		for (int r = 0; r < MEMPHIS_IBS_NREGS; r++)
			regs_same &= view_get(w, regname[r]) == p->reg[r];
		for (int f = 0; f < NFIELD; f++)
			printed_same &= view_get(w, p->f[f].name) == p->f[f].v;
		memphis_ibs_raw_decode(ps[i].raw, ps[i].raw_size, 0, 0, &a);
		why[0] = 0;
		ok(regs_same && printed_same && fields_agree(&a, p->reg, get_view, w, why, sizeof(why)),
		   "%s, record %d (%s): perf -D finds its 7 registers, prints the doc's or commit's "
		   "fields, and memphis decodes them as perf does", vname, i, p->what);
		if (why[0])
			printf("# %s\n", why);
		ok(w->summary && w->ip == ps[i].ip && w->pid == ps[i].pid && w->tid == ps[i].tid &&
		   w->cpu == ps[i].cpu && w->time == ps[i].time && w->addr == ps[i].addr &&
		   w->has_weight == !!(st & PERF_SAMPLE_WEIGHT_STRUCT) && w->weight == ps[i].lat &&
		   w->has_data_src == !!(st & PERF_SAMPLE_DATA_SRC) && w->data_src == ps[i].data_src,
		   "%s, record %d: perf parses the same ip, pid/tid, cpu, time, addr, weight and "
		   "data_src as memphis__perf_sample_parse", vname, i);
	}
	free(views);
}

/* The check of printed fields fails when memphis's decode differs in one field. */
static void test_fields_can_fail(void)
{
	const struct pub *p = &pubs[1];
	struct memphis_hw_access a;
	char why[256];
	unsigned char raw[4 + 8 * MEMPHIS_IBS_NREGS];
	uint32_t caps = 0x3ffu & ~MEMPHIS_IBS_CAPS_BRNTRGT;

	memcpy(raw, &caps, 4);
	memcpy(raw + 4, p->reg, sizeof(p->reg));
	memphis_ibs_raw_decode(raw, sizeof(raw), 0, 0, &a);
	ok(fields_agree(&a, p->reg, get_pub, p, why, sizeof(why)), "the commit's sample as printed");
	a.width = 8;
	ok(!fields_agree(&a, p->reg, get_pub, p, why, sizeof(why)) && strstr(why, "OpMemWidth"),
	   "a width of 8 bytes where 4 are printed is told (%s)", why);
}

int main(void)
{
	char root[512], cmd[300];
	int have_perf;

	snprintf(tmp, sizeof(tmp), "%s/unit_replay_ibs.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp) || fake_sysfs(root, sizeof(root)) < 0) {
		perror("temporary directory");
		return 1;
	}
	have_perf = pd_have_perf();
	test_fields_can_fail();
	/* the sample types ibs_probe asks for, the first a 6.1+ kernel accepts: the kernel's
	 * fields beside RAW, or RAW alone (older kernels) */
	test_variant(root, PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT,
		     "raw+kernel", have_perf);
	test_variant(root, 0, "raw", have_perf);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmp);
	return tap_done();
}
