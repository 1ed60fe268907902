/* post/job/job_out.c - the report of an MPI job: the text (per host and node, the variables
 * summed over the ranks, with each rank's share) and the JSON (the job's group as the
 * report of one run, plus job, ranks, hosts and the groups reported apart). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "job_impl.h"
#include "run/rundir.h"

static const char *const status_name[] = { "ok", "incomplete", "damaged", "unreadable" };

/* Which ranks a list names: rank_in(jb, i, arg). */
typedef int rank_in_fn(const struct job *jb, size_t i, const void *arg);

/* The ranks i of jb that in(jb, i, arg) keeps, as "0-3, 5" on f. */
static void ranks_of(const struct job *jb, rank_in_fn *in_fn, const void *arg, FILE *f)
{
	long start = -2, prev = -2;
	int any = 0;

	for (size_t i = 0; i <= jb->nranks; i++) {
		int in = i < jb->nranks && in_fn(jb, i, arg);
		long r = in ? jb->ranks[i].rank : -9;

		if (in && prev >= 0 && r == prev + 1) {
			prev = r;
			continue;
		}
		if (start >= 0) {
			fprintf(f, "%s%ld", any++ ? ", " : "", start);
			if (prev > start)
				fprintf(f, "%s%ld", prev == start + 1 ? ", " : "-", prev);
			start = -2;
		}
		if (in)
			start = prev = r;
	}
}

struct group_host {
	size_t g;                 /* SIZE_MAX: every group */
	const char *host;         /* NULL: any */
};

static int in_group_host(const struct job *jb, size_t i, const void *arg)
{
	const struct group_host *gh = arg;
	const struct job_rank *rk = &jb->ranks[i];

	return (gh->g == SIZE_MAX || rk->group == gh->g) &&
	       (!gh->host || (rk->host && !strcmp(rk->host, gh->host)));
}

/* The ranks of group g (all groups: SIZE_MAX) on host (NULL: any) as "0-3, 5" on f. */
static void rank_list(const struct job *jb, size_t g, const char *host, FILE *f)
{
	struct group_host gh = { g, host };

	ranks_of(jb, in_group_host, &gh, f);
}

/* Is host the host of a rank before k in group g (named already)? */
static int host_seen(const struct job *jb, size_t k, size_t g)
{
	for (size_t i = 0; i < k; i++)
		if (jb->ranks[i].group == g && !strcmp(jb->ranks[i].host, jb->ranks[k].host))
			return 1;
	return 0;
}

/* "2 hosts: a (ranks 0, 1), b (ranks 2, 3)" of group g. */
static void hosts_text(const struct job *jb, size_t g, FILE *f)
{
	size_t n = 0;

	for (size_t i = 0; i < jb->nranks; i++)
		n += jb->ranks[i].group == g && !host_seen(jb, i, g);
	fprintf(f, "%zu host%s:", n, n == 1 ? "" : "s");
	for (size_t i = 0, k = 0; i < jb->nranks; i++) {
		size_t nr = 0;

		if (jb->ranks[i].group != g || host_seen(jb, i, g))
			continue;
		for (size_t m = 0; m < jb->nranks; m++)
			nr += jb->ranks[m].group == g && !strcmp(jb->ranks[m].host, jb->ranks[i].host);
		fprintf(f, "%s %s (rank%s ", k++ ? "," : "", mr_esc(jb->ranks[i].host),
			nr == 1 ? "" : "s");
		rank_list(jb, g, jb->ranks[i].host, f);
		fprintf(f, ")");
	}
	fprintf(f, "\n");
}

