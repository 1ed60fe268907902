/* lib/writer.c - the run directory: creation and framed, checksummed blocks.
 *
 * Every block is written with one writev(2) of header + payload, so a run killed at any
 * point leaves files whose complete blocks are all valid. The first write error stops all
 * writing for good (one warning); callers stop sampling when memphis__writer_error() != 0.
 * memphis__note() is here because a note is a block plus its log line.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crc32c.h"
#include "fd.h"
#include "io.h"
#include "log.h"
#include "memphis/format.h"
#include "rank.h"
#include "self.h"
#include "writer.h"

struct file {
	int fd;           /* -1: not open yet, or lost (the program closed it) */
	struct memphis__fdid id;
	int cpu;          /* -1: meta.mph */
	int created;      /* the file exists: reopen it when its descriptor is lost */
	uint64_t blocks;  /* blocks written */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int dirfd_ = -1;
static struct memphis__fdid dir_id;
static char dirpath[4096];
static char dir_abs[4096]; /* absolute, to reopen the directory; "" if unknown */
static struct file meta = { .fd = -1, .cpu = -1 };
/* Bytes of meta.mph kept below the file size limit until the first error, for fail()'s
 * NOTE (the only block written after it), so that the report can say why the run ended
 * even when meta.mph is the file at the limit. */
#define WHY_ROOM 256
static struct file *cpus;
static int ncpus;
static int error;
static pid_t owner_pid;
static uint64_t t0;

/* mkdir `name` under the directory `at` (AT_FDCWD: the working directory) and open it
 * without following a symlink; an existing directory is accepted only when `reuse` is set,
 * and only when it is ours. Returns a plain descriptor or -errno. */
static int open_dir_at(int at, const char *name, int reuse)
{
	struct stat st;
	int fd;

	if (mkdirat(at, name, 0755) < 0 && (errno != EEXIST || !reuse))
		return -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* Make a new directory `base` under `at`, or `base.1` .. `base.99` when that exists (a
 * re-run with the same name), and write the name made into name[n]. Returns a plain
 * descriptor or -errno. */
static int make_numbered_at(int at, const char *base, char *name, size_t n)
{
	int fd = -EEXIST;

	for (int k = 0; k < 100 && fd == -EEXIST; k++) {
		if (k == 0)
			snprintf(name, n, "%s", base);
		else
			snprintf(name, n, "%s.%d", base, k);
		fd = open_dir_at(at, name, 0);
	}
	return fd;
}

/* The run directory of a rank: the job directory `job` (made here or by another rank
 * meanwhile; it must be ours), then in it rank-R, or rank-R.N when a rank of that number
 * already wrote there. The ranks never wait for each other: mkdir is their only meeting
 * point. Sets dirpath; returns a plain descriptor or -errno. */
static int make_rank_dir(const char *job, const struct memphis__rank *r)
{
	char base[32], name[48];
	int jfd, fd;

	jfd = open_dir_at(AT_FDCWD, job, 1);
	if (jfd < 0) {
		snprintf(dirpath, sizeof(dirpath), "%s", job);
		return jfd;
	}
	snprintf(base, sizeof(base), "rank-%ld", r->rank);
	fd = make_numbered_at(jfd, base, name, sizeof(name));
	close(jfd);
	snprintf(dirpath, sizeof(dirpath), "%s/%s", job, fd < 0 ? base : name);
	return fd;
}

/* The run directory's descriptor, opened again by its absolute path if the program closed
 * it (and only if it still is the same directory). Caller holds the lock. fd or -errno. */
static int dir_fd(void)
{
	struct memphis__fdid id;
	int fd;

	if (memphis__fd_ours(&dirfd_, &dir_id, NULL))
		return dirfd_;
	if (!dir_abs[0])
		return -EBADF;
	fd = memphis__open(dir_abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, &id);
	if (fd < 0)
		return fd;
	if (id.dev != dir_id.dev || id.ino != dir_id.ino) {
		memphis__fd_close(&fd, &id);
		return -ESTALE;
	}
	dirfd_ = fd;
	return fd;
}

static void file_name(const struct file *f, char *name, size_t n)
{
	if (f->cpu < 0)
		snprintf(name, n, "%s", MEMPHIS_META_FILE);
	else
		snprintf(name, n, MEMPHIS_CPU_FILE_FMT, (unsigned)f->cpu);
}

/* Make sure f->fd is still the library's file, opening it again (appending, never through
 * a symlink, only the same file) when the program closed it or reused its number; *st is
 * its state. Caller holds the lock. 0 or -errno. */
static int file_fd(struct file *f, struct stat *st)
{
	char name[32];
	int fd, dfd;
	struct memphis__fdid id;

	if (memphis__fd_ours(&f->fd, &f->id, st))
		return 0;
	file_name(f, name, sizeof(name));
	dfd = dir_fd();
	if (dfd < 0)
		return dfd;
	fd = memphis__openat(dfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW, 0, &id);
	if (fd < 0)
		return fd;
	if (id.dev != f->id.dev || id.ino != f->id.ino || fstat(fd, st) < 0) {
		memphis__fd_close(&fd, &id);
		return -ESTALE;
	}
	f->fd = fd;
	return 0;
}

static int write_block(struct file *f, uint16_t type, const void *a, size_t alen,
		       const void *b, size_t blen);

static int open_file(struct file *f, int cpu)
{
	char name[32];
	struct memphis_rec_file rec = {
		.format_version = MEMPHIS_FORMAT_VERSION,
		.kind = cpu < 0 ? MPH_FILE_META : MPH_FILE_SAMPLES,
		.cpu = cpu,
		.pid = (uint32_t)owner_pid,
		.start_time = t0,
	};

	int dfd = dir_fd();

	if (dfd < 0)
		return dfd;
	f->cpu = cpu;
	file_name(f, name, sizeof(name));
	f->fd = memphis__openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644, &f->id);
	if (f->fd < 0)
		return f->fd;
	f->created = 1;
	return write_block(f, MPH_BLK_FILE, &rec, sizeof(rec), NULL, 0);
}

