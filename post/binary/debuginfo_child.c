/* post/binary/debuginfo_child.c - the DWARF pass in a forked child and the pipe protocol that
 * carries its results back (crashes of libdwarf on corrupted DWARF become messages). */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "hash.h"
#include "search.h"

/* ---- running the DWARF pass in a child process ----
 *
 * libdwarf 20210528 can crash (double free in dwarf_load_rnglists, wild reads in loclist
 * parsing) on corrupted DWARF. So di_read_dwarf() runs in a forked child, which streams its
 * results back through a pipe as tagged records; a crash, a hang (alarm) or a short stream
 * becomes an error message instead of the death of memphis-report. Records:
 *   'S' slot len bytes       a string, named by its slot in the child's intern table
 *   'L' lo hi line file      a line range
 *   'F' lo hi depth name caller   a function/inlined scope
 *   'V' addr size line kind tls desc name file scope base   a DWARF variable
 *   'E' rc len bytes         the end: di_read_dwarf()'s result and message
 * Strings are referenced by slot (NONE for NULL) and sent once, before first use.
 */
#define CHILD_TIMEOUT_S 600
/* The sanitizers' runtimes can deadlock a child forked from a threaded process: a worker
 * of the sample pass opens a library's DWARF on first use while the others run, and the
 * child blocks on the runtime's allocator lock that another thread held at the fork, the
 * report waiting on its pipe (seen in t_report_jobs under TSan and under gcc 12's ASan;
 * glibc's malloc takes its locks across fork, so a plain build is safe). A sanitizer build
 * reads in this process, as when fork fails: no test feeds it corrupted DWARF (the unit
 * tests that do run without ASan). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define FORK_CHILD 0
#else
#define FORK_CHILD 1
#endif

struct wbuf {
	int fd, failed;
	size_t n;
	unsigned char *sent; /* per intern slot: already sent */
	const char *last;    /* the last string looked up and its slot */
	uint32_t last_slot;
	unsigned char b[65536];
};

static void wflush(struct wbuf *w)
{
	size_t off = 0;

	while (off < w->n && !w->failed) {
		ssize_t r = write(w->fd, w->b + off, w->n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			w->failed = 1;
		else
			off += (size_t)r;
	}
	w->n = 0;
}

static void wput(struct wbuf *w, const void *p, size_t len)
{
	const unsigned char *s = p;

	while (len) {
		size_t k = sizeof(w->b) - w->n < len ? sizeof(w->b) - w->n : len;

		memcpy(w->b + w->n, s, k);
		w->n += k;
		s += k;
		len -= k;
		if (w->n == sizeof(w->b))
			wflush(w);
	}
}

static void wu64(struct wbuf *w, uint64_t v)
{
	wput(w, &v, sizeof(v));
}

/* Slot of an interned string of d (NONE for NULL), sending it first if needed. */
static uint32_t wstr(struct mr_debuginfo *d, struct wbuf *w, const char *s)
{
	size_t len, i;

	if (!s)
		return NONE;
	if (s == w->last)
		return w->last_slot;
	len = strlen(s);
	i = mph_fnv1a(s, len) & (d->capstrs - 1);
	while (d->strs[i] && d->strs[i] != s)
		i = (i + 1) & (d->capstrs - 1);
	if (!d->strs[i])
		return NONE; /* not interned: cannot happen */
	if (!w->sent[i]) {
		w->sent[i] = 1;
		wput(w, "S", 1);
		wu64(w, i);
		wu64(w, len);
		wput(w, s, len);
	}
	w->last = s;
	w->last_slot = (uint32_t)i;
	return (uint32_t)i;
}

/* Child side: stream what di_read_dwarf() added to d (lines, scopes, DWARF variables). */
static void send_results(struct di_ctx *c, int fd, int rc)
{
	struct mr_debuginfo *d = c->d;
	struct wbuf *w = malloc(sizeof(*w));
	const struct var_tab *tabs[2] = { &d->dvars, &d->dtls };
	size_t elen = c->err ? strlen(c->err) : 0;

	if (!w)
		return;
	w->fd = fd;
	w->failed = 0;
	w->n = 0;
	w->last = NULL;
	w->last_slot = NONE;
	w->sent = calloc(d->capstrs ? d->capstrs : 1, 1);
	if (!w->sent) {
		free(w);
		return;
	}
	for (size_t i = 0; !rc && i < d->nlines; i++) {
		const struct line_ent *l = &d->lines[i];
		uint32_t f = wstr(d, w, l->file);

		wput(w, "L", 1);
		wu64(w, l->lo);
		wu64(w, l->hi);
		wu64(w, l->line);
		wu64(w, f);
	}
	for (size_t i = 0; !rc && i < d->nscopes; i++) {
		const struct scope_ent *sc = &d->scopes[i];
		uint32_t n = wstr(d, w, sc->name), cl = wstr(d, w, sc->caller);

		wput(w, "F", 1);
		wu64(w, sc->lo);
		wu64(w, sc->hi);
		wu64(w, sc->depth);
		wu64(w, n);
		wu64(w, cl);
		wu64(w, sc->die);
	}
	for (int t = 0; !rc && t < 2; t++)
		for (size_t i = 0; i < tabs[t]->n; i++) {
			const struct mr_var *v = &tabs[t]->v[i];
			uint32_t n = wstr(d, w, v->name), f = wstr(d, w, v->file);
			uint32_t sc = wstr(d, w, v->scope), b = wstr(d, w, v->base);

			wput(w, "V", 1);
			wu64(w, v->addr);
			wu64(w, v->size);
			wu64(w, v->line);
			wu64(w, v->kind);
			wu64(w, v->tls);
			wu64(w, v->descriptor);
			wu64(w, n);
			wu64(w, f);
			wu64(w, sc);
			wu64(w, b);
		}
	wput(w, "E", 1);
	wu64(w, (uint64_t)(int64_t)rc);
	wu64(w, elen);
	wput(w, c->err, elen);
	wflush(w);
	free(w->sent);
	free(w);
}

struct rbuf {
	const unsigned char *p, *end;
	int bad;
};

static uint64_t ru64(struct rbuf *r)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < sizeof(v)) {
		r->bad = 1;
		r->p = r->end;
		return 0;
	}
	memcpy(&v, r->p, sizeof(v));
	r->p += sizeof(v);
	return v;
}