/* How group g differs from the job's group 0, "job id 99 (the job's: 12), ..." on f. */
static void apart_why(const struct job *jb, size_t g, FILE *f)
{
	const struct job_group *a = &jb->groups[g], *m = &jb->groups[0];
	const char *sep = "";

	if (strcmp(a->job_id, m->job_id))
		fprintf(f, "%sjob id %s (the job's: %s)", sep, a->job_id, m->job_id), sep = ", ";
	if (strcmp(a->build_id, m->build_id))
		fprintf(f, "%sbuild id %s (the job's: %s)", sep, a->build_id, m->build_id), sep = ", ";
	if (strcmp(a->backend, m->backend))
		fprintf(f, "%sbackend %s (the job's: %s)", sep, a->backend, m->backend), sep = ", ";
	if (strcmp(a->topology, m->topology) || a->nodes != m->nodes)
		fprintf(f, "%stopology %" PRIu64 " nodes, CPUs %s (the job's: %" PRIu64 " nodes, "
			"CPUs %s)", sep, a->nodes, a->topology, m->nodes, m->topology), sep = ", ";
	if (!*sep)
		fprintf(f, "the same rank number twice");
}

bool job_missing(const struct job *jb, long r)
{
	for (size_t i = 0; i < jb->nranks; i++)
		if (jb->ranks[i].rank == r)
			return false;
	return true;
}

/* The lines about ranks that are missing, incomplete, unreadable or reported apart. */
static void rank_problems(const struct job *jb, FILE *f, const char *prefix)
{
	for (long r = 0; r < jb->size; r++) {
		if (job_missing(jb, r))
			fprintf(f, "%swarning: rank %ld missing (the job has %ld ranks)\n", prefix, r,
				jb->size);
	}
	for (size_t i = 0; i < jb->nranks; i++) {
		const struct job_rank *rk = &jb->ranks[i];

		if (rk->status == JOB_UNREADABLE && rk->rank >= 0)
			fprintf(f, "%swarning: rank %ld unreadable (%s), left out: %s\n", prefix,
				rk->rank, rk->dir, rk->why);
		else if (rk->status == JOB_UNREADABLE)
			fprintf(f, "%swarning: %s unreadable, left out: %s\n", prefix, rk->dir,
				rk->why);
		if (rk->incomplete && rk->status != JOB_UNREADABLE)
			fprintf(f, "%swarning: rank %ld incomplete (%s): %s\n", prefix, rk->rank,
				rk->dir, rk->why);
		if (rk->status == JOB_DAMAGED)
			fprintf(f, "%swarning: rank %ld damaged (%s): the rest of it is reported\n",
				prefix, rk->rank, rk->dir);
	}
	for (size_t g = 1; g < jb->ngroups; g++) {
		fprintf(f, "%swarning: rank%s ", prefix, jb->groups[g].nranks > 1 ? "s" : "");
		rank_list(jb, g, NULL, f);
		fprintf(f, " reported apart, not summed with the job's: ");
		apart_why(jb, g, f);
		fprintf(f, "\n");
	}
}

static void rank_table(const struct job *jb, FILE *f)
{
	char b1[32], b2[32], b3[32];

	fprintf(f, "\n%6s  %-16s %12s %12s %12s  %s\n", "rank", "host", "samples", "attributed",
		"remote", "status");
	for (size_t i = 0; i < jb->nranks; i++) {
		const struct job_rank *rk = &jb->ranks[i];

		fprintf(f, "%6ld  %-16s %12s %12s %12s  %s", rk->rank, rk->host ? rk->host : "?",
			mr_fmt_count(b1, rk->samples), mr_fmt_count(b2, rk->attributed),
			mr_fmt_count(b3, rk->remote), status_name[rk->status]);
		if (rk->group && rk->group < jb->ngroups)
			fprintf(f, ", group %zu (apart)", rk->group + 1);
		fprintf(f, "\n");
	}
}

