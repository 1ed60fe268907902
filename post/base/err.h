/* post/base/err.h - what every layer of memphis-report shares to end in error: the exit
 * codes, the one error printer (text on stderr, or a JSON object on stdout with --json)
 * and the escaping of names for a terminal. */
#ifndef MR_ERR_H
#define MR_ERR_H

#include <stdio.h>

enum mr_exit {
	MR_EXIT_OK = 0,    /* report written */
	MR_EXIT_USAGE = 1, /* bad command line */
	MR_EXIT_DATA = 2,  /* damaged or unreadable input (what was readable is printed) */
};

#define MR_JSON_SCHEMA "memphis-report/1"

/* Set by a subcommand once it has seen --json: errors are then printed as JSON. */
extern int mr_err_json;
/* The schema an error object names: MR_JSON_SCHEMA unless a subcommand has its own. */
extern const char *mr_err_schema;

/* Set in a thread that reports one rank of a job (job/job.c): mr_error writes MSG there as
 * one line, instead of printing it, for the job report to tell. */
extern _Thread_local FILE *mr_err_capture;

/* Print a fatal error: "memphis-report: MSG" on stderr, or with --json the object
 * {"schema": ..., "error": {"message": MSG, "exit": code}} on stdout; or MSG into
 * mr_err_capture when it is set. Returns code. */
int mr_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Print a usage error for subcommand cmd with a pointer to its --help. Returns 1. */
int mr_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* s made safe for a terminal: s itself when it holds no control character, else a copy
 * with each byte below 0x20 and 0x7f written \n, \r, \t or \xHH (one of 4 buffers of
 * the calling thread, used in turn: at most 4 live at once; cut at 4 KiB with "...").
 * Text output passes every name that comes from a run or a program through it (regions,
 * the program's path and command line, variables, lines, notes): a newline in one cannot
 * forge a line of the report, nor an escape sequence reach the terminal. JSON escapes by
 * itself. NULL gives NULL. */
const char *mr_esc(const char *s);

#endif /* MR_ERR_H */
