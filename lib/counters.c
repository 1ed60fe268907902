/* lib/counters.c - PAPI events per thread and region (contracts in counters.h).
 *
 * A program may close descriptors it did not open (fd.h). PAPI's perf_event descriptors
 * are opened by PAPI at numbers we do not choose, and PAPI would read, ioctl and close
 * them by number. So each set's descriptors are found when it is made (the lowest free
 * numbers before, which are perf_event descriptors after, each with its event id) and
 * checked before PAPI touches the set again: a set with a descriptor that is no longer the same event is
 * never touched again (its counts are "unavailable", its memory stays with PAPI), so PAPI
 * never reads, stops or closes a descriptor of the program.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "fd.h"
#include "log.h"
#include "memphis/format.h"
#include "self.h"
#include "writer.h"

#define MAX_EVENTS 16 /* events per set; more are named as not counted */

struct bad_event {
	char name[64];
	int err;           /* PAPI error code */
	char why[64];
};

/* A perf_event descriptor of a set, and the kernel's id of its event. */
struct set_fd {
	int fd;
	uint64_t id;
};

/* One thread's event set: started when the thread registers, read at every mark and
 * print, freed once the thread ended (seen at a mark or print, or when sets pile up). */
struct entry {
	pid_t tid;
	int set;           /* PAPI event set, PAPI_NULL when it could not start */
	int err;           /* PAPI error code when it could not start or be read */
	struct set_fd *fds;
	size_t nfds;
	int cpu;           /* the CPU it last ran on, as last seen; -1 unknown */
	const char *why;   /* the reason for err when PAPI's text would not say it */
	long long base[MAX_EVENTS]; /* the counts at the open region's start (0: the thread
				     * started within it) */
};

static pthread_mutex_t ctr_lock = PTHREAD_MUTEX_INITIALIZER;
static int own_ok;                         /* a thread's own set may be read by another
					    * (PAPI reads it with read(2), never rdpmc) */
static int nev;                            /* events counted; 0 = off */
static int codes[MAX_EVENTS];
static char names[MAX_EVENTS][64];
static int cidx;                           /* their PAPI component */
static struct bad_event bad[MAX_EVENTS * 2];
static int nbad;
static struct entry *ent;
static size_t nent, capent;
static size_t sweep_at = 64;               /* look for ended threads past this many sets */
static size_t fds_held;                    /* descriptors of all sets */
static int open_;                          /* a region is open */
static struct memphis_rec_counter *done;   /* counts of threads that ended in the region */
static size_t ndone, capdone;

static void name_bad(const char *name, int err, const char *why)
{
	if (!why)
		why = "unknown PAPI error";
	memphis__note(MPH_LOG_WARN, "PAPI event %s is not counted: %s", name, why);
	if (nbad >= (int)(sizeof(bad) / sizeof(bad[0])))
		return;
	snprintf(bad[nbad].name, sizeof(bad[nbad].name), "%s", name);
	snprintf(bad[nbad].why, sizeof(bad[nbad].why), "%s", why);
	bad[nbad++].err = err;
}

/* The lowest n free descriptor numbers into out[] (the kernel gives an open the lowest
 * free one). Returns how many were found. */
static size_t free_fds(int *out, size_t n)
{
	size_t k = 0;

	for (int fd = 0; k < n && fd < 1 << 20; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			out[k++] = fd;
	return k;
}

static int is_perf_fd(int fd)
{
	char path[64], link[32];
	ssize_t len;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = '\0';
	return !strcmp(link, "anon_inode:[perf_event]");
}

/* Which of the numbers free before the set was made, cand[0 .. n), now are perf_event
 * descriptors: the set's (PAPI opened them at the lowest free numbers; one another thread
 * opened meanwhile would only make the check stricter). Their event ids are kept, and they
 * become close-on-exec (PAPI opens them without). */
static void own_new_fds(struct entry *e, const int *cand, size_t n)
{
	e->fds = calloc(n ? n : 1, sizeof(*e->fds));
	if (!e->fds)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;

		if (!is_perf_fd(cand[i]) || ioctl(cand[i], PERF_EVENT_IOC_ID, &id) < 0)
			continue;
		fcntl(cand[i], F_SETFD, FD_CLOEXEC);
		memphis__fd_note(cand[i]); /* a fork child closes them */
		e->fds[e->nfds++] = (struct set_fd){ cand[i], id };
	}
	fds_held += e->nfds;
}

