/* tests/unit_json.c - the JSON writer of memphis-report (post/json.c): string escaping, full
 * uint64, empty arrays, commas and closing. TAP output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

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

int main(void)
{
	test_json();
	return tap_done();
}
