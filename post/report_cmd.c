/* post/report_cmd.c - the command `memphis-report report`: its options, then the report
 * of one run (report.c) or of an MPI job (job.c), as text, JSON or an HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cmd.h"
#include "html/html.h"
#include "job/job.h"

/* --html FILE: the JSON report (as --json) in memory, then the page around it. A damaged
 * run still gets its page (its damage listed), with exit status 2. */
static int run_html(struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int rc, page_rc;

	if (!mem)
		return mr_error(MR_EXIT_DATA, "out of memory");
	o->json = 1;
	o->advice = o->pattern = o->by_member = 1; /* the views draw them */
	rc = job_report_run(o, mem);
	if (fclose(mem)) {
		free(buf);
		return mr_error(MR_EXIT_DATA, "out of memory");
	}
	page_rc = len && (rc == MR_EXIT_OK || rc == MR_EXIT_DATA) ?
			  html_write_page(o->html, buf, len, o->dir) : rc;
	free(buf);
	return page_rc != MR_EXIT_OK ? page_rc : rc;
}

int mr_cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	if (report_parse_options(&o, argc, argv, &rc))
		rc = o.html ? run_html(&o) : job_report_run(&o, stdout);
	free(o.regions);
	return rc;
}
