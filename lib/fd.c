/* lib/fd.c - the library's own descriptors (contracts in fd.h). Below it: io. A check is
 * one fstat(2): done per written block, per ioctl and before a close, never per sample. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fd.h"
#include "io.h"
#include "self.h"

static long held; /* descriptors the library holds (atomic) */

/* The library's descriptors in the program's table, by number, for a fork child to close
 * (fork_child): a number is held by one holder at a time, so a slot has one writer. Pages
 * of SLOTS_PER slots are made on first use (a lost race frees its page); numbers past
 * SLOTS_PER * NPAGES (2^20, Linux's default nr_open) are not recorded. The I/O thread's
 * descriptors are in a table of its own (io.h), which a child does not get. */
#define SLOTS_PER 1024
#define NPAGES 1024
struct slot {
	uint64_t dev, ino1; /* ino + 1; 0: no descriptor of ours */
};
static struct slot *slot_pages[NPAGES];
/* Held by a fork, and while a descriptor is made or closed (memphis__fd_fork_hold) */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void child_close(void);

static sigset_t fork_mask; /* the forking thread's signal mask, under fork_lock */

/* Signals are blocked from here to the parent's or child's handler: a signal handler's
 * memphis_mark on the forking thread would otherwise wait for fork_lock, held by its own
 * thread. */
static void fork_prepare(void)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	pthread_mutex_lock(&fork_lock);
	fork_mask = old;
}