static const char *slot_str(const char **slots, size_t nslots, uint64_t i)
{
	return i < nslots ? slots[i] : NULL;
}

/* Parent side: rebuild lines, scopes and variables from the child's stream. 1 if the
 * stream was complete ('E' seen; *rc and c->err then hold the child's result), 0 if it
 * was cut short, -ENOMEM. */
static int recv_results(struct di_ctx *c, const unsigned char *buf, size_t len, int *rc)
{
	struct mr_debuginfo *d = c->d;
	struct rbuf r = { buf, buf + len, 0 };
	const char **slots = NULL;
	size_t nslots = 0;

	while (r.p < r.end && !r.bad) {
		unsigned char tag = *r.p++;

		if (tag == 'S') {
			uint64_t i = ru64(&r), n = ru64(&r);

			if (r.bad || n > (size_t)(r.end - r.p) || i > (1u << 30))
				break;
			if (i >= nslots) {
				size_t nn = (size_t)i + 1024;
				const char **q = realloc(slots, nn * sizeof(*q));

				if (!q)
					goto nomem;
				memset(q + nslots, 0, (nn - nslots) * sizeof(*q));
				slots = q;
				nslots = nn;
			}
			slots[i] = di_intern_n(d, (const char *)r.p, (size_t)n);
			if (!slots[i])
				goto nomem;
			r.p += n;
		} else if (tag == 'L') {
			struct line_ent l;

			l.lo = ru64(&r);
			l.hi = ru64(&r);
			l.line = (unsigned)ru64(&r);
			l.file = slot_str(slots, nslots, ru64(&r));
			if (di_grow((void **)&d->lines, &d->caplines, d->nlines, sizeof(l)))
				goto nomem;
			d->lines[d->nlines++] = l;
		} else if (tag == 'F') {
			struct scope_ent s;

			s.lo = ru64(&r);
			s.hi = ru64(&r);
			s.depth = (uint32_t)ru64(&r);
			s.name = slot_str(slots, nslots, ru64(&r));
			s.caller = slot_str(slots, nslots, ru64(&r));
			s.die = ru64(&r);
			s.parent = NONE;
			if (di_grow((void **)&d->scopes, &d->capscopes, d->nscopes, sizeof(s)))
				goto nomem;
			d->scopes[d->nscopes++] = s;
		} else if (tag == 'V') {
			struct mr_var v;
			struct var_tab *t;

			memset(&v, 0, sizeof(v));
			v.addr = ru64(&r);
			v.size = ru64(&r);
			v.line = (unsigned)ru64(&r);
			v.kind = (unsigned)ru64(&r);
			v.tls = (unsigned)ru64(&r);
			v.descriptor = (unsigned)ru64(&r) != 0;
			v.name = slot_str(slots, nslots, ru64(&r));
			v.file = slot_str(slots, nslots, ru64(&r));
			v.scope = slot_str(slots, nslots, ru64(&r));
			v.base = slot_str(slots, nslots, ru64(&r));
			if (!v.name)
				continue;
			t = v.tls ? &d->dtls : &d->dvars;
			if (di_grow((void **)&t->v, &t->cap, t->n, sizeof(v)))
				goto nomem;
			t->v[t->n++] = v;
		} else if (tag == 'E') {
			int64_t code = (int64_t)ru64(&r);
			uint64_t n = ru64(&r);

			if (r.bad || n > (size_t)(r.end - r.p))
				break;
			*rc = (int)code;
			if (code && c->err && c->errlen) {
				size_t k = n < c->errlen - 1 ? (size_t)n : c->errlen - 1;

				memcpy(c->err, r.p, k);
				c->err[k] = '\0';
			}
			free(slots);
			return 1;
		} else {
			break;
		}
	}
	free(slots);
	return 0;
nomem:
	free(slots);
	return -ENOMEM;
}

