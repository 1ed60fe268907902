/* post/html/html.c - the self-contained HTML report: share/memphis/html/page.html with its
 * markers replaced by our style (memphis.css), the charting library (Debian's libjs-d3,
 * read from its installed file at report time), our script (memphis.js), the report's
 * JSON as --json prints it (without its indentation), and the page-only JSON (library,
 * source text).
 *
 * Inside <script> only "</script" (and "<!--", which changes how a browser reads what
 * follows) can end or derail the element: JSON is written with every '<' as \u003c (which
 * occurs only inside strings), and a script file holding either is refused. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <json-c/json.h>

#include "base/err.h"
#include "base/infile.h"
#include "base/json.h"
#include "base/outfile.h"
#include "html.h"

#ifndef MEMPHIS_DATADIR
#define MEMPHIS_DATADIR "/usr/local/share"
#endif

#define TEMPLATE "page.html"

struct blob {
	char *p;
	size_t n;
};

/* The directory holding the page's own files into dir: $MEMPHIS_SRC/share/memphis/html
 * (tests), then beside the program (PREFIX/bin/../share/memphis/html when installed,
 * build/../share/memphis/html in the build tree), then the install prefix's. Returns
 * false after printing where it looked. */
static bool find_dir(char *dir, size_t len)
{
	char self[PATH_MAX], cand[3][PATH_MAX + 64], *slash;
	const char *src = getenv("MEMPHIS_SRC");
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int k = 0;

	if (src && *src)
		snprintf(cand[k++], sizeof(cand[0]), "%s/share/memphis/html", src);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')))
			*slash = '\0';
		snprintf(cand[k++], sizeof(cand[0]), "%s/../share/memphis/html", self);
	}
	snprintf(cand[k++], sizeof(cand[0]), "%s/memphis/html", MEMPHIS_DATADIR);
	for (int i = 0; i < k; i++) {
		char probe[sizeof(cand) + 16];

		snprintf(probe, sizeof(probe), "%s/" TEMPLATE, cand[i]);
		if (access(probe, R_OK) == 0)
			return (size_t)snprintf(dir, len, "%s", cand[i]) < len;
	}
	mr_error(MR_EXIT_DATA, "cannot find the HTML template " TEMPLATE " (looked in %s%s%s%s%s): "
		 "install memphis (make install) or set MEMPHIS_SRC to its source tree", cand[0],
		 k > 1 ? ", " : "", k > 1 ? cand[1] : "", k > 2 ? ", " : "", k > 2 ? cand[2] : "");
	return false;
}

/* Read the page file name (in dir, or the path itself when dir is NULL) into *b; what
 * is its role in the page for the error. Returns false after printing the error. */
static bool load(const char *dir, const char *name, const char *what, struct blob *b)
{
	char path[PATH_MAX + 64];
	int rc;

	snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	rc = mr_in_read(path, MR_IN_MAX_PAGE, &b->p, &b->n);
	/* a NUL would hide what follows it from the search */
	if (rc == 0 && strcmp(name, TEMPLATE) != 0 &&
	    (strlen(b->p) != b->n || strcasestr(b->p, "</script") || strcasestr(b->p, "</style") ||
	     strstr(b->p, "<!--")))
		rc = -EBADMSG;
	if (rc == 0)
		return true;
	mr_error(MR_EXIT_DATA, "cannot use %s %s: %s", what, path,
		 rc == -EBADMSG ? "it holds \"</script\", \"</style\", \"<!--\" or a NUL byte, "
				  "which would end its inline element" :
				  mr_in_strerror(rc, MR_IN_MAX_PAGE));
	return false;
}

/* The version d3 states in its file ({version:"3.5.16"}), or "unknown". */
static void d3_version(const struct blob *d3, char *out, size_t len)
{
	const char *v = strstr(d3->p, "version:\"");
	size_t n = 0;

	snprintf(out, len, "unknown");
	if (!v)
		return;
	v += strlen("version:\"");
	while (n + 1 < len && v[n] && v[n] != '"' && n < 32)
		n++;
	memcpy(out, v, n);
	out[n] = '\0';
}

