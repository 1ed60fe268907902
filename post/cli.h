/* post/cli.h - what the subcommands of memphis-report share: exit codes, the one error
 * printer (text on stderr, or a JSON object on stdout with --json), the subcommands. */
#ifndef MR_CLI_H
#define MR_CLI_H

#include <stdio.h>

#include "rundir.h"

enum mr_exit {
	MR_EXIT_OK = 0,    /* report written */
	MR_EXIT_USAGE = 1, /* bad command line */
	MR_EXIT_DATA = 2,  /* damaged or unreadable input (what was readable is printed) */
};

#define MR_JSON_SCHEMA "memphis-report/1"

/* Set by a subcommand once it has seen --json: errors are then printed as JSON. */
extern int mr_cli_json;
/* The schema an error object names: MR_JSON_SCHEMA unless a subcommand has its own. */
extern const char *mr_cli_schema;

/* Set in a thread that reports one rank of a job (job.c): mr_error writes MSG there as
 * one line, instead of printing it, for the job report to tell. */
extern _Thread_local FILE *mr_cli_capture;

/* Print a fatal error: "memphis-report: MSG" on stderr, or with --json the object
 * {"schema": ..., "error": {"message": MSG, "exit": code}} on stdout; or MSG into
 * mr_cli_capture when it is set. Returns code. */
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

/* Print the damage and warning messages of run on stderr (text mode). */
void mr_print_problems(const struct mr_run *run, FILE *f, const char *prefix);

/* One line on stderr, not an error, when the directory dir is another user's (the library
 * makes runs private, 0700: someone gave it to us, or we read it as root): what it names,
 * the binaries and their sources included, is what that user wrote there. */
void mr_note_owner(const char *dir);

/* Open a run directory, printing the error itself and mr_note_owner's line (not for a rank
 * of a merged job). Returns the run or NULL (exit code 2). */
struct mr_run *mr_open_run(const char *dir);

struct mr_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	void (*help)(FILE *f);
};

int mr_cmd_report(int argc, char **argv);
void mr_help_report(FILE *f);
int mr_cmd_dump(int argc, char **argv);
void mr_help_dump(FILE *f);
int mr_cmd_compare(int argc, char **argv);
void mr_help_compare(FILE *f);
int mr_cmd_html(int argc, char **argv);
void mr_help_html(FILE *f);

#endif /* MR_CLI_H */
