/* post/html/html_source.c - the source text the page shows beside a variable's top lines, read
 * at report time: the report names files by their base name ("cg.c:556"), so a name that
 * is not readable as it stands is looked up among the source files the executable's DWARF
 * lists (full paths, joined with the compile directory). Those names are the program's
 * (`#line 2 "/etc/shadow"`): a file is read only when the run's owner could read it
 * (mr_in_open_source), whoever runs the report. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>
#include <json-c/json.h>

#include "base/infile.h"
#include "html.h"

/* lines shown before and after a top line */
#define CONTEXT 3
/* longest source line kept (bytes); longer ones are cut */
#define LINE_MAX_BYTES 240

/* Could the owner who read the source file at path (infile.h)? */
static bool source_readable(const struct mr_in_owner *who, const char *path)
{
	int fd = mr_in_open_source(who, path);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* The full path of the first source file of exe's DWARF whose base name is base and that
 * who could read, into out; false when there is none or exe has no DWARF. libdwarf (as
 * debuginfo*.c: memphis-report links it, and libdw's dwarf_* names would clash) lists a CU's
 * files joined with its compile directory. */
static bool dwarf_find(const struct mr_in_owner *who, const char *exe, const char *base, char *out,
		       size_t outlen)
{
	int fd = exe ? mr_in_open(exe, MR_IN_MAX_ELF, 0) : -1;
	Dwarf_Debug dbg = NULL;
	Dwarf_Error e = NULL;
	size_t blen = strlen(base);
	bool found = false;

	if (fd < 0)
		return false;
	if (dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &e) != DW_DLV_OK)
		dbg = NULL;
	while (dbg && !found) {
		Dwarf_Unsigned hlen, toff, next;
		Dwarf_Half ver, asz, lsz, esz, ut;
		Dwarf_Off abbr;
		Dwarf_Sig8 sig;
		Dwarf_Die cu;
		char **files;
		Dwarf_Signed n;

		if (dwarf_next_cu_header_d(dbg, 1, &hlen, &ver, &abbr, &asz, &lsz, &esz, &sig, &toff,
					   &next, &ut, &e) != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &e) != DW_DLV_OK)
			continue;
		if (dwarf_srcfiles(cu, &files, &n, &e) == DW_DLV_OK) {
			for (Dwarf_Signed i = 0; i < n; i++) {
				size_t plen = strlen(files[i]);

				if (!found && plen > blen && files[i][plen - blen - 1] == '/' &&
				    !strcmp(files[i] + plen - blen, base) && source_readable(who, files[i]))
					found = (size_t)snprintf(out, outlen, "%s", files[i]) < outlen;
				dwarf_dealloc(dbg, files[i], DW_DLA_STRING);
			}
			dwarf_dealloc(dbg, files, DW_DLA_LIST);
		}
		dwarf_dealloc_die(cu);
	}
	if (e)
		dwarf_dealloc_error(dbg, e);
	if (dbg)
		dwarf_finish(dbg, NULL);
	close(fd);
	return found;
}

/* Lines first .. last (1-based) of path as a JSON array of strings; NULL when who may not
 * read the file (infile.h) or it ends before line (not the file the line is in). */
static struct json_object *read_lines(const struct mr_in_owner *who, const char *path, long first,
				      long line, long last)
{
	int fd = mr_in_open_source(who, path);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	struct json_object *arr;
	char buf[LINE_MAX_BYTES + 1];
	long no = 1;

	if (!f) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	arr = json_object_new_array();
	while (arr && no <= last) {
		size_t len = 0;
		int c;

		/* byte by byte: a NUL inside a line or a long line cannot shift the count */
		while ((c = getc(f)) != EOF && c != '\n')
			if (len < LINE_MAX_BYTES)
				buf[len++] = (char)c;
		if (c == EOF && len == 0)
			break;
		buf[len] = '\0';
		if (no++ >= first)
			json_object_array_add(arr, json_object_new_string(buf));
	}
	fclose(f);
	if (arr && no <= line) {
		json_object_put(arr);
		arr = NULL;
	}
	return arr;
}

/* The path of the source file named file that who could read into path: file itself, or the
 * executable's DWARF's; paths caches the answers by file (null: none). */
