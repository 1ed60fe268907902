/* post/base/outfile.c - files written whole or not at all (outfile.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"

int mr_outfile_open(struct mr_outfile *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	o->path = path;
	o->to_stdout = !strcmp(path, "-");
	if (o->to_stdout) {
		o->f = stdout;
		return MR_EXIT_OK;
	}
	if ((size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.tmp", path) >= sizeof(o->tmp))
		return mr_error(MR_EXIT_USAGE, "output path too long: %s", path);
	o->f = fopen(o->tmp, "we");
	if (!o->f)
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", o->tmp, strerror(errno));
	return MR_EXIT_OK;
}

int mr_outfile_close(struct mr_outfile *o)
{
	if (o->to_stdout)
		return fflush(o->f) ? mr_error(MR_EXIT_DATA, "cannot write to standard output: %s",
					       strerror(errno))
				    : MR_EXIT_OK;
	if (ferror(o->f) | fclose(o->f) || rename(o->tmp, o->path)) {
		int e = errno ? errno : EIO;

		unlink(o->tmp);
		return mr_error(MR_EXIT_DATA, "cannot write %s: %s", o->path, strerror(e));
	}
	return MR_EXIT_OK;
}
