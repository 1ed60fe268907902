/* lib/io.c - the I/O thread and its descriptor table (contracts in io.h). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "io.h"
#include "log.h"
#include "self.h"

/* Posted work waits in a ring mapped at the start: posting never allocates (it may run
 * where malloc must not: an exit path from a signal handler that interrupted malloc). An
 * item is its header and its copy, at 16-byte boundaries, never split by the end of the
 * ring: when it does not fit there it starts at 0, after a header with fn NULL (or, where
 * no header fits, nothing: the reader wraps when fewer bytes than a header are left). */
#define RING_BYTES (4u << 20)
#define ITEM_MAX (RING_BYTES / 4) /* larger ones: the caller runs them (-EAGAIN) */

struct item {
	long (*fn)(void *); /* NULL: the rest of the ring is skipped */
	size_t span;        /* bytes this item takes, header included */
	max_align_t data[]; /* the copy fn gets */
};

static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER; /* one call at a time */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;      /* what follows */
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER;
static pthread_cond_t answered = PTHREAD_COND_INITIALIZER;
static pthread_cond_t room = PTHREAD_COND_INITIALIZER;
static long (*call_fn)(void *);
static void *call_arg;
static long call_ret;
static int pending, ahead, done, stopping; /* ahead: the call goes before posted work */
static char *ring;             /* RING_BYTES, or NULL: nothing is posted */
static size_t put, take, used; /* where the next item goes, where the next is read, bytes */

static pthread_t thread;
static pid_t io_pid; /* the process the thread runs in: none in a fork child */
static pid_t io_tid;

static int started, start_err; /* the thread's answer at its start (atomic) */
static int lazy;               /* memphis__io_lazy (under lock) */

/* Wait until *flag is set (release). Yielding first, never sleeping: a thread woken by
 * another may be placed on the waker's CPU, so a program thread that waited on this one (a
 * call at a mark or a print) would be moved, and with it where it first touches memory.
 * Past 2 ms of that (a long call: the huge-page judgement waits), sleeping on cond. */
static void wait_set(const int *flag, pthread_cond_t *cond)
{
	uint64_t t0 = memphis__now();

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (memphis__now() - t0 >= 2000000) {
			pthread_mutex_lock(&lock);
			while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
				pthread_cond_wait(cond, &lock);
			pthread_mutex_unlock(&lock);
			return;
		}
		sched_yield();
	}
}

/* A table of its own holding none of the program's files: unshared (a copy), emptied, and
 * 0, 1 and 2 taken by a directory (reads and writes fail at once), so that no file of the
 * library is ever at a number code may take for stdin, stdout or stderr. */
static int own_table(void)
{
	int fd;

	if (unshare(CLONE_FILES) < 0)
		return -errno;
	if (syscall(SYS_close_range, 0u, ~0u, 0u) < 0)
		return -errno; /* the copies close when the thread ends */
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd != 0 || dup2(0, 1) != 1 || dup2(0, 2) != 2)
		return -EBADF;
	return 0;
}