/* di_read_dwarf() in a child process (see above). 0 or -errno with the message in c->err. */
int di_read_dwarf_isolated(struct di_ctx *c, int fd)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int p[2], st = 0, rc = -EINVAL, done;
	pid_t pid;

	if (pipe(p))
		return di_fail(c, -errno, "pipe: %s", strerror(errno)); /* out of descriptors */
	pid = FORK_CHILD ? fork() : -1;
	if (pid < 0) {
		/* no process to spare (RLIMIT_NPROC, memory), or a TSan build: read in this one,
		 * unprotected */
		close(p[0]);
		close(p[1]);
		rc = di_read_dwarf(c, fd);
		if (c->dbg)
			dwarf_finish(c->dbg, NULL);
		c->dbg = NULL;
		free(c->linefiles);
		c->linefiles = NULL;
		c->nlinefiles = 0;
		return rc;
	}
	if (pid == 0) {
		static const int sigs[] = { SIGPIPE, SIGALRM, SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
					    SIGILL };
		int null = open("/dev/null", O_RDWR);

		/* die quietly: glibc's "double free" report must not reach the user's terminal */
		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		alarm(CHILD_TIMEOUT_S);
		close(p[0]);
		/* libdwarf records every allocation in a search tree so that dwarf_finish()
		 * can free it; a process about to exit needs none of that (halves the time) */
		dwarf_set_de_alloc_flag(0);
		rc = di_read_dwarf(c, fd);
		if (c->dbg)
			dwarf_finish(c->dbg, NULL);
		send_results(c, p[1], rc);
		_exit(0);
	}
	close(p[1]);
	for (;;) {
		ssize_t r;

		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 1 << 20;
			unsigned char *q = realloc(buf, ncap);

			if (!q)
				break;
			buf = q;
			cap = ncap;
		}
		r = read(p[0], buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	done = buf ? recv_results(c, buf, len, &rc) : -ENOMEM;
	free(buf);
	if (done < 0)
		return di_fail(c, -ENOMEM, "out of memory");
	if (!done) {
		if (WIFSIGNALED(st))
			return di_fail(c, -EINVAL,
				       "corrupt DWARF: the DWARF reader died of signal %d%s",
				       WTERMSIG(st), WTERMSIG(st) == SIGALRM ? " (timeout)" : "");
		return di_fail(c, -EINVAL, "corrupt DWARF: the DWARF reader stopped early");
	}
	return rc;
}
