/* post/report/report.h - `memphis-report report` for its callers (the command, a job's
 * ranks, compare): the options and the report of one run. Its files share the internals
 * in report_impl.h. */
#ifndef MR_REPORT_H
#define MR_REPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"

struct report_opts {
	const char *dir, *exe;
	int force, json, approx, matrix, by_line;
	int by_member;            /* --by member: the variables' members and shared lines
				   * (members.h) */
	uint64_t tier_budget;     /* --tier-budget BYTES: the fast tier's room for the tier
				   * advice (0: its nodes' free memory at start) */
	int pattern, advice;      /* --pattern (the pattern data in the JSON), --advice
				   * (implies pattern): pattern.h, advice.h */
	enum mr_agg_mode mode;
	size_t top;               /* groups per table and items per group, 0 = all */
	const char **regions;     /* --region names (point into argv) */
	size_t nregions;
	size_t jobs;              /* --jobs: threads of the sample pass, 0 = the default */
	/* MPI jobs (job/job.h): */
	char *const *dirs;        /* several run directories on the command line: one job */
	size_t ndirs;             /* (dirs[0] is dir); 0 or 1: dir alone */
	int by_rank;              /* --by rank: the job's tables per rank, not per host */
	int one_rank;             /* --rank N: rank N of the job only, N in rank */
	long rank;
	pthread_mutex_t *open_lock; /* held while the run and its objects are opened (the
				   * DWARF reader forks; libdwarf and libelf are not known
				   * thread-safe): several ranks reported at once (job/job.c) */
	const char *html;         /* --html FILE: write the HTML page there (html/html.h) */
	enum report_format {
		REPORT_TEXT, REPORT_JSON,
		REPORT_PPROF,     /* profile.proto, gzip'd (report_pprof.c, docs/export.md) */
		REPORT_TRACE,     /* Chrome trace event JSON (report_trace.c, docs/export.md) */
	} format;                 /* --format; --json is --format json (json is set too) */
	const char *output;       /* -o FILE: where pprof and trace go ("-": standard output) */
	int pprof_code;           /* --pprof-view code: stacks of code, the variable a label */
};

#define MR_MAX_JOBS 256

/* Run the report of o->dir with options *o (o->regions stays the caller's) and print it
 * on out: the text, or with o->json the JSON object. Errors are printed by mr_error.
 * Returns the exit status (MR_EXIT_DATA also after a report of a damaged run). */
int report_run(const struct report_opts *o, FILE *out);

/* The text report's last line on f: "Next: memphis-report report --html PAGE DIR writes a
 * page ...; more here: MORE (all options: --help)", DIR (the run or job directory the user
 * gave, NULL for several run directories: "RUNDIR...") as one shell word, PAGE its last
 * name + ".html" as `--html DIR` would write it ("job.html" without a DIR). */
void report_next_line(FILE *f, const char *dir, const char *more);

/* The help of `report` (its --help, and `memphis-report help report`). */
void mr_help_report(FILE *f);

/* Parse the command line of `report` into *o (o->regions is malloc'd: free it). Returns
 * true when the report should run; false when the command is over (--help printed, or a
 * usage error printed) with its exit status in *exit_code. */
bool report_parse_options(struct report_opts *o, int argc, char **argv, int *exit_code);

/* Threads asked for: --jobs, else MEMPHIS_REPORT_JOBS, else the online CPUs; 1 ..
 * MR_MAX_JOBS. */
size_t report_jobs(const struct report_opts *o);

#endif /* MR_REPORT_H */
