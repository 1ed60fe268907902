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
		fprintf(mr_cli_capture, "%s\n", mr_esc(msg));
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
		fprintf(stderr, "memphis-report: %s\n", mr_esc(msg));
	}
	return code;
}

const char *mr_esc(const char *s)
{
	static _Thread_local char bufs[4][4096];
	static _Thread_local unsigned next;
	const char *p = s;
	char *b, *o, *end;

	while (p && *p && (unsigned char)*p >= 0x20 && *p != 0x7f)
		p++;
	if (!p || !*p)
		return s;
	b = o = bufs[next++ % 4];
	end = b + sizeof(bufs[0]) - 4; /* room for "..." and the NUL */
	for (p = s; *p && o + 4 <= end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x20 && c != 0x7f)
			*o++ = (char)c;
		else if (c == '\n' || c == '\r' || c == '\t')
			o += sprintf(o, "\\%c", c == '\n' ? 'n' : c == '\r' ? 'r' : 't');
		else
			o += sprintf(o, "\\x%02x", c);
	}
	if (*p)
		for (int k = 0; k < 3; k++)
			*o++ = '.';
	*o = '\0';
	return b;
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
		fprintf(f, "%swarning: %s\n", prefix, mr_esc(run->warnings[i]));
	for (size_t i = 0; i < run->ndamage; i++)
		fprintf(f, "%sdamaged input: %s\n", prefix, mr_esc(run->damage[i]));
}

void mr_note_owner(const char *dir)
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
	if (!mr_cli_capture) /* a rank of a merged job: the job notes its directories once */
		mr_note_owner(dir);
	return run;
}
