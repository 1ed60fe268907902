/* lib/outdir.c - where the run directory goes (contracts in outdir.h). Runs where the
 * writer opens the run: in the I/O thread (io.h), whose descriptors are its own. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "memphis/format.h"
#include "outdir.h"
#include "rank.h"

/* Symbolic links followed while walking one path, as the kernel's own bound (ELOOP). */
#define LINKS_MAX 40

static int why(struct memphis__outdir *o, int err, const char *fmt, const char *arg)
{
	snprintf(o->why, sizeof(o->why), fmt, arg);
	return err;
}

/* A symbolic link in the path is followed only when the user or root owns it: another
 * user's link (in a directory they can write) would send a run written with the
 * profiled program's rights, root's maybe, wherever they point it. */
static int trusted_link(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/* Walk the directories of `path` (all but its last component) from the working directory
 * or "/", one component at a time, never following a link trusted_link refuses. Returns a
 * descriptor (O_PATH) of the directory that holds the last component, which is copied
 * into leaf ("" when path is "/"); -errno with o->why set. */
static int walk(const char *path, char *leaf, size_t leafn, struct memphis__outdir *o)
{
	char todo[2 * 4096 + 2], target[4096], *c;
	size_t len = strlen(path);
	int cur, links = 0;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len >= 4096)
		return why(o, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
	memcpy(todo, path, len);
	todo[len] = 0;
	c = strrchr(todo, '/');
	if (strlen(c ? c + 1 : todo) >= leafn)
		return why(o, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
	memcpy(leaf, c ? c + 1 : todo, strlen(c ? c + 1 : todo) + 1);
	if (c)
		c[1] = 0; /* todo: the directories, "/"-ended; "" for a name alone */
	else
		todo[0] = 0;
	cur = open(todo[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return why(o, -errno, "%s", strerror(errno));
	for (char *p = todo;;) {
		struct stat st;
		char *end;
		int next;

		while (*p == '/')
			p++;
		if (!*p)
			return cur;
		end = strchr(p, '/');
		*end = 0; /* todo always ends with '/' */
		if (!strcmp(p, ".")) {
			p = end + 1;
			continue;
		}
		/* the entry itself, never what it points to: its owner and its target are read
		 * from the one file opened, so that it cannot be swapped between the two */
		next = openat(cur, p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 || fstat(next, &st) < 0) {
			int e = errno;

			if (next >= 0)
				close(next);
			close(cur);
			return why(o, -e, "%s", strerror(e));
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = -1;

			if (trusted_link(&st) && ++links <= LINKS_MAX)
				n = readlinkat(next, "", target, sizeof(target) - 1);
			close(next);
			if (n < 0 && links > LINKS_MAX) {
				close(cur);
				return why(o, -ELOOP, "%s", strerror(ELOOP));
			}
			if (n < 0 && !trusted_link(&st)) {
				close(cur);
				return why(o, -ELOOP, "the symbolic link %s on its way belongs to another "
					   "user: not followed", p);
			}
			if (n <= 0 || strlen(end + 1) + (size_t)n + 2 > sizeof(todo)) {
				close(cur);
				return why(o, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
			}
			target[n] = 0;
			/* the rest after the link's target: todo becomes TARGET/REST */
			memmove(todo + n + 1, end + 1, strlen(end + 1) + 1);
			memcpy(todo, target, (size_t)n);
			todo[n] = '/';
			p = todo;
			if (target[0] == '/') {
				next = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				close(cur);
				if (next < 0)
					return why(o, -errno, "%s", strerror(errno));
				cur = next;
			}
			continue;
		}
		close(cur);
		if (!S_ISDIR(st.st_mode)) {
			close(next);
			return why(o, -ENOTDIR, "%s", strerror(ENOTDIR));
		}
		cur = next;
		p = end + 1;
	}
}

/* What an existing directory holds: nothing, a run (meta.mph and cpu files), ranks'
 * directories (rank-*), or anything else. */
enum content { EMPTY, RUN, RANKS, OTHER };

static enum content content_of(int dir)
{
	char buf[4096];
	int meta = 0, cpus = 0, ranks = 0, other = 0;
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return OTHER;
	while (!other && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			const char *name = d->d_name;
			unsigned type = d->d_type;
			struct stat st;

			off += d->d_reclen;
			if (!strcmp(name, ".") || !strcmp(name, ".."))
				continue;
			if (type == DT_UNKNOWN && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				type = S_ISREG(st.st_mode) ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : DT_UNKNOWN;
			if (type == DT_REG && !strcmp(name, MEMPHIS_META_FILE))
				meta = 1;
			else if (type == DT_REG && !strncmp(name, "cpu", 3))
				cpus = 1;
			else if (type == DT_DIR && !strncmp(name, "rank-", 5))
				ranks = 1;
			else
				other = 1;
		}
	}
	close(fd);
	if (n < 0 || other || (meta && ranks) || (cpus && !meta))
		return OTHER;
	return meta ? RUN : ranks ? RANKS : EMPTY;
}

/* Open the directory `name` under `at` (never a link) when it is the user's; -errno. */
static int open_ours(int at, const char *name, struct memphis__outdir *o)
{
	struct stat st;
	int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ELOOP || (errno == ENOTDIR && fstatat(at, name, &st,
								   AT_SYMLINK_NOFOLLOW) == 0 &&
				       S_ISLNK(st.st_mode)))
			return why(o, -ELOOP, "%s", "it is a symbolic link: not followed");
		return why(o, -errno, "%s", strerror(errno));
	}
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid()) {
		close(fd);
		return why(o, -EPERM, "%s", "it belongs to another user");
	}
	return fd;
}

/* A new directory `base` under `at`, or base.1 .. base.99 when that exists (from `from`:
 * 0 tries base itself), its name written to name[n]. The directory or -errno. */
static int make_numbered(int at, const char *base, int from, char *name, size_t n,
			 struct memphis__outdir *o)
{
	for (int k = from; k < 100; k++) {
		if (k == 0)
			snprintf(name, n, "%s", base);
		else
			snprintf(name, n, "%s.%d", base, k);
		if (mkdirat(at, name, 0700) == 0)
			return open_ours(at, name, o);
		if (errno != EEXIST)
			return why(o, -errno, "%s", strerror(errno));
	}
	return why(o, -EEXIST, "%s", "it and its .1 to .99 exist already");
}

static const char not_ours[] =
	"it holds files that are not a memphis run (name a new or an empty directory)";

/* The directory `leaf` under `parent` that `path` names: made, or an existing one of the
 * user's when it is empty; a run of ours already there (an earlier run or exec'd image)
 * gets leaf.1, .2, ...; as a job directory (`job`) it may hold ranks' directories.
 * Writes the name used to name[n]. The directory or -errno. */
static int make_named(int parent, const char *leaf, int job, char *name, size_t n,
		      struct memphis__outdir *o)
{
	int special = !leaf[0] || !strcmp(leaf, ".") || !strcmp(leaf, "..");
	enum content c;
	int fd;

	snprintf(name, n, "%s", leaf[0] ? leaf : ".");
	if (!special && mkdirat(parent, leaf, 0700) == 0)
		return open_ours(parent, leaf, o);
	if (!special && errno != EEXIST)
		return why(o, -errno, "%s", strerror(errno));
	fd = open_ours(parent, name, o);
	if (fd < 0)
		return fd;
	c = content_of(fd);
	if (c == EMPTY || (job && c == RANKS))
		return fd;
	close(fd);
	if (c == RUN && !job && !special)
		return make_numbered(parent, leaf, 1, name, n, o);
	return why(o, -ENOTEMPTY, "%s", not_ours);
}

/* o->path = a/b, cut to fit */
static void set_path(struct memphis__outdir *o, const char *a, const char *b)
{
	snprintf(o->path, sizeof(o->path), "%.*s%s%.*s", 2000, a, b ? "/" : "", 2000, b ? b : "");
}

/* o->path = `path` with its last component replaced by `leaf` */
static void set_path_leaf(struct memphis__outdir *o, const char *path, const char *leaf)
{
	size_t len = strlen(path), dir;

	while (len > 1 && path[len - 1] == '/')
		len--;
	for (dir = len; dir > 0 && path[dir - 1] != '/'; dir--)
		;
	snprintf(o->path, sizeof(o->path), "%.*s%s", (int)(dir < 2000 ? dir : 2000), path, leaf);
}

int memphis__outdir_make(const char *output, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, struct memphis__outdir *o)
{
	char name[256], made[512], leaf[256];
	const int is_rank = rank && rank->launcher;
	int fd, parent;

	o->fd = o->parent = -1;
	o->why[0] = 0;
	/* the program's name is cut so that a name made from it fits NAME_MAX (255) with
	 * "memphis-" and "-PID" (10 digits) ".NN", or "-job-" and the longest job id */
	snprintf(name, sizeof(name), "%.*s",
		 is_rank ? 255 - 8 - 5 - (MEMPHIS__JOB_ID_MAX - 1) : 255 - 8 - 11 - 3, exe_name);
	memphis__sanitize_name(name);
	if (is_rank) {
		char base[32];

		if (output && *output)
			snprintf(made, sizeof(made), "%s", output);
		else
			snprintf(made, sizeof(made), "memphis-%s-job-%s", name, rank->job_id);
		set_path(o, made, NULL);
		parent = walk(made, leaf, sizeof(leaf), o);
		if (parent < 0)
			return parent;
		fd = make_named(parent, leaf, 1, o->leaf, sizeof(o->leaf), o);
		close(parent);
		if (fd < 0)
			return fd;
		parent = fd; /* the job directory holds the rank's */
		snprintf(base, sizeof(base), "rank-%ld", rank->rank);
		fd = make_numbered(parent, base, 0, o->leaf, sizeof(o->leaf), o);
		set_path(o, made, fd < 0 ? base : o->leaf);
	} else if (output && *output) {
		set_path(o, output, NULL);
		parent = walk(output, leaf, sizeof(leaf), o);
		if (parent < 0)
			return parent;
		fd = make_named(parent, leaf, 0, o->leaf, sizeof(o->leaf), o);
		if (!leaf[0] || !strcmp(leaf, ".") || !strcmp(leaf, "..")) {
			close(parent); /* never removed: it was there before the run */
			parent = -1;
		} else if (fd >= 0) {
			set_path_leaf(o, output, o->leaf); /* the .N added */
		}
	} else {
		snprintf(made, sizeof(made), "memphis-%s-%d", name, (int)pid);
		parent = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0)
			return why(o, -errno, "%s", strerror(errno));
		fd = make_numbered(parent, made, 0, o->leaf, sizeof(o->leaf), o);
		set_path(o, fd < 0 ? made : o->leaf, NULL);
	}
	if (fd < 0) {
		if (parent >= 0)
			close(parent);
		return fd;
	}
	o->fd = fd;
	o->parent = parent;
	return 0;
}
