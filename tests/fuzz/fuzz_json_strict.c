/* tests/fuzz/fuzz_json_strict.c - libFuzzer entry for the strict JSON check (post/base/json_strict.c)
 * that html runs on a saved report before embedding it in a page: any bytes. Checks,
 * besides ASan/UBSan: a text it accepts is one whole JSON value to json-c too (nothing
 * after it), and a refusal's offset lies within the text. Built by `make fuzz`, run by
 * tests/fuzz/t_fuzz.sh. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *what = NULL;
	size_t off = 0;
	int rc = mr_json_strict((const char *)data, size, &off, &what);

	if (rc) {
		if (off > size || !what)
			abort();
		return 0;
	}
	if (size <= INT_MAX) {
		struct json_tokener *tok = json_tokener_new_ex(MR_JSON_MAX_DEPTH);
		struct json_object *o;
		size_t end;

		if (!tok)
			return 0;
		/* one byte more than the text: json-c ends a number at the text's end only then */
		char *copy = malloc(size + 1);
		if (!copy) {
			json_tokener_free(tok);
			return 0;
		}
		memcpy(copy, data, size);
		copy[size] = ' ';
		o = json_tokener_parse_ex(tok, copy, (int)size + (size < INT_MAX));
		end = json_tokener_get_parse_end(tok);
		/* json-c stops at a NUL inside a string; the check lets \u0000 through only */
		if (!o && json_tokener_get_error(tok) != json_tokener_error_depth)
			abort();
		while (o && end < size && (copy[end] == ' ' || copy[end] == '\t' || copy[end] == '\n' ||
					   copy[end] == '\r'))
			end++;
		if (o && end < size)
			abort();
		json_object_put(o);
		json_tokener_free(tok);
		free(copy);
	}
	return 0;
}
