/* lib/fd.c - the library's own descriptors (contracts in fd.h). Depends on nothing of the
 * library. A check is one fstat(2): done per written block, per ioctl and before a close,
 * never per sample. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "fd.h"

static long held; /* descriptors the library holds (atomic) */

static long nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1u << 30))
		return 1 << 30;
	return (long)rl.rlim_cur;
}

long memphis__fd_share(void)
{
	long share = nofile() / 4;

	return share < 8 ? 8 : share;
}

long memphis__fd_held(void)
{
	return __atomic_load_n(&held, __ATOMIC_RELAXED);
}

/* Close fd, just opened by the library, unless it is no longer the file *st: a thread of
 * the program put its own file at that number meanwhile (a shell redirects with close(1)
 * then dup2(file, 1); the lowest free number, which open gave us, may be the one it
 * closed). Narrows the window to the one between the fstat and the close. */
static void close_new(int fd, const struct stat *st)
{
	struct stat now;

	if (fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino)
		close(fd);
}

int memphis__fd_take(int fd, int essential, struct memphis__fdid *id)
{
	long limit = nofile(), low = limit / 2 < 4096 ? limit / 2 : 4096;
	struct stat st;
	int high;

	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		return -errno; /* not a descriptor any more: the program's number now */
	if (!essential && __atomic_add_fetch(&held, 1, __ATOMIC_RELAXED) > memphis__fd_share()) {
		__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
		close_new(fd, &st);
		return -EMFILE;
	}
	if (essential)
		__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
	if (fd < low && (high = fcntl(fd, F_DUPFD_CLOEXEC, (int)low)) >= 0) {
		close_new(fd, &st);
		fd = high;
	}
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	return fd;
}

int memphis__open(const char *path, int flags, struct memphis__fdid *id)
{
	for (int tries = 0; tries < 4; tries++) {
		struct stat got, want;
		int fd = open(path, flags | O_CLOEXEC);

		if (fd < 0)
			return -errno;
		/* A program's file at the number already (dup2 onto it right after our open,
		 * which it closed): not ours to take or close; ours went with the dup2. (Or
		 * path was replaced on disk in between: ours then stays open, unused.) */
		if (fstat(fd, &got) == 0 && stat(path, &want) == 0 &&
		    (got.st_dev != want.st_dev || got.st_ino != want.st_ino))
			continue;
		return memphis__fd_take(fd, 1, id);
	}
	return -EAGAIN;
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

DIR *memphis__opendir_kept(struct memphis__kept *k, const char *path)
{
	int fd = memphis__kept_fd(k, path, O_RDONLY | O_DIRECTORY), low;
	DIR *d;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	low = fd; /* a copy at a number no lower than the kept one's */
	fd = fcntl(fd, F_DUPFD_CLOEXEC, low);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(d); /* the offset is the kept descriptor's too */
	return d;
}

/* A stream over memphis__open's descriptor, which the stream then owns (its close closes
 * it; it leaves the library's count now). */
static int stream_fd(const char *path, int flags)
{
	struct memphis__fdid id;
	int fd = memphis__open(path, flags, &id), keep = fd;

	if (fd >= 0)
		memphis__fd_forget(&keep);
	return fd;
}

FILE *memphis__fopen(const char *path)
{
	int fd = stream_fd(path, O_RDONLY);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;

	if (!f && fd >= 0)
		close(fd);
	return f;
}

DIR *memphis__opendir(const char *path)
{
	int fd = stream_fd(path, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
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
	if (*fd < 0)
		return;
	if (memphis__fd_is(*fd, id, NULL))
		close(*fd);
	memphis__fd_forget(fd);
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

/* Contract in fd.h. */
char *memphis__slurp(const char *path)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap), *p;
	struct memphis__fdid id;
	int fd;

	if (!buf)
		return NULL;
	fd = memphis__open(path, O_RDONLY, &id);
	if (fd < 0)
		goto out_free;
	for (;;) {
		ssize_t r;

		if (cap - n < 4096) {
			if (cap >= (64u << 20))
				goto out_close;
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
	return buf;

out_close:
	memphis__fd_close(&fd, &id);
out_free:
	free(buf);
	return NULL;
}