static void fork_parent(void)
{
	sigset_t old = fork_mask;

	pthread_mutex_unlock(&fork_lock);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The child is a different process (not profiled: api.c): the parent's descriptors would
 * stay open in it for its whole life, and a perf event with them. */
static void fork_child(void)
{
	sigset_t old = fork_mask;

	pthread_mutex_unlock(&fork_lock);
	child_close();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void fork_register(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

void memphis__fd_fork_hold(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pthread_once(&fork_once, fork_register);
	/* inside the library: an allocation here is not recorded, so it never waits for the
	 * heap's lock, which a fork may take before this one (heap.c) */
	memphis__enter();
	pthread_mutex_lock(&fork_lock);
}

void memphis__fd_fork_release(const sigset_t *old)
{
	pthread_mutex_unlock(&fork_lock);
	memphis__leave();
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int in_program_table(void)
{
	return memphis__gettid() != memphis__io_tid();
}

static struct slot *slot_of(int fd, int make)
{
	struct slot *pg, *none = NULL;

	if (fd < 0 || fd >= SLOTS_PER * NPAGES)
		return NULL;
	pg = __atomic_load_n(&slot_pages[fd / SLOTS_PER], __ATOMIC_ACQUIRE);
	if (!pg && make) {
		pg = memphis__lib_calloc(SLOTS_PER, sizeof(*pg));
		if (pg && !__atomic_compare_exchange_n(&slot_pages[fd / SLOTS_PER], &none, pg, 0,
						       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			memphis__lib_free(pg);
			pg = none;
		}
	}
	return pg ? &pg[fd % SLOTS_PER] : NULL;
}

static void record(int fd, uint64_t dev, uint64_t ino)
{
	struct slot *s;

	if (!in_program_table())
		return;
	pthread_once(&fork_once, fork_register);
	s = slot_of(fd, 1);
	if (s) {
		__atomic_store_n(&s->dev, dev, __ATOMIC_RELAXED);
		__atomic_store_n(&s->ino1, ino + 1, __ATOMIC_RELEASE);
	}
}

static void unrecord(int fd)
{
	struct slot *s = in_program_table() ? slot_of(fd, 0) : NULL;

	if (s)
		__atomic_store_n(&s->ino1, 0, __ATOMIC_RELEASE);
}

void memphis__fd_note(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0)
		record(fd, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
}

void memphis__fd_unnote(int fd)
{
	unrecord(fd);
}

/* Close every descriptor recorded that still is the file recorded. */
static void child_close(void)
{
	for (int p = 0; p < NPAGES; p++) {
		struct slot *pg = slot_pages[p];

		for (int i = 0; pg && i < SLOTS_PER; i++) {
			struct stat st;
			int fd = p * SLOTS_PER + i;

			if (pg[i].ino1 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == pg[i].dev &&
			    (uint64_t)st.st_ino + 1 == pg[i].ino1)
				close(fd);
			pg[i].ino1 = 0;
		}
	}
	held = 0;
}

static long nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1u << 30))
		return 1 << 30;
	return (long)rl.rlim_cur;
}

long memphis__fd_limit(void)
{
	return nofile();
}

long memphis__fd_share(void)
{
	return nofile() / 4;
}

long memphis__fd_held(void)
{
	return __atomic_load_n(&held, __ATOMIC_RELAXED);
}

static int same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Close fd, just opened by the library, unless it is no longer the file *st: a thread of
 * the program put its own file at that number meanwhile (a shell redirects with close(1)
 * then dup2(file, 1); the lowest free number, which open gave us, may be the one it
 * closed). Narrows the window to the one between the fstat and the close. */
static void close_new(int fd, const struct stat *st)
{
	struct stat now;

	if (fstat(fd, &now) == 0 && same_file(&now, st))
		close(fd);
}

/* memphis__fd_take of fd, which is the file *st. */
static int take(int fd, int essential, const struct stat *st, struct memphis__fdid *id)
{
	long limit = nofile(), low = limit / 2 < 4096 ? limit / 2 : 4096;
	int high;

	if (!essential && __atomic_add_fetch(&held, 1, __ATOMIC_RELAXED) > memphis__fd_share()) {
		__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
		close_new(fd, st);
		return -EMFILE;
	}
	if (essential)
		__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
	if (fd < low && (high = fcntl(fd, F_DUPFD_CLOEXEC, (int)low)) >= 0) {
		close_new(fd, st);
		fd = high;
	}
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	record(fd, id->dev, id->ino);
	return fd;
}

int memphis__fd_take(int fd, int essential, struct memphis__fdid *id)
{
	struct stat st;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno; /* not a descriptor any more: the program's number now */
	return take(fd, essential, &st, id);
}

static int openat_held(int dir, const char *name, int flags, mode_t mode,
			 struct memphis__fdid *id);

int memphis__openat(int dir, const char *name, int flags, mode_t mode, struct memphis__fdid *id)
{
	sigset_t old;
	int fd;

	memphis__fd_fork_hold(&old);
	fd = openat_held(dir, name, flags, mode, id);
	memphis__fd_fork_release(&old);
	return fd;
}

/* memphis__openat within memphis__fd_fork_hold. */
static int openat_held(int dir, const char *name, int flags, mode_t mode,
			 struct memphis__fdid *id)
{
	int at = flags & O_NOFOLLOW ? AT_SYMLINK_NOFOLLOW : 0;

	for (int tries = 0; tries < 4; tries++) {
		struct stat before, got, after;
		int named = fstatat(dir, name, &before, at) == 0;
		int fd = openat(dir, name, flags | O_CLOEXEC, mode);

		if (fd < 0)
			return -errno;
		if (fstat(fd, &got) < 0)
			return -errno; /* not a descriptor any more: the program's number now */
		/* A file that name named neither before nor after the open is at the number: the
		 * program's (a dup2 onto the number right after our open, which it had closed),
		 * not ours to take or close; ours went with the dup2. A file name named before
		 * but not after is ours, the file replaced on disk meanwhile. */
		if (fstatat(dir, name, &after, at) == 0 && !same_file(&got, &after) &&
		    !(named && same_file(&got, &before))) {
			flags &= ~(O_CREAT | O_EXCL); /* a file we created is there: open it */
			continue;
		}
		/* taken as the file checked here, not as whatever is at the number by then */
		return take(fd, 1, &got, id);
	}
	return -EAGAIN;
}

int memphis__open(const char *path, int flags, struct memphis__fdid *id)
{
	return memphis__openat(AT_FDCWD, path, flags, 0, id);
}

int memphis__kept_fd(struct memphis__kept *k, const char *path, int flags)
{
	if (k->fd > 0 && k->pid != getpid())
		memphis__fd_close(&k->fd, &k->id);
	if (k->fd > 0 && memphis__fd_ours(&k->fd, &k->id, NULL))
		return k->fd;
	k->fd = memphis__open(path, flags, &k->id);
	k->pid = getpid();
	if (k->fd == 0) { /* never 0: a zeroed struct memphis__kept is "not open" */
		memphis__fd_close(&k->fd, &k->id);
		return -EBADF;
	}
	return k->fd;
}

/* Close fd, recorded and not counted. */
static void drop(int fd)
{
	sigset_t old;

	memphis__fd_fork_hold(&old);
	unrecord(fd);
	close(fd);
	memphis__fd_fork_release(&old);
}

DIR *memphis__opendir_kept(struct memphis__kept *k, const char *path)
{
	int fd = memphis__kept_fd(k, path, O_RDONLY | O_DIRECTORY), low;
	sigset_t old;
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	low = fd; /* a copy at a number no lower than the kept one's */
	memphis__fd_fork_hold(&old);
	fd = fcntl(fd, F_DUPFD_CLOEXEC, low);
	if (fd >= 0)
		record(fd, k->id.dev, k->id.ino);
	memphis__fd_fork_release(&old);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			drop(fd);
		return NULL;
	}
	rewinddir(d); /* the offset is the kept descriptor's too */
	return d;
}

/* A directory stream over memphis__open's descriptor, which the stream then owns: it
 * leaves the library's count now, and its record at memphis__closedir. */
DIR *memphis__opendir(const char *path)
{
	struct memphis__fdid id;
	int fd = memphis__open(path, O_RDONLY | O_DIRECTORY, &id);
	DIR *d;

	if (fd < 0)
		return NULL;
	__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
	d = fdopendir(fd);
	if (!d)
		drop(fd);
	return d;
}

int memphis__pipe(int fd[2], struct memphis__fdid id[2])
{
	int p[2], err = 0;
	sigset_t old;

	memphis__fd_fork_hold(&old);
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0) {
		err = -errno;
		p[0] = p[1] = -1;
	} else {
		p[0] = memphis__fd_take(p[0], 1, &id[0]);
		p[1] = memphis__fd_take(p[1], 1, &id[1]);
	}
	memphis__fd_fork_release(&old);
	if (!err && (p[0] < 0 || p[1] < 0)) {
		memphis__fd_close(&p[0], &id[0]);
		memphis__fd_close(&p[1], &id[1]);
		err = -EMFILE;
	}
	fd[0] = err ? -1 : p[0];
	fd[1] = err ? -1 : p[1];
	return err;
}

