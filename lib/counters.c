/* lib/counters.c - events per thread and region (contracts in counters.h).
 *
 * Each event goes one of two ways, chosen once at start:
 *  - perf (perfctr.h): what libpfm4 encodes for a core PMU or as the kernel's generic
 *    events (perf::PAGE-FAULTS, perf::CYCLES, ...), and a PAPI preset that PAPI makes of
 *    one such native event (PAPI_TOT_CYC as CYCLES_NOT_IN_HALT, ...): the library's own
 *    perf_event_open per thread, read with read(2), scaled and flagged when multiplexed;
 *  - PAPI (papiset.h): the rest (presets PAPI derives from several events, events of
 *    other components). PAPI is initialised only when an event goes this way.
 * Why not PAPI for everything: (1) PAPI 7.0 disables its whole perf_event component where
 * libpfm4 knows no core PMU of the CPU (Debian 12's libpfm4 4.13 on AMD family 26, a VM),
 * the kernel's software events included (perfctr.c says why libpfm4 still encodes them);
 * (2) PAPI before 7.1 reads another thread's set with rdpmc (papiset.h): invalid counts,
 * and this file reads every thread's counts from the thread that marks or prints; (3)
 * PAPI's read does not say whether the kernel multiplexed the events.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "log.h"
#include "memphis/format.h"
#include "papiset.h"
#include "perfctr.h"
#include "self.h"
#include "writer.h"

#define MAX_EVENTS MEMPHIS__PERFCTR_MAX /* events in all; more are named as not counted */

struct bad_event {
	char name[64];
	int err;           /* PAPI error code, or -errno (perf) */
	int perf;          /* 1: the perf way refused it */
	char why[64];
};

/* An event asked for, in the order asked. */
struct event {
	char name[64];
	int perf;          /* 1: counted by the perf way (attrs[at]); 0: by PAPI (codes[at]) */
	int at;
};

/* One thread's events: started when the thread registers, read at every mark and print,
 * freed once the thread ended (seen at a mark or print, or when entries pile up). */
struct entry {
	pid_t tid;
	int cpu;           /* the CPU it last ran on, as last seen; -1 unknown */
	struct memphis__papiset papi;  /* PAPI's events (set PAPI_NULL when none) */
	long long base[MAX_EVENTS];    /* their counts at the open region's start (0: the
					* thread started within it) */
	struct memphis__perfctr_set pc; /* the perf way's events */
	struct memphis__perfctr_read pbase[MAX_EVENTS]; /* their reads at the region's start */
};

static pthread_mutex_t ctr_lock = PTHREAD_MUTEX_INITIALIZER;
static int nev;                            /* events counted; 0 = off */
static struct event evs[MAX_EVENTS];
static int codes[MAX_EVENTS];              /* PAPI's events */
static int npapi;
static struct perf_event_attr attrs[MAX_EVENTS]; /* the perf way's events */
static int nperf;
static struct bad_event bad[MAX_EVENTS * 2];
static int nbad;
static struct entry *ent;
static size_t nent, capent;
static size_t sweep_at = 64;               /* look for ended threads past this many entries */
static int open_;                          /* a region is open */
static struct memphis_rec_counter *done;   /* counts of threads that ended in the region */
static size_t ndone, capdone;

static void name_bad(const char *name, int err, int perf, const char *why)
{
	if (!why)
		why = "unknown PAPI error";
	memphis__note(MPH_LOG_WARN, "%s event %s is not counted: %s", perf ? "perf" : "PAPI",
		      name, why);
	if (nbad >= (int)(sizeof(bad) / sizeof(bad[0])))
		return;
	snprintf(bad[nbad].name, sizeof(bad[nbad].name), "%s", name);
	snprintf(bad[nbad].why, sizeof(bad[nbad].why), "%s", why);
	bad[nbad].perf = perf;
	bad[nbad++].err = err;
}

/* The words for a perf way's error (an open's or a read's). */
static const char *perf_why(int err, char *buf, size_t n)
{
	switch (err) {
	case -EBADF:
		return "its descriptors were closed by the program";
	case -EMFILE:
		return "the library's share of descriptors (a quarter of RLIMIT_NOFILE) is used up";
	case -EBUSY:
		return "never had a counter in the region (multiplexed out)";
	case -ENOSPC:
		return "pinned, and found no free counter";
	}
	snprintf(buf, n, "perf_event_open: %s", strerror(-err));
	return buf;
}

