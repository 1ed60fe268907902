/* post/report_cmd.c - the command `memphis-report report`: its options, then the report
 * of one run (report.c) or of an MPI job (job.c). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "job.h"

int mr_cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	if (report_parse_options(&o, argc, argv, &rc))
		rc = job_report_run(&o, stdout);
	free(o.regions);
	return rc;
}
