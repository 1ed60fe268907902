/* tests/unit/unit_json.c - the JSON writer of memphis-report (post/base/json.c): string escaping, full
 * uint64, empty arrays, commas and closing, valid UTF-8 out of any bytes, the one-line
 * arrays of the pattern data; the strict check of JSON from outside (post/base/json_strict.c),
 * case by case. TAP output. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"

#include "tap.h"

static void test_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct mr_json j;

	if (!f) {
		ok(0, "json: memstream");
		return;
	}
	mr_json_init(&j, f);
	mr_json_obj(&j);
	mr_json_key(&j, "s");
	mr_json_str(&j, "a\"b\\c\nd\te\x01" "f/\xc3\xa9");
	mr_json_key(&j, "n");
	mr_json_u64(&j, UINT64_MAX);
	mr_json_key(&j, "a");
	mr_json_arr(&j);
	mr_json_arr_end(&j);
	mr_json_key(&j, "z");
	mr_json_null(&j);
	mr_json_obj_end(&j);
	fclose(f);
	ok(strstr(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001f/\xc3\xa9\"") != NULL, "json: string escaping");
	ok(strstr(buf, "18446744073709551615") != NULL, "json: full uint64");
	ok(strstr(buf, "\"a\": []") != NULL, "json: empty array");
	ok(strstr(buf, "\"z\": null\n}") != NULL, "json: commas and closing");
	free(buf);
}

/* One string through mr_json_write_string, in a malloc'd buffer (NULL on failure). */
static char *json_string(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	mr_json_write_string(f, s);
	fclose(f);
	return buf;
}

/* JSON text must be valid UTF-8 (issue 11): a region name cut inside a character, stray
 * bytes, overlong forms and surrogates become U+FFFD; well-formed UTF-8 passes through. */
static void test_json_utf8(void)
{
	static const struct { const char *in, *out, *what; } cases[] = {
		{ "ab\xc3\xa9", "\"ab\xc3\xa9\"", "2-byte character kept" },
		{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xe2\x82\xac\xf0\x9f\x98\x80\"", "3- and 4-byte kept" },
		{ "name\xc3", "\"name\\ufffd\"", "cut after a lead byte" },
		{ "x\xe2\x82", "\"x\\ufffd\\ufffd\"", "cut inside a 3-byte character" },
		{ "\x80z", "\"\\ufffdz\"", "stray continuation byte" },
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "overlong form" },
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "surrogate" },
		{ "\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "above U+10FFFF" },
		{ "\xff", "\"\\ufffd\"", "0xff" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = json_string(cases[i].in);
		ok(got && !strcmp(got, cases[i].out), "json utf-8: %s", cases[i].what);
		free(got);
	}
}

/* mr_json_i64_line: flat with nulls, rows, empty, and in an object with commas. */
static void test_json_line(void)
{
	const int64_t v[] = { 0, 3, -1, 7, -2, 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct mr_json j;

	if (!f) {
		ok(0, "json line: memstream");
		return;
	}
	mr_json_init(&j, f);
	mr_json_obj(&j);
	mr_json_key(&j, "flat");
	mr_json_i64_line(&j, v, 6, 0, -1);
	mr_json_key(&j, "rows");
	mr_json_i64_line(&j, v, 6, 3, INT64_MIN);
	mr_json_key(&j, "none");
	mr_json_i64_line(&j, v, 0, 4, INT64_MIN);
	mr_json_obj_end(&j);
	fclose(f);
	ok(strstr(buf, "\"flat\": [0,3,null,7,-2,5],\n") != NULL, "json line: flat, -1 as null");
	ok(strstr(buf, "\"rows\": [[0,3,-1],[7,-2,5]],\n") != NULL, "json line: rows of 3");
	ok(strstr(buf, "\"none\": []\n}") != NULL, "json line: empty, then the closing");
	free(buf);
}

/* mr_json_strict: RFC 8259 only, what json-c reads beyond it refused at its offset. */
static void test_json_strict(void)
{
	static const struct {
		int line;
		const char *text;
		long off; /* -1: accepted */
	} cases[] = {
		{ __LINE__, "{\"a\": [1, -2.5e+3, 0, true, false, null, \"x\\u00e9\\n\"]}", -1 },
		{ __LINE__, " \t[]\t ", -1 },
		{ __LINE__, "\"\xc3\xa9\"", -1 },
		{ __LINE__, "0", -1 },
		{ __LINE__, "{}", -1 },
		{ __LINE__, "", 0 },
		{ __LINE__, "{'a': 1}", 1 },
		{ __LINE__, "[1, 2,]", 6 },
		{ __LINE__, "{\"a\": 1,}", 8 },
		{ __LINE__, "{\"a\": 1} // c", 9 },
		{ __LINE__, "[1 /* c */]", 3 },
		{ __LINE__, "[NaN]", 1 },
		{ __LINE__, "[-Infinity]", 2 },
		{ __LINE__, "[True]", 1 },
		{ __LINE__, "[01]", 1 },
		{ __LINE__, "[1.]", 3 },
		{ __LINE__, "[.5]", 1 },
		{ __LINE__, "[+1]", 1 },
		{ __LINE__, "[1e]", 3 },
		{ __LINE__, "[\"a\tb\"]", 3 },
		{ __LINE__, "[\"\\x41\"]", 3 },
		{ __LINE__, "[\"\\u12G4\"]", 3 },
		{ __LINE__, "[\"abc", 5 },
		{ __LINE__, "{\"a\" 1}", 5 },
		{ __LINE__, "[1 2]", 3 },
		{ __LINE__, "{} {}", 3 },
		{ __LINE__, "[1", 2 },
	};
	char deep[2 * MR_JSON_MAX_DEPTH + 3];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t off = 0;
		const char *what = NULL;
		int rc = mr_json_strict(cases[i].text, strlen(cases[i].text), &off, &what);

		tap(cases[i].off < 0 ? rc == 0 : rc == -EINVAL && (long)off == cases[i].off && what,
		    cases[i].line, "strict: '%s' %s (got %d at %zu: %s)", cases[i].text,
		    cases[i].off < 0 ? "accepted" : "refused", rc, off, what ? what : "");
	}
	/* nesting: MR_JSON_MAX_DEPTH arrays accepted, one more refused */
	for (int extra = 0; extra < 2; extra++) {
		size_t n = MR_JSON_MAX_DEPTH + (size_t)extra, off;
		const char *what;

		memset(deep, '[', n);
		memset(deep + n, ']', n);
		ok(!mr_json_strict(deep, 2 * n, &off, &what) == !extra,
		   "strict: %zu nested arrays %s", n, extra ? "refused" : "accepted");
	}
}

int main(void)
{
	test_json();
	test_json_line();
	test_json_utf8();
	test_json_strict();
	return tap_done();
}
