/* lib/outdir.h - where the run directory goes: MEMPHIS_OUTPUT's path or the default
 * name, made private (0700, the umask may only narrow it), never through a symbolic link
 * another user owns, never into a directory that holds other files. Used by the writer
 * alone, where it opens the run (the I/O thread). Below it: rank.
 *
 * The rule (docs/format.md, "Where a run is written"):
 * - no MEMPHIS_OUTPUT: memphis-EXE-PID in the working directory, or .1 .. .99 after it
 *   when that exists (an exec'd image of the same program keeps the pid);
 * - MEMPHIS_OUTPUT=DIR: DIR is made; an existing DIR is used only when it is the user's
 *   and empty; when it holds a run of memphis (meta.mph: an earlier run, or the image
 *   before an exec), DIR.1, DIR.2, ... up to .99 is made instead; any other existing
 *   directory ("." and "/" included) is refused: the line says so, nothing is sampled.
 *   The directories on DIR's way must exist; a symbolic link on the way is followed only
 *   when the user or root owns it; DIR itself is never a link;
 * - a rank of a parallel job: rank-R (rank-R.1 ...) in its job directory (DIR, or
 *   memphis-EXE-job-JOBID), made by the first rank or used when the user's and empty or
 *   holding only ranks' directories (the ranks of a job, one user, make theirs there).
 */
#ifndef MEMPHIS_OUTDIR_H
#define MEMPHIS_OUTDIR_H

#include <sys/types.h>

struct memphis__rank;

struct memphis__outdir {
	int fd;             /* the run directory (O_RDONLY), or -1 */
	int parent;         /* the directory holding it (to remove it when the run left
			     * nothing: the writer's close), -1 when it must stay (".") */
	char leaf[256];     /* its name in parent */
	char path[4096];    /* the path shown to the user (as given, .N added) */
	char why[256];      /* why it could not be made, for the one line */
};

/* Make (or take, by the rule above) the run directory of this process: o->fd and
 * o->parent are plain descriptors the caller takes (fd.h). `exe_name` is sanitised for
 * the default names ([A-Za-z0-9._-], anything else '_'). 0, or -errno with o->why and
 * o->path set and no descriptor left open. */
int memphis__outdir_make(const char *output_or_empty, const char *exe_name,
			 const struct memphis__rank *rank, pid_t pid, struct memphis__outdir *o);

#endif /* MEMPHIS_OUTDIR_H */
