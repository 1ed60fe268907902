/* tests/unit/unit_fd.c - memphis__open against the races it must survive, made to happen every
 * time: this test's openat(2) and fcntl(2) (they preempt libc's for the library's objects
 * linked here) do what a program's thread or another process could do between the
 * library's open and its checks: a shell's redirection put onto the number just opened
 * (close(1) then dup2(file, 1)) or onto it once the library has copied it high, and the
 * path renamed over on disk. Checked: the program's file stays
 * at its number, the library's descriptor is the path's file, and nothing leaks. And
 * memphis__write_pipe on a pipe whose reader is gone: the program neither dies of SIGPIPE
 * nor sees one, nor loses one of its own that was pending. And a fork child closes the
 * library's descriptors, not the program's. TAP. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd.h"

#include "tap.h"

/* REDIRECT: the program's dup2 onto the number right after the library's open of
 * race_path; REDIRECT_LATE: onto the low number the library has just copied high (its
 * F_DUPFD); RENAME: rename_from renamed over race_path right after the open. */
enum race { NONE, REDIRECT, REDIRECT_LATE, RENAME };

static enum race race;
static const char *race_path;
static int program_fd;          /* REDIRECT*: the program's file, put onto the number */
static const char *rename_from;

int openat(int dir, const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;
	int fd;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	fd = (int)syscall(SYS_openat, dir, path, flags, mode);
	if (fd < 0 || (race != REDIRECT && race != RENAME) || !race_path ||
	    strcmp(path, race_path))
		return fd;
	if (race == REDIRECT)
		dup2(program_fd, fd); /* the library's file is closed by it */
	else
		rename(rename_from, race_path);
	race = NONE; /* once: the library's next try goes through */
	return fd;
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	int r;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	r = (int)syscall(SYS_fcntl, fd, cmd, arg);
	if (r >= 0 && race == REDIRECT_LATE && cmd == F_DUPFD_CLOEXEC) {
		dup2(program_fd, fd);
		race = NONE;
	}
	return r;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

static int is_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static volatile sig_atomic_t handled;

static void on_pipe(int sig)
{
	(void)sig;
	handled++;
}

static int pipe_pending(void)
{
	sigset_t p;

	return sigpending(&p) == 0 && sigismember(&p, SIGPIPE);
}

/* memphis__write_pipe to a pipe with no reader, SIGPIPE at its default action (death). */
static void write_pipe_cases(void)
{
	sigset_t none, mask, pipe_set;
	struct sigaction sa = { .sa_handler = on_pipe };
	int p[2];
	ssize_t w;

	sigemptyset(&none);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	if (pipe(p) < 0)
		return;
	close(p[0]);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	w = memphis__write_pipe(p[1], "x", 1);
	ok(w < 0 && errno == EPIPE, "write_pipe, no reader: EPIPE, and the program lives");
	ok(!pipe_pending(), "write_pipe: no SIGPIPE left pending");
	pthread_sigmask(SIG_SETMASK, NULL, &mask);
	ok(!sigismember(&mask, SIGPIPE), "write_pipe: the thread's mask as it was");

	/* the program's own handler is not called for our write */
	sigaction(SIGPIPE, &sa, NULL);
	memphis__write_pipe(p[1], "x", 1);
	ok(handled == 0, "write_pipe: the program's SIGPIPE handler not called");

	/* a SIGPIPE of the program's, blocked and pending, stays for it */
	pthread_sigmask(SIG_BLOCK, &pipe_set, NULL);
	raise(SIGPIPE);
	memphis__write_pipe(p[1], "x", 1);
	ok(pipe_pending(), "write_pipe: the program's pending SIGPIPE is still pending");
	pthread_sigmask(SIG_UNBLOCK, &pipe_set, NULL);
	ok(handled == 1, "write_pipe: and delivered once when unblocked (%d)", (int)handled);
	signal(SIGPIPE, SIG_DFL);
	close(p[1]);
}

/* memphis__open of path a (or, with create, a new file a made with O_EXCL, as the
 * library's writer does) while the program redirects (race r) to its file prog: the
 * library's descriptor is a's, the program's copy stays open at the number it chose. */
static void redirect_case(const char *a, int create, const char *prog, enum race r,
			  const char *what)
{
	struct memphis__fdid id;
	int before, fd, kept = 0;

	program_fd = (int)syscall(SYS_openat, AT_FDCWD, prog, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	race_path = a;
	race = r;
	before = count_fds();
	fd = create ? memphis__openat(AT_FDCWD, a, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW,
				      0644, &id)
		    : memphis__open(a, O_RDONLY, &id);
	ok(race == NONE, "%s: the race happened", what);
	ok(fd >= 0 && is_file(fd, a), "%s: the library's descriptor is the path's file", what);
	memphis__fd_close(&fd, &id);
	/* the number the race used holds a copy of the program's file, which is the program's
	 * to close: one more than before, and it is the program's */
	ok(count_fds() == before + 1, "%s: the program's copy kept, nothing of ours left "
	   "(%d before, %d after)", what, before, count_fds());
	for (int n = 3; n < 1024; n++)
		if (n != program_fd && is_file(n, prog)) {
			kept += write(n, "x", 1) == 1;
			close(n);
		}
	ok(kept == 1, "%s: the program's file still open and writable (%d copies)", what, kept);
	close(program_fd);
}

/* A fork child: the library's descriptors closed in it (one taken, one noted), the
 * program's file at the number of a library descriptor the program closed kept open. The
 * child answers in its exit status, a bit per failed check. Both keep their signal mask. */
static void child_close_case(const char *a, const char *prog)
{
	struct memphis__fdid ida, idb;
	int fa = memphis__open(a, O_RDONLY, &ida), fb = memphis__open(a, O_RDONLY, &idb);
	int noted = open(a, O_RDONLY | O_CLOEXEC), mine = open(prog, O_RDONLY), st = -1;
	pid_t c;

	sigset_t mask, now;

	memphis__fd_note(noted);
	dup2(mine, fb); /* the program closes the library's fb and puts its own file there */
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	c = fork();
	pthread_sigmask(SIG_SETMASK, NULL, &now);
	if (c == 0)
		_exit((fcntl(fa, F_GETFD) >= 0) | (fcntl(noted, F_GETFD) >= 0) << 1 |
		      !is_file(fb, prog) << 2 |
		      (!sigismember(&now, SIGUSR1) || sigismember(&now, SIGUSR2)) << 3);
	ok(!sigismember(&now, SIGINT) && sigismember(&now, SIGUSR1) && !sigismember(&now, SIGUSR2),
	   "fork: the parent's signal mask is the one before the fork (the handlers block all)");
	ok(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st), "fork child: it ran");
	ok(!(WEXITSTATUS(st) & 8), "fork child: its signal mask is the parent's before the fork");
	ok(!(WEXITSTATUS(st) & 1), "fork child: the library's descriptor is closed in it");
	ok(!(WEXITSTATUS(st) & 2), "fork child: a noted descriptor is closed in it");
	ok(!(WEXITSTATUS(st) & 4), "fork child: the program's file at a number the library "
	   "had stays open in it");
	ok(fcntl(fa, F_GETFD) >= 0 && fcntl(noted, F_GETFD) >= 0 && is_file(fb, prog),
	   "fork child: the parent's descriptors are untouched");
	memphis__fd_close(&fa, &ida);
	memphis__fd_forget(&fb);
	memphis__fd_unnote(noted);
	close(noted);
	close(mine);
	sigemptyset(&mask);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

int main(void)
{
	char dir[] = "/tmp/memphis-unit-fd.XXXXXX", a[64], b[64], c[64], prog[64];
	struct memphis__fdid id;
	struct stat sa;
	int before, fd;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(prog, sizeof(prog), "%s/program", dir);
	put(a, "a\n");
	put(b, "b\n");

	/* no race */
	before = count_fds();
	fd = memphis__open(a, O_RDONLY, &id);
	ok(fd >= 0 && is_file(fd, a), "no race: the descriptor is the path's file");
	ok(stat(a, &sa) == 0 && id.dev == (uint64_t)sa.st_dev && id.ino == (uint64_t)sa.st_ino,
	   "no race: its identity is the file's");
	memphis__fd_close(&fd, &id);
	ok(count_fds() == before, "no race: closed, no descriptor left (%d before, %d after)",
	   before, count_fds());

	/* the program's redirection onto the number the library's open just got, and onto
	 * the one it has just copied high */
	redirect_case(a, 0, prog, REDIRECT, "redirect");
	redirect_case(a, 0, prog, REDIRECT_LATE, "redirect at the copy");
	snprintf(c, sizeof(c), "%s/created", dir);
	redirect_case(c, 1, prog, REDIRECT, "redirect at a creation");
	unlink(c);

	/* the path renamed over on disk between the library's open and its checks */
	race_path = a;
	rename_from = b;
	race = RENAME;
	before = count_fds();
	fd = memphis__open(a, O_RDONLY, &id);
	ok(race == NONE, "rename: the race happened");
	ok(fd >= 0, "rename: a descriptor (%d)", fd);
	memphis__fd_close(&fd, &id);
	ok(count_fds() == before, "rename: closed, no descriptor leaked (%d before, %d after)",
	   before, count_fds());

	write_pipe_cases();
	child_close_case(a, prog);

	unlink(a);
	unlink(prog);
	rmdir(dir);
	return tap_done();
}
