/* post/cli.c - the error printer and helpers shared by the subcommands. */
#include "cli.h"

#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* One line on stderr, not an error, when the run directory is another user's (the library
 * makes runs private, 0700: someone gave it to us, or we read it as root): what it names,
 * the binaries and their sources included, is what that user wrote there. */
static void note_owner(const char *dir)
{
	struct stat st;
	struct passwd *pw;
	char shown[256];
	size_t i;

	if (stat(dir, &st) < 0 || st.st_uid == geteuid())
		return;
	for (i = 0; dir[i] && i < sizeof(shown) - 1; i++)
		shown[i] = (unsigned char)dir[i] < 0x20 || dir[i] == 0x7f ? '?' : dir[i];
	shown[i] = 0;
	pw = getpwuid(st.st_uid);
	fprintf(stderr, "memphis-report: note: %s%s belongs to user %s (uid %u), not to you: "
		"what it holds was written by that user's processes\n", shown, dir[i] ? "..." : "",
		pw ? pw->pw_name : "?", (unsigned)st.st_uid);
}

struct mr_run *mr_open_run(const char *dir)
{
	struct mr_run *run = NULL;
	char err[1024];

	if (mr_run_open(dir, &run, err, sizeof(err)) < 0) {
		mr_error(MR_EXIT_DATA, "%s", err);
		return NULL;
	}
	note_owner(dir);
	return run;
}
