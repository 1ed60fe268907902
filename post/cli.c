/* post/cli.c - the error printer and helpers shared by the subcommands. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>

#include "json.h"

int mr_cli_json;
const char *mr_cli_schema = MR_JSON_SCHEMA;
_Thread_local FILE *mr_cli_capture;

int mr_error(int code, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mr_cli_capture) {
		fprintf(mr_cli_capture, "%s\n", msg);
	} else if (mr_cli_json) {
		struct mr_json j;

		mr_json_init(&j, stdout);
		mr_json_obj(&j);
		mr_json_key(&j, "schema");
		mr_json_str(&j, mr_cli_schema);
		mr_json_key(&j, "error");
		mr_json_obj(&j);
		mr_json_key(&j, "message");
		mr_json_str(&j, msg);
		mr_json_key(&j, "exit");
		mr_json_i64(&j, code);
		mr_json_obj_end(&j);
		mr_json_obj_end(&j);
		fflush(stdout);
	} else {
		fprintf(stderr, "memphis-report: %s\n", msg);
	}
	return code;
}

int mr_usage(const char *cmd, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return mr_error(MR_EXIT_USAGE, "%s%s%s (see memphis-report %s%s--help)", cmd ? cmd : "",
			cmd ? ": " : "", msg, cmd ? cmd : "", cmd ? " " : "");
}

void mr_print_problems(const struct mr_run *run, FILE *f, const char *prefix)
{
	for (size_t i = 0; i < run->nwarnings; i++)
		fprintf(f, "%swarning: %s\n", prefix, run->warnings[i]);
	for (size_t i = 0; i < run->ndamage; i++)
		fprintf(f, "%sdamaged input: %s\n", prefix, run->damage[i]);
}

struct mr_run *mr_open_run(const char *dir)
{
	struct mr_run *run = NULL;
	char err[1024];

	if (mr_run_open(dir, &run, err, sizeof(err)) < 0) {
		mr_error(MR_EXIT_DATA, "%s", err);
		return NULL;
	}
	return run;
}
