/* tests/unit/unit_hwbackend.c - the hardware backends without hardware: the PERF_RECORD_SAMPLE
 * parser (kernel field order, RAW padding, short records), loss/throttle records, the ring
 * reader on a record that wraps the buffer end, the one-line reasons for each refusal, the
 * auto order of the backend choice (a fake probe table), the PEBS event plans as libpfm4
 * encodes them for other CPUs (LIBPFM_ENCODE_INACTIVE=1: skx, icx, spr with the
 * mem-loads-aux leader, hybrid cpu_core/cpu_atom from a fake sysfs tree) compared to the
 * published attrs, the IBS attr built from a fake sysfs ibs_op directory, and IBS samples
 * decoded from raw registers. TAP output. */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "memphis/hwdecode.h"
#include "self.h"
#include "hwset.h"
#include "ibs.h"
#include "pebs.h"
#include "perf.h"
#include "perf_ring.h"

#include "ibs_kernel_src.h"
#include "tap.h"

/* ---- records ---- */

struct rec {
	unsigned char b[512];
	size_t n;
};

static void put(struct rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

static void header(struct rec *r, uint32_t type)
{
	struct perf_event_header h = { .type = type, .misc = PERF_RECORD_MISC_USER };
	r->n = 0;
	put(r, &h, sizeof(h));
}

static void finish(struct rec *r)
{
	((struct perf_event_header *)r->b)->size = (uint16_t)r->n;
}

static void test_parse(void)
{
	/* fixture A's layout (Skylake-SP perf mem): IP|TID|TIME|ADDR|ID|CPU|DATA_SRC|WEIGHT_STRUCT */
	const uint64_t st = 0x10080cf;
	struct memphis__perf_sample s;
	struct rec r;

	header(&r, PERF_RECORD_SAMPLE);
	put64(&r, 0x401234);                          /* ip */
	put64(&r, (uint64_t)1001 << 32 | 1000);       /* pid, tid */
	put64(&r, 123456789);                          /* time */
	put64(&r, 0x7f0000001040);                     /* addr */
	put64(&r, 77);                                 /* id */
	put64(&r, 5);                                  /* cpu, res */
	put64(&r, (uint64_t)9 << 32 | 0x47);           /* weight: var1_dw 0x47, var2_w 9 */
	put64(&r, 0x10268100142ull);                   /* data_src: load, L1 hit */
	finish(&r);
	ok(st == (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		  PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT),
	   "0x10080cf is the PEBS sample_type of fixture A");
	ok(memphis__perf_sample_parse(r.b, r.n, st, &s) == 0 && s.ip == 0x401234 && s.pid == 1000 &&
	   s.tid == 1001 && s.time == 123456789 && s.addr == 0x7f0000001040 && s.id == 77 && s.cpu == 5 &&
	   s.lat == 0x47 && s.ins_lat == 9 && s.data_src == 0x10268100142ull,
	   "WEIGHT_STRUCT sample: every field in the kernel's order");
	ok(memphis__perf_sample_parse(r.b, r.n - 8, st, &s) == -EINVAL, "a sample one field short is refused");
	ok(memphis__perf_sample_parse(r.b, r.n, st | PERF_SAMPLE_READ, &s) == -EINVAL,
	   "a sample_type with READ (not understood) is refused");

	/* IVB perf mem: IP|TID|TIME|ADDR|PERIOD|WEIGHT|DATA_SRC (0xc10f) */
	header(&r, PERF_RECORD_SAMPLE);
	put64(&r, 0x400000);
	put64(&r, 0);
	put64(&r, 1);
	put64(&r, 0x7ffd00000e02);
	put64(&r, 4000);
	put64(&r, 7);
	put64(&r, 0x68100142);
	finish(&r);
	ok(memphis__perf_sample_parse(r.b, r.n, 0xc10f, &s) == 0 && s.period == 4000 && s.lat == 7 &&
	   s.ins_lat == 0 && s.data_src == 0x68100142 && s.addr == 0x7ffd00000e02,
	   "plain WEIGHT and PERIOD sample");

	/* IBS: IP|TID|TIME|ID|CPU|RAW|ADDR|DATA_SRC|WEIGHT: raw_size 68 = caps + 8 regs; the
	 * u32 size and payload pad to 8 bytes, then the fields after RAW */
	header(&r, PERF_RECORD_SAMPLE);
	put64(&r, 0x401000);
	put64(&r, (uint64_t)7 << 32 | 7);
	put64(&r, 2);
	put64(&r, 0xabcd);      /* addr */
	put64(&r, 0x183aa);     /* id */
	put64(&r, 3);           /* cpu */
	uint32_t raw_size = 68, caps = 0xbff;
	put(&r, &raw_size, 4);
	put(&r, &caps, 4);
	for (int i = 0; i < 8; i++)
		put64(&r, 0x1111111111111111ull * (uint64_t)(i + 1));
	put64(&r, 0x7);         /* weight */
	put64(&r, 0x1234);      /* data_src */
	finish(&r);
	uint64_t ist = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU |
		       PERF_SAMPLE_RAW | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT;
	ok(memphis__perf_sample_parse(r.b, r.n, ist, &s) == 0 && s.raw_size == 68 && s.id == 0x183aa &&
	   !memcmp(s.raw, &caps, 4) && s.addr == 0xabcd && s.lat == 7 && s.data_src == 0x1234,
	   "RAW of 68 bytes: padded with its size to 72, WEIGHT and DATA_SRC after it");

	struct memphis__perf_losses l = { 0 };
	header(&r, PERF_RECORD_LOST);
	put64(&r, 1);
	put64(&r, 42);
	finish(&r);
	ok(memphis__perf_record_count(r.b, r.n, &l) == PERF_RECORD_LOST && l.lost == 42, "LOST adds its count");
	header(&r, PERF_RECORD_LOST_SAMPLES);
	put64(&r, 5);
	finish(&r);
	memphis__perf_record_count(r.b, r.n, &l);
	header(&r, PERF_RECORD_THROTTLE);
	put64(&r, 1);
	put64(&r, 1);
	put64(&r, 1);
	finish(&r);
	memphis__perf_record_count(r.b, r.n, &l);
	memphis__perf_record_count(r.b, r.n, &l);
	((struct perf_event_header *)r.b)->type = PERF_RECORD_UNTHROTTLE;
	memphis__perf_record_count(r.b, r.n, &l);
	ok(l.lost == 42 && l.lost_samples == 5 && l.throttle == 2 && l.unthrottle == 1,
	   "LOST_SAMPLES, THROTTLE and UNTHROTTLE counted apart");
	ok(memphis__perf_record_count(r.b, 4, &l) == -1, "a record shorter than its header is refused");
}

/* ---- the ring: a record wrapping the end of the data area ---- */

struct got {
	int n;
	uint64_t ip[4];
};

static void on_rec(const void *rec, size_t len, void *ctx)
{
	struct got *g = ctx;
	struct memphis__perf_sample s;

	if (memphis__perf_sample_parse(rec, len, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, &s) == 0 && g->n < 4)
		g->ip[g->n++] = s.ip;
}

static void test_ring(void)
{
	static unsigned char area[4096 + 256] __attribute__((aligned(4096)));
	struct perf_event_mmap_page *mp = (void *)area;
	unsigned char *data = area + 4096;
	struct memphis__ring ring = { .fd = -1, .base = area, .data_size = 256 };
	struct rec r;
	struct got g = { 0 };
	uint64_t pos = 256 * 3 + 200; /* tail: 200 bytes into the area, after three wraps */

	mp->data_offset = 4096;
	for (int i = 0; i < 3; i++) { /* 24-byte records at 200, 224, 248 (wraps: 8 + 16) */
		header(&r, PERF_RECORD_SAMPLE);
		put64(&r, 0x1000 + (uint64_t)i);
		put64(&r, 0x2000);
		finish(&r);
		for (size_t k = 0; k < r.n; k++)
			data[(pos + (uint64_t)i * 24 + k) % 256] = r.b[k];
	}
	mp->data_tail = pos;
	mp->data_head = pos + 3 * 24 + 4; /* and half a header the kernel is still writing */
	size_t n = memphis__ring_drain(&ring, on_rec, &g);
	ok(n == 3 && g.n == 3 && g.ip[0] == 0x1000 && g.ip[1] == 0x1001 && g.ip[2] == 0x1002,
	   "ring: three records, the last wrapping the end, read whole (%zu read)", n);
	ok(mp->data_tail == pos + 72, "ring: data_tail released past the complete records only");
	memphis__lib_free(ring.scratch);
}

/* ---- why ---- */

static void test_why(void)
{
	static const struct {
		int line, err, paranoid;
		unsigned what;
		const char *want1, *want2;
	} t[] = {
		{ __LINE__, -ENOENT, 2, 0, "no PMU", "MEMPHIS_BACKEND=soft" },
		{ __LINE__, -EOPNOTSUPP, 2, 0, "virtual machine", "pmu=on" },
		{ __LINE__, -EACCES, 3, 0, "kernel.perf_event_paranoid=3", "sysctl kernel.perf_event_paranoid=2" },
		{ __LINE__, -EACCES, 2, MEMPHIS__HW_WHY_KERNEL, "cannot exclude the kernel needs <=1",
		  "sysctl kernel.perf_event_paranoid=1" },
		{ __LINE__, -EACCES, 1, MEMPHIS__HW_WHY_CPU | MEMPHIS__HW_WHY_KERNEL, "per CPU needs <=0",
		  "paranoid=0" },
		{ __LINE__, -EPERM, 2, 0, "seccomp", "EPERM" },
		{ __LINE__, -EACCES, 2, MEMPHIS__HW_WHY_PHYS, "PHYS_ADDR", "EACCES" },
		{ __LINE__, -ENOSPC, 2, 0, "in use by another tool", "ENOSPC" },
		{ __LINE__, -ENODATA, 2, 0, "mem-loads-aux", "ENODATA" },
		{ __LINE__, -EINVAL, 2, 0, "EINVAL", "MEMPHIS_EVENT" },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char why[512];
		memphis__hw_why(t[i].err, "pebs", "cpu/MEM_TRANS_RETIRED:LOAD_LATENCY", t[i].paranoid, t[i].what,
				why, sizeof(why));
		tap(strstr(why, t[i].want1) && strstr(why, t[i].want2) && !strchr(why, '\n') &&
		    !strncmp(why, "pebs: ", 6) && !strstr(why, "IBS"), t[i].line, "why for %s: %s",
		    strerror(-t[i].err), why);
	}
	{
		char why[512];
		/* M3: IBS refuses a second user per CPU at schedule-in (perf_ibs_add()), never
		 * at open: no text may claim that cause */
		memphis__hw_why(-ENOSPC, "ibs", "ibs_op", 2, 0, why, sizeof(why));
		ok(!strstr(why, "IBS op user") && strstr(why, "ENOSPC"), "why for ENOSPC under ibs "
		   "claims no IBS cause that cannot happen at open: %s", why);
	}
}

/* ---- selection ---- */

static int fake_err[4];
static int probes[4];

#define FAKE(i)                                                                                  \
	static int probe##i(const struct memphis__backend_params *p, struct memphis__sampling *out, \
			    char *why, size_t n)                                                     \
	{                                                                                        \
		probes[i]++;                                                                     \
		if (fake_err[i]) { /* half-filled, as a probe that fails late */                 \
			out->hw_period = 77;                                                     \
			snprintf(why, n, "reason %d", i);                                        \
			return fake_err[i];                                                      \
		}                                                                                \
		out->weight = i < 2 ? "latency" : "stall";                                       \
		if (i >= 2)                                                                      \
			out->period_ns = p->period_ns;                                           \
		return 0;                                                                        \
	}
