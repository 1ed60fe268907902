/* lib/writer.c - the run directory: its files (0600: they hold the program's data and
 * stack bytes), framed, checksummed blocks, its size, and its removal when it holds
 * nothing worth a report.
 *
 * Every block is written with one writev(2) of header + payload, so a run killed at any
 * point leaves files whose complete blocks are all valid. The first write error stops all
 * writing for good (one warning); callers stop sampling when memphis__writer_error() != 0.
 * So does the run's size cap (MEMPHIS_MAX_BYTES), or the file system's free space falling
 * to the reserve the library leaves the program, checked before the write (no write of
 * ours then fails for want of space): after that stop only the small blocks that close a
 * region and the run (REGION, LOSS, NOTE, END) are written, within a room kept for them,
 * and what is refused is counted per record kind and written as a NOTE at the close.
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
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "crc32c.h"
#include "samples3.h"
#include "fd.h"
#include "io.h"
#include "log.h"
#include "memphis/format.h"
#include "outdir.h"
#include "self.h"
#include "writer.h"

struct file {
	int fd;           /* -1: not open yet, or lost (the program closed it) */
	struct memphis__fdid id;
	int cpu;          /* -1: meta.mph */
	int created;      /* the file exists: reopen it when its descriptor is lost */
	int made;         /* this run made it (kept after the close, for the removal) */
	uint64_t blocks;  /* blocks written */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int dirfd_ = -1;
static struct memphis__fdid dir_id;
static char dirpath[4096];
static char dir_abs[4096]; /* absolute, to reopen the directory; "" if unknown */
static int parent_fd = -1; /* the directory holding it, -1: it is never removed */
static struct memphis__fdid parent_id;
static char leaf[256];     /* its name there */
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
static unsigned format = MEMPHIS_FORMAT_VERSION; /* of the run (FILE blocks, layouts) */

/* The size of the run (all its files) and the file system's free space. `cap` 0: none.
 * The stop at either is `capped` (error -EDQUOT, the reason in `limit_why`), after which
 * the blocks that close regions and files go on within `room`. Used under the lock. */
static uint64_t cap, reserve, check_every; /* reserve 0: free space not checked */
static uint64_t written, since_check, room;
static int capped; /* atomic: read by posting threads */
static int cap_default; /* the cap is the default's, not MEMPHIS_MAX_BYTES's */
static char limit_why[160];
/* Refused after the stop, per kind: samples, allocations, frees, first touches (records),
 * other blocks; and bytes in all (atomics: counted by posting threads too). */
enum { DROP_SAMPLES, DROP_ALLOCS, DROP_FREES, DROP_TOUCHES, DROP_BLOCKS, NDROPS };
static uint64_t drops[NDROPS], drop_bytes;
/* What the close keeps (memphis__writer_keep_if), and what the run holds: wrote_data, a
 * region or first touches (what a report shows of a process that opened no region). */
static int keep_if, wrote_data, wrote_samples;

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
		.format_version = format,
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
	f->fd = memphis__openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600, &f->id);
	if (f->fd < 0)
		return f->fd;
	f->created = f->made = 1;
	if (cpu >= 0)
		wrote_samples = 1;
	return write_block(f, MPH_BLK_FILE, &rec, sizeof(rec), NULL, 0);
}

/* The blocks written after the run's size cap or the free-space reserve stopped it: what
 * closes a region or a file, small, within the room kept for them. */
static int closing(uint16_t type)
{
	return type == MPH_BLK_REGION || type == MPH_BLK_LOSS || type == MPH_BLK_NOTE ||
	       type == MPH_BLK_END;
}

/* A block not written after the stop (or the one that met it), counted by kind; a SAMPLES
 * payload of layout 3 (a = its bytes) says its count. */
