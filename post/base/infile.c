/* post/base/infile.c - the files memphis-report reads by a name it was given (contracts in
 * infile.h): regular, bounded, opened without blocking; sources only when the run's owner
 * could read them. */
#include "infile.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The checks of mr_in_open on the open descriptor fd; fd is closed on failure. */
static int check_fd(int fd, uint64_t max, struct stat *st)
{
	int rc = 0;

	if (fstat(fd, st) < 0)
		rc = -errno;
	else if (!S_ISREG(st->st_mode))
		rc = -EINVAL;
	else if ((uint64_t)st->st_size > max)
		rc = -EFBIG;
	if (rc)
		close(fd);
	return rc ? rc : fd;
}

int mr_in_open(const char *path, uint64_t max, int flags)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
				    (flags & MR_IN_NOFOLLOW ? O_NOFOLLOW : 0));

	return fd < 0 ? -errno : check_fd(fd, max, &st);
}

int mr_in_read(const char *path, uint64_t max, char **buf, size_t *len)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	size_t cap, n = 0;
	char *b;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if ((fd = check_fd(fd, max, &st)) < 0)
		return fd;
	/* the size now, one byte more to see the end; a file that grows is read on, to max */
	cap = (size_t)st.st_size + 2;
	b = malloc(cap);
	while (b) {
		ssize_t r = read(fd, b + n, cap - n - 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			int e = r < 0 ? -EIO : 0;

			close(fd);
			if (e) {
				free(b);
				return e;
			}
			b[n] = '\0';
			*buf = b;
			*len = n;
			return 0;
		}
		n += (size_t)r;
		if (n > max)
			break;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);

			if (!nb)
				free(b);
			b = nb;
		}
	}
	close(fd);
	free(b);
	return b ? -EFBIG : -ENOMEM;
}

/* max in the largest unit that divides it ("256 MiB", "1 TiB", "1000 bytes") into buf. */
static void fmt_bound(char *buf, size_t len, uint64_t max)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && max >= 1024 && max % 1024 == 0) {
		max /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)max, unit[u]);
}

const char *mr_in_strerror(int rc, uint64_t max)
{
	static _Thread_local char msg[96];
	char b[32];

	switch (rc) {
	case -ELOOP:
		return "a symbolic link (not followed)";
	case -EINVAL:
		return "not a regular file (not read)";
	case -EFBIG:
		fmt_bound(b, sizeof(b), max);
		snprintf(msg, sizeof(msg), "larger than the %s this input may have (not read)", b);
		return msg;
	case -EACCES:
		return "permission denied";
	default:
		return strerror(-rc);
	}
}

void mr_in_owner_of(const char *path, struct mr_in_owner *o)
{
	struct passwd pw, *res = NULL;
	struct stat st;
	char sbuf[4096];
	int n = (int)(sizeof(o->groups) / sizeof(o->groups[0]));

	memset(o, 0, sizeof(*o));
	if (stat(path, &st) < 0)
		return;
	o->known = true;
	o->uid = st.st_uid;
	o->gid = st.st_gid;
	o->groups[0] = st.st_gid;
	o->ngroups = 1;
	/* the user's groups as the system lists them; more than the array holds: none of
	 * them (fewer sources read, never more) */
	if (getpwuid_r(st.st_uid, &pw, sbuf, sizeof(sbuf), &res) == 0 && res) {
		int m = n - 1;

		if (getgrouplist(pw.pw_name, pw.pw_gid, o->groups + 1, &m) < 0)
			m = 0;
		o->ngroups = 1 + m;
	}
}

/* Does o's user have permission bit `bits` (S_IROTH-scaled: 4 read, 1 search) on a file
 * of stat st? The class that applies is taken alone, as the kernel takes it: the owner's
 * bits for its owner, else the group's for a member, else the others'. */
static bool owner_may(const struct mr_in_owner *o, const struct stat *st, unsigned bits)
{
	if (o->uid == 0)
		return true; /* root reads everything (CAP_DAC_OVERRIDE) */
	if (st->st_uid == o->uid)
		return (st->st_mode >> 6) & bits;
	for (int i = 0; i < o->ngroups; i++)
		if (st->st_gid == o->groups[i])
			return (st->st_mode >> 3) & bits;
	return st->st_mode & bits;
}

/* Open the canonical path real (absolute, no link) component by component, each directory
 * searchable by o, the last component a regular file o may read. fd or -errno. */
static int walk_open(const struct mr_in_owner *o, char *real)
{
	struct stat st;
	int dir = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd;
	char *p = real + 1, *slash;

	if (dir < 0)
		return -errno;
	for (;;) {
		if (fstat(dir, &st) < 0 || !owner_may(o, &st, 1)) {
			close(dir);
			return -EACCES;
		}
		slash = strchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
		fd = openat(dir, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		*slash = '/';
		close(dir);
		if (fd < 0)
			return errno == ENOTDIR ? -ELOOP : -errno;
		dir = fd;
		p = slash + 1;
	}
	fd = openat(dir, p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dir);
	if (fd < 0)
		return -errno;
	if ((fd = check_fd(fd, MR_IN_MAX_SOURCE, &st)) < 0)
		return fd;
	if (!owner_may(o, &st, 4)) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

int mr_in_open_source(const struct mr_in_owner *o, const char *path)
{
	char *real;
	int fd;

	if (!o || !o->known)
		return -EACCES;
	if (o->uid == geteuid())
		return mr_in_open(path, MR_IN_MAX_SOURCE, 0);
	real = realpath(path, NULL);
	if (!real)
		return -errno;
	fd = walk_open(o, real);
	free(real);
	return fd;
}