/* Count `name` the perf way (attributes a); as: the native event a preset is made of. */
static void keep_perf(const char *name, const struct perf_event_attr *a, const char *as)
{
	struct memphis__perfctr_set probe;
	char why[128];

	/* the kernel's answer on this thread: what it refuses here, it refuses everywhere */
	memphis__perfctr_open(&probe, a, 1, memphis__gettid());
	memphis__perfctr_close(&probe);
	if (probe.err[0]) {
		name_bad(name, probe.err[0], 1, perf_why(probe.err[0], why, sizeof(why)));
		return;
	}
	if (as)
		memphis__note(MPH_LOG_INFO, "%s is counted as %s (its one native event) by "
			      "perf_event_open", name, as);
	attrs[nperf] = *a;
	evs[nev] = (struct event){ .perf = 1, .at = nperf++ };
	snprintf(evs[nev++].name, sizeof(evs[0].name), "%s", name);
}

/* Count `name` with PAPI when it can be counted together with PAPI's events so far. */
static void keep_papi(const char *name, int code)
{
	const char *why;
	char buf[128];
	int rc;

	codes[npapi] = code;
	if ((rc = memphis__papi_probe(codes, npapi + 1, &why)) != PAPI_OK) {
		name_bad(name, rc, 0, why ? why : memphis__papi_why(rc, code, buf, sizeof(buf)));
		return;
	}
	evs[nev] = (struct event){ .perf = 0, .at = npapi++ };
	snprintf(evs[nev++].name, sizeof(evs[0].name), "%s", name);
}

/* Route one event asked for (see the top of the file). */
static void add_event(const char *name)
{
	struct perf_event_attr a;
	char why[128], native[PAPI_MAX_STR_LEN];
	int rc, code;

	if (nev == MAX_EVENTS) {
		name_bad(name, PAPI_ECNFLCT, 0, "more than 16 events asked for");
		return;
	}
	rc = memphis__perfctr_encode(name, &a, why, sizeof(why));
	if (rc == 0) {
		keep_perf(name, &a, NULL);
		return;
	}
	if (rc == -EINVAL) {
		name_bad(name, rc, 1, why);
		return;
	}
	if ((rc = memphis__papi_start()) != PAPI_VER_CURRENT) {
		name_bad(name, rc < 0 ? rc : PAPI_EMISC, 0, "PAPI cannot start");
		return;
	}
	if ((rc = PAPI_event_name_to_code(name, &code)) != PAPI_OK) {
		name_bad(name, rc, 0, PAPI_strerror(rc));
		return;
	}
	if (memphis__papi_preset_native(code, native, sizeof(native)) &&
	    memphis__perfctr_encode(native, &a, why, sizeof(why)) == 0) {
		keep_perf(name, &a, native);
		return;
	}
	keep_papi(name, code);
}

int memphis__counters_init(const char *events)
{
	char buf[1024];
	int n;

	if (!events || !*events)
		return 0;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	snprintf(buf, sizeof(buf), "%s", events);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok += strspn(tok, " \t");
		tok[strcspn(tok, " \t")] = '\0';
		if (*tok)
			add_event(tok);
	}
	n = nev;
	pthread_mutex_unlock(&ctr_lock);
	memphis__leave();
	return n;
}

/* The entry of tid, NULL if none. Caller holds ctr_lock. */
static struct entry *find(pid_t tid)
{
	for (size_t i = 0; i < nent; i++)
		if (ent[i].tid == tid)
			return &ent[i];
	return NULL;
}

/* The CPU thread tid last ran on (/proc/self/task/TID/stat, field 39), -1 if unknown. */
static int thread_cpu(pid_t tid)
{
	char path[64], *buf, *p, *save = NULL;
	int field = 2, cpu = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	buf = memphis__slurp(path);
	p = buf ? strrchr(buf, ')') : NULL; /* the command name may hold spaces and parentheses */
	for (char *tok = p ? strtok_r(p + 1, " ", &save) : NULL; tok;
	     tok = strtok_r(NULL, " ", &save))
		if (++field == 39) {
			cpu = atoi(tok);
			break;
		}
	free(buf);
	return cpu;
}

