/* post/base/err.c - the error printer of every layer of memphis-report (err.h). */
#include "err.h"

#include <stdarg.h>

#include "json.h"

int mr_err_json;
const char *mr_err_schema = MR_JSON_SCHEMA;
_Thread_local FILE *mr_err_capture;

int mr_error(int code, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mr_err_capture) {
		fprintf(mr_err_capture, "%s\n", mr_esc(msg));
	} else if (mr_err_json) {
		struct mr_json j;

		mr_json_init(&j, stdout);
		mr_json_obj(&j);
		mr_json_key(&j, "schema");
		mr_json_str(&j, mr_err_schema);
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
