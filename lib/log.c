/* lib/log.c - the library's only writer to stderr: silent unless MEMPHIS_VERBOSE asks,
 * except for the one warning a user must see. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "self.h"

static int log_level;
static int warned;
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

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &xfsz, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGXFSZ);
	ssize_t w = write(STDERR_FILENO, buf, len);
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
