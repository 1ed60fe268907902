/* post/base/json_strict.c - whether a text from outside is JSON as RFC 8259 defines it: what a
 * browser's JSON.parse reads. json-c reads more (single quotes, comments, trailing commas,
 * NaN, Infinity, "1.", raw control characters in strings, text after the value), and a
 * page embedding such a text is blank (html.c checks a saved report with it). */
#include <errno.h>
#include <stdbool.h>

#include "json.h"

struct scan {
	const char *s;
	size_t n, i;
	const char *what; /* the first rule broken, at i */
};

static bool fail(struct scan *c, const char *what)
{
	c->what = what;
	return false;
}

static void space(struct scan *c)
{
	while (c->i < c->n && (c->s[c->i] == ' ' || c->s[c->i] == '\t' || c->s[c->i] == '\n' ||
			       c->s[c->i] == '\r'))
		c->i++;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool is_hex(char ch)
{
	return is_digit(ch) || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

/* c->s[c->i] is '"': the string, its escapes and no control character. (The bytes are
 * not checked as UTF-8: JSON.parse reads a page's text already decoded.) */
static bool string(struct scan *c)
{
	for (c->i++; c->i < c->n; c->i++) {
		unsigned char ch = (unsigned char)c->s[c->i];

		if (ch == '"') {
			c->i++;
			return true;
		}
		if (ch < 0x20)
			return fail(c, "a control character inside a string (write it \\uXXXX)");
		if (ch != '\\')
			continue;
		if (++c->i >= c->n)
			break;
		switch (c->s[c->i]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			break;
		case 'u':
			for (int k = 1; k <= 4; k++)
				if (c->i + k >= c->n || !is_hex(c->s[c->i + k]))
					return fail(c, "\\u not followed by 4 hex digits");
			c->i += 4;
			break;
		default:
			return fail(c, "an escape JSON does not have");
		}
	}
	return fail(c, "the text ends inside a string");
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool number(struct scan *c)
{
	if (c->s[c->i] == '-')
		c->i++;
	if (c->i >= c->n || !is_digit(c->s[c->i]))
		return fail(c, "a number without digits (NaN, Infinity and +1 are not JSON)");
	if (c->s[c->i] == '0' && c->i + 1 < c->n && is_digit(c->s[c->i + 1]))
		return fail(c, "a number with a leading zero");
	while (c->i < c->n && is_digit(c->s[c->i]))
		c->i++;
	if (c->i < c->n && c->s[c->i] == '.') {
		if (++c->i >= c->n || !is_digit(c->s[c->i]))
			return fail(c, "a number with no digit after its point");
		while (c->i < c->n && is_digit(c->s[c->i]))
			c->i++;
	}
	if (c->i < c->n && (c->s[c->i] == 'e' || c->s[c->i] == 'E')) {
		c->i++;
		if (c->i < c->n && (c->s[c->i] == '+' || c->s[c->i] == '-'))
			c->i++;
		if (c->i >= c->n || !is_digit(c->s[c->i]))
			return fail(c, "a number with no digit in its exponent");
		while (c->i < c->n && is_digit(c->s[c->i]))
			c->i++;
	}
	return true;
}

static bool word(struct scan *c, const char *w)
{
	size_t k = 0;

	while (w[k] && c->i + k < c->n && c->s[c->i + k] == w[k])
		k++;
	if (w[k])
		return fail(c, "a value JSON does not have (true, false, null are lower case; no "
			    "quotes but \")");
	c->i += k;
	return true;
}

static bool value(struct scan *c, int depth);

/* c->s[c->i] is open ('[' or '{'): the members up to close, no comma before it. */
static bool members(struct scan *c, int depth, char close)
{
	if (depth >= MR_JSON_MAX_DEPTH)
		return fail(c, "nested deeper than 512 arrays and objects");
	c->i++;
	space(c);
	if (c->i < c->n && c->s[c->i] == close) {
		c->i++;
		return true;
	}
	for (;;) {
		space(c);
		if (close == '}') {
			if (c->i >= c->n || c->s[c->i] != '"')
				return fail(c, c->i < c->n && c->s[c->i] == '}' ?
					       "a comma before '}'" : "an object key that is no string");
			if (!string(c))
				return false;
			space(c);
			if (c->i >= c->n || c->s[c->i] != ':')
				return fail(c, "':' expected after an object key");
			c->i++;
			space(c);
		} else if (c->i < c->n && c->s[c->i] == ']') {
			return fail(c, "a comma before ']'");
		}
		if (!value(c, depth + 1))
			return false;
		space(c);
		if (c->i < c->n && c->s[c->i] == ',') {
			c->i++;
			continue;
		}
		if (c->i < c->n && c->s[c->i] == close) {
			c->i++;
			return true;
		}
		return fail(c, c->i >= c->n ? "the text ends inside an array or object" :
			       close == '}' ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static bool value(struct scan *c, int depth)
{
	space(c);
	if (c->i >= c->n)
		return fail(c, "a value expected, the text ends");
	switch (c->s[c->i]) {
	case '{':
		return members(c, depth, '}');
	case '[':
		return members(c, depth, ']');
	case '"':
		return string(c);
	case 't':
		return word(c, "true");
	case 'f':
		return word(c, "false");
	case 'n':
		return word(c, "null");
	case '/':
		return fail(c, "a comment (JSON has none)");
	default:
		if (c->s[c->i] == '-' || is_digit(c->s[c->i]))
			return number(c);
		return fail(c, "a value expected (strings are in double quotes; NaN and Infinity "
			    "are not JSON)");
	}
}

int mr_json_strict(const char *text, size_t n, size_t *off, const char **what)
{
	struct scan c = { .s = text, .n = n };

	if (value(&c, 0)) {
		space(&c);
		if (c.i == c.n)
			return 0;
		c.what = "text after the value";
	}
	*off = c.i;
	*what = c.what;
	return -EINVAL;
}
