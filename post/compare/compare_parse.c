/* post/compare/compare_parse.c - a memphis-report/1 JSON report (docs/report-schema.md) parsed
 * with json-c into one side's model (compare.h). Everything in the text is from outside:
 * every member is checked for its type, arrays for their lengths, and a report that
 * lacks what compare needs is refused with one line naming the input and the member.
 * tests/fuzz/fuzz_compare_json.c feeds it arbitrary bytes. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "compare.h"

#define MAX_NODES 4096 /* bound on what a report from outside may claim */
/* The most samples a count of a report may hold, its sums included: 2^53, what a double
 * (the shares and intervals) holds exactly, 512 PiB of 64-byte samples, more than any run
 * holds. A report with more is refused (one line), never printed as a share over 100 %
 * or an interval of NaN. */
#define MAX_COUNT (1ull << 53)

/* Format the one-line error into err; returns -EINVAL (for `return bad(...)`). */
static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* *sum += n when the sum stays within MAX_COUNT; false (*sum unchanged) when not. */
static bool add_count(uint64_t *sum, uint64_t n)
{
	if (n > MAX_COUNT || *sum > MAX_COUNT - n)
		return false;
	*sum += n;
	return true;
}

/* The error of a count over MAX_COUNT: matrix[c][p] of item name (n), or a sum of its row
 * c or of its node (p UINT32_MAX). Returns -EINVAL. */
static int too_many(char *err, size_t len, const struct cmp_side *s, const char *what,
		    const char *name, uint32_t c, uint32_t p, uint64_t n)
{
	if (p != UINT32_MAX)
		return bad(err, len, "%s: %s '%s': matrix[%u][%u] is %" PRIu64 " samples, more than "
			   "a run can hold (at most 2^53)", s->path, what, name, c, p, n);
	return bad(err, len, "%s: %s '%s': the counts of node %u add up to more samples than a "
		   "run can hold (at most 2^53)", s->path, what, name, c);
}

/* The all-nodes sum the shares divide by fits MAX_COUNT: 0, or -EINVAL with the error. */
static int all_nodes_fit(const struct cmp_side *s, char *err, size_t len)
{
	uint64_t all = 0;

	for (uint32_t c = 0; c < s->nnodes; c++)
		if (!add_count(&all, s->remote[c]) || !add_count(&all, s->local[c]))
			return bad(err, len, "%s: the counts of all nodes add up to more samples than "
				   "a run can hold (at most 2^53)", s->path);
	return 0;
}

