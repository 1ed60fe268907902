/* lib/papiset.c - PAPI and one thread's event set (contracts in papiset.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "fd.h"
#include "log.h"
#include "papiset.h"
#include "self.h"
#include "writer.h"

#define MAX_SET 16 /* events in a set (counters.c asks for at most as many) */

static int asked;        /* memphis__papi_start was called */
static int start_rc;     /* then PAPI_library_init's result */
static int cidx = -1;    /* the component of the events (the first probed one's) */
static int own_ok;       /* a thread's own set may be read by another (no rdpmc) */
static int cross_ok;     /* an attached set may be read by another (PAPI >= 7.1, no rdpmc) */
static size_t fds_held;  /* descriptors of all sets: they count in the library's share */

static unsigned long papi_tid(void)
{
	return (unsigned long)memphis__gettid();
}

int memphis__papi_start(void)
{
	if (asked)
		return start_rc;
	asked = 1;
	start_rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (start_rc == PAPI_VER_CURRENT && PAPI_thread_init(papi_tid) != PAPI_OK)
		start_rc = PAPI_EMISC;
	if (start_rc != PAPI_VER_CURRENT)
		memphis__note(MPH_LOG_WARN, "PAPI cannot start (%s): its events are not counted",
			      start_rc < 0 ? PAPI_strerror(start_rc) : "another PAPI version");
	return start_rc;
}

const char *memphis__papi_why(int rc, int code, char *buf, size_t n)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(PAPI_get_event_component(code));

	if (ci && ci->disabled && ci->disabled_reason[0])
		snprintf(buf, n, "%.24s off: %.100s", ci->name, ci->disabled_reason);
	else
		snprintf(buf, n, "%s", PAPI_strerror(rc));
	return buf;
}

int memphis__papi_preset_native(int code, char *native, size_t n)
{
	static PAPI_event_info_t info; /* 5 KiB: off the stack (calls are serialised) */
	char name[PAPI_MAX_STR_LEN];

	if (!IS_PRESET(code) || PAPI_get_event_info(code, &info) != PAPI_OK || info.count != 1 ||
	    (info.derived[0] && strcmp(info.derived, "NOT_DERIVED")) ||
	    PAPI_event_code_to_name((int)info.code[0], name) != PAPI_OK)
		return 0;
	snprintf(native, n, "%s", name);
	return 1;
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
static void own_new_fds(struct memphis__papiset *p, const int *cand, size_t n)
{
	p->fds = calloc(n ? n : 1, sizeof(*p->fds));
	if (!p->fds)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;

		if (!is_perf_fd(cand[i]) || ioctl(cand[i], PERF_EVENT_IOC_ID, &id) < 0)
			continue;
		fcntl(cand[i], F_SETFD, FD_CLOEXEC);
		memphis__fd_note(cand[i]); /* a fork child closes them */
		p->fds[p->nfds++] = (struct memphis__papifd){ cand[i], id };
	}
	fds_held += p->nfds;
}

/* Is every descriptor of the set still the event it was? */
static int fds_intact(const struct memphis__papiset *p)
{
	if (!p->fds)
		return 0;
	for (size_t i = 0; i < p->nfds; i++) {
		uint64_t id;

		if (!is_perf_fd(p->fds[i].fd) || ioctl(p->fds[i].fd, PERF_EVENT_IOC_ID, &id) < 0 ||
		    id != p->fds[i].id)
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

/* p's set is no longer PAPI's to use (freed, or left to it): its descriptors leave the
 * library's share and the fork child's list (before PAPI closes them: a number it frees
 * may be the program's next). */
static void set_gone(struct memphis__papiset *p)
{
	fds_held -= p->nfds;
	for (size_t i = 0; i < p->nfds; i++)
		memphis__fd_unnote(p->fds[i].fd);
	p->nfds = 0;
}

/* Stop and free p's started set; PAPI closes its descriptors (see set_gone). */
static void stop_set(struct memphis__papiset *p)
{
	sigset_t mask;

	memphis__fd_fork_hold(&mask);
	set_gone(p);
	PAPI_stop(p->set, NULL);
	drop_set(&p->set);
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

int memphis__papi_probe(const int *ev, int n, const char **why)
{
	int set, rc;

	*why = NULL;
	if (cidx < 0) {
		const PAPI_component_info_t *ci;

		cidx = PAPI_get_event_component(ev[n - 1]);
		ci = PAPI_get_component_info(cidx);
		own_ok = ci && !ci->fast_counter_read;
		cross_ok = own_ok ||
			   PAPI_get_opt(PAPI_LIB_VERSION, NULL) >= PAPI_VERSION_NUMBER(7, 1, 0, 0);
	}
	if (!cross_ok) {
		*why = "PAPI < 7.1 reads other threads' sets with rdpmc";
		return PAPI_ECMP;
	}
	/* the events so far plus this one, on a set of the calling thread */
	if ((rc = make_set(memphis__gettid(), ev, n, 1, &set)) != PAPI_OK)
		return rc;
	PAPI_stop(set, NULL);
	drop_set(&set);
	return PAPI_OK;
}

void memphis__papiset_make(struct memphis__papiset *p, pid_t tid, const int *ev, int n)
{
	static int told_share;
	int cand[2 * MAX_SET + 8];
	size_t nc;
	sigset_t mask;

	*p = (struct memphis__papiset){ .set = PAPI_NULL, .err = PAPI_OK };
	/* PAPI's descriptors count in the library's share (fd.h), so that the program never
	 * runs short of descriptors because of them */
	if ((long)(fds_held + (size_t)n) + memphis__fd_held() > memphis__fd_share()) {
		p->err = PAPI_ECNFLCT;
		p->why = "the library's share of descriptors (a quarter of RLIMIT_NOFILE) is used up";
		if (!told_share++)
			memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not counted: %s",
				      (int)tid, p->why);
		return;
	}
	memphis__fd_fork_hold(&mask);
	nc = free_fds(cand, 2 * (size_t)n + 8);
	p->err = make_set(tid, ev, n, 0, &p->set);
	if (p->err == PAPI_OK)
		own_new_fds(p, cand, nc);
	memphis__fd_fork_release(&mask);
}

int memphis__papiset_read(struct memphis__papiset *p, long long *v, pid_t tid)
{
	static int told_fds;

	if (p->set == PAPI_NULL)
		return p->err;
	if (!fds_intact(p)) {
		if (!told_fds++)
			memphis__note(MPH_LOG_WARN, "PAPI counters of thread %d not read: its "
				      "descriptors were closed by the program", (int)tid);
		p->set = PAPI_NULL; /* left to PAPI: it would close the program's descriptors */
		set_gone(p);
		p->why = "its descriptors were closed by the program";
		return p->err = PAPI_ESYS;
	}
	if ((p->err = PAPI_read(p->set, v)) != PAPI_OK)
		stop_set(p);
	return p->err;
}

void memphis__papiset_free(struct memphis__papiset *p)
{
	if (p->set != PAPI_NULL && fds_intact(p))
		stop_set(p);
	else
		set_gone(p);
	free(p->fds);
	p->fds = NULL;
	p->set = PAPI_NULL;
}
