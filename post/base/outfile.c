/* post/base/outfile.c - files written whole or not at all (outfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"

/* A file of its own beside path (two reports writing one file do not mix) into o->f:
 * mode 0600 (mkstemp's), or with shared set the mode a new file gets. 0, -ENAMETOOLONG, or
 * -errno. */
static int open_beside(struct mr_outfile *o, const char *path, int shared)
{
	mode_t mask = 0;
	int fd;

	o->path = path;
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path) >= sizeof(o->tmp))
		return -ENAMETOOLONG;
	if (shared) {
		mask = umask(0);
		umask(mask);
	}
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return -errno;
	if ((shared && fchmod(fd, 0666 & ~mask)) || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		return -e;
	}
	return 0;
}

int mr_outfile_open(struct mr_outfile *o, const char *path)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->to_stdout = !strcmp(path, "-");
	if (o->to_stdout) {
		o->path = path;
		o->f = stdout;
		return MR_EXIT_OK;
	}
	rc = open_beside(o, path, 1);
	if (rc == -ENAMETOOLONG)
		return mr_error(MR_EXIT_USAGE, "output path too long: %s", path);
	if (rc)
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", path, strerror(-rc));
	return MR_EXIT_OK;
}

int mr_outfile_open_private(struct mr_outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->quiet = 1;
	return open_beside(o, path, 0) ? MR_EXIT_DATA : MR_EXIT_OK;
}

int mr_outfile_close(struct mr_outfile *o)
{
	errno = 0;
	if (o->to_stdout)
		return fflush(o->f) ? mr_error(MR_EXIT_DATA, "cannot write to standard output: %s",
					       strerror(errno ? errno : EIO))
				    : MR_EXIT_OK;
	if (ferror(o->f) | fclose(o->f) || rename(o->tmp, o->path)) {
		int e = errno ? errno : EIO;

		unlink(o->tmp);
		if (o->quiet)
			return MR_EXIT_DATA;
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", o->path, strerror(e));
	}
	return MR_EXIT_OK;
}

void mr_outfile_abandon(struct mr_outfile *o)
{
	if (o->to_stdout)
		return;
	fclose(o->f);
	unlink(o->tmp);
}