static void count_drop(uint16_t type, const void *a, size_t len)
{
	static const struct { uint16_t type; int kind; size_t size; } kinds[] = {
		{ MPH_BLK_SAMPLES, DROP_SAMPLES, sizeof(struct memphis_rec_sample) },
		{ MPH_BLK_ALLOCS, DROP_ALLOCS, sizeof(struct memphis_rec_alloc) },
		{ MPH_BLK_FREES, DROP_FREES, sizeof(struct memphis_rec_free) },
		{ MPH_BLK_FIRST_TOUCH, DROP_TOUCHES, sizeof(struct memphis_rec_touch) },
	};
	int kind = DROP_BLOCKS;
	uint64_t n = 1;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].type == type) {
			kind = kinds[i].kind;
			n = len / kinds[i].size;
		}
	if (type == MPH_BLK_SAMPLES && memphis__writer_layout(type) == 3) {
		struct mph_s3_error e;
		size_t k;
		n = mph_s3_count(a, len, &k, &e) == 0 ? k : 0;
	}
	__atomic_add_fetch(&drops[kind], n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&drop_bytes, len + sizeof(struct memphis_block), __ATOMIC_RELAXED);
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

/* The size cap or the reserve (limit_why says which) met: the same stop as fail's, its
 * note and line saying which; the closing blocks go on (closing()). Lock held. */
static void stop_at_limit(void)
{
	char why[256];
	uint64_t now = memphis__now();
	int n;

	if (error)
		return;
	error = -EDQUOT;
	__atomic_store_n(&capped, 1, __ATOMIC_RELAXED);
	n = snprintf(why, sizeof(why), "write error: %s; the library stopped writing the run",
		     limit_why);
	if (meta.created && n > 0)
		write_block(&meta, MPH_BLK_NOTE, &now, sizeof(now), why, (size_t)n);
	memphis__warn_once("%s: %s; sampling stopped, the program continues", dirpath, limit_why);
}

