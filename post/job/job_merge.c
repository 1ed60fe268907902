/* post/job/job_merge.c - one rank's report (memphis-report/1, parsed) added into its group's
 * sums, and the group's report made of them: the same document a single run's --json is,
 * with each table and variable counting the samples of every rank, and the ranks behind
 * each count (docs/report-schema.md, "Jobs").
 *
 * Counts are summed exactly; what is one rank's alone is kept from the group's first rank
 * (run, options) or from the rank that says the most (a variable's first-touch thread and
 * line: the rank whose line first-touched the most pages). Hardware data sources and
 * counters are not summed (latencies do not add up): they stay in each rank's own report
 * (--rank N). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "job_impl.h"

static const char *const mode_name[] = { "remote", "local", "all" };

/* o[key] += v (made when absent). 0 or -ENOMEM. */
static int add_int(json_object *o, const char *key, int64_t v)
{
	json_object *m = job_get(o, key);

	if (m && json_object_is_type(m, json_type_int))
		return json_object_set_int64(m, json_object_get_int64(m) + v) ? 0 : -ENOMEM;
	return json_object_object_add(o, key, json_object_new_int64(v)) ? -ENOMEM : 0;
}

/* A deep copy of o, NULL when out of memory (or o NULL). */
static json_object *copy(json_object *o)
{
	json_object *c = NULL;

	return o && json_object_deep_copy(o, &c, NULL) == 0 ? c : NULL;
}

