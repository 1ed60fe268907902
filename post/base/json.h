/* post/base/json.h - a tiny streaming JSON writer: correct string escaping, commas and
 * indentation handled by the writer. Nesting depth up to 32. */
#ifndef MR_JSON_H
#define MR_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mr_json {
	FILE *f;
	int depth;
	int need_comma[32];
	int after_key;
};

void mr_json_init(struct mr_json *j, FILE *f);
void mr_json_obj(struct mr_json *j);      /* { */
void mr_json_obj_end(struct mr_json *j);  /* } */
void mr_json_arr(struct mr_json *j);      /* [ */
void mr_json_arr_end(struct mr_json *j);  /* ] */
void mr_json_key(struct mr_json *j, const char *key);
void mr_json_str(struct mr_json *j, const char *s); /* NULL writes null */
void mr_json_u64(struct mr_json *j, uint64_t v);
void mr_json_i64(struct mr_json *j, int64_t v);
void mr_json_dbl(struct mr_json *j, double v);    /* non-finite values write null */
/* v thousandths written exactly with three decimals: 1234567 -> 1234.567, -5 -> -0.005
 * (nanoseconds as microseconds: mr_json_dbl's six digits would round a long run's times). */
void mr_json_milli(struct mr_json *j, int64_t v);
void mr_json_bool(struct mr_json *j, int v);
void mr_json_null(struct mr_json *j);
/* An array of the n values v[0..n), as mr_json_arr, mr_json_u64 each, mr_json_arr_end. */
void mr_json_u64_array(struct mr_json *j, const uint64_t *v, size_t n);
/* The n values v[0..n) on one line, without spaces: "[0,3,null]" (width 0), or as rows of
 * width values each, "[[0,1],[2,3]]"; a value equal to null_value is written null
 * (INT64_MIN: none). For long numeric arrays, whose one value a line would multiply the
 * size of the output by three or more. */
void mr_json_i64_line(struct mr_json *j, const int64_t *v, size_t n, size_t width,
		      int64_t null_value);

/* Write s as a quoted JSON string to f (usable without a writer): always valid UTF-8, each
 * byte of s that starts no well-formed UTF-8 sequence written as \ufffd. */
void mr_json_write_string(FILE *f, const char *s);

/* Arrays and objects inside each other that a reader of JSON from outside accepts. */
#define MR_JSON_MAX_DEPTH 512

/* Is text[0 .. n) one JSON value as RFC 8259 defines it (what a browser's JSON.parse
 * reads), white space around it allowed? 0, or -EINVAL with *off the byte offset where it
 * stops being JSON and *what the rule broken there (static text). Arrays and objects
 * nested deeper than MR_JSON_MAX_DEPTH are refused too. json_strict.c. */
int mr_json_strict(const char *text, size_t n, size_t *off, const char **what);

#endif /* MR_JSON_H */
