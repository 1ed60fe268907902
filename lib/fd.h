/* lib/fd.h - the library's own descriptors, kept apart from the program's. Below it: io.
 *
 * A program may close every descriptor it did not open (close_range(3, ~0U), closefrom, a
 * daemon's loop) and open its own files, which then get the numbers the library had. So
 * the library keeps its descriptors at high numbers, remembers what each one is (device
 * and inode) and checks before it writes to, ioctls or closes one: a descriptor that is no
 * longer the library's is forgotten, never used or closed. It also keeps to a share of
 * the descriptor limit, so that the program never runs short because of it.
 */
#ifndef MEMPHIS_FD_H
#define MEMPHIS_FD_H

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

/* What a descriptor of the library refers to. */
struct memphis__fdid {
	uint64_t dev, ino;
};

/* Take `fd`, just opened by the library, as its own: moved to a high number (from half the
 * descriptor limit, at most 4096; it stays where it is when none is free there),
 * close-on-exec, its identity recorded in *id. An `essential` descriptor (the run's files)
 * is taken whatever the library holds; another only while the library holds less than
 * its share, a quarter of RLIMIT_NOFILE: -EMFILE then. Returns the descriptor, or -errno
 * (`fd` is then closed). The low number is closed only while it still is the file opened:
 * a thread of the program may have put its own there meanwhile. */
int memphis__fd_take(int fd, int essential, struct memphis__fdid *id);
/* 1 when `fd` still is the file that *id recorded (fstat; *st filled when st is not NULL),
 * else 0. Does not change anything: usable from any thread. */
int memphis__fd_is(int fd, const struct memphis__fdid *id, struct stat *st);
/* memphis__fd_is, and when it says no, *fd is forgotten: set to -1 (never closed by us:
 * the program closed it, maybe reusing the number) and given back to the share. */
int memphis__fd_ours(int *fd, const struct memphis__fdid *id, struct stat *st);
/* Close *fd when it still is ours, forget it otherwise; *fd becomes -1. Accepts -1. */
void memphis__fd_close(int *fd, const struct memphis__fdid *id);
/* Forget *fd without closing it (it was found not ours by other means); *fd becomes -1. */
void memphis__fd_forget(int *fd);
/* open(2) of a file the library reads, with O_CLOEXEC, taken at once (memphis__fd_take,
 * essential): never holding a low number while it is used, so that a program that
 * closes one and puts its own file there (a shell's redirection, close(1) then
 * dup2(file, 1)) meanwhile keeps it. Close with memphis__fd_close. Returns the descriptor
 * or -errno. */
int memphis__open(const char *path, int flags, struct memphis__fdid *id);
/* memphis__open of name under directory dir (AT_FDCWD: the working directory), with mode
 * for O_CREAT; the file is the one name names (with O_NOFOLLOW, the link itself). A file
 * created with O_EXCL whose number the program took meanwhile is opened again, without
 * O_EXCL. */
int memphis__openat(int dir, const char *name, int flags, mode_t mode, struct memphis__fdid *id);
/* A file the library reads again and again all run long (the pagemap, /proc/self/task),
 * kept open so that it opens no low number each time (see memphis__open). Zeroed: not
 * open yet. One user at a time. */
struct memphis__kept {
	int fd; /* > 0 when open */
	struct memphis__fdid id;
	pid_t pid; /* the process it was opened in: /proc/self is another one's after fork */
};
/* The kept descriptor of path (memphis__open with flags at the first call, in a forked
 * child, or when the program closed it), or -errno. Stays open until the process ends. */
int memphis__kept_fd(struct memphis__kept *k, const char *path, int flags);
/* A directory stream over a copy of the kept directory descriptor, from its start;
 * closedir ends it (the kept one stays). NULL with errno on failure. */
DIR *memphis__opendir_kept(struct memphis__kept *k, const char *path);
/* A read stream over the file's content, read whole in the I/O thread (memphis__slurp):
 * no descriptor; fclose ends it. NULL with errno on failure. */
FILE *memphis__fopen(const char *path);
/* memphis__open as a directory stream; closedir ends it. NULL with errno on failure. */
DIR *memphis__opendir(const char *path);
/* write(2) to a pipe of the library without SIGPIPE, from any thread: the program may
 * have closed the read end and put its own file there (then EPIPE, and the signal, blocked
 * around the write, is taken unless one was pending already). */
ssize_t memphis__write_pipe(int fd, const void *p, size_t n);
/* Read a whole small file (/proc/self/maps) into a NUL-terminated malloc'd buffer, at most
 * 64 MiB, in the I/O thread (io.h). Returns it, or NULL. */
char *memphis__slurp(const char *path);
/* A fork child (not profiled) gets none of the library's descriptors: those in the
 * program's table (not the I/O thread's) are recorded when taken or noted, and the child
 * closes each that still is the file recorded. So that a fork never comes between a
 * descriptor's making and its record (it would stay open in the child) nor between the end
 * of its record and its close (the child could close the program's file at that number),
 * both are done between memphis__fd_fork_hold and memphis__fd_fork_release (the library's
 * functions here do it): a fork waits for them, and signals are blocked meanwhile, so that
 * a handler's fork on the same thread cannot wait for itself. They do not nest. */
void memphis__fd_fork_hold(sigset_t *old);
void memphis__fd_fork_release(const sigset_t *old);
/* Record fd, opened for the library by another library (PAPI's perf_event descriptors);
 * it is neither moved nor counted. memphis__fd_unnote once it is closed or found not ours. */
void memphis__fd_note(int fd);
void memphis__fd_unnote(int fd);
/* A non-blocking, close-on-exec pipe of the library: both ends taken (essential), no fork
 * between (see above). 0 with fd[] and id[] set; else -errno of pipe2, or -EMFILE when an
 * end could not be taken (then neither is left open), and fd[] holds no descriptor. */
int memphis__pipe(int fd[2], struct memphis__fdid id[2]);
/* closedir of a stream of memphis__opendir or memphis__opendir_kept. */
void memphis__closedir(DIR *d);
/* The library's share of descriptors (a quarter of RLIMIT_NOFILE, no floor: a program at a
 * low limit keeps three quarters of it) and how many it holds. */
long memphis__fd_share(void);
/* RLIMIT_NOFILE (2^30 when unlimited). Under MEMPHIS__FD_LIMIT_MIN the library takes none
 * of the program's descriptors and does not profile it (api.c): a quarter of less would
 * not hold one thread's events and the library's own, and a program is run at such a
 * limit on purpose, counting on every descriptor of it. */
long memphis__fd_limit(void);
#define MEMPHIS__FD_LIMIT_MIN 64
long memphis__fd_held(void);

#endif /* MEMPHIS_FD_H */