/* Numbers of array src added into dst element by element, nested arrays too (a matrix). */
static int add_array(json_object *dst, json_object *src)
{
	size_t n = json_object_array_length(dst), m = json_object_array_length(src);

	for (size_t i = 0; i < n && i < m; i++) {
		json_object *d = json_object_array_get_idx(dst, i);
		json_object *s = json_object_array_get_idx(src, i);

		if (json_object_is_type(d, json_type_array) && json_object_is_type(s, json_type_array)) {
			if (add_array(d, s))
				return -ENOMEM;
		} else if (json_object_is_type(d, json_type_int) && json_object_is_type(s, json_type_int)) {
			if (!json_object_set_int64(d, json_object_get_int64(d) +
							      json_object_get_int64(s)))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Every number of object src added into dst, objects within too (made when absent);
 * unwritten_max_ms is the largest, not the sum; strings stay dst's. */
static int add_numbers(json_object *dst, json_object *src)
{
	json_object_object_foreach(src, key, s) {
		json_object *d = job_get(dst, key);

		if (!d) {
			if (json_object_object_add(dst, key, copy(s)))
				return -ENOMEM;
		} else if (json_object_is_type(s, json_type_object) &&
			   json_object_is_type(d, json_type_object)) {
			if (add_numbers(d, s))
				return -ENOMEM;
		} else if (json_object_is_type(s, json_type_int) &&
			   json_object_is_type(d, json_type_int)) {
			int64_t a = json_object_get_int64(d), b = json_object_get_int64(s);

			if (!json_object_set_int64(d, strcmp(key, "unwritten_max_ms") ? a + b
								: a > b ? a : b))
				return -ENOMEM;
		} else if (json_object_is_type(s, json_type_array) &&
			   json_object_is_type(d, json_type_array) && add_array(d, s)) {
			return -ENOMEM;
		}
	}
	return 0;
}

/* The member of map o under key, made as a copy of proto (NULL: an empty object) when
 * absent; *made tells which. NULL when out of memory. */
static json_object *slot(json_object *o, const char *key, json_object *proto, int *made)
{
	json_object *v = job_get(o, key);

	*made = !v;
	if (v)
		return v;
	v = proto ? copy(proto) : json_object_new_object();
	if (!v || json_object_object_add(o, key, v))
		return NULL;
	return v;
}

/* A map member of o (made when absent). */
static json_object *map(json_object *o, const char *key)
{
	int made;

	return slot(o, key, NULL, &made);
}

/* Regions by sequence number and name: counts summed, the earliest start, the latest end. */
static int add_regions(json_object *acc, json_object *regs)
{
	size_t n = json_object_array_length(regs);

	for (size_t i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(regs, i), *a;
		char key[128];
		int made;

		snprintf(key, sizeof(key), "%" PRId64 " %s", job_geti(r, "seq"), job_gets(r, "name"));
		if (!(a = slot(acc, key, r, &made)))
			return -ENOMEM;
		if (made)
			continue;
		if (add_int(a, "samples", job_geti(r, "samples")) || add_int(a, "lost", job_geti(r, "lost")) ||
		    add_int(a, "throttled", job_geti(r, "throttled")) ||
		    add_int(a, "dropped", job_geti(r, "dropped")))
			return -ENOMEM;
		if (job_geti(r, "t_start_ns") < job_geti(a, "t_start_ns"))
			json_object_set_int64(job_get(a, "t_start_ns"), job_geti(r, "t_start_ns"));
		if (job_geti(r, "t_end_ns") > job_geti(a, "t_end_ns"))
			json_object_set_int64(job_get(a, "t_end_ns"), job_geti(r, "t_end_ns"));
	}
	return 0;
}

/* The key of an entry or variable: kind and name ("kind" is absent in --by line). */
static void entry_key(json_object *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s\t%s", job_gets(e, "kind"), job_gets(e, "name"));
}

/* Table entry e (of MPI rank r) into the map of entries acc. */
static int add_entry(json_object *acc, json_object *e, long r)
{
	json_object *a, *items = job_get(e, "items"), *ai, *ranks;
	char key[4096], rk[32];
	int made;
	size_t n = items ? json_object_array_length(items) : 0;

	entry_key(e, key, sizeof(key));
	a = slot(acc, key, NULL, &made);
	if (!a)
		return -ENOMEM;
	if (made && (json_object_object_add(a, "name", copy(job_get(e, "name"))) ||
		     (job_get(e, "kind") && json_object_object_add(a, "kind", copy(job_get(e, "kind"))))))
		return -ENOMEM;
	if (add_int(a, "count", job_geti(e, "count")) || !(ai = map(a, "items")) ||
	    !(ranks = map(a, "ranks")))
		return -ENOMEM;
	snprintf(rk, sizeof(rk), "%ld", r);
	if (add_int(ranks, rk, job_geti(e, "count")))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(items, i), *x;

		if (!(x = slot(ai, job_gets(it, "name"), it, &made)))
			return -ENOMEM;
		if (!made && add_int(x, "count", job_geti(it, "count")))
			return -ENOMEM;
	}
	return 0;
}

/* The tables of a rank on host (MPI rank r) into acc, keyed by host and node (or with
 * --by rank by rank and node). */
static int add_tables(struct job *jb, json_object *acc, json_object *tabs, const char *host,
		      long r)
{
	size_t n = json_object_array_length(tabs);

	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(tabs, i), *a, *ents = job_get(t, "entries");
		json_object *node = job_get(t, "node");
		char key[512];
		int made;
		size_t ne = ents ? json_object_array_length(ents) : 0;

		const char *ns = node ? json_object_get_string(node) : "null";

		if (jb->o->by_rank)
			snprintf(key, sizeof(key), "%012ld %s", r, ns);
		else
			snprintf(key, sizeof(key), "%s\t%s", host, ns);
		if (!(a = slot(acc, key, NULL, &made)))
			return -ENOMEM;
		if (made && (json_object_object_add(a, "host", json_object_new_string(host)) ||
			     (jb->o->by_rank &&
			      json_object_object_add(a, "mpi_rank", json_object_new_int64(r))) ||
			     json_object_object_add(a, "node", copy(node)) ||
			     json_object_object_add(a, "label", copy(job_get(t, "label")))))
			return -ENOMEM;
		if (add_int(a, "total", job_geti(t, "total")) || !map(a, "entries"))
			return -ENOMEM;
		for (size_t k = 0; k < ne; k++)
			if (add_entry(job_get(a, "entries"), json_object_array_get_idx(ents, k), r))
				return -ENOMEM;
	}
	return 0;
}

/* First touch ft of a variable (MPI rank r) into the variable's a: pages summed; thread
 * and line those of the rank whose line touched the most pages (the lower rank of equals). */
static int add_first_touch(json_object *a, json_object *ft, long r)
{
	json_object *aft = job_get(a, "first_touch"), *c;
	int64_t lp = job_geti(ft, "line_pages"), alp;

	if (!ft || !json_object_is_type(ft, json_type_object))
		return 0;
	if (!aft || !json_object_is_type(aft, json_type_object)) {
		if (!(c = copy(ft)) || json_object_object_add(c, "mpi_rank", json_object_new_int64(r)))
			return -ENOMEM;
		return json_object_object_add(a, "first_touch", c) ? -ENOMEM : 0;
	}
	alp = job_geti(aft, "line_pages");
	if (lp > alp || (lp == alp && r < job_geti(aft, "mpi_rank"))) {
		int64_t pages = job_geti(aft, "pages");
		json_object *byn = copy(job_get(aft, "by_node"));

		if (!(c = copy(ft)) || !byn ||
		    json_object_object_add(c, "mpi_rank", json_object_new_int64(r)) ||
		    json_object_object_add(c, "by_node", byn) || add_int(c, "pages", pages) ||
		    add_array(byn, job_get(ft, "by_node")) || json_object_object_add(a, "first_touch", c))
			return -ENOMEM;
		return 0;
	}
	return add_int(aft, "pages", job_geti(ft, "pages")) || add_array(job_get(aft, "by_node"),
								    job_get(ft, "by_node"));
}

/* Variable v (of MPI rank r) into the map acc. */
static int add_var(json_object *acc, json_object *v, long r)
{
	static const char *const sums[] = { "samples", "remote", "local", "unknown_page_node",
					    "objects", "bytes" };
	json_object *a, *ranks, *one;
	char key[4096], rk[32];
	int made;

	entry_key(v, key, sizeof(key));
	if (!(a = slot(acc, key, v, &made)))
		return -ENOMEM;
	if (made) {
		json_object_object_del(a, "hardware");
		json_object_object_del(a, "shown");
		json_object_object_del(a, "first_touch");
		/* a pattern is one process's threads and addresses, and its advice is read
		 * from it: they stay per rank (ranks[].advice; --rank N has the pattern) */
		json_object_object_del(a, "pattern");
		json_object_object_del(a, "advice");
		if (add_first_touch(a, job_get(v, "first_touch"), r))
			return -ENOMEM;
	} else {
		for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
			if (job_get(v, sums[i]) && add_int(a, sums[i], job_geti(v, sums[i])))
				return -ENOMEM;
		if (add_array(job_get(job_get(a, "matrix"), "counts"),
			      job_get(job_get(v, "matrix"), "counts")) ||
		    add_numbers(job_get(a, "sampled_pages"), job_get(v, "sampled_pages")) ||
		    add_first_touch(a, job_get(v, "first_touch"), r))
			return -ENOMEM;
	}
	snprintf(rk, sizeof(rk), "%ld", r);
	if (!(ranks = map(a, "ranks")) || !(one = json_object_new_object()) ||
	    json_object_object_add(ranks, rk, one) ||
	    json_object_object_add(one, "rank", json_object_new_int64(r)) ||
	    json_object_object_add(one, "samples", json_object_new_int64(job_geti(v, "samples"))) ||
	    json_object_object_add(one, "remote", json_object_new_int64(job_geti(v, "remote"))))
		return -ENOMEM;
	if (job_get(v, "advice") && json_object_object_add(one, "advice", copy(job_get(v, "advice"))))
		return -ENOMEM;
	return 0;
}

/* --by line: line l into the map acc. */
static int add_line(json_object *acc, json_object *l)
{
	int made;
	json_object *a = slot(acc, job_gets(l, "name"), l, &made);

	if (!a)
		return -ENOMEM;
	if (made)
		return 0;
	return add_int(a, "samples", job_geti(l, "samples")) || add_array(job_get(a, "counts"),
								     job_get(l, "counts"));
}

/* Each member of array key of doc through fn(acc, member, r). */
static int each(json_object *acc, json_object *doc, const char *key,
		int (*fn)(json_object *, json_object *, long), long r)
{
	json_object *arr = job_get(doc, key);
	size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

	for (size_t i = 0; i < n; i++)
		if (fn(acc, json_object_array_get_idx(arr, i), r))
			return -ENOMEM;
	return 0;
}

static int add_line_r(json_object *acc, json_object *l, long r)
{
	(void)r;
	return add_line(acc, l);
}

int job_merge_add(struct job *jb, struct job_group *g, size_t k, json_object *doc)
{
	const struct job_rank *rk = &jb->ranks[k], *f = &jb->ranks[g->first];
	json_object *regs = job_get(doc, "regions"), *tabs = job_get(doc, "tables");
	json_object *far = job_get(doc, "far_tables");
	int no_remote = json_object_get_boolean(job_get(doc, "no_remote"));

	if (!g->nranks || (unsigned long)rk->rank < (unsigned long)f->rank ||
	    (rk->rank == f->rank && strcmp(rk->dir, f->dir) < 0) || k == g->first) {
		json_object_put(g->run);
		json_object_put(g->options);
		g->run = json_object_get(job_get(doc, "run"));
		g->options = json_object_get(job_get(doc, "options"));
		g->first = k;
	}
	g->nranks++;
	if (!g->samples && !(g->samples = json_object_new_object()))
		return -ENOMEM;
	if ((!g->regions && !(g->regions = json_object_new_object())) ||
	    (!g->tables && !(g->tables = json_object_new_object())) ||
	    (!g->fallback && !(g->fallback = json_object_new_object())) ||
	    (far && !g->far && !(g->far = json_object_new_object())) ||
	    (!g->vars && !(g->vars = json_object_new_object())) ||
	    (!g->lines && !(g->lines = json_object_new_object())))
		return -ENOMEM;
	if (add_numbers(g->samples, job_get(doc, "samples")) ||
	    (regs && json_object_is_type(regs, json_type_array) && add_regions(g->regions, regs)) ||
	    (tabs && json_object_is_type(tabs, json_type_array) &&
	     add_tables(jb, no_remote ? g->fallback : g->tables, tabs, rk->host, rk->rank)) ||
	    (far && json_object_is_type(far, json_type_array) &&
	     add_tables(jb, g->far, far, rk->host, rk->rank)) ||
	    each(g->vars, doc, "variables", add_var, rk->rank) ||
	    each(g->lines, doc, "lines", add_line_r, rk->rank))
		return -ENOMEM;
	return 0;
}

/* The values of map m as an array (references taken), NULL when out of memory. */
static json_object *values(json_object *m)
{
	json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	json_object_object_foreach(m, key, v) {
		(void)key;
		if (json_object_array_add(a, json_object_get(v))) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* By count (or samples) descending, then name. */
static int by_count(const void *x, const void *y)
{
	json_object *a = *(json_object *const *)x, *b = *(json_object *const *)y;
	int64_t ca = job_geti(a, job_get(a, "count") ? "count" : "samples");
	int64_t cb = job_geti(b, job_get(b, "count") ? "count" : "samples");

	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(job_gets(a, "name"), job_gets(b, "name"));
}

/* By member "rank" (or "mpi_rank") ascending. */
static int by_rank(const void *x, const void *y)
{
	json_object *a = *(json_object *const *)x, *b = *(json_object *const *)y;
	int64_t ra = job_geti(a, "rank"), rb = job_geti(b, "rank");

	return ra < rb ? -1 : ra > rb;
}

/* Regions by sequence number, then name. */
static int by_seq(const void *x, const void *y)
{
	json_object *a = *(json_object *const *)x, *b = *(json_object *const *)y;
	int64_t sa = job_geti(a, "seq"), sb = job_geti(b, "seq");

	return sa != sb ? (sa < sb ? -1 : 1) : strcmp(job_gets(a, "name"), job_gets(b, "name"));
}

/* Tables by host (or MPI rank), then node (unknown last). */
static int by_table(const void *x, const void *y)
{
	json_object *a = *(json_object *const *)x, *b = *(json_object *const *)y;
	int64_t ra = job_geti(a, "mpi_rank"), rb = job_geti(b, "mpi_rank");
	int c = strcmp(job_gets(a, "host"), job_gets(b, "host"));
	json_object *na = job_get(a, "node"), *nb = job_get(b, "node");
	uint64_t ia = na ? (uint64_t)json_object_get_int64(na) : UINT64_MAX;
	uint64_t ib = nb ? (uint64_t)json_object_get_int64(nb) : UINT64_MAX;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (c)
		return c;
	return ia < ib ? -1 : ia > ib;
}

/* Map ranks "r" -> count into the array [{"rank": r, "count": n}] by rank. */
static json_object *rank_counts(json_object *m)
{
	json_object *a = json_object_new_array();

	if (!a)
		return NULL;
	json_object_object_foreach(m, key, v) {
		json_object *o = json_object_new_object();

		if (!o || json_object_array_add(a, o) ||
		    json_object_object_add(o, "rank", json_object_new_int64(strtol(key, NULL, 10))) ||
		    json_object_object_add(o, "count", json_object_get(v)))
			goto fail;
	}
	json_object_array_sort(a, by_rank);
	return a;
fail:
	json_object_put(a);
	return NULL;
}

/* The array of map m sorted by count, cut to top (0: all) with "more" {what, count} in
 * parent; each kept member through fn(fin, member, place) (when not NULL). NULL when out
 * of memory. */
struct finish {
	size_t top;               /* --top */
	json_object *shown;       /* the variables a table shows: "kind name" -> true */
};

static json_object *sorted_cut(json_object *m, size_t top, json_object *parent, const char *what,
			       int (*fn)(struct finish *, json_object *, size_t),
			       struct finish *fin)
{
	json_object *a = values(m), *kept = json_object_new_array(), *more = json_object_new_object();
	size_t n = a ? json_object_array_length(a) : 0;
	int64_t left = 0, cut = 0;

	if (!a || !kept || !more)
		goto fail;
	json_object_array_sort(a, by_count);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(a, i);

		if (top && i >= top) {
			left++;
			cut += job_geti(e, "count");
		} else if (json_object_array_add(kept, json_object_get(e)) || (fn && fn(fin, e, i))) {
			goto fail;
		}
	}
	json_object_put(a);
	if (json_object_object_add(more, what, json_object_new_int64(left)) ||
	    json_object_object_add(more, "count", json_object_new_int64(cut)) ||
	    json_object_object_add(parent, "more", more))
		goto fail2;
	return kept;
fail:
	json_object_put(more);
fail2:
	json_object_put(a);
	json_object_put(kept);
	return NULL;
}


/* An item of an entry: nothing to do; an entry: its place, items cut, ranks as an array. */
static int fix_entry(struct finish *fin, json_object *e, size_t i)
{
	json_object *items, *ranks;
	char key[4096];

	if (json_object_object_add(e, "rank", json_object_new_int64((int64_t)i + 1)))
		return -ENOMEM;
	if (!(items = sorted_cut(job_get(e, "items"), fin->top, e, "items", NULL, NULL)) ||
	    json_object_object_add(e, "items", items) ||
	    !(ranks = rank_counts(job_get(e, "ranks"))) || json_object_object_add(e, "ranks", ranks))
		return -ENOMEM;
	entry_key(e, key, sizeof(key));
	return json_object_object_add(fin->shown, key, json_object_new_boolean(1)) ? -ENOMEM : 0;
}

/* The tables of map m as the report's array. */
static json_object *tables(json_object *m, struct finish *fin)
{
	json_object *a = values(m);
	size_t n = a ? json_object_array_length(a) : 0;

	if (!a)
		return NULL;
	json_object_array_sort(a, by_table);
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(a, i), *e;

		e = sorted_cut(job_get(t, "entries"), fin->top, t, "entries", fix_entry, fin);
		if (!e || json_object_object_add(t, "entries", e)) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

/* The variables of map m by samples, each with "shown" and its ranks as an array. */
static json_object *variables(json_object *m, int by_line, json_object *shown)
{
	json_object *a = values(m);
	size_t n = a ? json_object_array_length(a) : 0;

	if (!a)
		return NULL;
	json_object_array_sort(a, by_count);
	for (size_t i = 0; i < n; i++) {
		json_object *v = json_object_array_get_idx(a, i), *r = values(job_get(v, "ranks"));
		char key[4096];

		entry_key(v, key, sizeof(key));
		if (!r || json_object_object_add(v, "ranks", r) ||
		    json_object_object_add(v, "shown",
					   json_object_new_boolean(by_line || job_get(shown, key)))) {
			json_object_put(a);
			return NULL;
		}
		json_object_array_sort(r, by_rank);
	}
	return a;
}

/* The warnings (damage: 1) of the group's ranks, each "rank N: ...". */
static json_object *problems(const struct job *jb, const struct job_group *g, int damage)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < jb->nranks; i++) {
		const struct job_rank *rk = &jb->ranks[i];

		if (rk->group != (size_t)(g - jb->groups))
			continue;
		for (size_t k = 0; k < rk->nnotes; k++) {
			int d = !strncmp(rk->notes[k], "damaged input: ", 15);
			char *t;

			if (d != damage)
				continue;
			if (asprintf(&t, "rank %ld: %s", rk->rank, rk->notes[k] + (d ? 15 : 0)) < 0 ||
			    json_object_array_add(a, json_object_new_string(t))) {
				json_object_put(a);
				return NULL;
			}
			free(t);
		}
	}
	return a;
}

/* share of runtime_wait: its samples over all samples. */
static void runtime_share(json_object *s)
{
	json_object *rw = job_get(s, "runtime_wait");
	int64_t tot = job_geti(s, "total");

	if (rw && job_get(rw, "share"))
		json_object_object_add(rw, "share", json_object_new_double(
				tot ? (double)job_geti(rw, "samples") / (double)tot : 0.0));
}

/* Add member key = v to o (v NULL: out of memory). */
static int put(json_object *o, const char *key, json_object *v)
{
	return !v || json_object_object_add(o, key, v) ? -ENOMEM : 0;
}

int job_merge_finish(struct job *jb, struct job_group *g)
{
	int mode = jb->o->mode, no_remote = mode == MR_AGG_REMOTE &&
					    job_geti(g->samples, "remote") + job_geti(g->samples, "far") == 0;
	json_object *d = json_object_new_object(), *opt = copy(g->options), *regs = NULL;
	struct finish fin = { jb->o->top, json_object_new_object() };
	int rc = -ENOMEM;

	if (!d || !opt || !fin.shown || !(regs = values(g->regions)))
		goto out;
	json_object_array_sort(regs, by_seq);
	runtime_share(g->samples);
	json_object_object_del(g->samples, "write_error"); /* one rank's: in its ranks[].why */
	if (put(opt, "top", json_object_new_int64((int64_t)jb->o->top)) ||
	    put(d, "schema", json_object_new_string(MR_JSON_SCHEMA)) ||
	    put(d, "rundir", json_object_new_string(jb->dir ? jb->dir : jb->ranks[g->first].dir)) ||
	    put(d, "run", json_object_get(g->run)) || put(d, "options", json_object_get(opt)) ||
	    put(d, "samples", json_object_get(g->samples)) ||
	    put(d, "nodes", json_object_new_int64((int64_t)g->nodes)) ||
	    put(d, "regions", json_object_get(regs)) ||
	    put(d, "no_remote", json_object_new_boolean(no_remote)) ||
	    put(d, "table_mode", json_object_new_string(no_remote ? "all" : mode_name[mode])) ||
	    put(d, "tables", tables(no_remote ? g->fallback : g->tables, &fin)) ||
	    (g->far && !no_remote && put(d, "far_tables", tables(g->far, &fin))) ||
	    put(d, "variables", variables(g->vars, jb->o->by_line, fin.shown)) ||
	    (jb->o->by_line && put(d, "lines", values(g->lines))) ||
	    put(d, "warnings", problems(jb, g, 0)) || put(d, "damage", problems(jb, g, 1)))
		goto out;
	if (jb->o->by_line)
		json_object_array_sort(job_get(d, "lines"), by_count);
	g->doc = d;
	d = NULL;
	rc = 0;
out:
	json_object_put(opt);
	json_object_put(regs);
	json_object_put(d);
	json_object_put(fin.shown);
	return rc;
}

void job_group_free(struct job_group *g)
{
	free(g->job_id);
	free(g->topology);
	free(g->build_id);
	free(g->backend);
	json_object_put(g->run);
	json_object_put(g->options);
	json_object_put(g->samples);
	json_object_put(g->regions);
	json_object_put(g->tables);
	json_object_put(g->fallback);
	json_object_put(g->far);
	json_object_put(g->vars);
	json_object_put(g->lines);
	json_object_put(g->doc);
}