void memphis__closedir(DIR *d)
{
	sigset_t old;

	memphis__fd_fork_hold(&old);
	unrecord(dirfd(d));
	closedir(d);
	memphis__fd_fork_release(&old);
}

int memphis__fd_is(int fd, const struct memphis__fdid *id, struct stat *st)
{
	struct stat s;

	if (fd < 0 || fstat(fd, &s) < 0)
		return 0;
	if ((uint64_t)s.st_dev != id->dev || (uint64_t)s.st_ino != id->ino)
		return 0;
	if (st)
		*st = s;
	return 1;
}

void memphis__fd_forget(int *fd)
{
	if (*fd < 0)
		return;
	unrecord(*fd);
	*fd = -1;
	__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
}

int memphis__fd_ours(int *fd, const struct memphis__fdid *id, struct stat *st)
{
	if (memphis__fd_is(*fd, id, st))
		return 1;
	memphis__fd_forget(fd);
	return 0;
}

void memphis__fd_close(int *fd, const struct memphis__fdid *id)
{
	int n = *fd;
	sigset_t old;

	if (n < 0)
		return;
	memphis__fd_fork_hold(&old);
	if (memphis__fd_is(n, id, NULL))
		close(n);
	memphis__fd_forget(fd);
	memphis__fd_fork_release(&old);
}

ssize_t memphis__write_pipe(int fd, const void *p, size_t n)
{
	struct timespec now = { 0, 0 };
	sigset_t pipe_set, old, pending;
	int was_pending, err;
	ssize_t w;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	w = write(fd, p, n);
	err = errno;
	if (w < 0 && err == EPIPE && !was_pending)
		sigtimedwait(&pipe_set, NULL, &now); /* the one this write raised */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return w;
}

struct slurp {
	const char *path;
	char *text;
	size_t len;
};

static long slurp_here(void *arg)
{
	struct slurp *sl = arg;
	const char *path = sl->path;
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap), *p;
	struct memphis__fdid id;
	int fd, err;

	if (!buf)
		return -ENOMEM;
	fd = memphis__open(path, O_RDONLY, &id);
	if (fd < 0) {
		err = fd;
		goto out_free;
	}
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			if (cap >= (64u << 20)) {
				errno = EFBIG;
				goto out_close;
			}
			p = realloc(buf, cap * 2);
			if (!p)
				goto out_close;
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out_close;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	memphis__fd_close(&fd, &id);
	buf[n] = '\0';
	sl->text = buf;
	sl->len = n;
	return 0;

out_close:
	err = -errno;
	memphis__fd_close(&fd, &id);
out_free:
	free(buf);
	return err;
}

static char *slurp_len(const char *path, size_t *len)
{
	struct slurp sl = { path, NULL, 0 };
	long err = memphis__io_read(slurp_here, &sl);

	if (err < 0)
		errno = (int)-err; /* the I/O thread's errno is its own */
	*len = sl.len;
	return sl.text;
}

/* Contract in fd.h. */
char *memphis__slurp(const char *path)
{
	size_t len;

	return slurp_len(path, &len);
}

FILE *memphis__fopen(const char *path)
{
	size_t len = 0;
	char *text = slurp_len(path, &len);
	/* the stream's own buffer (freed by fclose): "w+" on NULL, filled, rewound */
	FILE *f = text ? fmemopen(NULL, len + 1, "w+") : NULL;

	if (f && (fwrite(text, 1, len, f) != len || fseek(f, 0, SEEK_SET) != 0)) {
		fclose(f);
		f = NULL;
		errno = EIO;
	}
	free(text);
	return f;
}
