/* post/job/job.h - the report of an MPI job (issue 19) for its callers: a job directory
 * (rank-<r>/ run directories, docs/format.md "MPI jobs") or several run directories given
 * together, reported merged over its ranks. Its files share the internals in job_impl.h. */
#ifndef MR_JOB_H
#define MR_JOB_H

#include <stdbool.h>
#include <stdio.h>

#include "report/report.h"

/* Is dir a job directory: no meta.mph in it, and a rank-<r> subdirectory? */
bool job_is_dir(const char *dir);

/* The report of o on out: a job (o->ndirs > 1, or o->dir a job directory) merged over its
 * ranks (--rank N: that rank's own report), else report_run(o, out). Errors are printed
 * by mr_error. Returns the exit status. */
int job_report_run(const struct report_opts *o, FILE *out);

#endif /* MR_JOB_H */