/* JSON text s[0 .. n) without the whitespace between tokens (the report's indentation is
 * most of its bytes: the pattern's cells, one number a line) and with every '<' as \u003c
 * ('<' occurs only inside strings). */
static void put_json(FILE *f, const char *s, size_t n)
{
	bool in_string = false;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '<') {
			fputs("\\u003c", f);
			continue;
		}
		if (!in_string && (c == ' ' || c == '\n' || c == '\t' || c == '\r'))
			continue;
		fputc(c, f);
		if (in_string && c == '\\' && i + 1 < n)
			fputc(s[++i], f); /* the escaped character, a quote included */
		else if (c == '"')
			in_string = !in_string;
	}
}

/* The page-only JSON: the library inlined (name, version, file) and the source text. */
static const char *page_json(struct json_object *report, const struct mr_in_owner *src_owner,
			     const struct blob *d3, const char *d3_path, struct json_object **owner)
{
	struct json_object *page = json_object_new_object(), *lib = json_object_new_object();
	char version[40];

	d3_version(d3, version, sizeof(version));
	json_object_object_add(lib, "name", json_object_new_string("d3"));
	json_object_object_add(lib, "version", json_object_new_string(version));
	json_object_object_add(lib, "file", json_object_new_string(d3_path));
	json_object_object_add(page, "library", lib);
	json_object_object_add(page, "sources", html_sources(report, src_owner));
	*owner = page;
	return json_object_to_json_string_ext(page, JSON_C_TO_STRING_PLAIN);
}

/* The template tpl with each "@@NAME@@" marker replaced, on f. */
static void put_page(FILE *f, const char *tpl, const struct blob *css, const struct blob *d3,
		     const struct blob *js, const char *json, size_t len, const char *page)
{
	const char *p = tpl, *m;

	while ((m = strstr(p, "@@"))) {
		const char *end = strstr(m + 2, "@@");
		size_t name_len = end ? (size_t)(end - m - 2) : 0;

		fwrite(p, 1, (size_t)(m - p), f);
		if (!end)
			break;
		if (name_len == 5 && !strncmp(m + 2, "STYLE", 5))
			fwrite(css->p, 1, css->n, f);
		else if (name_len == 2 && !strncmp(m + 2, "D3", 2))
			fwrite(d3->p, 1, d3->n, f);
		else if (name_len == 6 && !strncmp(m + 2, "SCRIPT", 6))
			fwrite(js->p, 1, js->n, f);
		else if (name_len == 6 && !strncmp(m + 2, "REPORT", 6))
			put_json(f, json, len);
		else if (name_len == 4 && !strncmp(m + 2, "PAGE", 4))
			put_json(f, page, strlen(page));
		else
			fwrite(m, 1, (size_t)(end + 2 - m), f); /* not ours: as it stands */
		p = end + 2;
	}
	fputs(m ? m : p, f);
}

/* "an object", "an integer", ... for type t. */
static const char *type_words(json_type t)
{
	switch (t) {
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	case json_type_int:
		return "an integer";
	case json_type_double:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_boolean:
		return "a boolean";
	default:
		return "null";
	}
}

/* The top-level members the page reads, with the type each must have when present (the
 * script tolerates a missing one, not one of another type). */
static const struct {
	const char *name;
	json_type type;
} page_members[] = {
	{ "run", json_type_object },       { "samples", json_type_object },
	{ "tables", json_type_array },     { "variables", json_type_array },
	{ "regions", json_type_array },    { "warnings", json_type_array },
	{ "damage", json_type_array },     { "nodes", json_type_int },
	{ "rundir", json_type_string },    { "table_mode", json_type_string },
};

/* The report JSON json[0 .. len) (from input: a saved report, or the run directory the
 * report was made from) parsed; NULL after printing why the page cannot be made of it:
 * no JSON as a browser reads it (json-c reads more: single quotes, comments, NaN, text
 * after the value; the page would be blank), not a memphis-report/1 report, or a member
 * the page reads of another type. */
