/* post/main.c - memphis-report: the command table. `memphis-report RUNDIR` is
 * `memphis-report report RUNDIR`. */
#include <stdio.h>
#include <string.h>

#include <memphis.h>
#include <memphis/format.h>

#include "base/err.h"
#include "cmd.h"
#include "report/report.h"

static const struct mr_cmd cmds[] = {
	{ "report", "per-node tables of the variables behind remote accesses (default)",
	  mr_cmd_report, mr_help_report },
	{ "dump", "the run's metadata and one line per sample", mr_cmd_dump, mr_help_dump },
	{ "compare", "before/after: remote shares per node and variable, with a verdict",
	  mr_cmd_compare, mr_help_compare },
	{ "html", "the report as one self-contained HTML page with its views",
	  mr_cmd_html, mr_help_html },
	{ "plan", "the placement plan `memphis apply` carries out, from a run's advice",
	  mr_cmd_plan, mr_help_plan },
	{ "tune", "the judgement of a `memphis tune` directory: each placement's promise kept?",
	  mr_cmd_tune, mr_help_tune },
};

static void help(FILE *f)
{
	fprintf(f, "usage: memphis-report [report] RUNDIR [OPTIONS]\n"
		   "       memphis-report [report] JOBDIR | RUNDIR RUNDIR... [OPTIONS]  (an MPI job)\n"
		   "       memphis-report COMMAND --help\n"
		   "       memphis-report --version\n\n"
		   "Reads a run directory written by libmemphis and says which program variables\n"
		   "caused remote NUMA accesses, per node, with their source lines.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nExit status: 0 ok, 1 bad usage, 2 damaged or unreadable input.\n"
		   "See memphis-report(1).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return MR_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		if (argc > 2 && strcmp(argv[1], "help") == 0) {
			for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
				if (!strcmp(argv[2], cmds[i].name)) {
					cmds[i].help(stdout);
					return MR_EXIT_OK;
				}
		}
		help(stdout);
		return MR_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("memphis-report %d.%d.%d (run-directory format %u)\n", MEMPHIS_VERSION_MAJOR,
		       MEMPHIS_VERSION_MINOR, MEMPHIS_VERSION_PATCH, MEMPHIS_FORMAT_VERSION);
		return MR_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].run(argc - 1, argv + 1);
	/* memphis-report RUNDIR [OPTIONS] */
	argv[0] = "report";
	return mr_cmd_report(argc, argv);
}