static int thread_gone(pid_t tid)
{
	return syscall(SYS_tgkill, getpid(), tid, 0) < 0 && errno == ESRCH;
}

/* Read e's perf way events at the region's start into e->pbase (0 when unreadable: the
 * end's read says why). */
static void read_perf_base(struct entry *e)
{
	for (int k = 0; k < nperf; k++)
		if (memphis__perfctr_read(&e->pc, k, &e->pbase[k]) != 0)
			e->pbase[k] = (struct memphis__perfctr_read){ 0 };
}

/* name, then after its NUL the reason (MPH_CTR_UNAVAILABLE records) */
static void set_name(struct memphis_rec_counter *c, const char *name, const char *why)
{
	size_t n = strnlen(name, sizeof(c->name) - 2);

	memcpy(c->name, name, n);
	if (why)
		snprintf(c->name + n + 1, sizeof(c->name) - n - 1, "%s", why);
}

/* c: the record of e's perf way event k over the region. */
static void perf_record(struct entry *e, int k, const char *name, struct memphis_rec_counter *c)
{
	static int told;
	struct memphis__perfctr_read now;
	struct memphis__perfctr_count n;
	char buf[96];
	int err = memphis__perfctr_read(&e->pc, k, &now);

	if (!err)
		err = memphis__perfctr_delta(&e->pbase[k], &now, &n);
	c->flags = MPH_CTR_PERF;
	if (err) {
		const char *why = perf_why(err, buf, sizeof(buf));

		if (!told++)
			memphis__note(MPH_LOG_WARN, "perf counter %s of thread %d not counted: %s",
				      name, (int)e->tid, why);
		c->flags |= MPH_CTR_UNAVAILABLE;
		c->error = err;
		set_name(c, name, why);
		return;
	}
	if (n.multiplexed)
		c->flags |= MPH_CTR_MULTIPLEXED;
	c->coverage = (int32_t)n.coverage;
	c->value = n.value;
	set_name(c, name, NULL);
}

/* The records of entry e (nev of them into c): its counts over the region, or why there
 * are none. Caller holds ctr_lock. */
static void entry_records(struct entry *e, uint32_t seq, struct memphis_rec_counter *c)
{
	static int told;
	long long v[MAX_EVENTS] = { 0 };
	int rc = npapi ? memphis__papiset_read(&e->papi, v, e->tid) : PAPI_OK;
	int cpu = thread_cpu(e->tid);
	const char *why = rc == PAPI_OK ? NULL : e->papi.why ? e->papi.why : PAPI_strerror(rc);

	if (cpu < 0) /* ended: where it was last seen */
		cpu = e->cpu;
	if (rc != PAPI_OK && !told++)
		memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not counted: %s",
			      (int)e->tid, why ? why : "unknown PAPI error");
	for (int k = 0; k < nev; k++) {
		c[k] = (struct memphis_rec_counter){ .region = seq, .source = MPH_CTR_PAPI,
						      .tid = (uint32_t)e->tid, .node = -1, .cpu = cpu };
		if (evs[k].perf) {
			perf_record(e, evs[k].at, evs[k].name, &c[k]);
		} else if (rc != PAPI_OK) {
			c[k].flags = MPH_CTR_UNAVAILABLE;
			c[k].error = rc;
			set_name(&c[k], evs[k].name, why ? why : "");
		} else {
			c[k].value = (uint64_t)(v[evs[k].at] - e->base[evs[k].at]);
			set_name(&c[k], evs[k].name, NULL);
		}
	}
}

/* Free the entries of threads that ended (caller holds ctr_lock). While a region is open,
 * their counts are kept for its records first (region seq 0: filled in at its end). */
static void forget_gone(void)
{
	size_t j = 0;

	for (size_t i = 0; i < nent; i++) {
		struct entry *e = &ent[i];

		if (!thread_gone(e->tid)) {
			ent[j++] = *e;
			continue;
		}
		if (open_ && ndone + (size_t)nev > capdone) {
			size_t ncap = capdone ? capdone * 2 : 64 * (size_t)nev;
			struct memphis_rec_counter *n = realloc(done, ncap * sizeof(*n));
			if (n) {
				done = n;
				capdone = ncap;
			}
		}
		if (open_ && ndone + (size_t)nev <= capdone) {
			entry_records(e, 0, done + ndone);
			ndone += (size_t)nev;
		}
		memphis__papiset_free(&e->papi);
		memphis__perfctr_close(&e->pc);
	}
	nent = j;
	sweep_at = 2 * nent > 64 ? 2 * nent : 64;
}