/* Member key of object o of type t, or NULL. */
static json_object *member(json_object *o, const char *key, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* strdup of string member key ("" when absent or null); NULL only when out of memory. */
static char *str_member(json_object *o, const char *key)
{
	json_object *v = member(o, key, json_type_string);

	return strdup(v ? json_object_get_string(v) : "");
}

/* A non-negative integer member (absent or of another type: false). */
static bool u64_member(json_object *o, const char *key, uint64_t *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

/* Element i of array a as a non-negative integer; false if it is not one. */
static bool u64_at(json_object *a, size_t i, uint64_t *out)
{
	json_object *v = json_object_array_get_idx(a, i);

	if (!v || !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

/* The "site" member of heap variable v (reports since issue 13): file, line, function and
 * callers into it; the allocation kind is the name's start. Returns 1 when there is
 * none, 0 or -ENOMEM. */
static int site_member(struct cmp_item *it, json_object *v)
{
	json_object *site = member(v, "site", json_type_object);
	json_object *file = member(site, "file", json_type_string);
	json_object *fn = member(site, "function", json_type_string);
	json_object *callers = member(site, "callers", json_type_array);
	const char *at = strstr(it->name, " at ");
	uint64_t line;
	size_t len = 0;
	FILE *m;

	if (!file || !fn || !at || !u64_member(site, "line", &line) || !line || line > 1u << 30)
		return 1;
	it->site_alloc = strndup(it->name, (size_t)(at - it->name));
	it->site_file = strdup(json_object_get_string(file));
	it->site_func = strdup(json_object_get_string(fn));
	if (!it->site_alloc || !it->site_file || !it->site_func || !(m = open_memstream(&it->site_callers, &len)))
		return -ENOMEM;
	for (size_t i = 0; callers && i < json_object_array_length(callers); i++) {
		const char *c = json_object_get_string(json_object_array_get_idx(callers, i));
		fprintf(m, "%s%s", i ? "\n" : "", c ? c : "??");
	}
	if (fclose(m))
		return -ENOMEM;
	it->site_line = (unsigned)line;
	return 0;
}

/* Heap names "KIND at FILE:LINE in FUNC" (report-schema.md): the site's parts into it, or
 * nothing when the name has another form (the variable then matches by name only). For
 * reports without "site" members. */
static int parse_site(struct cmp_item *it)
{
	const char *at = strstr(it->name, " at "), *in, *colon;
	char *end;
	unsigned long line;

	if (!at)
		return 0;
	in = strstr(at + 4, " in ");
	colon = in ? memrchr(at + 4, ':', (size_t)(in - (at + 4))) : strrchr(at + 4, ':');
	if (!colon)
		return 0;
	line = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || (in ? end != in : *end != '\0') || line == 0 || line > 1u << 30)
		return 0;
	it->site_alloc = strndup(it->name, (size_t)(at - it->name));
	it->site_file = strndup(at + 4, (size_t)(colon - (at + 4)));
	it->site_func = strdup(in ? in + 4 : "");
	it->site_callers = strdup("");
	if (!it->site_alloc || !it->site_file || !it->site_func || !it->site_callers)
		return -ENOMEM;
	it->site_line = (unsigned)line;
	return 0;
}

/* What matches a variable with a declaration beside its name and kind (compare_match.c):
 * base_name, decl "FILE:LINE" in its parts, size. Absent members leave them unknown. 0 or
 * -ENOMEM. */
static int decl_members(struct cmp_item *it, json_object *v)
{
	json_object *base = member(v, "base_name", json_type_string);
	json_object *decl = member(v, "decl", json_type_string);
	const char *d = decl ? json_object_get_string(decl) : NULL;
	const char *colon = d ? strrchr(d, ':') : NULL;
	unsigned long line = 0;
	char *end = NULL;

	u64_member(v, "size", &it->size);
	if (base && !(it->base = strdup(json_object_get_string(base))))
		return -ENOMEM;
	if (colon)
		line = strtoul(colon + 1, &end, 10);
	if (!colon || colon == d || end == colon + 1 || *end || line > 1u << 30)
		return 0;
	it->decl_line = (unsigned)line;
	it->decl_file = strndup(d, (size_t)(colon - d));
	return it->decl_file ? 0 : -ENOMEM;
}

/* Item *it from a variable (or a line: counts under "counts", no pages) object v of a
 * report with nn nodes. Adds its remote/local to the side's per-node totals when
 * add_totals. */
static int load_item(struct cmp_side *s, struct cmp_item *it, json_object *v, int is_line,
		     int add_totals, char *err, size_t len)
{
	uint32_t w = s->nnodes + 1;
	json_object *counts, *m, *ft, *sp, *byn;
	const char *what = is_line ? "lines" : "variables";

	it->name = str_member(v, "name");
	it->kind = is_line ? strdup("line") : str_member(v, "kind");
	it->remote = calloc(s->nnodes, sizeof(uint64_t));
	it->local = calloc(s->nnodes, sizeof(uint64_t));
	it->far = calloc(s->nnodes, sizeof(uint64_t));
	it->pages = calloc(w, sizeof(uint64_t));
	if (!it->name || !it->kind || !it->remote || !it->local || !it->far || !it->pages)
		return -ENOMEM;
	if (!member(v, "name", json_type_string))
		return bad(err, len, "%s: an entry of \"%s\" has no name", s->path, what);
	m = is_line ? v : member(v, "matrix", json_type_object);
	counts = member(m, "counts", json_type_array);
	if (!counts || json_object_array_length(counts) != w)
		return bad(err, len, "%s: %s '%s' has no %u x %u matrix of counts", s->path, what,
			   it->name, w, w);
	for (uint32_t c = 0; c < s->nnodes; c++) {
		json_object *row = json_object_array_get_idx(counts, c);
		if (!row || !json_object_is_type(row, json_type_array) ||
		    json_object_array_length(row) != w)
			return bad(err, len, "%s: %s '%s': matrix row %u is not %u counts", s->path,
				   what, it->name, c, w);
		for (uint32_t p = 0; p < s->nnodes; p++) {
			uint64_t n;
			if (!u64_at(row, p, &n))
				return bad(err, len, "%s: %s '%s': matrix[%u][%u] is not a count",
					   s->path, what, it->name, c, p);
			if (!add_count(p == c ? &it->local[c] : &it->remote[c], n) ||
			    (s->farnode[p] && !add_count(&it->far[c], n)))
				return too_many(err, len, s, what, it->name, c, p, n);
		}
		if (!add_count(&it->far_all, it->far[c]) ||
		    (add_totals && !add_count(&s->far[c], it->far[c])))
			return too_many(err, len, s, what, it->name, c, UINT32_MAX, 0);
		/* the sums the shares divide by: the item's, its node's, each whole */
		if (!add_count(&it->remote_all, it->remote[c]) ||
		    !add_count(&it->local_all, it->local[c]) ||
		    !add_count(&(uint64_t){ it->remote_all }, it->local_all) ||
		    (add_totals && (!add_count(&s->remote[c], it->remote[c]) ||
				    !add_count(&s->local[c], it->local[c]) ||
				    !add_count(&(uint64_t){ s->remote[c] }, s->local[c]))))
			return too_many(err, len, s, what, it->name, c, UINT32_MAX, 0);
	}
	if (is_line)
		return 0;
	if (!strcmp(it->kind, "heap")) {
		int rc = site_member(it, v);
		if (rc < 0 || (rc > 0 && parse_site(it)))
			return -ENOMEM;
	} else if (decl_members(it, v)) {
		return -ENOMEM;
	}
	sp = member(v, "sampled_pages", json_type_object);
	byn = member(sp, "by_node", json_type_array);
	u64_member(sp, "total", &it->pages_total);
	for (uint32_t p = 0; byn && p < w && p < json_object_array_length(byn); p++)
		u64_at(byn, p, &it->pages[p]);
	ft = member(v, "first_touch", json_type_object);
	if (ft) {
		it->has_ft = 1;
		u64_member(ft, "pages", &it->ft_pages);
		it->ft_thread = str_member(ft, "thread");
		it->ft_line = str_member(ft, "line");
		if (!it->ft_thread || !it->ft_line)
			return -ENOMEM;
	}
	return 0;
}

/* The side's run, options, node count and region time from the report object. */
static int load_head(struct cmp_side *s, json_object *root, char *err, size_t len)
{
	json_object *run = member(root, "run", json_type_object);
	json_object *opt = member(root, "options", json_type_object);
	json_object *regs = member(root, "regions", json_type_array), *a;
	json_object *by = member(opt, "by", json_type_string);
	uint64_t nodes, th;

	if (!run || !opt || !regs || !by || !u64_member(root, "nodes", &nodes))
		return bad(err, len, "%s: not a complete memphis-report/1 report (run, options, "
			   "nodes or regions missing)", s->path);
	if (nodes == 0 || nodes > MAX_NODES)
		return bad(err, len, "%s: %" PRIu64 " nodes is out of range", s->path, nodes);
	s->nnodes = (uint32_t)nodes;
	s->exe = str_member(run, "exe");
	s->build_id = str_member(run, "build_id");
	s->backend = str_member(run, "backend");
	s->weighting = str_member(run, "weighting");
	if (!s->exe || !s->build_id || !s->backend || !s->weighting)
		return -ENOMEM;
	u64_member(run, "period_ns", &s->period_ns);
	s->threads = u64_member(run, "threads", &th) ? (int64_t)th : -1;
	s->by_line = !strcmp(json_object_get_string(by), "line");
	s->approx = json_object_get_boolean(member(opt, "approx", json_type_boolean));
	a = member(opt, "regions", json_type_array);
	s->nregions = a ? json_object_array_length(a) : 0;
	s->regions = calloc(s->nregions + 1, sizeof(char *));
	if (!s->regions)
		return -ENOMEM;
	for (size_t i = 0; i < s->nregions; i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(a, i));
		if (!(s->regions[i] = strdup(n ? n : "")))
			return -ENOMEM;
	}
	for (size_t i = 0; i < json_object_array_length(regs); i++) {
		json_object *r = json_object_array_get_idx(regs, i);
		uint64_t t0 = 0, t1 = 0;
		json_object *sel = member(r, "selected", json_type_boolean);
		if (sel && !json_object_get_boolean(sel))
			continue;
		if (u64_member(r, "t_start_ns", &t0) && u64_member(r, "t_end_ns", &t1) && t1 > t0)
			s->seconds += (double)(t1 - t0) / 1e9;
	}
	s->remote = calloc(s->nnodes, sizeof(uint64_t));
	s->local = calloc(s->nnodes, sizeof(uint64_t));
	s->far = calloc(s->nnodes, sizeof(uint64_t));
	s->farnode = calloc(s->nnodes + 1, 1);
	if (!s->remote || !s->local || !s->far || !s->farnode)
		return -ENOMEM;
	/* run.nodes (a report of a run with a node without CPUs): those nodes are far */
	a = member(run, "nodes", json_type_array);
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *n = json_object_array_get_idx(a, i);
		uint64_t id, cpus;

		if (u64_member(n, "node", &id) && id < s->nnodes && u64_member(n, "cpus", &cpus) &&
		    cpus == 0 && !s->farnode[id]) {
			s->farnode[id] = 1;
			s->nfar++;
		}
	}
	return 0;
}

/* The run's warnings and damage into s->warnings. */
static int load_warnings(struct cmp_side *s, json_object *root)
{
	static const char *const keys[] = { "warnings", "damage" };

	for (size_t k = 0; k < 2; k++) {
		json_object *a = member(root, keys[k], json_type_array);
		for (size_t i = 0; a && i < json_object_array_length(a); i++) {
			const char *m = json_object_get_string(json_object_array_get_idx(a, i));
			char **nw = realloc(s->warnings, (s->nwarnings + 1) * sizeof(*nw));
			if (!nw)
				return -ENOMEM;
			s->warnings = nw;
			if (asprintf(&nw[s->nwarnings], "%s%s", k ? "damaged input: " : "",
				     m ? m : "") < 0)
				return -ENOMEM;
			s->nwarnings++;
		}
	}
	return 0;
}

/* Free one item's strings and arrays. */
static void item_free(struct cmp_item *it)
{
	free(it->name);
	free(it->kind);
	free(it->site_alloc);
	free(it->site_file);
	free(it->site_func);
	free(it->site_callers);
	free(it->base);
	free(it->decl_file);
	free(it->remote);
	free(it->local);
	free(it->far);
	free(it->pages);
	free(it->ft_thread);
	free(it->ft_line);
}

/* Fill s from the parsed report root. */
static int load_report(struct cmp_side *s, json_object *root, char *err, size_t len)
{
	json_object *schema = member(root, "schema", json_type_string), *error, *vars, *lines;
	json_object *list;
	int rc;

	if (!schema)
		return bad(err, len, "%s: not a memphis-report JSON report (no \"schema\")", s->path);
	if (strcmp(json_object_get_string(schema), MR_JSON_SCHEMA))
		return bad(err, len, "%s: schema \"%s\", compare reads \"%s\" reports", s->path,
			   json_object_get_string(schema), MR_JSON_SCHEMA);
	error = member(root, "error", json_type_object);
	if (error) {
		json_object *msg = member(error, "message", json_type_string);
		return bad(err, len, "%s: a report of an error: %s", s->path,
			   msg ? json_object_get_string(msg) : "(no message)");
	}
	if ((rc = load_head(s, root, err, len)) || (rc = load_warnings(s, root)))
		return rc;
	vars = member(root, "variables", json_type_array);
	lines = member(root, "lines", json_type_array);
	if (!vars)
		return bad(err, len, "%s: no \"variables\" in the report", s->path);
	if (s->by_line && !lines)
		return bad(err, len, "%s: a --by line report without \"lines\" (made by an older "
			   "memphis-report: save it again, or compare its run directory)", s->path);
	list = s->by_line ? lines : vars;
	s->nitems = json_object_array_length(list);
	s->items = calloc(s->nitems + 1, sizeof(*s->items));
	if (!s->items)
		return -ENOMEM;
	if (s->by_line) { /* node totals from the variables, items from the lines */
		struct cmp_item tmp;
		for (size_t i = 0; i < json_object_array_length(vars); i++) {
			memset(&tmp, 0, sizeof(tmp));
			rc = load_item(s, &tmp, json_object_array_get_idx(vars, i), 0, 1, err, len);
			item_free(&tmp);
			if (rc)
				return rc;
		}
	}
	for (size_t i = 0; i < s->nitems; i++) {
		if ((rc = load_item(s, &s->items[i], json_object_array_get_idx(list, i), s->by_line,
				    !s->by_line, err, len)))
			return rc;
		s->scoped |= s->items[i].base != NULL;
	}
	return 0;
}

/* Is buf[from .. n) only JSON white space? */
static bool only_space(const char *buf, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\r' && buf[i] != '\n')
			return false;
	return true;
}

int cmp_parse(struct cmp_side *s, const char *buf, size_t n, char *err, size_t len)
{
	json_tokener *tok;
	json_object *root;
	enum json_tokener_error je;
	int rc;

	if (n > INT_MAX) /* json-c takes an int length */
		return bad(err, len, "%s: over 2 GiB, too large for a report", s->path);
	if (!(tok = json_tokener_new()))
		return -ENOMEM;
	root = json_tokener_parse_ex(tok, buf, (int)n);
	je = json_tokener_get_error(tok);
	if (!root && je == json_tokener_continue)
		rc = bad(err, len, "%s: not valid JSON: the text ends inside a value (truncated?)",
			 s->path);
	else if (!root)
		rc = bad(err, len, "%s: not valid JSON: %s at offset %zu", s->path,
			 json_tokener_error_desc(je), json_tokener_get_parse_end(tok));
	else if (!only_space(buf, json_tokener_get_parse_end(tok), n))
		rc = bad(err, len, "%s: not valid JSON: text after the report at offset %zu",
			 s->path, json_tokener_get_parse_end(tok));
	else if (!json_object_is_type(root, json_type_object))
		rc = bad(err, len, "%s: not a memphis-report JSON report (not an object)", s->path);
	else if (!(rc = load_report(s, root, err, len)))
		rc = all_nodes_fit(s, err, len);
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

void cmp_side_free(struct cmp_side *s)
{
	for (size_t i = 0; s->items && i < s->nitems; i++)
		item_free(&s->items[i]);
	for (size_t i = 0; s->regions && i < s->nregions; i++)
		free(s->regions[i]);
	for (size_t i = 0; i < s->nwarnings; i++)
		free(s->warnings[i]);
	free(s->warnings);
	free(s->regions);
	free(s->items);
	free(s->path);
	free(s->exe);
	free(s->build_id);
	free(s->backend);
	free(s->weighting);
	free(s->remote);
	free(s->local);
	free(s->far);
	free(s->farnode);
	memset(s, 0, sizeof(*s));
}