static void *io_main(void *unused)
{
	sigset_t all;
	int err;

	(void)unused;
	memphis__unpin_self();
	memphis__enter(); /* everything this thread allocates is the library's: never left */
	memphis__own_thread("memphis-io");
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	err = own_table();
	if (err == 0) {
		memphis__log_keep_thread();
		__atomic_store_n(&io_tid, memphis__gettid(), __ATOMIC_RELEASE);
	}
	pthread_mutex_lock(&lock);
	start_err = err;
	__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&answered);
	if (err) {
		pthread_mutex_unlock(&lock);
		return NULL;
	}
	for (;;) {
		while (!pending && !used && !stopping)
			pthread_cond_wait(&asked, &lock);
		if (pending && (ahead || !used)) {
			pending = 0;
			pthread_mutex_unlock(&lock);
			long ret = call_fn(call_arg);
			pthread_mutex_lock(&lock);
			call_ret = ret;
			__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
			pthread_cond_signal(&answered);
		} else if (used) { /* one posted item, then look for an ahead call again */
			struct item *it = (struct item *)(ring + take);
			size_t left = RING_BYTES - take, span;

			if (left < sizeof(struct item) || !it->fn) {
				used -= left;
				take = 0;
				continue;
			}
			span = it->span;
			pthread_mutex_unlock(&lock); /* the item's bytes stay ours until take moves */
			it->fn(it->data);
			pthread_mutex_lock(&lock);
			take = (take + span) % RING_BYTES;
			used -= span;
			pthread_cond_broadcast(&room);
		} else if (stopping) {
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

int memphis__io_start(size_t stack)
{
	pthread_attr_t attr;
	int err;

	if (io_tid)
		return 0;
	ring = mmap(NULL, RING_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED)
		ring = NULL; /* then every post is the caller's call */
	io_pid = getpid();
	__atomic_store_n(&started, 0, __ATOMIC_RELAXED);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	err = memphis__own_thread_create(&thread, &attr, io_main, NULL);
	pthread_attr_destroy(&attr);
	if (!err) {
		wait_set(&started, &answered);
		err = -start_err;
		if (err)
			pthread_join(thread, NULL);
	}
	if (err && ring) {
		munmap(ring, RING_BYTES);
		ring = NULL;
	}
	return -err;
}

void memphis__io_stop(void)
{
	if (!io_tid || io_pid != getpid())
		return;
	pthread_mutex_lock(&call_lock);
	pthread_mutex_lock(&lock);
	stopping = 1;
	pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	__atomic_store_n(&io_tid, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&call_lock);
}

void memphis__io_lazy(int on)
{
	pthread_mutex_lock(&lock);
	lazy = on;
	if (!on && used)
		pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
}

void memphis__io_kick(void)
{
	pthread_mutex_lock(&lock);
	if (used)
		pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
}

pid_t memphis__io_tid(void)
{
	return __atomic_load_n(&io_tid, __ATOMIC_ACQUIRE);
}

/* 1 when functions run in the caller: no I/O thread (not started, stopped, a fork child),
 * or the caller is it. */
static int runs_here(void)
{
	pid_t t = memphis__io_tid();

	return !t || memphis__gettid() == t || io_pid != getpid();
}

static long call(long (*fn)(void *arg), void *arg, int before_posts)
{
	long ret;
	int old;

	if (runs_here())
		return fn(arg);
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&call_lock);
	if (!memphis__io_tid()) { /* stopped meanwhile */
		pthread_mutex_unlock(&call_lock);
		pthread_setcancelstate(old, NULL);
		return fn(arg);
	}
	pthread_mutex_lock(&lock);
	call_fn = fn;
	call_arg = arg;
	ahead = before_posts;
	__atomic_store_n(&done, 0, __ATOMIC_RELAXED);
	pending = 1;
	pthread_cond_signal(&asked);
	pthread_mutex_unlock(&lock);
	wait_set(&done, &answered);
	pthread_mutex_lock(&lock);
	ret = call_ret;
	pthread_mutex_unlock(&lock);
	memphis__log_flush();
	pthread_mutex_unlock(&call_lock);
	pthread_setcancelstate(old, NULL);
	return ret;
}

long memphis__io_call(long (*fn)(void *arg), void *arg)
{
	return call(fn, arg, 0);
}

long memphis__io_read(long (*fn)(void *arg), void *arg)
{
	return call(fn, arg, 1);
}

int memphis__io_post(long (*fn)(void *arg), const struct iovec *iov, int iovcnt)
{
	size_t len = 0, need, at;
	struct item *it;
	int old, err = 0;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	need = (sizeof(struct item) + len + 15) & ~(size_t)15;
	if (!ring || need > ITEM_MAX || runs_here())
		return -EAGAIN;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	pthread_mutex_lock(&lock);
	for (;;) {
		size_t tail_room = RING_BYTES - put, gap = tail_room < need ? tail_room : 0;

		if (stopping) { /* the thread ends: it may have taken its last look at the ring */
			err = -EAGAIN;
			break;
		}
		if (used + gap + need <= RING_BYTES) {
			if (gap >= sizeof(struct item))
				((struct item *)(ring + put))->fn = NULL;
			at = gap ? 0 : put;
			break;
		}
		pthread_cond_signal(&asked); /* lazy: it may not know yet */
		pthread_cond_wait(&room, &lock);
	}
	if (!err) {
		it = (struct item *)(ring + at);
		it->fn = fn;
		it->span = need;
		len = 0;
		for (int i = 0; i < iovcnt; i++) {
			if (iov[i].iov_len) /* a NULL base with it */
				memcpy((char *)it->data + len, iov[i].iov_base, iov[i].iov_len);
			len += iov[i].iov_len;
		}
		used += (at == 0 && put != 0 ? RING_BYTES - put : 0) + need;
		put = (at + need) % RING_BYTES;
		if (!lazy || used > RING_BYTES / 4)
			pthread_cond_signal(&asked);
	}
	pthread_mutex_unlock(&lock);
	pthread_setcancelstate(old, NULL);
	return err;
}