FAKE(0) FAKE(1) FAKE(2) FAKE(3)

static void test_select(void)
{
	static const struct memphis__backend fb[] = {
		{ .name = "ibs", .probe = probe0 }, { .name = "pebs", .probe = probe1 },
		{ .name = "kmod", .probe = probe2 }, { .name = "soft", .probe = probe3 },
	};
	const struct memphis__backend *const table[] = { &fb[0], &fb[1], &fb[2], &fb[3] };
	struct memphis__backend_params p = { .period_ns = 1000000 };
	char why[256], skips[512];
	struct memphis__sampling period;
	const struct memphis__backend *b;

	fake_err[0] = -ENOENT, fake_err[1] = -ENOENT, fake_err[2] = -ENOENT, fake_err[3] = 0;
	b = memphis__backend_choose(table, 4, "auto", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(b == &fb[3] && !strcmp(skips, "ibs: reason 0\npebs: reason 1\nkmod: reason 2\n") &&
	   !strcmp(why, "auto: the first usable of ibs, pebs, kmod, soft"), "auto: no PMU, no module: soft, the others' reasons in order");
	ok(!strcmp(period.weight, "stall") && period.period_ns == 1000000 && period.hw_period == 0 &&
	   period.precise_ip == -1, "the chosen probe's sampling only: a refused probe's half-filled "
	   "one does not leak (weight %s, hw_period %llu)", period.weight,
	   (unsigned long long)period.hw_period);
	fake_err[1] = 0;
	memset(probes, 0, sizeof(probes));
	b = memphis__backend_choose(table, 4, "auto", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(b == &fb[1] && !strcmp(skips, "ibs: reason 0\n") && probes[2] == 0 && probes[3] == 0,
	   "auto: PEBS usable: pebs, after ibs, before kmod and soft (not probed)");
	fake_err[0] = 0;
	b = memphis__backend_choose(table, 4, "auto", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(b == &fb[0] && !skips[0] && !strcmp(period.weight, "latency") && !period.period_ns,
	   "auto: IBS first, weight latency from its probe, no time period");
	fake_err[0] = fake_err[1] = fake_err[3] = -EACCES, fake_err[2] = 0;
	b = memphis__backend_choose(table, 4, "auto", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(b == &fb[2], "auto: no perf at all, the module granted: kmod");
	fake_err[2] = -ENOENT;
	b = memphis__backend_choose(table, 4, "auto", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(!b && !strcmp(why, "reason 3"), "auto: nothing usable: NULL, why = soft's reason (%s)", why);
	b = memphis__backend_choose(table, 4, "pebs", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(!b && !strcmp(why, "reason 1") && !strcmp(skips, "pebs: reason 1\n"),
	   "MEMPHIS_BACKEND=pebs refused: its own reason, no fallback");
	b = memphis__backend_choose(table, 4, "bogus", &p, &period, why, sizeof(why), skips, sizeof(skips));
	ok(!b && strstr(why, "no such backend") && strstr(why, MEMPHIS__BACKEND_CHOICES), "unknown name");
	ok(!strcmp(MEMPHIS__BACKEND_CHOICES, "auto, ibs, pebs, kmod, soft or none"), "the choices, in auto order");
}

/* ---- fake sysfs ---- */

static char root[256];

static void wfile(const char *rel, const char *text)
{
	char path[512], cmd[600];

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", text);
		fclose(f);
	}
}

static void core_pmu(const char *pmu, const char *type)
{
	char rel[128];
	snprintf(rel, sizeof(rel), "%s/type", pmu), wfile(rel, type);
	snprintf(rel, sizeof(rel), "%s/format/event", pmu), wfile(rel, "config:0-7");
	snprintf(rel, sizeof(rel), "%s/format/umask", pmu), wfile(rel, "config:8-15");
	snprintf(rel, sizeof(rel), "%s/format/ldlat", pmu), wfile(rel, "config1:0-15");
}

static void rm_root(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", root);
}

static const struct memphis__hw_event *find(const struct memphis__hw_plan *p, uint32_t type,
					    uint64_t config)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->ev[i].attr.type == type && p->ev[i].attr.config == config)
			return &p->ev[i];
	return NULL;
}

static void test_pebs(void)
{
	struct memphis__pebs_opts o = { .sysfs = root, .prefix = "skx::", .ldlat = 30, .weight_struct = 1,
					.precise = 3 };
	struct memphis__hw_plan p;
	char why[256];
	const struct memphis__hw_event *ld, *stv;
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
			    PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT;

	rm_root();
	core_pmu("cpu", "4");
	static const char *const prefixes[] = { "skx::", "icx::" };
	for (int i = 0; i < 2; i++) {
		o.prefix = prefixes[i];
		int err = memphis__pebs_plan(&o, &p, why, sizeof(why));
		ld = find(&p, 4, 0x1cd);
		stv = find(&p, 4, 0x82d0);
		ok(err == 0 && p.n == 2 && ld && stv && ld->attr.config1 == 30 && ld->kind == MEMPHIS__HW_LOAD &&
		   stv->kind == MEMPHIS__HW_STORE && ld->leader == -1 && ld->attr.precise_ip == 3 &&
		   ld->attr.sample_type == st && ld->attr.exclude_kernel && !ld->attr.exclude_user &&
		   ld->attr.sample_period == 10007 && stv->attr.sample_period == 20011,
		   "%s: loads type 4 config 0x1cd config1 30 (ldlat) period 10007, stores 0x82d0 period 20011, "
		   "precise 3, user only (%s)", prefixes[i], err ? why : "");
	}
	o.prefix = "skx::";
	o.events = "skx::MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=64:precise=2:period=10009";
	o.weight_struct = 0;
	ok(memphis__pebs_plan(&o, &p, why, sizeof(why)) == 0 && p.n == 1 && p.ev[0].attr.config == 0x1cd &&
	   p.ev[0].attr.config1 == 0x40 && p.ev[0].attr.sample_period == 10009 && !p.ev[0].attr.freq &&
	   p.ev[0].attr.precise_ip == 2 &&
	   (p.ev[0].attr.sample_type & PERF_SAMPLE_WEIGHT) && !(p.ev[0].attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT),
	   "MEMPHIS_EVENT as fixture A: config 0x1cd config1 0x40, its own period 10009 and "
	   ":precise=2 (M7: not the probe's 3), WEIGHT fallback");
	o.events = "skx::NO_SUCH_EVENT";
	ok(memphis__pebs_plan(&o, &p, why, sizeof(why)) == -ENOENT && strstr(why, "NO_SUCH_EVENT"),
	   "an unknown MEMPHIS_EVENT: -ENOENT naming it (%s)", why);
	o.events = NULL;
	o.weight_struct = 1;

	/* Sapphire Rapids: sysfs offers mem-loads-aux, which must lead the loads */
	wfile("cpu/events/mem-loads-aux", "event=0x03,umask=0x82");
	o.prefix = "spr::";
	int err = memphis__pebs_plan(&o, &p, why, sizeof(why));
	ld = find(&p, 4, 0x1cd);
	const struct memphis__hw_event *aux = find(&p, 4, 0x8203);
	ok(err == 0 && p.n == 3 && aux && ld && aux == &p.ev[0] && ld->leader == 0 &&
	   aux->kind == MEMPHIS__HW_COUNT && aux->attr.sample_period == 0 && ld->attr.config1 == 30 &&
	   find(&p, 4, 0x82d0) && find(&p, 4, 0x82d0)->leader == -1,
	   "spr: mem-loads-aux (0x8203) leads the loads (0x1cd, ldlat 30), counting only; stores alone");
	o.events = "spr::MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=32";
	ok(memphis__pebs_plan(&o, &p, why, sizeof(why)) == 0 && p.n == 2 && p.ev[0].attr.config == 0x8203 &&
	   p.ev[1].leader == 0 && p.ev[1].attr.config1 == 32, "spr: a MEMPHIS_EVENT load latency gets the leader too");
	o.events = NULL;
	/* W3: the kernel's mem-stores (SPR: event=0xcd,umask=0x2, intel/core.c mem_st_spr), the
	 * store latency event whose records carry a data source, as perf mem uses it */
	wfile("cpu/events/mem-stores", "event=0xcd,umask=0x2");
	err = memphis__pebs_plan(&o, &p, why, sizeof(why));
	stv = find(&p, 4, 0x2cd);
	ok(err == 0 && p.n == 3 && stv && stv->kind == MEMPHIS__HW_STORE && stv->leader == -1 &&
	   !find(&p, 4, 0x82d0) && strstr(stv->name, "mem-stores") && stv->attr.precise_ip == 3 &&
	   stv->attr.sample_period == 20011,
	   "W3: spr with sysfs mem-stores: the stores are its 0x2cd, not ALL_STORES (%s)",
	   stv ? stv->name : why);

	/* hybrid: cpu_core and cpu_atom with their own types and sysfs aliases */
	rm_root();
	core_pmu("cpu_core", "8");
	core_pmu("cpu_atom", "10");
	wfile("cpu_core/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3");
	wfile("cpu_core/events/mem-stores", "event=0xcd,umask=0x2");
	wfile("cpu_core/events/mem-loads-aux", "event=0x03,umask=0x82");
	wfile("cpu_atom/events/mem-loads", "event=0xd0,umask=0x5,ldlat=3");
	wfile("cpu_atom/events/mem-stores", "event=0xd0,umask=0x6");
	err = memphis__pebs_plan(&o, &p, why, sizeof(why));
	ld = find(&p, 8, 0x1cd);
	aux = find(&p, 8, 0x8203);
	const struct memphis__hw_event *ald = find(&p, 10, 0x5d0);
	ok(err == 0 && p.n == 5 && aux && ld && ld->leader == (int)(aux - p.ev) && ld->attr.config1 == 30 &&
	   (find(&p, 8, 0x2cd) || find(&p, 8, 0x82d0)) && ald && ald->attr.config1 == 30 && ald->leader == -1 &&
	   find(&p, 10, 0x6d0) && ald->attr.sample_type == st,
	   "hybrid (fake sysfs; libpfm4 4.13 has no adl_glc/adl_grt): cpu_core type 8 aux+loads+stores, "
	   "cpu_atom type 10 loads 0x5d0 + stores 0x6d0, ldlat 30 on both (%s)", err ? why : "");
	rm_root();
	err = memphis__pebs_plan(&o, &p, why, sizeof(why));
	ok(err == -ENOENT && strstr(why, "no hardware core PMU") && !strchr(why, '\n'),
	   "no core PMU in sysfs: -ENOENT, one line (%s)", why);
	core_pmu("cpu", "4");
	o.prefix = "nosuchpmu::";
	err = memphis__pebs_plan(&o, &p, why, sizeof(why));
	ok(err == -ENOENT && strstr(why, "no load-latency event"),
	   "a core PMU libpfm4 does not know, no sysfs alias: -ENOENT, one line (%s)", why);
}

/* ---- the PEBS probe's choices (memphis__pebs_choose) with a fake kernel ---- */

struct fake_pebs {
	int max_precise;  /* the highest precise_ip it takes; -1: none (no PEBS) */
	int weight_struct;
};

static int fake_pebs_try(const struct memphis__hw_plan *p, int *failed, void *ctx)
{
	struct fake_pebs *k = ctx;

	*failed = -1;
	for (unsigned i = 0; i < p->n; i++) {
		if (p->ev[i].kind == MEMPHIS__HW_COUNT)
			continue;
		if ((int)p->ev[i].attr.precise_ip > k->max_precise) {
			*failed = (int)i;
			return -EOPNOTSUPP; /* x86_pmu_hw_config() */
		}
		if ((p->ev[i].attr.sample_type & PERF_SAMPLE_WEIGHT_STRUCT) && !k->weight_struct) {
			*failed = (int)i;
			return -EINVAL;
		}
	}
	return 0;
}

static void test_pebs_choose(void)
{
	struct memphis__pebs_opts o = { .sysfs = root, .prefix = "skx::", .ldlat = 30 };
	struct memphis__hw_plan p;
	struct fake_pebs k = { .max_precise = 2, .weight_struct = 0 };
	char why[256];
	int err;

	rm_root();
	core_pmu("cpu", "4");
	err = memphis__pebs_choose(&o, fake_pebs_try, &k, &p, 2, why, sizeof(why));
	ok(err == 0 && o.precise == 2 && !o.weight_struct && p.ev[0].attr.precise_ip == 2,
	   "the highest precise_ip the kernel takes (2), WEIGHT when WEIGHT_STRUCT is refused (%d)", err);
	k.max_precise = 0;
	err = memphis__pebs_choose(&o, fake_pebs_try, &k, &p, 2, why, sizeof(why));
	ok(err == -EOPNOTSUPP && strstr(why, "EOPNOTSUPP"),
	   "M6: a kernel that takes load latency only without PEBS (precise_ip 0): refused, "
	   "not sampled without data addresses (%s)", why);
	o.events = "perf::PAGE-FAULTS";
	err = memphis__pebs_choose(&o, fake_pebs_try, &k, &p, 2, why, sizeof(why));
	ok(err == 0 && o.precise == 0 && p.ev[0].attr.type == PERF_TYPE_SOFTWARE,
	   "a software MEMPHIS_EVENT may go down to precise_ip 0 (%d)", err);
	rm_root();
}

/* ---- PEBS samples (memphis__pebs_sample) ---- */

static void test_pebs_sample(void)
{
	struct memphis__perf_sample ps = { .ip = 0x401000, .tid = 9, .cpu = 1, .time = 7,
					   .addr = 1ull << 50, .lat = 120,
					   .data_src = 0x10268100142ull /* SKX L1 load */ };
	struct memphis_rec_sample s;

	memphis__pebs_sample(&ps, MEMPHIS__HW_LOAD, &s);
	ok(s.addr == 1ull << 50 && s.flags == (MPH_S_EXACT | MPH_S_HWADDR | MPH_S_LOAD) && s.weight == 120,
	   "M11: a user address above 47 bits (5-level paging) is kept (flags %#x)", s.flags);
	ps.addr = 1ull << 56;
	memphis__pebs_sample(&ps, MEMPHIS__HW_LOAD, &s);
	ok(s.addr == 0 && (s.flags & MPH_S_NOADDR), "M11: at MEMPHIS_USER_ADDR_END no user address");
	/* ds.c precise_datala_hsw(): an ALL_STORES store that missed L1 */
	ps.addr = 0x7f0000001000ull;
	ps.data_src = PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, L1) | PERF_MEM_S(LVL, MISS) |
		      PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | PERF_MEM_S(TLB, NA) |
		      PERF_MEM_S(LVLNUM, NA);
	memphis__pebs_sample(&ps, MEMPHIS__HW_STORE, &s);
	{
		struct memphis_hw_access a;
		memset(&a, 0, sizeof(a));
		memphis_mem_src_decode(s.data_src, &a);
		ok(s.flags == (MPH_S_EXACT | MPH_S_HWADDR | MPH_S_STORE) && a.src == MEMPHIS_SRC_L1_MISS &&
		   a.miss, "W3: a precise store that missed L1 is a store, its source l1_miss");
	}
}

static void test_ibs_attr(void)
{
	struct memphis__ibs_opts o = { .sysfs = root, .period = 0x12345, .cnt_ctl = 1, .l3missonly = 1,
				       .kernel_fields = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC };
	struct memphis__hw_plan p;
	char notes[200], why[256];
	struct perf_event_attr *a = &p.ev[0].attr;

	rm_root();
	ok(memphis__ibs_plan(&o, &p, notes, sizeof(notes), why, sizeof(why)) == -ENOENT && strstr(why, "no ibs_op"),
	   "no ibs_op in sysfs: -ENOENT (%s)", why);
	wfile("ibs_op/type", "11");
	wfile("ibs_op/format/cnt_ctl", "config:19");
	wfile("ibs_op/format/l3missonly", "config:16");
	wfile("ibs_op/caps/zen4_ibs_extensions", "1");
	int err = memphis__ibs_plan(&o, &p, notes, sizeof(notes), why, sizeof(why));
	ok(err == 0 && p.n == 1 && a->type == 11 && a->config == (1ull << 19 | 1ull << 16) &&
	   strstr(notes, "l3missonly") && strstr(notes, "period skew") && !strstr(notes, "ignored") &&
	   a->sample_period == 0x12340 && !a->exclude_kernel && a->config2 == 0 &&
	   (a->sample_type & PERF_SAMPLE_RAW) && (a->sample_type & PERF_SAMPLE_DATA_SRC) && !a->precise_ip,
	   "Zen 4: type 11, cnt_ctl config:19 + l3missonly config:16, period 0x12345 -> 0x12340, RAW; "
	   "the note tells l3missonly's period skew (M14): %s", notes);
	wfile("ibs_op/format/cnt_ctl", "config:33"); /* the bits are sysfs's, not ours */
	wfile("ibs_op/format/swfilt", "config2:0");
	o.l3missonly = 0;
	err = memphis__ibs_plan(&o, &p, notes, sizeof(notes), why, sizeof(why));
	ok(err == 0 && a->config == 1ull << 33 && a->config2 == 1 && a->exclude_kernel,
	   "format bits from sysfs (cnt_ctl at config:33), swfilt config2:0 lets it exclude the kernel");
	rm_root();
	wfile("ibs_op/type", "11");
	o.l3missonly = 1;
	o.period = 0x10;
	err = memphis__ibs_plan(&o, &p, notes, sizeof(notes), why, sizeof(why));
	ok(err == 0 && a->config == 1ull << 19 && strstr(notes, "l3missonly") && a->sample_period == 0x90,
	   "before Zen 4 (no caps, no format): cnt_ctl at its hardware bit 19, l3missonly refused with a note, "
	   "period raised to the minimum 0x90");
	ok(memphis__ibs_period(10000000) == 10000000 && memphis__ibs_period(0xfffffff) == 0xffffff0 &&
	   memphis__ibs_period(0) == 0x20000 && memphis__ibs_period(0x95) == 0x90,
	   "IBS period: no maximum (M2: the kernel splits a period above MaxCnt), the nibble "
	   "cleared, the minimum 0x90, default 0x20000");
	rm_root();
}

/* ---- the IBS probe's choices (memphis__ibs_choose) with a fake kernel ---- */

struct fake_ibs {
	int per_task;     /* the kernel has per-task IBS (6.2+) */
	int opcnt;        /* it takes IbsOpCntCtl (config:19) */
	int calls;
};

static int fake_ibs_try(const struct memphis__hw_plan *p, pid_t tid, int cpu, void *ctx)
{
	struct fake_ibs *k = ctx;

	k->calls++;
	if (!k->opcnt && (p->ev[0].attr.config & (1ull << 19)))
		return -EINVAL; /* not in config_mask */
	if (tid >= 0 && !k->per_task)
		return -EINVAL; /* find_get_context(): task_ctx_nr < 0 */
	return 0;
}

static void test_ibs_choose(void)
{
	struct memphis__hw_plan p;
	char notes[512], why[256];
	int per_cpu;

	rm_root();
	wfile("ibs_op/type", "11");
	{
		struct fake_ibs k = { .per_task = 1, .opcnt = 0 };
		struct memphis__ibs_opts o = { .sysfs = root, .cnt_ctl = 1 };
		int err = memphis__ibs_choose(&o, fake_ibs_try, &k, &p, &per_cpu, notes, sizeof(notes), 2,
					      why, sizeof(why));
		ok(err == 0 && !per_cpu && o.cnt_ctl == 0 && !(p.ev[0].attr.config & (1ull << 19)) &&
		   strstr(notes, "counts cycles"),
		   "M13: no format/cnt_ctl and a kernel refusing config:19 (EINVAL): once more without "
		   "it, counting cycles, said in the notes (%d, %s)", err, notes);
	}
	{
		struct fake_ibs k = { .per_task = 0, .opcnt = 1 };
		struct memphis__ibs_opts o = { .sysfs = root, .cnt_ctl = 1 };
		int err = memphis__ibs_choose(&o, fake_ibs_try, &k, &p, &per_cpu, notes, sizeof(notes), 2,
					      why, sizeof(why));
		ok(err == 0 && per_cpu && o.cnt_ctl == 1 && (p.ev[0].attr.config & (1ull << 19)) && !notes[0],
		   "before 6.2 (no per-task IBS): per CPU, cnt_ctl kept (%d)", err);
	}
	{
		struct fake_ibs k = { .per_task = 0, .opcnt = 0 };
		struct memphis__ibs_opts o = { .sysfs = root, .cnt_ctl = 1 };
		int err = memphis__ibs_choose(&o, fake_ibs_try, &k, &p, &per_cpu, notes, sizeof(notes), 2,
					      why, sizeof(why));
		ok(err == 0 && per_cpu && o.cnt_ctl == 0 && strstr(notes, "counts cycles"),
		   "no per-task IBS and no IbsOpCntCtl: per CPU, counting cycles (%d)", err);
	}
	wfile("ibs_op/format/cnt_ctl", "config:19");
	{
		struct fake_ibs k = { .per_task = 1, .opcnt = 0 };
		struct memphis__ibs_opts o = { .sysfs = root, .cnt_ctl = 1 };
		int err = memphis__ibs_choose(&o, fake_ibs_try, &k, &p, &per_cpu, notes, sizeof(notes), 2,
					      why, sizeof(why));
		ok(err == -EINVAL && strstr(why, "EINVAL") && k.calls == 2,
		   "sysfs names cnt_ctl and the kernel refuses the event anyway: no retry, EINVAL (%s)", why);
	}
	rm_root();
}

/* ---- IBS samples from raw registers ---- */

static int ibs_case(uint64_t ctl, uint64_t rip, uint64_t data, uint64_t data2, uint64_t data3,
		    uint64_t linad, uint32_t caps, int erratum, struct memphis_rec_sample *out)
{
	static unsigned char raw[4 + 8 * 8];
	uint64_t regs[8] = { ctl, rip, data, data2, data3, linad, 0x8a5398920, 0 };
	struct memphis__perf_sample ps = { .ip = 0x400000, .tid = 9, .pid = 9, .cpu = 2, .time = 5,
					   .raw = raw, .raw_size = sizeof(raw) };

	memcpy(raw, &caps, 4);
	memcpy(raw + 4, regs, sizeof(regs));
	/* erratum: a Zen 3 (family 19h model 01h, erratum 1293), else a Zen 4 (model 11h) */
	return memphis__ibs_sample(&ps, PERF_SAMPLE_RAW, 0x19, erratum ? 0x01 : 0x11, out);
}

static void test_ibs_sample(void)
{
	struct memphis_rec_sample s;
	struct memphis_hw_access acc = { 0 };
	/* perf-amd-ibs.txt's op sample: OP_CTL 0x2c30006186a (En, Val), DATA 0x10002550001,
	 * DATA2 0x13 (DRAM, RmtNode), DATA3 0x31960092 (store, lin+phys valid); its RIP and
	 * address are the kernel's, so they are moved to user space here */
	const uint64_t ctl = 0x000002c30006186aull, data = 0x0000010002550001ull, d2 = 0x13, d3 = 0x31960092;

	ok(ibs_case(ctl, 0xffffffff8204aea7ull, data, d2, d3, 0xff110008a5398920ull, 0, 0, &s) == 0,
	   "the documented sample as published (kernel RIP) is dropped: user code only");
	ok(ibs_case(ctl, 0x401000, data, d2, d3, 0x7f08a5398920ull, 0, 0, &s) == 1 && s.ip == 0x401000 &&
	   s.addr == 0x7f08a5398920ull && s.flags == (MPH_S_STORE | MPH_S_EXACT | MPH_S_HWADDR) &&
	   s.weight == 0 && s.ins_lat == 0 && (s.data_src & 0x1f) == PERF_MEM_OP_STORE,
	   "documented store: exact user address, no source or latencies (the kernel gives them for "
	   "load misses only)");
	/* Zen 4 l3missonly DRAM load (the Genoa record's DATA2/DATA3), remote */
	const uint64_t d3z = 0x1dc14d700a1ull;
	ok(ibs_case(0x5410007f424ull, 0x401000, 0x4f70200, 0x23 | 0x10, d3z, 0x7fff7c3b5784ull, 0xbff, 0, &s) == 1 &&
	   s.flags == (MPH_S_LOAD | MPH_S_EXACT | MPH_S_HWADDR | MPH_S_REMOTE_HW) && s.weight == 476,
	   "Zen 4 DRAM load with RmtNode: remote, latency DcMissLat 476");
	memphis_mem_src_decode(s.data_src, &acc);
	ok(acc.is_load && acc.src == MEMPHIS_SRC_REMOTE_RAM && acc.remote,
	   "its data_src (built from the raw registers) decodes to remote DRAM");
	ok(ibs_case(ctl & ~(1ull << 18), 0x401000, data, d2, d3, 0x7f0000001000, 0, 0, &s) == 0,
	   "Val clear: dropped");
	ok(ibs_case(ctl & ~(1ull << 17), 0x401000, data, d2, d3, 0x7f0000001000, 0, 0, &s) == 0,
	   "En clear: dropped");
	ok(ibs_case(ctl, 0x401000, data, d2, d3 & ~3ull, 0x7f0000001000, 0, 0, &s) == 0,
	   "neither load nor store: dropped");
	ok(ibs_case(ctl, 0x401000, data, d2, d3 & ~(1ull << 17), 0x7f0000001000, 0, 0, &s) == 1 &&
	   (s.flags & MPH_S_NOADDR) && !s.addr, "LinAddrValid clear: no address");
	ok(ibs_case(ctl, 0x401000, data | 1ull << 38, d2, d3, 0x7f0000001000, 0x80, 0, &s) == 1 &&
	   s.ip == 0 && s.sampled_ip == 0x400000 && s.addr == 0x7f0000001000 && (s.flags & MPH_S_EXACT),
	   "M1: RipInvalid (caps RipInvalidChk): no instruction (ip 0; the interrupt's ip only as "
	   "sampled_ip, it is not the op's), the address kept");
	ok(ibs_case(ctl, 0x401000, data, d2, d3, 1ull << 50, 0, 0, &s) == 1 && s.addr == 1ull << 50 &&
	   (s.flags & MPH_S_EXACT), "M11: a user address above 47 bits (5-level paging) is kept");
	ok(ibs_case(ctl, 0x401000, data, d2, d3, 1ull << 56, 0, 0, &s) == 1 && (s.flags & MPH_S_NOADDR) &&
	   ibs_case(ctl, 1ull << 56, data, d2, d3, 0x7f0000001000, 0, 0, &s) == 0,
	   "M11: at MEMPHIS_USER_ADDR_END an address is no user one, an ip a kernel one");
	ok(ibs_case(ctl, 0x401000, data | 1ull << 38, d2, d3, 0x7f0000001000, 0, 0, &s) == 1 &&
	   s.ip == 0x401000, "RipInvalid without RipInvalidChk in caps is not a valid bit (as the kernel)");
	const uint64_t ld3 = 1 | 1ull << 7 | 1ull << 17 | 1ull << 20 | 1ull << 16 | 200ull << 32;
	ok(ibs_case(ctl, 0x401000, data, 0x13, ld3, 0x7f0000001000, 0, 1, &s) == 1 && !(s.flags & MPH_S_REMOTE_HW) &&
	   s.weight == 200, "Zen 3 erratum 1293 (MissNoMabAlloc): OP_DATA2's remote DRAM not believed");
	ok(ibs_case(ctl, 0x401000, data, 0x13, ld3, 0x7f0000001000, 0, 0, &s) == 1 && (s.flags & MPH_S_REMOTE_HW),
	   "the same load on another CPU: remote DRAM");
}

/* §6: per CPU, the rings are read one after the other: a thread's samples must come out
 * in time order, whatever ring they were in. */
static void test_ibs_sort(void)
{
	struct memphis_rec_sample s[8];
	/* CPU 0's ring, then CPU 1's: tid 7 ran on both, tid 3 on CPU 1 */
	static const uint32_t tid[8] = { 7, 7, 7, 3, 7, 7, 3, 7 };
	static const uint64_t time[8] = { 10, 30, 50, 15, 20, 40, 5, 60 };
	int sorted = 1;

	memset(s, 0, sizeof(s));
	for (int i = 0; i < 8; i++)
		s[i].tid = tid[i], s[i].time = time[i];
	memphis__ibs_sort(s, 8);
	for (int i = 1; i < 8; i++)
		if (s[i - 1].tid > s[i].tid || (s[i - 1].tid == s[i].tid && s[i - 1].time >= s[i].time))
			sorted = 0;
	ok(sorted && s[0].tid == 3 && s[0].time == 5 && s[2].time == 10 && s[7].time == 60,
	   "per-CPU samples sorted by thread, each thread's by time across the CPUs' rings");
}

/* W1: what a kernel put in DATA_SRC (and ADDR, WEIGHT) beside RAW changes nothing: the
 * same registers with the 6.1-6.5 and the 6.6+ data source make one sample, the registers'
 * (tests/unit/ibs_kernel_src.h). */
static void test_ibs_kernel_src(void)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
			    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW | PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
			    PERF_SAMPLE_WEIGHT_STRUCT;

	for (size_t i = 0; i < sizeof(ks_cases) / sizeof(ks_cases[0]); i++) {
		const struct ks_case *c = &ks_cases[i];
		unsigned char raw[4 + 8 * MEMPHIS_IBS_NREGS];
		__u64 regs[MEMPHIS_IBS_NREGS] = { 3ull << 17, 0x401000, 0, c->data2, KS_D3,
						     0x7f0000001000ull, 0 };
		struct memphis__perf_sample ps = { .ip = 0x401000, .tid = 9, .pid = 9, .cpu = 2,
						   .time = 5, .addr = 0x7f0000001000ull, .lat = 300,
						   .raw = raw, .raw_size = sizeof(raw) };
		struct memphis_rec_sample s61, s66;
		struct memphis_hw_access a = { 0 };
		int k61, k66;

		memcpy(raw, &c->caps, 4);
		memcpy(raw + 4, regs, sizeof(regs));
		ps.data_src = c->k61;
		k61 = memphis__ibs_sample(&ps, st, c->family, c->model, &s61);
		ps.data_src = c->k66;
		k66 = memphis__ibs_sample(&ps, st, c->family, c->model, &s66);
		memphis_mem_src_decode(s66.data_src, &a);
		ok(k61 == 1 && k66 == 1 && !memcmp(&s61, &s66, sizeof(s61)) && s66.data_src == c->k66 &&
		   memphis_ibs_data_src(regs, c->caps, c->family, c->model) == c->k66 &&
		   a.src == c->src && !!(s66.flags & MPH_S_REMOTE_HW) == c->remote && a.remote == c->remote &&
		   s66.weight == 300 && s66.addr == 0x7f0000001000ull,
		   "W1 library: %s: the 6.1 kernel's data_src %#llx and the 6.6 one's %#llx give one sample, "
		   "the registers' (data_src %#llx, src %u, remote %d)", c->what, c->k61, c->k66,
		   (unsigned long long)s66.data_src, a.src, a.remote);
	}
}

int main(void)
{
	snprintf(root, sizeof(root), "%s/unit_hwbackend.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
		 (int)getpid());
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	test_parse();
	test_ring();
	test_why();
	test_select();
	test_pebs();
	test_pebs_choose();
	test_pebs_sample();
	test_ibs_attr();
	test_ibs_choose();
	test_ibs_sample();
	test_ibs_sort();
	test_ibs_kernel_src();
	rm_root();
	return tap_done();
}