/* Is every descriptor of the set still the event it was? */
static int fds_intact(const struct entry *e)
{
	if (!e->fds)
		return 0;
	for (size_t i = 0; i < e->nfds; i++) {
		uint64_t id;

		if (!is_perf_fd(e->fds[i].fd) || ioctl(e->fds[i].fd, PERF_EVENT_IOC_ID, &id) < 0 ||
		    id != e->fds[i].id)
			return 0;
	}
	return 1;
}

static void drop_set(int *set)
{
	PAPI_cleanup_eventset(*set);
	PAPI_destroy_eventset(set);
	*set = PAPI_NULL;
}

/* e's set is no longer PAPI's to use (freed, or left to it): its descriptors leave the
 * library's share and the fork child's list (before PAPI closes them: a number it frees
 * may be the program's next). */
static void set_gone(struct entry *e)
{
	fds_held -= e->nfds;
	for (size_t i = 0; i < e->nfds; i++)
		memphis__fd_unnote(e->fds[i].fd);
	e->nfds = 0;
}

/* Stop and free e's started set; PAPI closes its descriptors (see set_gone). */
static void free_set(struct entry *e)
{
	sigset_t mask;

	memphis__fd_fork_hold(&mask);
	set_gone(e);
	PAPI_stop(e->set, NULL);
	drop_set(&e->set);
	memphis__fd_fork_release(&mask);
}

/* A started set of ev[0 .. n) for thread tid in *set: attached to it (its descriptors
 * opened for tid), or, where PAPI cannot attach (it checks with a hardware event, which a
 * machine without a PMU lacks) and tid is the calling thread, the thread's own set, when
 * another thread may read it. Returns PAPI_OK or the error (nothing left open then). */
static int make_set(pid_t tid, const int *ev, int n, int probe, int *set)
{
	int rc;

	*set = PAPI_NULL;
	if ((rc = PAPI_create_eventset(set)) != PAPI_OK)
		return rc;
	if ((rc = PAPI_assign_eventset_component(*set, cidx)) != PAPI_OK)
		goto fail;
	if ((rc = PAPI_attach(*set, (unsigned long)tid)) != PAPI_OK) {
		if (tid != memphis__gettid() || !own_ok)
			goto fail;
	}
	/* the probe adds one by one (PAPI_add_events hides which failed and why); a thread's
	 * set all at once: PAPI opens the events again at every add */
	if (!probe) {
		if ((rc = PAPI_add_events(*set, (int *)ev, n)) != PAPI_OK)
			goto fail;
	} else {
		for (int k = 0; k < n; k++)
			if ((rc = PAPI_add_event(*set, ev[k])) != PAPI_OK)
				goto fail;
	}
	if ((rc = PAPI_start(*set)) != PAPI_OK)
		goto fail;
	return PAPI_OK;
fail:
	drop_set(set);
	return rc < 0 ? rc : PAPI_EMISC;
}

/* Keep the events of list[] that can be counted together on this thread; name the rest.
 * init_rc: PAPI_library_init's result (every event is named when PAPI did not start). */
