/* post/json.c - streaming JSON writer (see json.h). */
#include "json.h"

#include <inttypes.h>
#include <math.h>

void mr_json_init(struct mr_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->need_comma[0] = 0;
	j->after_key = 0;
}

/* Separator and indentation before a value or key at the current depth. */
static void pre(struct mr_json *j)
{
	if (j->after_key) {
		j->after_key = 0;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	if (j->depth > 0) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	j->need_comma[j->depth] = 1;
}

static void open_(struct mr_json *j, int c)
{
	pre(j);
	fputc(c, j->f);
	if (j->depth < 31)
		j->depth++;
	j->need_comma[j->depth] = 0;
}

static void close_(struct mr_json *j, int c)
{
	int had = j->need_comma[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had) {
		fputc('\n', j->f);
		for (int i = 0; i < j->depth; i++)
			fputs("  ", j->f);
	}
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void mr_json_obj(struct mr_json *j) { open_(j, '{'); }
void mr_json_obj_end(struct mr_json *j) { close_(j, '}'); }
void mr_json_arr(struct mr_json *j) { open_(j, '['); }
void mr_json_arr_end(struct mr_json *j) { close_(j, ']'); }

void mr_json_write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f); /* UTF-8 passes through; bytes >= 0x80 unchanged */
		}
	}
	fputc('"', f);
}

void mr_json_key(struct mr_json *j, const char *key)
{
	pre(j);
	mr_json_write_string(j->f, key);
	fputs(": ", j->f);
	j->after_key = 1;
}

void mr_json_str(struct mr_json *j, const char *s)
{
	pre(j);
	if (s)
		mr_json_write_string(j->f, s);
	else
		fputs("null", j->f);
}

void mr_json_u64(struct mr_json *j, uint64_t v)
{
	pre(j);
	fprintf(j->f, "%" PRIu64, v);
}

void mr_json_i64(struct mr_json *j, int64_t v)
{
	pre(j);
	fprintf(j->f, "%" PRId64, v);
}

void mr_json_dbl(struct mr_json *j, double v)
{
	pre(j);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void mr_json_bool(struct mr_json *j, int v)
{
	pre(j);
	fputs(v ? "true" : "false", j->f);
}

void mr_json_null(struct mr_json *j)
{
	pre(j);
	fputs("null", j->f);
}
