/* post/base/outfile.c - files written whole or not at all (outfile.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"

int mr_outfile_open(struct mr_outfile *o, const char *path)
{
	mode_t mask;
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->to_stdout = !strcmp(path, "-");
	if (o->to_stdout) {
		o->f = stdout;
		return MR_EXIT_OK;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path) >= sizeof(o->tmp))
		return mr_error(MR_EXIT_USAGE, "output path too long: %s", path);
	/* a name of its own beside the file (two reports writing one file do not mix), with
	 * the mode a new file gets: mkstemp makes it 0600 */
	mask = umask(0);
	umask(mask);
	fd = mkstemp(o->tmp);
	if (fd < 0)
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", path, strerror(errno));
	if (fchmod(fd, 0666 & ~mask) || !(o->f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		unlink(o->tmp);
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", path, strerror(e));
	}
	return MR_EXIT_OK;
}

int mr_outfile_open_private(struct mr_outfile *o, const char *path)
{
	int fd;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->quiet = 1;
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.XXXXXX", path) >= sizeof(o->tmp))
		return MR_EXIT_DATA;
	fd = mkstemp(o->tmp); /* 0600 */
	if (fd < 0)
		return MR_EXIT_DATA;
	if (!(o->f = fdopen(fd, "w"))) {
		close(fd);
		unlink(o->tmp);
		return MR_EXIT_DATA;
	}
	return MR_EXIT_OK;
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
