/* post/base/outfile.h - a file the report writes whole or not at all: a temporary file
 * beside it (FILE.XXXXXX), renamed over FILE once complete (a failure removes it and leaves
 * FILE as it was); "-" is standard output. For --html, --format pprof and --format trace. */
#ifndef MR_OUTFILE_H
#define MR_OUTFILE_H

#include <limits.h>
#include <stdio.h>

struct mr_outfile {
	FILE *f;            /* write here between open and close */
	const char *path;
	char tmp[PATH_MAX];
	int to_stdout;
	int quiet;          /* mr_outfile_open_private's: no message on failure */
};

/* Open path ("-": standard output) for writing into o->f. Returns MR_EXIT_OK, or the exit
 * status after printing the error (naming the file). */
int mr_outfile_open(struct mr_outfile *o, const char *path);

/* mr_outfile_open for a file of the report's own (a cache): mode 0600 whatever the umask,
 * and no message on failure, here or at mr_outfile_close. MR_EXIT_OK or MR_EXIT_DATA. */
int mr_outfile_open_private(struct mr_outfile *o, const char *path);

/* Finish: flush, close and rename into place, or remove the partial file. Returns
 * MR_EXIT_OK, or the exit status after printing the error (naming the file). */
int mr_outfile_close(struct mr_outfile *o);

/* Give up after a failure of the caller's own (printed by it): the temporary file goes. */
void mr_outfile_abandon(struct mr_outfile *o);

#endif /* MR_OUTFILE_H */