static void failed(int err)
{
	if (err == -EDQUOT && limit_why[0])
		stop_at_limit();
	else
		fail(err);
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

/* The space the file system gives us (statvfs f_bavail), or UINT64_MAX unknown. */
static uint64_t space_free(int dfd)
{
	struct statvfs sv;

	if (dfd < 0 || fstatvfs(dfd, &sv) < 0 || !sv.f_frsize)
		return UINT64_MAX;
	return (uint64_t)sv.f_bavail * sv.f_frsize;
}

/* -EDQUOT (limit_why set) when `total` more bytes would take the run past its cap, less
 * the room kept for the closing blocks, or the file system's free space (looked at every
 * check_every bytes) below the reserve; after the stop, when the room is used up. Lock
 * held. */
static int check_limits(size_t total)
{
	if (__atomic_load_n(&capped, __ATOMIC_RELAXED)) {
		if (total > room)
			return -ENOSPC; /* counted by the caller, nothing more said */
		room -= total;
		return 0;
	}
	if (cap && written + total + room > cap) {
		snprintf(limit_why, sizeof(limit_why),
			 "the run reached its size cap of %llu bytes (MEMPHIS_MAX_BYTES%s)",
			 (unsigned long long)cap,
			 cap_default ? "; by default a quarter of the free space, at most 4 GiB" : "");
		return -EDQUOT;
	}
	if (reserve && (since_check += total) >= check_every) {
		uint64_t avail = space_free(dirfd_);

		since_check = 0;
		if (avail != UINT64_MAX && avail < reserve + total + check_every) {
			snprintf(limit_why, sizeof(limit_why),
				 "the file system holding the run has less than %llu bytes free, "
				 "which memphis leaves to the program",
				 (unsigned long long)(reserve + check_every));
			return -EDQUOT;
		}
	}
	return 0;
}

static int write_block(struct file *f, uint16_t type, const void *a, size_t alen,
		       const void *b, size_t blen)
{
	struct memphis_block h = {
		.magic = MEMPHIS_BLOCK_MAGIC,
		.type = type,
		.version = memphis__writer_layout(type),
		.length = (uint32_t)(alen + blen),
	};
	struct iovec iov[3] = { { &h, sizeof(h) }, { (void *)a, alen }, { (void *)b, blen } };
	size_t total = sizeof(h) + alen + blen;
	struct stat st;
	int i = 0, err;

	if ((err = file_fd(f, &st)) < 0 ||
	    (err = check_size_limit(&st, total + (f == &meta && !error ? WHY_ROOM : 0))) < 0 ||
	    (err = check_limits(total)) < 0)
		return err;
	h.crc = mph_crc32c(mph_crc32c(0, a, alen), b, blen);
	written += total;
	/* a partial write goes on where it stopped; a failure (ENOSPC, EDQUOT, EFBIG, EIO) is
	 * the caller's sticky error: never tried again */
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
	if (type == MPH_BLK_REGION || type == MPH_BLK_FIRST_TOUCH)
		wrote_data = 1;
	return 0;
}

/* The cap and reserve of a run in the directory dfd: max_bytes as MEMPHIS_MAX_BYTES
 * gives it (-1 unset, 0 no cap), else min(4 GiB, a quarter of the free space); the
 * reserve a quarter of the free space, at most 1 GiB, looked at every 1 MiB written (an
 * eighth of the reserve on a small file system). */
static void set_limits(int dfd, int64_t max_bytes)
{
	uint64_t avail = space_free(dfd);

	cap = max_bytes >= 0 ? (uint64_t)max_bytes : 4ull << 30;
	cap_default = max_bytes < 0;
	if (max_bytes < 0 && avail != UINT64_MAX && avail / 4 < cap)
		cap = avail / 4;
	reserve = avail == UINT64_MAX ? 0 : avail / 4 < (1ull << 30) ? avail / 4 : 1ull << 30;
	check_every = reserve / 8 < (1u << 20) ? reserve / 8 : 1u << 20;
	if (check_every < 4096)
		check_every = 4096;
	room = cap && cap / 16 < (64u << 10) ? cap / 16 : 64u << 10;
}

static int writer_open(const char *path, const char *exe_name,
		       const struct memphis__rank *rank, pid_t pid, uint64_t start,
		       int64_t max_bytes)
{
	static struct memphis__outdir o; /* 4.5 KiB: off the I/O thread's stack */
	int fd, err;

	owner_pid = pid;
	t0 = start;
	fd = memphis__outdir_make(path, exe_name, rank, pid, &o);
	snprintf(dirpath, sizeof(dirpath), "%s", o.path);
	if (fd == 0 && o.parent >= 0) {
		parent_fd = memphis__fd_take(o.parent, 1, &parent_id);
		snprintf(leaf, sizeof(leaf), "%s", o.leaf);
	}
	if (fd == 0)
		fd = memphis__fd_take(o.fd, 1, &dir_id);
	if (fd < 0) {
		error = fd;
		memphis__warn_once("cannot write the run to %s: %s; the program runs unprofiled",
				   dirpath, o.why[0] ? o.why : strerror(-fd));
		return fd;
	}
	dirfd_ = fd;
	set_limits(fd, max_bytes);
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
		failed(err);
	return err;
}

static int writer_block2(int cpu, uint16_t type, const void *a, size_t alen,
			 const void *b, size_t blen)
{
	struct file *f;
	int err = 0;

	pthread_mutex_lock(&lock);
	if (!meta.created) {
		err = error ? error : -EBADF;
		goto out;
	}
	if (error && !(capped && closing(type))) {
		count_drop(type, a, alen + blen);
		err = error;
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
			/* no file is made that the stop would leave holding its FILE block only */
			if (error || (err = check_limits(2 * sizeof(struct memphis_block) +
							 sizeof(struct memphis_rec_file) +
							 alen + blen)) < 0 ||
			    (err = open_file(f, cpu)) < 0) {
				count_drop(type, a, alen + blen);
				failed(err ? err : error);
				err = error;
				goto out;
			}
		}
	}
	err = write_block(f, type, a, alen, b, blen);
	if (err < 0) {
		count_drop(type, a, alen + blen);
		failed(err);
	}
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
	if ((!error || capped) && (err = write_block(f, MPH_BLK_END, &end, sizeof(end), NULL, 0)) < 0)
		failed(err);
	memphis__fd_close(&f->fd, &f->id);
	f->created = 0;
}