/* A table entry's ranks: " [ranks 0: 30, 1: 23]" (the first 8, then how many more). */
static void entry_ranks(json_object *e, FILE *f)
{
	json_object *r = job_get(e, "ranks");
	size_t n = r ? json_object_array_length(r) : 0;
	char b[32];

	fprintf(f, "  [rank%s", n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 8; i++) {
		json_object *x = json_object_array_get_idx(r, i);

		fprintf(f, "%s %" PRId64 ": %s", i ? "," : "", job_geti(x, "rank"),
			mr_fmt_count(b, (uint64_t)job_geti(x, "count")));
	}
	if (n > 8)
		fprintf(f, ", %zu more", n - 8);
	fprintf(f, "]\n");
}

/* The tables tabs (an array of the report's tables, or NULL) on f. */
static void table_set(const struct job *jb, json_object *tabs, FILE *f)
{
	size_t n = tabs ? json_object_array_length(tabs) : 0;
	char b[32];

	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(tabs, i), *es = job_get(t, "entries");
		size_t ne = es ? json_object_array_length(es) : 0;

		if (jb->o->by_rank)
			fprintf(f, "\nrank %" PRId64 " (%s) ", job_geti(t, "mpi_rank"),
				mr_esc(job_gets(t, "host")));
		else
			fprintf(f, "\n%s ", mr_esc(job_gets(t, "host")));
		fprintf(f, "%s: total %s\n", job_gets(t, "label"),
			mr_fmt_count(b, (uint64_t)job_geti(t, "total")));
		for (size_t k = 0; k < ne; k++) {
			json_object *e = json_object_array_get_idx(es, k), *its = job_get(e, "items");
			size_t ni = its ? json_object_array_length(its) : 0;

			fprintf(f, "(%" PRId64 ") %s %s", job_geti(e, "rank"), mr_esc(job_gets(e, "name")),
				mr_fmt_count(b, (uint64_t)job_geti(e, "count")));
			entry_ranks(e, f);
			for (size_t m = 0; m < ni; m++) {
				json_object *it = json_object_array_get_idx(its, m);

				fprintf(f, "    %s %s\n", mr_esc(job_gets(it, "name")),
					mr_fmt_count(b, (uint64_t)job_geti(it, "count")));
			}
			if (job_geti(job_get(e, "more"), "items"))
				fprintf(f, "    ... %" PRId64 " more lines\n", job_geti(job_get(e, "more"), "items"));
		}
		if (job_geti(job_get(t, "more"), "entries"))
			fprintf(f, "... %" PRId64 " more (--top)\n", job_geti(job_get(t, "more"), "entries"));
	}
}

/* The tables of group g's report d: remote (or as asked), then the far tier's where a node
 * has no CPU. */
static void group_tables(const struct job *jb, json_object *d, FILE *f)
{
	json_object *far = job_get(d, "far_tables");

	fprintf(f, "\n%s samples per %s and node of the sampling CPU%s, summed over ranks:\n",
		json_object_get_boolean(job_get(d, "no_remote")) ? "No remote samples; all" :
		!strcmp(job_gets(d, "table_mode"), "local") ? "Local" :
		!strcmp(job_gets(d, "table_mode"), "all") ? "All" : "Remote",
		jb->o->by_rank ? "rank" : "host",
		far ? " (pages on another node with CPUs)" : "");
	table_set(jb, job_get(d, "tables"), f);
	if (!far)
		return;
	fprintf(f, "\nFar-tier samples per %s and node of the sampling CPU (pages on nodes without "
		"CPUs), summed over ranks:\n", jb->o->by_rank ? "rank" : "host");
	if (!json_object_array_length(far))
		fprintf(f, "(none)\n");
	table_set(jb, far, f);
}