static void probe_events(const char *list, int init_rc)
{
	char buf[1024];
	int probe;

	snprintf(buf, sizeof(buf), "%s", list);
	cidx = -1;
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int code, rc;

		tok += strspn(tok, " \t");
		tok[strcspn(tok, " \t")] = '\0';
		if (!*tok)
			continue;
		if (init_rc != PAPI_VER_CURRENT) {
			name_bad(tok, init_rc < 0 ? init_rc : PAPI_EMISC, "PAPI cannot start");
			continue;
		}
		if (nev == MAX_EVENTS) {
			name_bad(tok, PAPI_ECNFLCT, "more than 16 events asked for");
			continue;
		}
		if ((rc = PAPI_event_name_to_code(tok, &code)) != PAPI_OK) {
			name_bad(tok, rc, PAPI_strerror(rc));
			continue;
		}
		if (cidx < 0) {
			const PAPI_component_info_t *ci;

			cidx = PAPI_get_event_component(code);
			ci = PAPI_get_component_info(cidx);
			own_ok = ci && !ci->fast_counter_read;
		}
		codes[nev] = code;
		/* the events so far plus this one, on a set of the calling thread */
		rc = make_set(memphis__gettid(), codes, nev + 1, 1, &probe);
		if (rc != PAPI_OK) {
			name_bad(tok, rc, PAPI_strerror(rc));
			continue;
		}
		PAPI_stop(probe, NULL);
		drop_set(&probe);
		snprintf(names[nev], sizeof(names[nev]), "%s", tok);
		nev++;
	}
}

static unsigned long papi_tid(void)
{
	return (unsigned long)memphis__gettid();
}

int memphis__counters_init(const char *events)
{
	int rc;

	if (!events || !*events)
		return 0;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc == PAPI_VER_CURRENT && PAPI_thread_init(papi_tid) != PAPI_OK)
		rc = PAPI_EMISC;
	if (rc != PAPI_VER_CURRENT)
		memphis__note(MPH_LOG_WARN, "PAPI cannot start (%s): no event is counted",
			      rc < 0 ? PAPI_strerror(rc) : "another PAPI version");
	probe_events(events, rc);
	rc = nev;
	pthread_mutex_unlock(&ctr_lock);
	memphis__leave();
	return rc;
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

/* Read e's counts into v[] (caller holds ctr_lock). Returns PAPI_OK or the error (set in
 * e->err too); a set whose descriptors the program closed is never touched again. */
static int read_entry(struct entry *e, long long *v)
{
	static int told_fds;

	if (e->set == PAPI_NULL)
		return e->err;
	if (!fds_intact(e)) {
		if (!told_fds++)
			memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not read: its "
				      "descriptors were closed by the program", (int)e->tid);
		e->set = PAPI_NULL; /* left to PAPI: it would close the program's descriptors */
		set_gone(e);
		e->why = "its descriptors were closed by the program";
		return e->err = PAPI_ESYS;
	}
	if ((e->err = PAPI_read(e->set, v)) != PAPI_OK)
		free_set(e);
	return e->err;
}

/* name, then after its NUL the reason (MPH_CTR_UNAVAILABLE records) */
static void set_name(struct memphis_rec_counter *c, const char *name, const char *why)
{
	size_t n = strnlen(name, sizeof(c->name) - 2);

	memcpy(c->name, name, n);
	if (why)
		snprintf(c->name + n + 1, sizeof(c->name) - n - 1, "%s", why);
}

/* The records of entry e (nev of them into c): its counts over the region, or why there
 * are none. Caller holds ctr_lock. */
static void entry_records(struct entry *e, uint32_t seq, struct memphis_rec_counter *c)
{
	static int told;
	long long v[MAX_EVENTS] = { 0 };
	int rc = read_entry(e, v), cpu = thread_cpu(e->tid);
	const char *why = rc == PAPI_OK ? NULL : e->why ? e->why : PAPI_strerror(rc);

	if (cpu < 0) /* ended: where it was last seen */
		cpu = e->cpu;
	if (rc != PAPI_OK && !told++)
		memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not counted: %s",
			      (int)e->tid, why ? why : "unknown PAPI error");
	for (int k = 0; k < nev; k++) {
		c[k] = (struct memphis_rec_counter){ .region = seq, .source = MPH_CTR_PAPI,
						      .tid = (uint32_t)e->tid, .node = -1, .cpu = cpu };
		if (rc != PAPI_OK) {
			c[k].flags = MPH_CTR_UNAVAILABLE;
			c[k].error = rc;
			set_name(&c[k], names[k], why ? why : "");
		} else {
			c[k].value = (uint64_t)(v[k] - e->base[k]);
			set_name(&c[k], names[k], NULL);
		}
	}
}