/* The NOTE of what the stop left unwritten ("dropped: ...", docs/format.md). Lock held. */
static void note_drops(void)
{
	char text[256];
	uint64_t now = memphis__now(), d[NDROPS], bytes = __atomic_load_n(&drop_bytes, __ATOMIC_RELAXED);
	int n;

	if (!bytes || !capped)
		return;
	for (int k = 0; k < NDROPS; k++)
		d[k] = __atomic_load_n(&drops[k], __ATOMIC_RELAXED);
	n = snprintf(text, sizeof(text), "dropped: samples=%llu allocs=%llu frees=%llu "
		     "first_touches=%llu other_blocks=%llu bytes=%llu (not written after the stop)",
		     (unsigned long long)d[DROP_SAMPLES], (unsigned long long)d[DROP_ALLOCS],
		     (unsigned long long)d[DROP_FREES], (unsigned long long)d[DROP_TOUCHES],
		     (unsigned long long)d[DROP_BLOCKS], (unsigned long long)bytes);
	if (n > 0)
		write_block(&meta, MPH_BLK_NOTE, &now, sizeof(now), text, (size_t)n);
}

/* Remove the closed run's files and directory (only when it still is ours, and empty
 * once they are gone: the user may have put something there). Lock held. */
static void remove_run(void)
{
	char name[32];
	struct stat st;
	int dfd = dir_fd();

	for (int i = -1; dfd >= 0 && i < ncpus; i++) {
		struct file *f = i < 0 ? &meta : &cpus[i];

		if (!f->made)
			continue;
		file_name(f, name, sizeof(name));
		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (uint64_t)st.st_dev == f->id.dev && (uint64_t)st.st_ino == f->id.ino)
			unlinkat(dfd, name, 0);
	}
	if (memphis__fd_ours(&parent_fd, &parent_id, NULL) &&
	    fstatat(parent_fd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    (uint64_t)st.st_dev == dir_id.dev && (uint64_t)st.st_ino == dir_id.ino &&
	    unlinkat(parent_fd, leaf, AT_REMOVEDIR) == 0)
		memphis__log(MPH_LOG_INFO, "%s removed: %s", dirpath,
			     keep_if ? "no sample before the exec" : "no region and no first touch");
}

static long writer_close(void *unused)
{
	int drop;

	(void)unused;
	pthread_mutex_lock(&lock);
	/* a run with nothing to report, and no stop to tell of, leaves nothing behind */
	drop = meta.made && !error && parent_fd >= 0 && (keep_if ? !wrote_samples : !wrote_data);
	if (meta.created && !drop)
		note_drops();
	for (int i = 0; cpus && i < ncpus; i++)
		close_file(&cpus[i]);
	close_file(&meta);
	if (drop && cpus)
		remove_run();
	memphis__fd_close(&dirfd_, &dir_id);
	memphis__fd_close(&parent_fd, &parent_id);
	pthread_mutex_unlock(&lock);
	return 0;
}

/* ---- the API: each call runs in the I/O thread, which alone holds the files (io.h) ---- */

struct open_call {
	const char *path, *exe_name;
	const struct memphis__rank *rank;
	pid_t pid;
	uint64_t start;
	int64_t max_bytes;
};

static long open_in_io(void *p)
{
	const struct open_call *c = p;

	return writer_open(c->path, c->exe_name, c->rank, c->pid, c->start, c->max_bytes);
}

int memphis__writer_open(const char *path, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, uint64_t start,
			 int64_t max_bytes)
{
	struct open_call c = { path, exe_name, rank, pid, start, max_bytes };

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

	if (err && !(__atomic_load_n(&capped, __ATOMIC_RELAXED) && closing(type))) {
		if (meta.created)
			count_drop(type, a, alen + blen);
		return err;
	}
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

void memphis__writer_set_format(unsigned version)
{
	format = version;
}

uint16_t memphis__writer_layout(uint16_t type)
{
	if (type == MPH_BLK_SAMPLES)
		return format >= 3 ? 3 : 2;
	if (type == MPH_BLK_STACKS)
		return format >= 3 ? 2 : 1;
	return 1;
}

void memphis__writer_keep_if(int sampled)
{
	keep_if = sampled;
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