void memphis__counters_thread_added(pid_t tid)
{
	pid_t self = memphis__gettid();
	struct entry e = { .tid = tid, .papi = { .set = PAPI_NULL }, .cpu = -1 }, *old;

	if (!__atomic_load_n(&nev, __ATOMIC_RELAXED))
		return;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	if (nent >= sweep_at)
		forget_gone(); /* amortised: a program that churns threads keeps few entries */
	/* A thread found by a scan before it registered itself has an entry made from the
	 * scanning thread (the perf way's events open for it), without a PAPI set where PAPI
	 * cannot attach: on the thread itself, its own set is made (counted from now, before
	 * the thread runs the program's code). */
	old = find(tid);
	if (old) {
		if (npapi && old->papi.set == PAPI_NULL && tid == self) {
			memphis__papiset_free(&old->papi);
			/* base 0: counted from its start in a region open now */
			memphis__papiset_make(&old->papi, tid, codes, npapi);
			memset(old->base, 0, sizeof(old->base));
		}
		goto out;
	}
	if (nent == capent) {
		size_t ncap = capent ? capent * 2 : 16;
		struct entry *n = realloc(ent, ncap * sizeof(*n));
		if (!n)
			goto out;
		ent = n;
		capent = ncap;
	}
	/* base 0: counted from its start, in a region open now */
	memphis__perfctr_open(&e.pc, attrs, nperf, tid);
	if (npapi)
		memphis__papiset_make(&e.papi, tid, codes, npapi);
	if (tid == self)
		e.cpu = sched_getcpu();
	ent[nent++] = e;
out:
	pthread_mutex_unlock(&ctr_lock);
	memphis__leave();
}

void memphis__counters_begin(uint32_t seq)
{
	(void)seq;
	if (!nev)
		return;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	open_ = 0;
	forget_gone();
	for (size_t i = 0; i < nent; i++) {
		int cpu = thread_cpu(ent[i].tid);

		if (cpu >= 0)
			ent[i].cpu = cpu;
		if (npapi && memphis__papiset_read(&ent[i].papi, ent[i].base, ent[i].tid) != PAPI_OK)
			memset(ent[i].base, 0, sizeof(ent[i].base));
		read_perf_base(&ent[i]);
	}
	ndone = 0;
	open_ = 1;
	pthread_mutex_unlock(&ctr_lock);
	memphis__leave();
}

void memphis__counters_end(uint32_t seq)
{
	struct memphis_rec_counter *c;
	size_t n = 0;

	if (!nev && !nbad)
		return;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	c = calloc((size_t)nbad + ndone + nent * (size_t)nev + 1, sizeof(*c));
	for (int i = 0; c && i < nbad; i++, n++) {
		c[n] = (struct memphis_rec_counter){
			.region = seq, .source = MPH_CTR_PAPI, .node = -1, .cpu = -1,
			.flags = MPH_CTR_UNAVAILABLE | (bad[i].perf ? MPH_CTR_PERF : 0),
			.error = bad[i].err };
		set_name(&c[n], bad[i].name, bad[i].why);
	}
	for (size_t i = 0; c && i < ndone; i++, n++) {
		c[n] = done[i];
		c[n].region = seq;
	}
	for (size_t i = 0; c && i < nent; i++, n += (size_t)nev)
		entry_records(&ent[i], seq, c + n);
	for (size_t i = 0; i < nent; i++) {
		memset(ent[i].base, 0, sizeof(ent[i].base));
		memset(ent[i].pbase, 0, sizeof(ent[i].pbase));
	}
	open_ = 0;
	ndone = 0;
	forget_gone();
	pthread_mutex_unlock(&ctr_lock);
	if (n)
		memphis__writer_block(-1, MPH_BLK_COUNTERS, c, n * sizeof(*c));
	free(c);
	memphis__leave();
}