/* Free the sets of threads that ended (caller holds ctr_lock). While a region is open,
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
		if (e->set != PAPI_NULL && fds_intact(e))
			free_set(e);
		else
			set_gone(e);
		free(e->fds);
	}
	nent = j;
	sweep_at = 2 * nent > 64 ? 2 * nent : 64;
}

void memphis__counters_thread_added(pid_t tid)
{
	static int told_share;
	int cand[2 * MAX_EVENTS + 8];
	size_t nc;
	sigset_t mask;
	struct entry e = { .tid = tid, .set = PAPI_NULL, .cpu = -1 }, *old;

	if (!__atomic_load_n(&nev, __ATOMIC_RELAXED))
		return;
	memphis__enter();
	pthread_mutex_lock(&ctr_lock);
	if (nent >= sweep_at)
		forget_gone(); /* amortised: a program that churns threads keeps few sets */
	/* A thread found by a scan before it registered itself has an entry made from the
	 * scanning thread, without a set where PAPI cannot attach: on the thread itself, its
	 * own set replaces it (counted from now, before the thread runs the program's code). */
	old = find(tid);
	if (old && (old->set != PAPI_NULL || tid != memphis__gettid()))
		goto out;
	if (!old && nent == capent) {
		size_t ncap = capent ? capent * 2 : 16;
		struct entry *n = realloc(ent, ncap * sizeof(*n));
		if (!n)
			goto out;
		ent = n;
		capent = ncap;
	}
	/* PAPI's descriptors count in the library's share (fd.h), so that the program never
	 * runs short of descriptors because of them */
	if ((long)(fds_held + (size_t)nev) + memphis__fd_held() > memphis__fd_share()) {
		e.err = PAPI_ECNFLCT;
		e.why = "the library's share of descriptors (a quarter of RLIMIT_NOFILE) is used up";
		if (!told_share++)
			memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not counted: %s",
				      (int)tid, e.why);
		goto keep;
	}
	memphis__fd_fork_hold(&mask);
	nc = free_fds(cand, 2 * (size_t)nev + 8);
	e.err = make_set(tid, codes, nev, 0, &e.set);
	if (e.err == PAPI_OK)
		own_new_fds(&e, cand, nc);
	memphis__fd_fork_release(&mask);
	if (tid == memphis__gettid())
		e.cpu = sched_getcpu();
keep:
	/* base 0: counted from its start, in a region open now */
	if (old) {
		free(old->fds);
		*old = e;
	} else {
		ent[nent++] = e;
	}
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
		if (read_entry(&ent[i], ent[i].base) != PAPI_OK)
			memset(ent[i].base, 0, sizeof(ent[i].base));
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
		c[n] = (struct memphis_rec_counter){ .region = seq, .source = MPH_CTR_PAPI,
						      .flags = MPH_CTR_UNAVAILABLE, .node = -1,
						      .cpu = -1, .error = bad[i].err };
		set_name(&c[n], bad[i].name, bad[i].why);
	}
	for (size_t i = 0; c && i < ndone; i++, n++) {
		c[n] = done[i];
		c[n].region = seq;
	}
	for (size_t i = 0; c && i < nent; i++, n += (size_t)nev)
		entry_records(&ent[i], seq, c + n);
	for (size_t i = 0; i < nent; i++)
		memset(ent[i].base, 0, sizeof(ent[i].base));
	open_ = 0;
	ndone = 0;
	forget_gone();
	pthread_mutex_unlock(&ctr_lock);
	if (n)
		memphis__writer_block(-1, MPH_BLK_COUNTERS, c, n * sizeof(*c));
	free(c);
	memphis__leave();
}
