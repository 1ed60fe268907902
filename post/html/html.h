/* post/html/html.h - the self-contained HTML report (issue 18):
 *   html.c         the page: our template, style and script (share/memphis/html/), the
 *                  charting library inlined from its installed file, and the report's JSON
 *   html_source.c  the page-only source text around the report's top lines
 * The page draws everything from the embedded JSON (docs/html.md); no request leaves it. */
#ifndef MR_HTML_H
#define MR_HTML_H

#include <stddef.h>

struct json_object;

/* The charting library inlined into every page: Debian's libjs-d3. MEMPHIS_HTML_D3
 * overrides the path (tests use it to check the error for a missing library). */
#define MR_HTML_D3 "/usr/share/javascript/d3/d3.min.js"

/* Write the page for the JSON report json[0 .. len) (what --json prints) to path ("-":
 * standard output); input is what the report was made from (the run directory, the saved
 * report): its owner decides which sources the page may show (html_sources). Errors
 * (template or library missing, unwritable file, not a report) are printed with mr_error.
 * Returns MR_EXIT_OK or the exit status of the error. */
int html_write_page(const char *path, const char *json, size_t len, const char *input);

/* The page-only member "sources" for report: an object keyed by the report's line names
 * ("cg.c:556", "cg.c:79 (in memset)") of its top lines (table items, first-touch and advice
 * lines), each { "path", "line", "first", "text": [lines] } with a few lines around the
 * line, for the files the input's owner o could read now (found as named, or by the
 * executable's debug information: run.exe_read; infile.h, mr_in_open_source). Lines of
 * other files are left out. Returns a new object (never NULL unless out of memory). */
struct mr_in_owner;
struct json_object *html_sources(struct json_object *report, const struct mr_in_owner *o);

#endif /* MR_HTML_H */
