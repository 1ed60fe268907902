/* post/cmd.h - the subcommands of memphis-report, for main.c's table. Each prints its own
 * errors (base/err.h) and returns the exit status. */
#ifndef MR_CMD_H
#define MR_CMD_H

#include <stdio.h>

struct mr_cmd {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
	void (*help)(FILE *f);
};

int mr_cmd_report(int argc, char **argv); /* its help, mr_help_report: report/report.h */
int mr_cmd_dump(int argc, char **argv);
void mr_help_dump(FILE *f);
int mr_cmd_compare(int argc, char **argv);
void mr_help_compare(FILE *f);
int mr_cmd_html(int argc, char **argv);
void mr_help_html(FILE *f);
int mr_cmd_plan(int argc, char **argv);
void mr_help_plan(FILE *f);
int mr_cmd_tune(int argc, char **argv);
void mr_help_tune(FILE *f);

#endif /* MR_CMD_H */