/* The first write error: stop writing for good, tell the user once, and leave the reason
 * in meta.mph when it can still be written (a full cpu file's disk may have room for one
 * small block; a failing meta.mph just fails again), so the report can say why the run
 * has no END block instead of guessing. Caller holds the writer lock. */
static void fail(int err)
{
	char why[160];
	uint64_t now = memphis__now();
	int n;

	if (error)
		return;
	error = err;
	n = snprintf(why, sizeof(why), "write error: %s; the library stopped writing the run",
		     err == -EFBIG ? "the file size limit (ulimit -f) is reached" : strerror(-err));
	if (meta.created && n > 0)
		write_block(&meta, MPH_BLK_NOTE, &now, sizeof(now), why, (size_t)n);
	if (err == -EFBIG)
		memphis__warn_once("cannot write to %s: the file size limit (ulimit -f) is reached; "
				   "sampling stopped, the program continues", dirpath);
	else
		memphis__warn_once("cannot write to %s: %s; sampling stopped, the program continues",
				   dirpath, strerror(-err));
}

/* -EFBIG when `total` more bytes would take the file past the size limit (RLIMIT_FSIZE),
 * else 0: the kernel would cut the write short and then send SIGXFSZ, which kills the
 * program, to the writing thread. Checked before every block, so no write of ours ever
 * reaches the limit (the library's files are written only under the writer lock). */
static int check_size_limit(const struct stat *st, size_t total)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if ((uint64_t)st->st_size + total > (uint64_t)rl.rlim_cur)
		return -EFBIG;
	return 0;
}

