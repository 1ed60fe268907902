/* lib/log.c - the library's only writer to stderr: silent unless MEMPHIS_VERBOSE asks,
 * except for the one warning a user must see. Written to the library's own copy of the
 * stderr the program was started with (memphis__log_set_fd), never to whatever file the
 * program has at 2 by then. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "self.h"

static int log_level;
static int warned;
/* Where lines go: fd 2 until the library's start sets its own copy (sink_fd, the file
 * sink_dev/sink_ino), or nowhere (sink_fd -1 once set: none, or lost). */
static int sink_set, sink_fd = -1;
static uint64_t sink_dev, sink_ino;
/* The thread whose lines are kept (the I/O thread: its fd 2 is not the program's stderr),
 * and its kept lines, written by memphis__log_flush. */
static pid_t keep_tid;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static char kept[2048];
static size_t nkept;

static int level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void memphis__log_set_level(int lvl)
{
	__atomic_store_n(&log_level, lvl, __ATOMIC_RELAXED);
}

/* Write to stderr without ever getting SIGXFSZ (stderr may be a file at its size limit):
 * the signal is blocked in this thread around the write, and the one our write raised is
 * taken back (not one that was already pending). */
static void write_line(const char *buf, size_t len)
{
	sigset_t xfsz, old, pending;
	int was_pending;
	struct timespec zero = { 0, 0 };

	if (keep_tid && memphis__gettid() == keep_tid) {
		pthread_mutex_lock(&kept_lock);
		if (len <= sizeof(kept) - nkept) {
			memcpy(kept + nkept, buf, len);
			nkept += len;
		}
		pthread_mutex_unlock(&kept_lock);
		return;
	}

	int fd = __atomic_load_n(&sink_set, __ATOMIC_ACQUIRE) ? __atomic_load_n(&sink_fd, __ATOMIC_RELAXED)
							       : STDERR_FILENO;
	struct stat st;

	if (fd < 0)
		return;
	/* the copy closed by the program (close_range) and its number reused: not ours */
	if (fd != STDERR_FILENO &&
	    (fstat(fd, &st) < 0 || (uint64_t)st.st_dev != sink_dev || (uint64_t)st.st_ino != sink_ino)) {
		__atomic_store_n(&sink_fd, -1, __ATOMIC_RELAXED);
		return;
	}
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGXFSZ);
	ssize_t w = write(fd, buf, len);
	if (w < 0 && errno == EFBIG && !was_pending)
		sigtimedwait(&xfsz, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Format and write one line with a single write(2) so lines from threads do not mix;
 * never allocates (the allocator may be the caller). */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	int n = snprintf(buf, sizeof(buf), "memphis%s: ", prefix);

	if (n < 0)
		return;
	int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (m < 0)
		return;
	size_t len = strlen(buf);
	/* a path or name in the line (a program's, a directory's) may hold any byte: none
	 * reaches the terminal as a control character, and a line stays one line */
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			buf[i] = '?';
	buf[len++] = '\n';
	write_line(buf, len);
}

void memphis__log(int lvl, const char *fmt, ...)
{
	static const char *const names[] = { " error", " warning", "", " debug" };
	va_list ap;

	if (lvl > level())
		return;
	va_start(ap, fmt);
	emit(names[lvl < 0 ? 0 : lvl > 3 ? 3 : lvl], fmt, ap);
	va_end(ap);
}

void memphis__warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit("", fmt, ap);
	va_end(ap);
}

void memphis__warn_once(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_SEQ_CST) || level() >= MPH_LOG_WARN)
		emit("", fmt, ap);
	va_end(ap);
}

void memphis__log_set_fd(int fd, uint64_t dev, uint64_t ino)
{
	sink_dev = dev;
	sink_ino = ino;
	__atomic_store_n(&sink_fd, fd, __ATOMIC_RELAXED);
	__atomic_store_n(&sink_set, 1, __ATOMIC_RELEASE);
}

void memphis__log_keep_thread(void)
{
	keep_tid = memphis__gettid();
}

void memphis__log_flush(void)
{
	char lines[sizeof(kept)];
	size_t n;

	pthread_mutex_lock(&kept_lock);
	n = nkept;
	memcpy(lines, kept, n);
	nkept = 0;
	pthread_mutex_unlock(&kept_lock);
	if (n)
		write_line(lines, n);
}