/* The header and tables of group g. */
static void group_text(const struct job *jb, size_t g, FILE *f)
{
	json_object *d = jb->groups[g].doc, *run = job_get(d, "run"), *s = job_get(d, "samples");
	char b1[32], b2[32], b3[32], b4[32];

	if (g) {
		fprintf(f, "\n== Ranks ");
		rank_list(jb, g, NULL, f);
		fprintf(f, ", reported apart: ");
		apart_why(jb, g, f);
		fprintf(f, "\n");
	}
	fprintf(f, "program: %s; backend: %s, period %s ns; weighting: %s\n",
		mr_esc(job_gets(run, "exe")), mr_esc(job_gets(run, "backend")), mr_fmt_count(b1, (uint64_t)job_geti(run, "period_ns")),
		job_gets(run, "weighting"));
	hosts_text(jb, g, f);
	fprintf(f, "samples: %s total over the ranks; attributed: %s: %s remote, %s local",
		mr_fmt_count(b1, (uint64_t)job_geti(s, "total")),
		mr_fmt_count(b2, (uint64_t)job_geti(s, "attributed")),
		mr_fmt_count(b3, (uint64_t)job_geti(s, "remote")),
		mr_fmt_count(b4, (uint64_t)job_geti(s, "local")));
	if (job_get(s, "far"))
		fprintf(f, ", %s far tier (pages on nodes without CPUs)",
			mr_fmt_count(b1, (uint64_t)job_geti(s, "far")));
	fprintf(f, "\n");
	fprintf(f, "nodes: %" PRId64 " per host\n", job_geti(d, "nodes"));
	group_tables(jb, d, f);
}

/* Has rank i note text? */
static int has_note(const struct job_rank *rk, const char *text)
{
	for (size_t k = 0; k < rk->nnotes; k++)
		if (!strcmp(rk->notes[k], text))
			return 1;
	return 0;
}

static int in_note(const struct job *jb, size_t i, const void *text)
{
	return has_note(&jb->ranks[i], text);
}

/* Note k of rank i on f, with every rank that has the same note ("ranks 0-3: warning:
 * cannot read ..."), unless an earlier rank had it (then it was printed). */
static void rank_note(const struct job *jb, size_t i, size_t k, FILE *f, const char *prefix)
{
	const char *text = jb->ranks[i].notes[k];
	int many = 0;

	for (size_t j = 0; j < i; j++)
		if (has_note(&jb->ranks[j], text))
			return;
	for (size_t j = i + 1; j < jb->nranks; j++)
		many |= has_note(&jb->ranks[j], text);
	fprintf(f, "%srank%s ", prefix, many ? "s" : "");
	ranks_of(jb, in_note, text, f);
	fprintf(f, ": %s%s\n", strncmp(text, "damaged", 7) ? "warning: " : "", text);
}

/* The job's id: the group's, else "?". */
static const char *job_id(const struct job *jb)
{
	return jb->ngroups && *jb->groups[0].job_id ? jb->groups[0].job_id : "?";
}

void job_print_text(const struct job *jb, FILE *f)
{
	size_t n0 = jb->ngroups ? jb->groups[0].nranks : 0;

	fprintf(f, "memphis-report: job %s (%s): %zu rank%s", mr_esc(job_id(jb)),
		jb->dir ? mr_esc(jb->dir) : "run directories given", n0, n0 == 1 ? "" : "s");
	if (jb->size)
		fprintf(f, " of %ld", jb->size);
	fprintf(f, " (");
	rank_list(jb, 0, NULL, f);
	fprintf(f, ")\n");
	rank_problems(jb, f, "");
	for (size_t g = 0; g < jb->ngroups; g++)
		group_text(jb, g, f);
	rank_table(jb, f);
	for (size_t i = 0, any = 0; i < jb->nranks; i++)
		for (size_t k = 0; k < jb->ranks[i].nnotes; k++) {
			if (!any++)
				fprintf(f, "\n");
			rank_note(jb, i, k, f, "");
		}
	report_next_line(f, jb->dir, jb->o->by_rank ? "--rank N, --json" :
			 "--by rank, --rank N, --json");
	fflush(f);
	for (size_t i = 0; i < jb->nranks; i++)
		for (size_t k = 0; k < jb->ranks[i].nnotes; k++)
			rank_note(jb, i, k, stderr, "memphis-report: ");
	rank_problems(jb, stderr, "memphis-report: ");
}

