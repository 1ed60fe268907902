/* tests/unit/unit_io.c - the I/O thread (lib/io.h): its descriptor table holds none of the
 * program's files and none of its files is in the program's table; calls run in it;
 * posted work runs in order, whole, before a later call, through the wraps of its ring;
 * what it logs comes out of the logger's own descriptor; memphis__fopen reads through it; after a
 * stop and in a fork child, functions run in the caller. TAP. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd.h"
#include "io.h"
#include "log.h"
#include "self.h"

#include "tap.h"

struct opened {
	int fd;
	struct stat st;
	pid_t tid;
};

/* Open this test's own executable in the calling thread's table; report where. */
static long open_self(void *arg)
{
	struct opened *o = arg;

	o->tid = memphis__gettid();
	o->fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (o->fd >= 0)
		fstat(o->fd, &o->st);
	return o->fd;
}

static long close_fd(void *arg)
{
	return close(*(int *)arg);
}

/* 1 when descriptor fd of the caller's table is the file *st. */
static int is_file(int fd, const struct stat *st)
{
	struct stat now;

	return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

#define NPOSTS 2000
static int nseen, in_order = 1;

/* A posted copy: its index, then (i * 7919) % 96 KiB bytes of the index's low byte. */
static long record(void *arg)
{
	const unsigned char *p = arg;
	int v;

	memcpy(&v, p, sizeof(v));
	in_order &= v == nseen;
	for (size_t k = 0, len = (size_t)(v * 7919) % (96 << 10); k < len; k++)
		in_order &= p[sizeof(v) + k] == (v & 0xff);
	nseen++;
	return 0;
}

static long count_only(void *arg)
{
	(void)arg;
	__atomic_add_fetch(&nseen, 1, __ATOMIC_RELEASE);
	return 0;
}

/* How many items the I/O thread has run once it ran `want`, or after 10 s. The wait is
 * for a CPU (a loaded machine kept it from one for over 50 ms), never for the wake-up
 * under test: without it the items never run, and the count stays short. */
static int wait_seen(int want)
{
	for (int ms = 0; ms < 10000 && __atomic_load_n(&nseen, __ATOMIC_ACQUIRE) < want; ms++)
		usleep(1000);
	return __atomic_load_n(&nseen, __ATOMIC_ACQUIRE);
}

static long slow_item(void *arg)
{
	(void)arg;
	usleep(20000);
	nseen++;
	return 0;
}

static long count_seen(void *arg)
{
	(void)arg;
	return nseen;
}

static long warn_here(void *arg)
{
	memphis__warn("%s", (const char *)arg);
	return 0;
}

static __thread int caller; /* set by the thread that asks */

static long runs_in_caller(void *arg)
{
	(void)arg;
	return caller;
}

int main(void)
{
	int p[2], rc, err;
	char byte;
	struct opened o = { .fd = -1 };

	/* a pipe of the program's, its write end closed by the program after the start: a
	 * copy kept by the I/O thread would keep the reader from seeing the end */
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return 1;
	err = memphis__io_start(1 << 20);
	if (err == -EPERM || err == -ENOSYS) { /* unshare or close_range refused */
		tap_skip(strerror(-err), "the I/O thread starts");
		return tap_done();
	}
	if (!ok(err == 0, "the I/O thread starts (%s)", err ? strerror(-err) : "ok"))
		return tap_done();
	ok(memphis__io_tid() > 0 && memphis__io_tid() != memphis__gettid(),
	   "the I/O thread runs, another thread than the caller (tid %d)", (int)memphis__io_tid());
	close(p[1]);
	rc = (int)read(p[0], &byte, 1);
	ok(rc == 0, "no copy of the program's descriptors in its table: the pipe's reader sees "
		    "the end once the program closed the writer (read: %d)", rc);
	close(p[0]);

	rc = (int)memphis__io_call(open_self, &o);
	ok(rc >= 0 && o.tid == memphis__io_tid(), "a call runs in the I/O thread (fd %d, tid %d)",
	   rc, (int)o.tid);
	ok(rc >= 0 && !is_file(o.fd, &o.st),
	   "what it opened is not in the program's table (its number %d is not the file here)",
	   o.fd);
	ok(memphis__io_call(close_fd, &o.fd) == 0, "and it closes there");

	/* posted work: in order, whole, all of it done before a call asked later; of sizes
	 * from 4 bytes to 96 KiB, 100 MiB in all: the ring (4 MiB) wraps and fills */
	static unsigned char payload[96 << 10];
	int posted = 0;
	for (int i = 0; i < NPOSTS; i++) {
		size_t len = (size_t)(i * 7919) % sizeof(payload);
		struct iovec iov[2] = { { &i, sizeof(i) }, { payload, len } };
		memset(payload, i & 0xff, len);
		if (memphis__io_post(record, iov, 2) != 0)
			break;
		posted++;
	}
	rc = (int)memphis__io_call(count_seen, NULL);
	ok(posted == NPOSTS && rc == NPOSTS && in_order,
	   "%d posted copies of up to 96 KiB ran in order, whole, before the next call (%d seen)",
	   NPOSTS, rc);
	/* a read goes before the posted work still waiting (the item running aside) */
	int slow = -1;
	struct iovec first = { &slow, sizeof(slow) };
	nseen = 0;
	memphis__io_post(slow_item, &first, 1);
	for (int i = 0; i < 3; i++) {
		struct iovec iov = { &i, sizeof(i) };
		memphis__io_post(count_only, &iov, 1);
	}
	int ahead_saw = (int)memphis__io_read(count_seen, NULL);
	int after_saw = (int)memphis__io_call(count_seen, NULL);
	ok(ahead_saw <= 1 && after_saw == 4,
	   "a read runs ahead of posted work (it saw %d of 4 items), a call after it (%d)",
	   ahead_saw, after_saw);
	struct iovec big = { malloc(2 << 20), 2 << 20 };
	ok(big.iov_base && memphis__io_post(record, &big, 1) == -EAGAIN,
	   "a copy of 2 MiB is not posted (-EAGAIN): the caller runs it");
	free(big.iov_base);

	/* lazy (the drain promised to kick): a post waits for the kick, or for a quarter of
	 * the ring; a read, which goes ahead of waiting posts, tells that they have not run,
	 * wait_seen that they have */
	struct iovec one = { &(int){ 1 }, sizeof(int) };
	nseen = 0;
	memphis__io_lazy(1);
	memphis__io_post(count_only, &one, 1);
	usleep(50000);
	int unkicked = (int)memphis__io_read(count_seen, NULL); /* it runs right after this */
	memphis__io_call(count_seen, NULL);
	memphis__io_post(count_only, &one, 1);
	usleep(20000);
	memphis__io_kick();
	int kicked = wait_seen(2);
	ok(unkicked == 0 && kicked == 2,
	   "lazy: a post waits for a kick (%d seen after 50 ms), then runs (%d of 2)", unkicked,
	   kicked);
	struct iovec piece = { payload, sizeof(payload) };
	for (int i = 0; i < 11; i++) /* 11 x 96 KiB: over 1 MiB */
		memphis__io_post(count_only, &piece, 1);
	kicked = wait_seen(13);
	ok(kicked == 13, "lazy: a quarter of the ring wakes it unkicked (%d of 13 seen)", kicked);
	memphis__io_lazy(0);

	/* its log line: written when the call returns, to the logger's own descriptor (the
	 * library's copy of the stderr the program started with, log.h), here a pipe; never
	 * to the file the program has put at 2 meanwhile (another pipe) */
	int e[2], p2[2], saved = dup(2);
	char buf[256] = "", other[256] = "";
	struct stat pst, sst;
	if (pipe2(e, O_CLOEXEC | O_NONBLOCK) == 0 && pipe2(p2, O_CLOEXEC | O_NONBLOCK) == 0 &&
	    saved >= 0 && fstat(e[1], &pst) == 0 && fstat(saved, &sst) == 0) {
		memphis__log_set_fd(e[1], (uint64_t)pst.st_dev, (uint64_t)pst.st_ino);
		dup2(p2[1], 2);
		memphis__io_call(warn_here, "from the I/O thread");
		dup2(saved, 2);
		memphis__log_set_fd(saved, (uint64_t)sst.st_dev, (uint64_t)sst.st_ino);
		rc = (int)read(e[0], buf, sizeof(buf) - 1);
		buf[rc > 0 ? rc : 0] = 0;
		rc = (int)read(p2[0], other, sizeof(other) - 1);
		other[rc > 0 ? rc : 0] = 0;
		close(e[0]);
		close(e[1]);
		close(p2[0]);
		close(p2[1]);
	}
	ok(strstr(buf, "memphis: from the I/O thread\n") != NULL && !other[0],
	   "a line it logs comes out of the logger's descriptor (\"%.*s\"), not the program's "
	   "fd 2 (\"%.*s\")", (int)strcspn(buf, "\n"), buf, (int)strcspn(other, "\n"), other);

	/* memphis__fopen: the whole file, NUL bytes too, read in the I/O thread */
	char path[] = "/tmp/unit_io.XXXXXX", got[64] = "";
	const char content[] = "line one\n\0after a NUL\nlast";
	int tmp = mkstemp(path);
	FILE *f = NULL;
	size_t n = 0;
	if (tmp >= 0 && write(tmp, content, sizeof(content) - 1) == (ssize_t)sizeof(content) - 1) {
		f = memphis__fopen(path);
		n = f ? fread(got, 1, sizeof(got), f) : 0;
	}
	ok(f && n == sizeof(content) - 1 && !memcmp(got, content, n),
	   "memphis__fopen reads the whole file, a NUL byte included (%zu of %zu bytes)", n,
	   sizeof(content) - 1);
	if (f)
		fclose(f);
	unlink(path);
	if (tmp >= 0)
		close(tmp);
	errno = 0;
	f = memphis__fopen("/nonexistent/unit_io");
	err = errno;
	ok(!f && err == ENOENT, "and says why it cannot (errno %d)", err);

	/* a fork child has no I/O thread: functions run in the child */
	fflush(stdout);
	caller = 1;
	pid_t child = fork();
	if (child == 0)
		_exit(memphis__io_call(runs_in_caller, NULL) == 1 ? 0 : 1);
	int status = -1;
	waitpid(child, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "in a fork child a call runs in the child");

	ok(memphis__io_call(runs_in_caller, NULL) == 0, "a call does not run in the caller");
	memphis__io_stop();
	ok(memphis__io_tid() == 0 && memphis__io_call(runs_in_caller, NULL) == 1,
	   "after the stop a call runs in the caller");
	struct iovec iov = { &(int){ 0 }, sizeof(int) };
	ok(memphis__io_post(record, &iov, 1) == -EAGAIN, "and nothing is posted (-EAGAIN)");
	return tap_done();
}
