/* post/base/infile.h - every file memphis-report reads by a name it was given: on its command
 * line (a saved report, --exe), in its environment (MEMPHIS_HTML_D3, MEMPHIS_SRC), in a
 * run directory (its files, the executables and libraries its maps name, their debug
 * files) or in debug information (a program's sources). Each is a regular file of at most
 * a stated size, opened without blocking (a FIFO named there would hang the open, a device
 * such as /dev/zero never ends), or it is refused with a reason one line can carry.
 *
 * A source file is more: its text goes into the report (the HTML page's source view, the
 * objects of a Fortran ALLOCATE), and its name comes from the program's debug information,
 * which the program's owner wrote (`#line 2 "/etc/shadow"`). So a source is read for a
 * run only when the run's owner could have read it: mr_in_open_source.
 *
 * A leaf of post/: calls only the C library. */
#ifndef MR_INFILE_H
#define MR_INFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The bounds (docs/memphis-report.1, FILES). Far above any real input, they turn a
 * sparse, runaway or hostile file into one line instead of hours of reading or the
 * out-of-memory killer. */
/* A run directory's files: read block by block (a block is at most 64 MiB), so memory
 * does not grow with the file; a 30 s allocation-heavy run writes about 1 GB. */
#define MR_IN_MAX_RUN (1ull << 40)
/* Executables, libraries and debug files: mapped by libelf, never read whole. */
#define MR_IN_MAX_ELF (64ull << 30)
/* A saved JSON report (compare, html): read whole, then parsed into json-c's tree, which
 * takes about 10 times the text; a report's size does not grow with its samples. */
#define MR_IN_MAX_JSON (256ull << 20)
/* The HTML page's own files and its charting library (d3.min.js is 242 KB). */
#define MR_IN_MAX_PAGE (16ull << 20)
/* A source file: read up to the line asked for. */
#define MR_IN_MAX_SOURCE (64ull << 20)

enum mr_in_flags {
	MR_IN_NOFOLLOW = 1, /* refuse a symbolic link (the files of a run directory) */
};

/* Open path for reading (O_CLOEXEC) when it is a regular file of at most max bytes. The
 * open itself cannot block (O_NONBLOCK, which does nothing to a regular file's reads).
 * Returns the descriptor (the caller closes it), or -errno: the open's error, -ELOOP for
 * a symbolic link under MR_IN_NOFOLLOW, -EINVAL for anything but a regular file, -EFBIG
 * for a file over max. */
int mr_in_open(const char *path, uint64_t max, int flags);

/* The whole of path (mr_in_open's checks, max bytes at most) into *buf, NUL-terminated
 * (malloc'd: the caller frees), its length in *len. Returns 0 or -errno as mr_in_open,
 * -ENOMEM, -EIO; -EFBIG also for a file that grew past max while it was read. */
int mr_in_read(const char *path, uint64_t max, char **buf, size_t *len);

/* The words for a failure of mr_in_open or mr_in_read under bound max ("not a regular
 * file (not read)", "over the 256 MiB bound (not read)", strerror): valid until the
 * calling thread's next call. */
const char *mr_in_strerror(int rc, uint64_t max);

/* Whose permissions decide which sources may be read for an input: the owner of the run
 * directory (or of the saved report) and that user's groups. */
struct mr_in_owner {
	bool known;           /* false: the owner is not known, no source is read */
	uid_t uid;
	gid_t gid;            /* of the directory or file: the group the run was written with */
	int ngroups;          /* the user's groups (passwd and group databases), gid among them */
	gid_t groups[64];
};

/* The owner of path (a run directory or a saved report) into *o; o->known false when path
 * cannot be stat'ed. */
void mr_in_owner_of(const char *path, struct mr_in_owner *o);

/* Open source file path (relative: to the working directory) as mr_in_open with
 * MR_IN_MAX_SOURCE, and only when owner o could read it: when the report runs as o's
 * user, as that user's own open decides; as another user (root reporting someone's run),
 * when the file's mode grants o's user, group or others read permission (the class that
 * applies to o, as the kernel's check takes it) and every directory of its path search
 * permission, checked on the descriptors of the path actually opened (its canonical path,
 * walked without following a link: a directory swapped for a link meanwhile is refused).
 * Access control lists are not read: a file readable only through one is refused.
 * Returns the descriptor or -errno (-EACCES: o could not read it). */
int mr_in_open_source(const struct mr_in_owner *o, const char *path);

#endif /* MR_INFILE_H */
