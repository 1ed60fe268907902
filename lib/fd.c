/* lib/fd.c - the library's own descriptors (contracts in fd.h). Depends on nothing of the
 * library. A check is one fstat(2): done per written block, per ioctl and before a close,
 * never per sample. */
#include <errno.h>
#include <fcntl.h>
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

int memphis__fd_take(int fd, int essential, struct memphis__fdid *id)
{
	long limit = nofile(), low = limit / 2 < 4096 ? limit / 2 : 4096;
	struct stat st;
	int high;

	if (fd < 0)
		return fd;
	if (!essential && __atomic_add_fetch(&held, 1, __ATOMIC_RELAXED) > memphis__fd_share()) {
		__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
		close(fd);
		return -EMFILE;
	}
	if (essential)
		__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
	if (fd < low && (high = fcntl(fd, F_DUPFD_CLOEXEC, (int)low)) >= 0) {
		close(fd);
		fd = high;
	}
	if (fstat(fd, &st) < 0) {
		int err = -errno;
		close(fd);
		__atomic_sub_fetch(&held, 1, __ATOMIC_RELAXED);
		return err;
	}
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	return fd;
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

/* Contract in fd.h. */
char *memphis__slurp(const char *path)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap), *p;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
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
	close(fd);
	buf[n] = '\0';
	return buf;

out_close:
	close(fd);
out_free:
	free(buf);
	return NULL;
}
