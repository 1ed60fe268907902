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

#include "log.h"
#include "memphis/crc32c.h"
#include "memphis/format.h"
#include "self.h"
#include "writer.h"

struct file {
	int fd;           /* -1: not open yet */
	uint64_t blocks;  /* blocks written */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int dirfd_ = -1;
static char dirpath[4096];
static struct file meta = { -1, 0 };
static struct file *cpus;
static int ncpus;
static int error;
static pid_t owner_pid;
static uint64_t t0;

/* Replace characters that do not belong in a directory name. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
			*s = '_';
}

/* mkdir `path` and open it without following a symlink; an existing directory is accepted
 * only when `reuse` is set and it is ours. Returns a directory fd or -errno. */
static int make_dir(const char *path, int reuse)
{
	struct stat st;
	int fd;

	if (mkdir(path, 0755) < 0 && (errno != EEXIST || !reuse))
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int write_block(struct file *f, uint16_t type, const void *a, size_t alen,
		       const void *b, size_t blen);

static int open_file(struct file *f, const char *name, int cpu)
{
	struct memphis_rec_file rec = {
		.format_version = MEMPHIS_FORMAT_VERSION,
		.kind = cpu < 0 ? MPH_FILE_META : MPH_FILE_SAMPLES,
		.cpu = cpu,
		.pid = (uint32_t)owner_pid,
		.start_time = t0,
	};

	f->fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (f->fd < 0)
		return -errno;
	return write_block(f, MPH_BLK_FILE, &rec, sizeof(rec), NULL, 0);
}

static void fail(int err)
{
	if (error)
		return;
	error = err;
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
static int check_size_limit(int fd, size_t total)
{
	struct rlimit rl;
	struct stat st;

	if (getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size + total > (uint64_t)rl.rlim_cur)
		return -EFBIG;
	return 0;
}

static int write_block(struct file *f, uint16_t type, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	struct memphis_block h = {
		.magic = MEMPHIS_BLOCK_MAGIC,
		.type = type,
		.version = 1,
		.length = (uint32_t)(alen + blen),
	};
	struct iovec iov[3] = { { &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
	size_t total = sizeof(h) + alen + blen;
	int i = 0, err;

	if ((err = check_size_limit(f->fd, total)) < 0)
		return err;
	h.crc = memphis_crc32c(memphis_crc32c(0, a, alen), b, blen);
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

int memphis__writer_open(const char *path, const char *exe_name, pid_t pid, uint64_t start)
{
	char name[256];
	int fd = -1, err;

	owner_pid = pid;
	t0 = start;
	if (path && *path) {
		snprintf(dirpath, sizeof(dirpath), "%s", path);
		fd = make_dir(dirpath, 1);
	} else {
		snprintf(name, sizeof(name), "%s", exe_name);
		sanitize(name);
		for (int k = 0; k < 100 && fd < 0; k++) {
			if (k == 0)
				snprintf(dirpath, sizeof(dirpath), "memphis-%s-%d", name, (int)pid);
			else
				snprintf(dirpath, sizeof(dirpath), "memphis-%s-%d.%d", name, (int)pid, k);
			fd = make_dir(dirpath, 0);
			if (fd != -EEXIST)
				break;
		}
	}
	if (fd < 0) {
		fail(fd);
		return fd;
	}
	dirfd_ = fd;
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus < 1)
		ncpus = 1;
	cpus = memphis__lib_calloc((size_t)ncpus, sizeof(*cpus));
	if (!cpus) {
		fail(-ENOMEM);
		return -ENOMEM;
	}
	for (int i = 0; i < ncpus; i++)
		cpus[i].fd = -1;
	err = open_file(&meta, MEMPHIS_META_FILE, -1);
	if (err < 0)
		fail(err);
	return err;
}

int memphis__writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			   const void *b, size_t blen)
{
	struct file *f;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (error || dirfd_ < 0) {
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
		if (f->fd < 0) {
			char name[32];
			snprintf(name, sizeof(name), MEMPHIS_CPU_FILE_FMT, (unsigned)cpu);
			err = open_file(f, name, cpu);
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

int memphis__writer_block(int cpu, uint16_t type, const void *payload, size_t len)
{
	return memphis__writer_block2(cpu, type, payload, len, NULL, 0);
}

static void close_file(struct file *f)
{
	struct memphis_rec_end end = { .time = memphis__now(), .blocks = f->blocks };

	int err;

	if (f->fd < 0)
		return;
	if (!error && (err = write_block(f, MPH_BLK_END, &end, sizeof(end), NULL, 0)) < 0)
		fail(err);
	close(f->fd);
	f->fd = -1;
}

void memphis__writer_close(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; cpus && i < ncpus; i++)
		close_file(&cpus[i]);
	close_file(&meta);
	if (dirfd_ >= 0)
		close(dirfd_);
	dirfd_ = -1;
	pthread_mutex_unlock(&lock);
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
