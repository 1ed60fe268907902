/* tests/fuzz/fuzz_html_source.c - libFuzzer entry for the HTML page's source reader
 * (post/html/html_source.c): the input is the text of a report given to `memphis-report html -o
 * PAGE REPORT.json`, which may be anything; it names lines ("FILE:LINE") and an executable
 * that html_sources reads. Checks, besides ASan/UBSan: the result is an object whose every
 * member has a path, its line among its text lines (3 at most before it), the text as
 * strings; everything frees cleanly. Built by `make fuzz`, run by t_fuzz.sh. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include <json-c/json.h>

#include "html/html.h"
#include "base/infile.h"

/* member k of o as an int64 (0 when absent or not a number) */
static int64_t int_of(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_int) ?
		       json_object_get_int64(v) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *report, *sources;
	struct mr_in_owner me;

	if (!tok || size > INT_MAX) {
		json_tokener_free(tok);
		return 0;
	}
	report = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!report)
		return 0;
	mr_in_owner_of(".", &me);
	sources = html_sources(report, &me);
	if (!sources || !json_object_is_type(sources, json_type_object))
		abort();
	json_object_object_foreach(sources, name, src) {
		struct json_object *text, *path;
		int64_t line = int_of(src, "line"), first = int_of(src, "first");

		(void)name;
		if (!json_object_object_get_ex(src, "text", &text) ||
		    !json_object_is_type(text, json_type_array) ||
		    !json_object_object_get_ex(src, "path", &path) ||
		    !json_object_is_type(path, json_type_string))
			abort();
		if (first < 1 || line < first || line - first > 3 ||
		    line - first >= (int64_t)json_object_array_length(text))
			abort(); /* the line itself is among the text, at most 3 lines down */
		for (size_t i = 0; i < json_object_array_length(text); i++)
			if (!json_object_is_type(json_object_array_get_idx(text, i), json_type_string))
				abort();
	}
	json_object_put(sources);
	json_object_put(report);
	return 0;
}