static int write_block(struct file *f, uint16_t type, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	struct memphis_block h = {
		.magic = MEMPHIS_BLOCK_MAGIC,
		.type = type,
		.version = type == MPH_BLK_SAMPLES ? 2 : 1, /* format.h: layout versions */
		.length = (uint32_t)(alen + blen),
	};
	struct iovec iov[3] = { { &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
	size_t total = sizeof(h) + alen + blen;
	struct stat st;
	int i = 0, err;

	if ((err = file_fd(f, &st)) < 0 ||
	    (err = check_size_limit(&st, total + (f == &meta && !error ? WHY_ROOM : 0))) < 0)
		return err;
	h.crc = mph_crc32c(mph_crc32c(0, a, alen), b, blen);
	while (total > 0) {
		ssize_t w = writev(f->fd, iov + i, 3 - i);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		total -= (size_t)w;
		while (i < 3 && (size_t)w >= iov[i].iov_len) {
			w -= (ssize_t)iov[i].iov_len;
			i++;
		}
		if (i < 3) {
			iov[i].iov_base = (char *)iov[i].iov_base + w;
			iov[i].iov_len -= (size_t)w;
		}
	}
	f->blocks++;
	return 0;
}

static int writer_open(const char *path, const char *exe_name,
		       const struct memphis__rank *rank, pid_t pid, uint64_t start)
{
	char name[256], made[512]; /* the sanitised program name; the directory name made */
	int fd = -1, err;

	owner_pid = pid;
	t0 = start;
	const int is_rank = rank && rank->launcher;
	/* the name part is cut so that the directory's name fits NAME_MAX (255) with
	 * "memphis-" and "-PID" (10 digits) ".NN", or "-job-" and the longest job id */
	snprintf(name, sizeof(name), "%.*s",
		 is_rank ? 255 - 8 - 5 - (MEMPHIS__JOB_ID_MAX - 1) : 255 - 8 - 11 - 3, exe_name);
	memphis__sanitize_name(name);
	if (is_rank && path && *path) {
		fd = make_rank_dir(path, rank); /* MEMPHIS_OUTPUT names the job directory */
	} else if (is_rank) {
		snprintf(made, sizeof(made), "memphis-%s-job-%s", name, rank->job_id);
		fd = make_rank_dir(made, rank);
	} else if (path && *path) {
		snprintf(dirpath, sizeof(dirpath), "%s", path);
		fd = open_dir_at(AT_FDCWD, dirpath, 1);
	} else {
		snprintf(made, sizeof(made), "memphis-%s-%d", name, (int)pid);
		fd = make_numbered_at(AT_FDCWD, made, dirpath, sizeof(dirpath));
	}
	if (fd >= 0)
		fd = memphis__fd_take(fd, 1, &dir_id);
	if (fd < 0) {
		fail(fd);
		return fd;
	}
	dirfd_ = fd;
	if (dirpath[0] == '/') {
		snprintf(dir_abs, sizeof(dir_abs), "%s", dirpath);
	} else if (getcwd(dir_abs, sizeof(dir_abs) - 1 - strlen(dirpath) - 1)) {
		size_t l = strlen(dir_abs);
		snprintf(dir_abs + l, sizeof(dir_abs) - l, "/%s", dirpath);
	} else {
		dir_abs[0] = 0;
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	cpus = memphis__lib_calloc((size_t)ncpus, sizeof(*cpus));
	if (!cpus) {
		fail(-ENOMEM);
		return -ENOMEM;
	}
	for (int i = 0; i < ncpus; i++) {
		cpus[i].fd = -1;
		cpus[i].cpu = i;
	}
	err = open_file(&meta, -1);
	if (err < 0)
		fail(err);
	return err;
}

static int writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			 const void *b, size_t blen)
{
	struct file *f;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (error || !meta.created) {
		err = error ? error : -EBADF;
		goto out;
	}
	if (cpu < 0) {
		f = &meta;
	} else {
		if (cpu >= ncpus) {
			err = -ERANGE;
			goto out;
		}
		f = &cpus[cpu];
		if (!f->created) {
			err = open_file(f, cpu);
			if (err < 0) {
				fail(err);
				goto out;
			}
		}
	}
	err = write_block(f, type, a, alen, b, blen);
	if (err < 0)
		fail(err);
out:
	pthread_mutex_unlock(&lock);
	return err;
}

static void close_file(struct file *f)
{
	struct memphis_rec_end end = { .time = memphis__now(), .blocks = f->blocks };

	int err;

	if (!f->created)
		return;
	if (!error && (err = write_block(f, MPH_BLK_END, &end, sizeof(end), NULL, 0)) < 0)
		fail(err);
	memphis__fd_close(&f->fd, &f->id);
	f->created = 0;
}

static long writer_close(void *unused)
{
	(void)unused;
	pthread_mutex_lock(&lock);
	for (int i = 0; cpus && i < ncpus; i++)
		close_file(&cpus[i]);
	close_file(&meta);
	memphis__fd_close(&dirfd_, &dir_id);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---- the API: each call runs in the I/O thread, which alone holds the files (io.h) ---- */

struct open_call {
	const char *path, *exe_name;
	const struct memphis__rank *rank;
	pid_t pid;
	uint64_t start;
};

static long open_in_io(void *p)
{
	const struct open_call *c = p;

	return writer_open(c->path, c->exe_name, c->rank, c->pid, c->start);
}

int memphis__writer_open(const char *path, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, uint64_t start)
{
	struct open_call c = { path, exe_name, rank, pid, start };

	return (int)memphis__io_call(open_in_io, &c);
}

/* A block: where, and its payload in two pieces, or (posted) copied after this. */
struct block_call {
	int cpu;
	uint16_t type;
	int copied;
	const void *a, *b;
	size_t alen, blen;
};

static long block_in_io(void *p)
{
	const struct block_call *c = p;

	return c->copied ? writer_block2(c->cpu, c->type, c + 1, c->alen + c->blen, NULL, 0)
			 : writer_block2(c->cpu, c->type, c->a, c->alen, c->b, c->blen);
}

/* Posted (io.h): the caller does not wait for the write, whose failure, like any, is the
 * sticky error every later call returns. Where it cannot be posted, the caller waits. */
int memphis__writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			   const void *b, size_t blen)
{
	struct block_call c = { cpu, type, 1, NULL, NULL, alen, blen };
	struct iovec iov[3] = { { &c, sizeof(c) }, { (void *)a, alen }, { (void *)b, blen } };
	int err = memphis__writer_error();

	if (err)
		return err;
	err = memphis__io_post(block_in_io, iov, 3);
	if (err != -EAGAIN)
		return err;
	c = (struct block_call){ cpu, type, 0, a, b, alen, blen };
	return (int)memphis__io_call(block_in_io, &c);
}

int memphis__writer_block(int cpu, uint16_t type, const void *payload, size_t len)
{
	return memphis__writer_block2(cpu, type, payload, len, NULL, 0);
}

void memphis__writer_close(void)
{
	memphis__io_call(writer_close, NULL);
}

int memphis__writer_error(void)
{
	return __atomic_load_n(&error, __ATOMIC_RELAXED);
}

const char *memphis__writer_path(void)
{
	return dirpath;
}

void memphis__note(int level, const char *fmt, ...)
{
	char buf[512];
	uint64_t now = memphis__now();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	memphis__log(level, "%s", buf);
	memphis__writer_block2(-1, MPH_BLK_NOTE, &now, sizeof(now), buf, strlen(buf));
}