/* The array "ranks" of the JSON report. */
static json_object *ranks_json(const struct job *jb)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < jb->nranks; i++) {
		const struct job_rank *rk = &jb->ranks[i];
		json_object *o = json_object_new_object();

		json_object_array_add(a, o);
		json_object_object_add(o, "rank", json_object_new_int64(rk->rank));
		json_object_object_add(o, "host", rk->host ? json_object_new_string(rk->host) : NULL);
		json_object_object_add(o, "rundir", json_object_new_string(rk->dir));
		json_object_object_add(o, "samples", json_object_new_int64((int64_t)rk->samples));
		json_object_object_add(o, "remote", json_object_new_int64((int64_t)rk->remote));
		json_object_object_add(o, "status", json_object_new_string(status_name[rk->status]));
		json_object_object_add(o, "incomplete", json_object_new_boolean(rk->incomplete));
		if (rk->why)
			json_object_object_add(o, "why", json_object_new_string(rk->why));
		json_object_object_add(o, "group", rk->group < jb->ngroups
					   ? json_object_new_int64((int64_t)rk->group) : NULL);
	}
	return a;
}

/* The array "hosts": each host's name and ranks (of every group). */
static json_object *hosts_json(const struct job *jb)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < jb->nranks; i++) {
		json_object *o, *r;
		int seen = 0;

		if (!jb->ranks[i].host)
			continue;
		for (size_t k = 0; k < i; k++)
			seen |= jb->ranks[k].host && !strcmp(jb->ranks[k].host, jb->ranks[i].host);
		if (seen)
			continue;
		o = json_object_new_object();
		r = json_object_new_array();
		json_object_array_add(a, o);
		json_object_object_add(o, "name", json_object_new_string(jb->ranks[i].host));
		json_object_object_add(o, "ranks", r);
		for (size_t k = i; k < jb->nranks; k++)
			if (jb->ranks[k].host && !strcmp(jb->ranks[k].host, jb->ranks[i].host))
				json_object_array_add(r, json_object_new_int64(jb->ranks[k].rank));
	}
	return a;
}

/* "job": id, directory, size, the ranks missing. */
static json_object *job_json(const struct job *jb)
{
	json_object *o = json_object_new_object(), *miss = json_object_new_array();

	json_object_object_add(o, "id", json_object_new_string(job_id(jb)));
	json_object_object_add(o, "dir", jb->dir ? json_object_new_string(jb->dir) : NULL);
	json_object_object_add(o, "size", jb->size ? json_object_new_int64(jb->size) : NULL);
	json_object_object_add(o, "missing", miss);
	for (long r = 0; r < jb->size; r++)
		if (job_missing(jb, r))
			json_object_array_add(miss, json_object_new_int64(r));
	return o;
}

void job_print_json(const struct job *jb, FILE *f)
{
	json_object *d = jb->ngroups ? json_object_get(jb->groups[0].doc) : json_object_new_object();
	json_object *apart = json_object_new_array();

	if (!jb->ngroups) {
		json_object_object_add(d, "schema", json_object_new_string(MR_JSON_SCHEMA));
		json_object_object_add(d, "error", json_object_new_string("no rank readable"));
	}
	json_object_object_add(d, "job", job_json(jb));
	json_object_object_add(d, "ranks", ranks_json(jb));
	json_object_object_add(d, "hosts", hosts_json(jb));
	for (size_t g = 1; g < jb->ngroups; g++) {
		char *why = NULL;
		size_t n = 0;
		FILE *m = open_memstream(&why, &n);

		if (m) {
			apart_why(jb, g, m);
			fclose(m);
		}
		json_object_object_add(jb->groups[g].doc, "apart",
				       json_object_new_string(why ? why : ""));
		free(why);
		json_object_array_add(apart, json_object_get(jb->groups[g].doc));
	}
	json_object_object_add(d, "groups", apart);
	fprintf(f, "%s\n", json_object_to_json_string_ext(d, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(d);
}
