/* tests/unit/unit_replay.c - real captures replayed (tests/data/perf/, see its README): every
 * record of three perf.data files written by kernels on real hardware goes through the
 * parsers of lib/backend/perf_ring.c (memphis__perf_sample_parse with its attr's
 * sample_type, memphis__perf_record_count) and, where it carries a data source, the decoder
 * of include/memphis/hwdecode.h (memphis_perf_decode), and what comes out is compared with
 * what perf itself prints for the same file, run here at test time:
 *  - perf.data.weight_struct (Skylake-SP PEBS load latency, 14 samples): pid, tid, cpu,
 *    time, event, ip, address, weight (var1) and instruction latency (var2) against
 *    `perf script`, data_src and its classification (load/store, cache level, HITM, lock,
 *    remote) against perf's decoded text; then the module's conversion of each sample
 *    (memphismod_rec_fill, the code of the module's overflow handler);
 *  - perf.data.lost_samples-4.4 (three events, ids map records to attrs): every sample's
 *    fields and event against `perf script`, the LOST_SAMPLES records against `perf report -D`;
 *  - perf.data.throttle-3.8 (14,980 samples): samples as above, THROTTLE and UNTHROTTLE
 *    records against `perf report --stats`.
 * The records' bytes come from a small reader of the file format (tests/unit/perfdata.h), not
 * from perf's own dump (`perf report -D` prints each record in hex): the reader hands over
 * the file's bytes unchanged, in file order, and needs no parsing of a text format that
 * perf may change; perf gives only the expected values. Samples are matched to perf's
 * lines by sorting both lists on all their fields (perf script prints in time order, the
 * file holds per-CPU rounds), so a field misread leaves an unmatched pair. Without perf
 * (make deps installs linux-perf) the comparisons are skipped, saying so. TAP output. */
#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod_record.h"
#include "memphis/hwdecode.h"
#include "memphis/memphismod_rec.h"
#include "perf_ring.h"

#include "perfdata.h"
#include "tap.h"

#define NO_PERF "perf is needed (make deps installs linux-perf)"
#define USER_TOP 0x00007ffffffff000ull /* the module's user_top: TASK_SIZE_MAX, 4 levels */

static char tmp[256];
static int have_perf;

/* One sample: what perf script prints of it, or what memphis made of its record. */
struct smp {
	int ev;                          /* attr index */
	uint32_t pid, tid, cpu;
	uint64_t time, period, ip, addr, weight, ins_lat, data_src;
	char text[192];                  /* perf: the data source decoded ("|OP LOAD|LVL ...") */
	struct memphis_hw_access acc;    /* ours: memphis_perf_decode's result */
};

/* The fields a file's samples have (perf script refuses to print absent ones). */
enum { HAS_CPU = 1, HAS_PERIOD = 2, HAS_MEM = 4 /* ADDR, WEIGHT_STRUCT, DATA_SRC */ };