static bool find_file(const struct mr_in_owner *who, struct json_object *paths, const char *exe,
		      const char *file, char *path, size_t len)
{
	struct json_object *known;
	bool found;

	if (json_object_object_get_ex(paths, file, &known)) {
		if (!known)
			return false;
		snprintf(path, len, "%s", json_object_get_string(known));
		return true;
	}
	/* the executable's own file first: a file of that name here may be another one */
	found = !strchr(file, '/') && dwarf_find(who, exe, file, path, len);
	if (!found && source_readable(who, file))
		found = (size_t)snprintf(path, len, "%s", file) < len;
	json_object_object_add(paths, file, found ? json_object_new_string(path) : NULL);
	return found;
}

/* Add the source around the line named name ("FILE:LINE" with anything after) to out,
 * once per name. */
static void add_line(const struct mr_in_owner *who, struct json_object *out,
		     struct json_object *paths, const char *exe, const char *name)
{
	char file[1024], path[4096];
	const char *colon;
	long line;
	char *end;
	struct json_object *o, *text;

	if (!name || json_object_object_get_ex(out, name, NULL) || !(colon = strrchr(name, ':')))
		return;
	/* "cg.c:79 (in memset)": the colon is the last one before the first space */
	for (const char *c = name; *c && *c != ' '; c++)
		if (*c == ':')
			colon = c;
	line = strtol(colon + 1, &end, 10);
	if (line <= 0 || (*end && *end != ' ') || (size_t)(colon - name) >= sizeof(file))
		return;
	memcpy(file, name, (size_t)(colon - name));
	file[colon - name] = '\0';
	if (!find_file(who, paths, exe, file, path, sizeof(path)))
		return;
	text = read_lines(who, path, line > CONTEXT ? line - CONTEXT : 1, line, line + CONTEXT);
	if (!text)
		return;
	o = json_object_new_object();
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "line", json_object_new_int64(line));
	json_object_object_add(o, "first", json_object_new_int64(line > CONTEXT ? line - CONTEXT : 1));
	json_object_object_add(o, "text", text);
	json_object_object_add(out, name, o);
}

/* member k of o as a string, or NULL */
static const char *str_of(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* member k of o when it is an array, else NULL */
static struct json_object *arr_of(struct json_object *o, const char *k)
{
	struct json_object *v;

	return json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_array) ?
		       v : NULL;
}

/* The table items (the variables' top lines per node) of every table in report. */
static void add_table_lines(const struct mr_in_owner *who, struct json_object *out,
			    struct json_object *paths, const char *exe, struct json_object *report)
{
	struct json_object *tables = arr_of(report, "tables");

	for (size_t t = 0; tables && t < json_object_array_length(tables); t++) {
		struct json_object *entries = arr_of(json_object_array_get_idx(tables, t), "entries");

		for (size_t e = 0; entries && e < json_object_array_length(entries); e++) {
			struct json_object *items = arr_of(json_object_array_get_idx(entries, e), "items");

			for (size_t i = 0; items && i < json_object_array_length(items); i++)
				add_line(who, out, paths, exe,
					 str_of(json_object_array_get_idx(items, i), "name"));
		}
	}
}

struct json_object *html_sources(struct json_object *report, const struct mr_in_owner *who)
{
	struct json_object *out = json_object_new_object(), *run, *vars = arr_of(report, "variables");
	struct json_object *paths = json_object_new_object(), *shown;
	const char *exe = NULL;

	if (!out || !paths) {
		json_object_put(out);
		json_object_put(paths);
		return NULL;
	}
	if (json_object_object_get_ex(report, "run", &run))
		exe = str_of(run, "exe_read") ? str_of(run, "exe_read") : str_of(run, "exe");
	add_table_lines(who, out, paths, exe, report);
	for (size_t v = 0; vars && v < json_object_array_length(vars); v++) {
		struct json_object *var = json_object_array_get_idx(vars, v), *ft, *adv;

		/* the variables of the tables only: JSON lists every variable with samples */
		if (!json_object_object_get_ex(var, "shown", &shown) || !json_object_get_boolean(shown))
			continue;
		if (json_object_object_get_ex(var, "first_touch", &ft) && ft)
			add_line(who, out, paths, exe, str_of(ft, "line"));
		if (json_object_object_get_ex(var, "advice", &adv) && adv) {
			add_line(who, out, paths, exe, str_of(adv, "line"));
			add_line(who, out, paths, exe, str_of(adv, "loop"));
		}
	}
	json_object_put(paths);
	return out;
}
