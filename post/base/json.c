/* post/base/json.c - streaming JSON writer (see json.h). */
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

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF), 0 when p does not start one. */
static size_t utf8_len(const unsigned char *p)
{
	unsigned c = p[0];
	size_t n;
	unsigned lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/* JSON text is UTF-8 (RFC 8259): names from the run (region names cut at a byte limit,
 * paths, symbols) may not be; each byte that starts no well-formed sequence becomes
 * U+FFFD. */
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
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				size_t n = utf8_len(p);
				if (n) {
					fwrite(p, 1, n, f);
					p += n - 1;
				} else {
					fputs("\\ufffd", f);
				}
			}
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

void mr_json_u64_array(struct mr_json *j, const uint64_t *v, size_t n)
{
	mr_json_arr(j);
	for (size_t i = 0; i < n; i++)
		mr_json_u64(j, v[i]);
	mr_json_arr_end(j);
}

void mr_json_i64_line(struct mr_json *j, const int64_t *v, size_t n, size_t width,
		      int64_t null_value)
{
	pre(j);
	fputc('[', j->f);
	for (size_t i = 0; i < n; i++) {
		if (width && i % width == 0)
			fputs(i ? ",[" : "[", j->f);
		else if (i)
			fputc(',', j->f);
		if (v[i] == null_value && null_value != INT64_MIN)
			fputs("null", j->f);
		else
			fprintf(j->f, "%" PRId64, v[i]);
		if (width && (i + 1) % width == 0)
			fputc(']', j->f);
	}
	fputc(']', j->f);
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

void mr_json_milli(struct mr_json *j, int64_t v)
{
	uint64_t a = v < 0 ? -(uint64_t)v : (uint64_t)v;

	pre(j);
	fprintf(j->f, "%s%" PRIu64 ".%03" PRIu64, v < 0 ? "-" : "", a / 1000, a % 1000);
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