static int cmp_smp(const void *pa, const void *pb)
{
	const struct smp *a = pa, *b = pb;
	const uint64_t x[] = { a->time, a->cpu, a->pid, a->tid, (uint64_t)a->ev, a->ip, a->addr,
			       a->weight, a->ins_lat, a->period, a->data_src };
	const uint64_t y[] = { b->time, b->cpu, b->pid, b->tid, (uint64_t)b->ev, b->ip, b->addr,
			       b->weight, b->ins_lat, b->period, b->data_src };

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static void print_smp(const char *who, const struct smp *s)
{
	printf("#   %s: ev %d pid %u tid %u cpu %u time %llu period %llu ip %#llx addr %#llx "
	       "weight %llu ins_lat %llu data_src %#llx\n", who, s->ev, s->pid, s->tid, s->cpu,
	       (unsigned long long)s->time, (unsigned long long)s->period,
	       (unsigned long long)s->ip, (unsigned long long)s->addr,
	       (unsigned long long)s->weight, (unsigned long long)s->ins_lat,
	       (unsigned long long)s->data_src);
}

/* tests/data/perf/NAME.gz unpacked into the temporary directory; its path in out. */
static int unpack(const char *name, char *out, size_t n)
{
	const char *src = getenv("MEMPHIS_SRC") ? getenv("MEMPHIS_SRC") : ".";
	char cmd[1024];

	snprintf(out, n, "%s/%s", tmp, name);
	if (strchr(src, '\'')) /* the command below quotes with ' */
		return -1;
	snprintf(cmd, sizeof(cmd), "gzip -dc '%s/tests/data/perf/%s.gz' > '%s'", src, name, out);
	return system(cmd) == 0 ? 0 : -1;
}

/* ---- ours ---- */

/* Every record of f through memphis__perf_record_count, every sample also through
 * memphis__perf_sample_parse with its attr's sample_type and, with a data source,
 * memphis_perf_decode. Samples into *out (malloc'd), counts of each record type into
 * types[], losses into *loss. Returns the number of samples, or -1 with why. */
static long replay(const struct pd_file *f, struct smp **out, uint64_t types[128],
		   struct memphis__perf_losses *loss, char *why, size_t n)
{
	union pd_record *r = malloc(sizeof(*r));
	uint64_t off = 0;
	size_t cap = 1024, ns = 0;
	struct smp *s = malloc(cap * sizeof(*s));
	int got;

	*out = NULL;
	if (!r || !s) {
		snprintf(why, n, "out of memory");
		goto fail;
	}
	while ((got = pd_next(f, &off, r)) > 0) {
		int type = memphis__perf_record_count(r, r->h.size, loss), a;
		struct memphis__perf_sample ps;
		uint64_t st;

		if (type != (int)r->h.type) {
			snprintf(why, n, "record at %#llx of type %u: memphis__perf_record_count gave %d",
				 (unsigned long long)off - r->h.size, r->h.type, type);
			goto fail;
		}
		types[type < 128 ? type : 127]++;
		if (type != PERF_RECORD_SAMPLE)
			continue;
		if ((a = pd_sample_attr(f, r)) < 0) {
			snprintf(why, n, "sample at %#llx: its id names no attr",
				 (unsigned long long)off - r->h.size);
			goto fail;
		}
		st = f->attr[a].attr.sample_type;
		if (memphis__perf_sample_parse(r, r->h.size, st, &ps) != 0 ||
		    (f->nattr > 1 && ps.id != r->u[1 + f->id_pos])) {
			snprintf(why, n, "sample at %#llx (sample_type %#llx): not parsed, or its id "
				 "misread", (unsigned long long)off - r->h.size, (unsigned long long)st);
			goto fail;
		}
		if (ns == cap) {
			struct smp *b = realloc(s, 2 * cap * sizeof(*s));
			if (!b) {
				snprintf(why, n, "out of memory");
				goto fail;
			}
			s = b;
			cap *= 2;
		}
		s[ns] = (struct smp){ .ev = a, .pid = ps.pid, .tid = ps.tid, .cpu = ps.cpu,
				      .time = ps.time, .period = ps.period, .ip = ps.ip };
		if (st & PERF_SAMPLE_DATA_SRC) {
			struct memphis_hw_access *acc = &s[ns].acc;
			memphis_perf_decode(ps.data_src, ps.weight,
					    (st & PERF_SAMPLE_WEIGHT_STRUCT) != 0, ps.addr,
					    (st & PERF_SAMPLE_ADDR) != 0, acc);
			s[ns].addr = acc->addr;
			s[ns].weight = acc->latency;
			s[ns].ins_lat = acc->ins_lat;
			s[ns].data_src = acc->data_src;
		}
		ns++;
	}
	if (got < 0) {
		snprintf(why, n, "a record at %#llx does not fit the data section",
			 (unsigned long long)off);
		goto fail;
	}
	free(r);
	*out = s;
	return (long)ns;
fail:
	free(r);
	free(s);
	return -1;
}

/* ---- perf's ---- */

/* The attrs' event names as `perf evlist` prints them, in attr order (perf keeps the
 * file's order). Returns how many, up to max. */
static int event_names(const char *path, char names[][128], int max)
{
	char cmd[600], *out, *line, *save = NULL;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "perf evlist -f -i '%s' 2>/dev/null", path);
	if (pd_run(cmd, &out) != 0) {
		free(out);
		return 0;
	}
	for (line = strtok_r(out, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			snprintf(names[n++], 128, "%s", line);
	free(out);
	return n;
}

/* "SEC.NSEC:" (perf script --ns) into nanoseconds; p moves past it. */
static int parse_time(const char **p, uint64_t *t)
{
	unsigned long long sec, nsec;
	int k;

	if (sscanf(*p, " %llu.%9llu:%n", &sec, &nsec, &k) != 2)
		return -1;
	*t = sec * 1000000000ull + nsec;
	*p += k;
	return 0;
}

/* One line of `perf script --ns -F pid,tid[,cpu],time[,period],event,ip[,addr,weight,ins_lat]`,
 * in the order perf prints its fields whatever -F's order:
 * "PID/TID [CPU] SEC.NSEC: [PERIOD] EVENT: [ADDR WEIGHT INS_LAT] IP". */
static int parse_line_a(const char *p, unsigned has, char names[][128], int nnames,
			struct smp *s)
{
	char ev[160];
	unsigned long long v[3];
	int k;
	size_t len;

	memset(s, 0, sizeof(*s));
	if (sscanf(p, " %u/%u%n", &s->pid, &s->tid, &k) != 2)
		return -1;
	p += k;
	if (has & HAS_CPU) {
		if (sscanf(p, " [%u]%n", &s->cpu, &k) != 1)
			return -1;
		p += k;
	}
	if (parse_time(&p, &s->time) < 0)
		return -1;
	if (has & HAS_PERIOD) {
		if (sscanf(p, " %llu%n", &v[0], &k) != 1)
			return -1;
		s->period = v[0];
		p += k;
	}
	if (sscanf(p, " %159s%n", ev, &k) != 1 || (len = strlen(ev)) < 2 || ev[len - 1] != ':')
		return -1;
	p += k;
	ev[len - 1] = 0;
	s->ev = -1;
	for (int i = 0; i < nnames; i++)
		if (strcmp(ev, names[i]) == 0)
			s->ev = i;
	if (has & HAS_MEM) {
		if (sscanf(p, " %llx %llu %llu%n", &v[0], &v[1], &v[2], &k) != 3)
			return -1;
		s->addr = v[0];
		s->weight = v[1];
		s->ins_lat = v[2];
		p += k;
	}
	if (sscanf(p, " %llx", &v[0]) != 1)
		return -1;
	s->ip = v[0];
	return 0;
}

/* One line of `perf script --ns -F pid,tid,cpu,time,data_src`: "PID/TID [CPU] SEC.NSEC:
 * DATA_SRC |OP ...|LVL ...|..." - the decoded text is the rest of the line. */
static int parse_line_b(const char *p, struct smp *s)
{
	unsigned long long v;
	uint32_t pid, tid, cpu;
	uint64_t t;
	int k;
	size_t len;

	if (sscanf(p, " %u/%u [%u]%n", &pid, &tid, &cpu, &k) != 3)
		return -1;
	p += k;
	if (parse_time(&p, &t) < 0 || sscanf(p, " %llx%n", &v, &k) != 1)
		return -1;
	if (pid != s->pid || tid != s->tid || cpu != s->cpu || t != s->time)
		return -1; /* not the same sample as line A's */
	s->data_src = v;
	p += k;
	while (*p == ' ')
		p++;
	snprintf(s->text, sizeof(s->text), "%s", p);
	len = strlen(s->text);
	while (len && isspace((unsigned char)s->text[len - 1]))
		s->text[--len] = 0;
	return 0;
}

/* perf script's samples of the file at path, into *out (malloc'd): returns how many, or
 * -1 with why. */
static long perf_samples(const char *path, unsigned has, struct smp **out, char *why, size_t n)
{
	char names[PD_MAX_ATTR][128], cmd[800], *a = NULL, *b = NULL, *la, *lb = NULL, *sa = NULL;
	char *sb = NULL;
	int nnames = event_names(path, names, PD_MAX_ATTR);
	size_t cap = 1024, ns = 0;
	struct smp *s = malloc(cap * sizeof(*s));

	*out = NULL;
	snprintf(cmd, sizeof(cmd),
		 "perf script -f -i '%s' --ns -F pid,tid%s,time%s,event,ip%s 2>/dev/null", path, has & HAS_CPU ? ",cpu" : "", has & HAS_PERIOD ? ",period" : "",
		 has & HAS_MEM ? ",addr,weight,ins_lat" : "");
	if (!s || nnames == 0 || pd_run(cmd, &a) != 0) {
		snprintf(why, n, "perf script or perf evlist failed on %s", path);
		goto fail;
	}
	if (has & HAS_MEM) {
		snprintf(cmd, sizeof(cmd), "perf script -f -i '%s' --ns -F pid,tid,cpu,time,data_src "
			 "2>/dev/null", path);
		if (pd_run(cmd, &b) != 0) {
			snprintf(why, n, "perf script -F data_src failed on %s", path);
			goto fail;
		}
		lb = strtok_r(b, "\n", &sb);
	}
	for (la = strtok_r(a, "\n", &sa); la; la = strtok_r(NULL, "\n", &sa)) {
		if (ns == cap) {
			struct smp *nb = realloc(s, 2 * cap * sizeof(*s));
			if (!nb)
				goto fail;
			s = nb;
			cap *= 2;
		}
		if (parse_line_a(la, has, names, nnames, &s[ns]) < 0 || s[ns].ev < 0) {
			snprintf(why, n, "perf script line not understood: %s", la);
			goto fail;
		}
		if (has & HAS_MEM) {
			if (!lb || parse_line_b(lb, &s[ns]) < 0) {
				snprintf(why, n, "perf script data_src line not understood or not the "
					 "sample of %s: %s", la, lb ? lb : "(none)");
				goto fail;
			}
			lb = strtok_r(NULL, "\n", &sb);
		}
		ns++;
	}
	free(a);
	free(b);
	*out = s;
	return (long)ns;
fail:
	free(a);
	free(b);
	free(s);
	return -1;
}

/* The count perf report --stats gives NAME ("SAMPLE", "THROTTLE", "TOTAL", ...) in its
 * "Aggregated stats:" block: 0 when not listed, -1 when perf failed. */
static long long perf_stat(const char *path, const char *name)
{
	char cmd[600], *out, *p, key[64];
	long long v = 0;
	unsigned long long c;

	snprintf(cmd, sizeof(cmd), "perf report -f -i '%s' --stats 2>/dev/null", path);
	if (pd_run(cmd, &out) != 0 || !(p = strstr(out, "Aggregated stats:"))) {
		free(out);
		return -1;
	}
	for (p = strchr(p, '\n'); p && *p; p = strchr(p + 1, '\n')) {
		if (sscanf(p, " %63s events: %llu", key, &c) != 2)
			break; /* the end of the block: per-event stats follow */
		if (strcmp(key, name) == 0)
			v = (long long)c;
	}
	free(out);
	return v;
}

/* ---- comparisons ---- */

/* Our samples against perf's, both sorted: how many pairs differ (the first few printed). */
static size_t compare(struct smp *ours, long no, struct smp *perf, long np)
{
	size_t bad = 0;

	if (no != np) {
		printf("# %ld samples parsed, perf script printed %ld\n", no, np);
		return (size_t)(no > np ? no : np);
	}
	qsort(ours, (size_t)no, sizeof(*ours), cmp_smp);
	qsort(perf, (size_t)np, sizeof(*perf), cmp_smp);
	for (long i = 0; i < no; i++)
		if (cmp_smp(&ours[i], &perf[i]) != 0 && bad++ < 4) {
			printf("# sample %ld differs:\n", i);
			print_smp("ours", &ours[i]);
			print_smp("perf", &perf[i]);
		}
	return bad;
}

/* What perf's decoded data source text says, in memphis's terms. */
struct perf_class {
	int load, store, hit, miss, hitm, locked, remote;
	int src;          /* enum memphis_hw_src the level names give, -1: none or several */
};

/* perf's level names (mem_lvl and mem_lvl_num tables of util/mem-events.c) -> memphis src. */
static int level_src(const char *name)
{
	static const struct { const char *name; int src; } t[] = {
		{ "L1", MEMPHIS_SRC_L1 }, { "LFB/MAB", MEMPHIS_SRC_LFB }, { "LFB", MEMPHIS_SRC_LFB },
		{ "L2", MEMPHIS_SRC_L2 }, { "L3", MEMPHIS_SRC_L3 },
		{ "Local RAM", MEMPHIS_SRC_LOCAL_RAM }, { "RAM", MEMPHIS_SRC_LOCAL_RAM },
		{ "Remote RAM (1 hop)", MEMPHIS_SRC_REMOTE_RAM },
		{ "Remote RAM (2 hops)", MEMPHIS_SRC_REMOTE_RAM },
		{ "Remote Cache (1 hop)", MEMPHIS_SRC_FAR_CACHE },
		{ "Remote Cache (2 hops)", MEMPHIS_SRC_FAR_CACHE },
		{ "I/O", MEMPHIS_SRC_IO }, { "Uncached", MEMPHIS_SRC_UNCACHED },
		{ "PMEM", MEMPHIS_SRC_PMEM }, { "CXL", MEMPHIS_SRC_CXL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strcmp(name, t[i].name) == 0)
			return t[i].src;
	return -1;
}

/* Parse "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A" (perf 6.1's
 * perf_script__fprintf_data_src). 0, or -1 for a level text not understood. */
static int perf_class_parse(const char *text, struct perf_class *c)
{
	char buf[192], *seg, *save = NULL;

	memset(c, 0, sizeof(*c));
	c->src = -1;
	snprintf(buf, sizeof(buf), "%s", text);
	for (seg = strtok_r(buf, "|", &save); seg; seg = strtok_r(NULL, "|", &save)) {
		if (strncmp(seg, "OP ", 3) == 0) {
			c->load = strstr(seg, "LOAD") != NULL;
			c->store = strstr(seg, "STORE") != NULL;
		} else if (strncmp(seg, "SNP ", 4) == 0) {
			c->hitm = strstr(seg, "HitM") != NULL;
		} else if (strncmp(seg, "LCK ", 4) == 0) {
			c->locked = strstr(seg, "Yes") != NULL;
		} else if (strncmp(seg, "LVL ", 4) == 0) {
			char *lv = seg + 4, *end = lv + strlen(lv), *name, *next;
			int src = -2; /* -2: no name yet; -1: names of different levels */

			if (strcmp(lv, "N/A") == 0)
				continue;
			if (end - lv > 4 && strcmp(end - 4, " hit") == 0) {
				c->hit = 1;
				end[-4] = 0;
			} else if (end - lv > 5 && strcmp(end - 5, " miss") == 0) {
				c->miss = 1;
				end[-5] = 0;
			} else {
				return -1;
			}
			/* "A or B": one level may be named twice (by mem_lvl, then mem_lvl_num) */
			for (name = lv; name; name = next) {
				int s;

				if ((next = strstr(name, " or ")) != NULL) {
					*next = 0;
					next += 4;
				}
				if ((s = level_src(name)) < 0)
					return -1;
				c->remote |= strncmp(name, "Remote", 6) == 0;
				src = src == -2 || src == s ? s : -1;
			}
			c->src = src < 0 ? -1 : src;
		}
	}
	return 0;
}

/* Our decoding of a sample's data source against perf's text. 1 when they agree; else 0
 * with what differs in why. */
static int class_agrees(const struct memphis_hw_access *a, const char *text, char *why, size_t n)
{
	struct perf_class c;

	if (perf_class_parse(text, &c) < 0) {
		snprintf(why, n, "perf's text not understood");
		return 0;
	}
	if (a->is_load != c.load || a->is_store != c.store) {
		snprintf(why, n, "op: load %d store %d, perf load %d store %d", a->is_load, a->is_store,
			 c.load, c.store);
		return 0;
	}
	if (c.hit && c.src >= 0 && a->src != c.src) {
		snprintf(why, n, "level hit: src %d, perf's names give %d", a->src, c.src);
		return 0;
	}
	if (c.miss && c.src >= 0 && a->src == c.src) {
		snprintf(why, n, "perf says the level %d was missed, memphis says it served", c.src);
		return 0;
	}
	if (c.hit && c.src >= 0 && a->remote != c.remote) {
		snprintf(why, n, "remote %d, perf %d", a->remote, c.remote);
		return 0;
	}
	if (a->hitm != c.hitm || a->locked != c.locked) {
		snprintf(why, n, "hitm %d locked %d, perf hitm %d locked %d", a->hitm, a->locked,
			 c.hitm, c.locked);
		return 0;
	}
	return 1;
}

/* ---- the three files ---- */

/* Read, replay and compare one capture's samples with perf script's. Returns the samples
 * (ours, sorted, malloc'd) and their number, or -1. */
static long replay_file(const char *name, unsigned has, struct pd_file *f, uint64_t types[128],
			struct memphis__perf_losses *loss, struct smp **ours_out, struct smp **perf_out,
			char *path, size_t pn)
{
	char why[1024];
	struct smp *ours = NULL, *perf = NULL;
	long no, np = -1;

	*ours_out = *perf_out = NULL;
	if (!ok(unpack(name, path, pn) == 0, "%s: unpacked from tests/data/perf", name))
		return -1;
	if (!ok(pd_open(f, path, why, sizeof(why)) == 0, "%s: a perf.data file (PERFILE2)", name)) {
		printf("# %s\n", why);
		return -1;
	}
	no = replay(f, &ours, types, loss, why, sizeof(why));
	if (!ok(no > 0, "%s: every record counted by type, all %ld samples parsed with their "
		"attr's sample_type (ids at perf's position name the attr)", name, no)) {
		printf("# %s\n", why);
		return -1;
	}
	if (!have_perf) {
		tap_skip(NO_PERF, "%s: samples as perf script prints them", name);
		*ours_out = ours;
		return no;
	}
	np = perf_samples(path, has, &perf, why, sizeof(why));
	if (np < 0)
		printf("# %s\n", why);
	ok(np >= 0 && compare(ours, no, perf, np) == 0,
	   "%s: %ld samples, each with perf script's pid, tid,%s time,%s event%s and ip", name, no,
	   has & HAS_CPU ? " cpu," : "", has & HAS_PERIOD ? " period," : "",
	   has & HAS_MEM ? ", address, weight, instruction latency, data_src" : "");
	*ours_out = ours;
	*perf_out = perf;
	return no;
}

static void test_weight_struct(void)
{
	struct pd_file f;
	uint64_t types[128] = { 0 };
	struct memphis__perf_losses loss = { 0 };
	struct smp *ours, *perf;
	char path[512];
	long n = replay_file("perf.data.weight_struct", HAS_CPU | HAS_MEM, &f, types, &loss, &ours,
			     &perf, path, sizeof(path));
	size_t user = 0, kept = 0, bad = 0;

	if (n < 0)
		goto out;
	ok(f.nattr == 2 && f.attr[0].attr.type == PERF_TYPE_RAW && f.attr[0].attr.config == 0x1cd &&
	   f.attr[0].attr.config1 == 0x40 && f.attr[0].attr.sample_type == 0x10080cf &&
	   f.attr[1].attr.sample_type == 0x10080cf && n == 14,
	   "weight_struct: PEBS load latency (raw 0x1cd, ldlat 64), sample_type 0x10080cf, 14 samples");
	for (long i = 0; perf && i < n; i++) {
		char why[160];
		int same = cmp_smp(&ours[i], &perf[i]) == 0;

		tap(same && class_agrees(&ours[i].acc, perf[i].text, why, sizeof(why)), __LINE__,
		    "weight_struct sample %ld (ip %#llx): data_src %#llx weight %llu classified as "
		    "perf prints it: %s", i, (unsigned long long)ours[i].ip,
		    (unsigned long long)ours[i].data_src, (unsigned long long)ours[i].weight,
		    perf[i].text);
		if (!same)
			printf("# not the same sample as perf's (see above)\n");
		else if (!class_agrees(&ours[i].acc, perf[i].text, why, sizeof(why)))
			printf("# %s\n", why);
	}
	if (!perf)
		tap_skip(NO_PERF, "weight_struct: data sources classified as perf prints them");
	/* the module's conversion of the same samples (its overflow handler's code): user code
	 * kept with the sample's address (if a user one), data source and weight, the kernel's
	 * dropped */
	for (long i = 0; i < n; i++) {
		const struct smp *s = &ours[i];
		struct memphismod_sample_in in = {
			.kind = MEMPHISMOD_KIND_PEBS_LDLAT,
			.sample_flags = PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_WEIGHT_STRUCT,
			.addr = s->addr, .data_src = s->data_src,
			.weight = s->ins_lat << 32 | s->weight, .pid = s->pid, .tid = s->tid,
			.cpu = s->cpu, .ip = s->ip, .time = s->time, .user_top = USER_TOP, .ours = 1,
			.weight_struct = 1,
		};
		struct memphismod_record r;
		struct memphis__kmod_sample ks;
		enum memphismod_rec_verdict v = memphismod_rec_fill(&in, &r);
		int is_user = s->ip != 0 && s->ip < USER_TOP;

		user += is_user;
		if (v == MEMPHISMOD_REC_KEEP && is_user &&
		    memphis__kmod_decode(&r, sizeof(r), 64, &ks) == 0 && ks.s.ip == s->ip &&
		    ks.s.data_src == s->data_src && ks.s.weight == s->weight &&
		    ks.s.addr == (s->addr < USER_TOP ? s->addr : 0) && (ks.s.flags & MPH_S_LOAD))
			kept++;
		else if (!(v == MEMPHISMOD_REC_KERNEL_IP && !is_user))
			bad++;
	}
	ok(bad == 0 && kept == user && user > 0 && user < (size_t)n,
	   "weight_struct: the module's conversion keeps the %zu samples of user code as loads with "
	   "their address, data_src and weight, drops the %zu of the kernel", user, (size_t)n - user);
out:
	free(ours);
	free(perf);
	pd_close(&f);
}

/* The lost-sample counts `perf report -D` prints ("PERF_RECORD_LOST_SAMPLES: ... lost
 * samples :N"), summed; -1 when perf failed. */
static long long perf_lost_samples(const char *path, long long *records)
{
	static const char rec[] = "PERF_RECORD_LOST_SAMPLES", val[] = "lost samples :";
	char cmd[600], *out, *p;
	long long sum = 0;

	snprintf(cmd, sizeof(cmd), "perf report -f -D -i '%s' 2>/dev/null", path);
	*records = 0;
	if (pd_run(cmd, &out) != 0) {
		free(out);
		return -1;
	}
	for (p = strstr(out, rec); p; p = strstr(p + 1, rec)) {
		char *eol = strchr(p, '\n'), *q = strstr(p, val);
		if (q && (!eol || q < eol)) {
			sum += strtoll(q + strlen(val), NULL, 10);
			++*records;
		}
	}
	free(out);
	return sum;
}

static void test_lost_samples(void)
{
	struct pd_file f;
	uint64_t types[128] = { 0 };
	struct memphis__perf_losses loss = { 0 };
	struct smp *ours, *perf;
	char path[512];
	long n = replay_file("perf.data.lost_samples-4.4", HAS_PERIOD, &f, types, &loss, &ours, &perf,
			     path, sizeof(path));
	long long recs, lost;

	if (n < 0)
		goto out;
	ok(f.nattr == 3 && n == 191 && types[PERF_RECORD_LOST_SAMPLES] == 2,
	   "lost_samples-4.4: 3 events, 191 samples, 2 LOST_SAMPLES records");
	if (!have_perf) {
		tap_skip(NO_PERF, "lost_samples-4.4: lost samples as perf report -D counts them");
		goto out;
	}
	lost = perf_lost_samples(path, &recs);
	ok(lost > 0 && recs == (long long)types[PERF_RECORD_LOST_SAMPLES] &&
	   loss.lost_samples == (uint64_t)lost && loss.lost == 0,
	   "lost_samples-4.4: memphis__perf_record_count sums %llu lost samples from %llu records, "
	   "perf report -D %lld from %lld", (unsigned long long)loss.lost_samples,
	   (unsigned long long)types[PERF_RECORD_LOST_SAMPLES], lost, recs);
	ok(perf_stat(path, "SAMPLE") == n && perf_stat(path, "LOST_SAMPLES") == 2,
	   "lost_samples-4.4: perf report --stats counts the same samples and LOST_SAMPLES records");
out:
	free(ours);
	free(perf);
	pd_close(&f);
}

static void test_throttle(void)
{
	struct pd_file f;
	uint64_t types[128] = { 0 }, total = 0;
	struct memphis__perf_losses loss = { 0 };
	struct smp *ours, *perf;
	char path[512];
	long n = replay_file("perf.data.throttle-3.8", HAS_CPU, &f, types, &loss, &ours, &perf, path,
			     sizeof(path));
	long long th, un, tot, smp;

	if (n < 0)
		goto out;
	for (int i = 0; i < 128; i++)
		total += types[i];
	ok(f.nattr == 2 && loss.throttle == types[PERF_RECORD_THROTTLE] &&
	   loss.unthrottle == types[PERF_RECORD_UNTHROTTLE] && loss.throttle > 0 &&
	   loss.throttle != loss.unthrottle,
	   "throttle-3.8: memphis__perf_record_count counts %llu THROTTLE and %llu UNTHROTTLE records",
	   (unsigned long long)loss.throttle, (unsigned long long)loss.unthrottle);
	if (!have_perf) {
		tap_skip(NO_PERF, "throttle-3.8: record counts as perf report --stats gives them");
		goto out;
	}
	th = perf_stat(path, "THROTTLE");
	un = perf_stat(path, "UNTHROTTLE");
	tot = perf_stat(path, "TOTAL");
	smp = perf_stat(path, "SAMPLE");
	ok(th == (long long)loss.throttle && un == (long long)loss.unthrottle &&
	   tot == (long long)total && smp == n,
	   "throttle-3.8: perf report --stats: %lld THROTTLE, %lld UNTHROTTLE, %lld SAMPLE of %lld "
	   "records; ours %llu, %llu, %ld of %llu", th, un, smp, tot,
	   (unsigned long long)loss.throttle, (unsigned long long)loss.unthrottle, n,
	   (unsigned long long)total);
out:
	free(ours);
	free(perf);
	pd_close(&f);
}

/* The comparison fails when a value differs: one field of one sample changed. */
static void test_compare_fails(void)
{
	struct smp a[2] = { { .time = 1, .ip = 0x401000, .data_src = 0x10268100142ull },
			    { .time = 2, .ip = 0x401010, .addr = 0x7f0000001000 } };
	struct smp b[2];
	struct memphis_hw_access acc;
	char why[160];

	memcpy(b, a, sizeof(a));
	b[1].addr ^= 8;
	printf("# a difference made on purpose:\n");
	ok(compare(a, 2, b, 2) == 1, "the comparison finds one address that differs");
	memphis_perf_decode(0x10268100142ull, 0x47, 1, 0x7f0000001000, 1, &acc);
	ok(class_agrees(&acc, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A",
			why, sizeof(why)) &&
	   !class_agrees(&acc, "|OP LOAD|LVL L2 or L2 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A",
			 why, sizeof(why)) &&
	   !class_agrees(&acc, "|OP LOAD|LVL L1 or L1 hit|SNP None|TLB L1 or L2 hit|LCK Yes|BLK  N/A",
			 why, sizeof(why)),
	   "the classification check tells an L1 hit from an L2 hit and a locked access");
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/unit_replay.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	have_perf = pd_have_perf();
	test_compare_fails();
	test_weight_struct();
	test_lost_samples();
	test_throttle();
	{
		char cmd[sizeof(tmp) + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return tap_done();
}