static struct json_object *parse_report(const char *json, size_t len, const char *input)
{
	struct json_tokener *tok;
	struct json_object *o = NULL, *s, *m;
	const char *what;
	size_t off;

	if (len > INT_MAX) {
		mr_error(MR_EXIT_DATA, "%s: over 2 GiB, too large for a report", input);
		return NULL;
	}
	if (mr_json_strict(json, len, &off, &what)) {
		mr_error(MR_EXIT_DATA, "%s: not JSON at byte %zu: %s (a browser could not read the "
			 "page)", input, off, what);
		return NULL;
	}
	if ((tok = json_tokener_new_ex(MR_JSON_MAX_DEPTH))) {
		o = json_tokener_parse_ex(tok, json, (int)len);
		json_tokener_free(tok);
	}
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "schema", &s) || !json_object_is_type(s, json_type_string) ||
	    strcmp(json_object_get_string(s), MR_JSON_SCHEMA) != 0 ||
	    json_object_object_get_ex(o, "error", NULL)) {
		json_object_put(o);
		mr_error(MR_EXIT_DATA, "%s: not a memphis-report JSON report (schema %s)", input,
			 MR_JSON_SCHEMA);
		return NULL;
	}
	for (size_t i = 0; i < sizeof(page_members) / sizeof(page_members[0]); i++)
		if (json_object_object_get_ex(o, page_members[i].name, &m) &&
		    !json_object_is_type(m, page_members[i].type)) {
			mr_error(MR_EXIT_DATA, "%s: member \"%s\" is %s, not %s", input,
				 page_members[i].name, type_words(json_object_get_type(m)),
				 type_words(page_members[i].type));
			json_object_put(o);
			return NULL;
		}
	return o;
}

/* Write the page to path through path.tmp (renamed when complete), or to stdout for "-". */
static int write_out(const char *path, const char *tpl, const struct blob *css,
		     const struct blob *d3, const struct blob *js, const char *json, size_t len,
		     const char *page)
{
	struct mr_outfile o;
	int rc = mr_outfile_open(&o, path);

	if (rc != MR_EXIT_OK)
		return rc;
	put_page(o.f, tpl, css, d3, js, json, len, page);
	return mr_outfile_close(&o);
}

int html_write_page(const char *path, const char *json, size_t len, const char *input)
{
	struct mr_in_owner src_owner;
	const char *d3_path = getenv("MEMPHIS_HTML_D3") ? getenv("MEMPHIS_HTML_D3") : MR_HTML_D3;
	struct blob tpl = { 0 }, css = { 0 }, d3 = { 0 }, js = { 0 };
	struct json_object *report = NULL, *page = NULL;
	char dir[PATH_MAX];
	const char *page_text;
	int rc = MR_EXIT_DATA;

	if (!find_dir(dir, sizeof(dir)) || !load(dir, TEMPLATE, "the HTML template", &tpl) ||
	    !load(dir, "memphis.css", "the page style", &css) ||
	    !load(dir, "memphis.js", "the page script", &js))
		goto out;
	if (!load(NULL, d3_path, "the charting library (Debian's libjs-d3: apt-get install "
		  "libjs-d3)", &d3))
		goto out;
	report = parse_report(json, len, input);
	if (!report)
		goto out;
	mr_in_owner_of(input, &src_owner);
	page_text = page_json(report, &src_owner, &d3, d3_path, &page);
	if (!page_text) {
		rc = mr_error(MR_EXIT_DATA, "out of memory");
		goto out;
	}
	rc = write_out(path, tpl.p, &css, &d3, &js, json, len, page_text);
	if (rc == MR_EXIT_OK && strcmp(path, "-"))
		fprintf(stderr, "memphis-report: the HTML page is in %s (open it in a browser)\n",
			mr_esc(path));
out:
	json_object_put(page);
	json_object_put(report);
	free(tpl.p);
	free(css.p);
	free(d3.p);
	free(js.p);
	return rc;
}
