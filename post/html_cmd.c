/* post/html_cmd.c - `memphis-report html -o FILE RUNDIR [report options]`: the same as
 * `memphis-report RUNDIR --html FILE [report options]`; or `html -o FILE REPORT.json`: the
 * page of a report saved with --json (its source text is read here, when readable). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/infile.h"
#include "cmd.h"
#include "html/html.h"

void mr_help_html(FILE *f)
{
	fprintf(f,
		"usage: memphis-report html -o FILE RUNDIR [report options]\n"
		"       memphis-report html -o FILE REPORT.json\n\n"
		"Writes one self-contained HTML page (data, script and style inlined; it makes no\n"
		"request) with the report and its views: the run header, the per-node tables,\n"
		"and per variable the node x node matrix, the home nodes of its pages, the thread x\n"
		"page-block matrix, the time x address map, its top source lines and the advice.\n"
		"RUNDIR is read as by `memphis-report report` with the same options (--html FILE\n"
		"there does the same); REPORT.json is a report saved with --json. docs/html.md.\n\n"
		"Options:\n"
		"  -o, --output FILE  the page ('-': standard output)\n"
		"  -h, --help         this text\n\n"
		"Exit status: 0 ok, 1 bad usage, 2 damaged or unreadable input (the page of a\n"
		"damaged run is still written), missing template or charting library.\n");
}

/* The page of the saved report at path. */
static int from_json(const char *out, const char *path)
{
	char *buf;
	size_t len;
	int rc = mr_in_read(path, MR_IN_MAX_JSON, &buf, &len);

	if (rc)
		return mr_error(MR_EXIT_DATA, "cannot read %s: %s", path,
				mr_in_strerror(rc, MR_IN_MAX_JSON));
	rc = html_write_page(out, buf, len, path);
	free(buf);
	return rc;
}

/* Is arg a report option whose value is the next argument (report_options.c)? */
static bool takes_value(const char *arg)
{
	static const char *const opts[] = { "--region", "--top", "--by", "--exe", "--jobs", "-j",
					     "--html", NULL };

	for (size_t i = 0; opts[i]; i++)
		if (!strcmp(arg, opts[i]))
			return true;
	return false;
}

/* argv: "html" and its arguments. -o FILE is taken out, the rest goes to the report. */
int mr_cmd_html(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 3, sizeof(*args));
	const char *out = NULL, *input = NULL;
	int n = 0, rc;
	struct stat st;

	if (!args)
		return mr_error(MR_EXIT_DATA, "out of memory");
	args[n++] = "report";
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			free(args);
			mr_help_html(stdout);
			return MR_EXIT_OK;
		} else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (++i == argc) {
				free(args);
				return mr_usage("html", "%s needs an argument", argv[i - 1]);
			}
			out = argv[i];
		} else {
			if (argv[i][0] != '-' && !input)
				input = argv[i];
			args[n++] = argv[i];
			if (takes_value(argv[i]) && i + 1 < argc) /* its value is no input */
				args[n++] = argv[++i];
		}
	}
	if (!out)
		rc = mr_usage("html", "missing -o FILE");
	else if (input && stat(input, &st) == 0 && S_ISREG(st.st_mode))
		rc = n == 2 ? from_json(out, input) :
			      mr_usage("html", "a saved report takes no report options");
	else {
		args[n++] = "--html";
		args[n++] = (char *)out;
		rc = mr_cmd_report(n, args);
	}
	free(args);
	return rc;
}
