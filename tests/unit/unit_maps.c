/* tests/unit/unit_maps.c - common/maps: one line at a time (every field, anonymous and named
 * mappings, lines that are not maps lines) and whole snapshots (sorting, empty and bad
 * lines skipped, NUL-terminated paths, lookups at the edges). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "maps.h"
#include "tap.h"

static int path_is(const struct mph_mapping *m, const char *want)
{
	return m->path_len == strlen(want) && !memcmp(m->path, want, m->path_len);
}

int main(void)
{
	static const struct {
		int line;
		const char *text;
		int ok;
		uint64_t start, end, offset, inode;
		unsigned major, minor;
		const char *perms, *path;
	} cases[] = {
		{ __LINE__, "55d0c0a00000-55d0c0a21000 r-xp 00002000 fd:01 1835099                    /usr/bin/cat",
		  1, 0x55d0c0a00000, 0x55d0c0a21000, 0x2000, 1835099, 0xfd, 1, "r-xp", "/usr/bin/cat" },
		{ __LINE__, "7ffd1a2b3000-7ffd1a2d4000 rw-p 00000000 00:00 0                          [stack]",
		  1, 0x7ffd1a2b3000, 0x7ffd1a2d4000, 0, 0, 0, 0, "rw-p", "[stack]" },
		{ __LINE__, "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 ",
		  1, 0x7f0000000000, 0x7f0000021000, 0, 0, 0, 0, "rw-p", "" },
		{ __LINE__, "7f0000000000-7f0000021000 ---p 00000000 00:00 0",
		  1, 0x7f0000000000, 0x7f0000021000, 0, 0, 0, 0, "---p", "" },
		{ __LINE__, "1000-2000 r-xs 0001F000 08:1A 12 /tmp/a b (deleted)",
		  1, 0x1000, 0x2000, 0x1f000, 12, 8, 0x1a, "r-xs", "/tmp/a b (deleted)" },
		{ __LINE__, "", 0, 0, 0, 0, 0, 0, 0, "", "" },
		{ __LINE__, "garbage", 0, 0, 0, 0, 0, 0, 0, "", "" },
		{ __LINE__, "1000 2000 r-xp 0 00:00 0", 0, 0, 0, 0, 0, 0, 0, "", "" },
		{ __LINE__, "1000-2000 r-xp 0 00:00", 0, 0, 0, 0, 0, 0, 0, "", "" },
		{ __LINE__, "1000-2000 r-xp zz 00:00 0", 0, 0, 0, 0, 0, 0, 0, "", "" },
	};
	const char *snap =
		"3000-4000 rw-p 00000000 00:00 0 [heap]\n"
		"\n"
		"1000-2000 r-xp 00001000 08:01 77 /bin/x\n"
		"not a line\n"
		"2000-3000 r--p 00002000 08:01 77 /bin/x\n"
		"5000-6000 rw-p 00000000 00:00 0";
	struct mph_maps m;
	const struct mph_mapping *f;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *t = cases[c].text;
		struct mph_mapping mp;
		int r = mph_maps_parse_line(t, t + strlen(t), &mp);

		if (!cases[c].ok) {
			tap(r == 0, cases[c].line, "not a maps line: \"%s\"", t);
			continue;
		}
		tap(r == 1 && mp.start == cases[c].start && mp.end == cases[c].end &&
		    mp.offset == cases[c].offset && mp.inode == cases[c].inode &&
		    mp.dev_major == cases[c].major && mp.dev_minor == cases[c].minor &&
		    !strcmp(mp.perms, cases[c].perms) && path_is(&mp, cases[c].path),
		    cases[c].line, "line \"%.40s...\": every field", t);
	}
	{
		const char *t = "1000-2000 r-xp 0 00:00 0 /a\n3000-4000 r-xp 0 00:00 0 /b\n";
		struct mph_mapping mp;

		tap(mph_maps_parse_line(t, strchr(t, '\n'), &mp) == 1 && path_is(&mp, "/a"), __LINE__,
		    "a line ends at eol, not at the text's end");
	}

	tap(mph_maps_parse(snap, 42, &m) == 0 && m.n == 4 && m.time == 42, __LINE__,
	    "mph_maps_parse: 4 mappings, empty and bad lines skipped (n=%zu)", m.n);
	tap(m.map[0].start == 0x1000 && m.map[1].start == 0x2000 && m.map[2].start == 0x3000 &&
	    m.map[3].start == 0x5000, __LINE__, "mph_maps_parse: sorted by start");
	tap(!strcmp(m.map[0].path, "/bin/x") && !strcmp(m.map[2].path, "[heap]") &&
	    !strcmp(m.map[3].path, ""), __LINE__, "mph_maps_parse: paths are NUL-terminated strings");
	f = mph_maps_find(&m, 0x1000);
	tap(f == &m.map[0], __LINE__, "mph_maps_find: the first byte of a mapping");
	f = mph_maps_find(&m, 0x1fff);
	tap(f == &m.map[0], __LINE__, "mph_maps_find: the last byte of a mapping");
	tap(mph_maps_find(&m, 0x4000) == NULL && mph_maps_find(&m, 0xfff) == NULL &&
	    mph_maps_find(&m, 0x6000) == NULL, __LINE__, "mph_maps_find: gaps, before, after: NULL");
	mph_maps_free(&m);
	mph_maps_free(&m);
	mph_maps_free(NULL);
	tap(m.n == 0 && m.map == NULL, __LINE__, "mph_maps_free: empties, twice and NULL harmless");
	tap(mph_maps_parse("", 0, &m) == 0 && m.n == 0, __LINE__, "mph_maps_parse: empty text");
	mph_maps_free(&m);
	return tap_done();
}
