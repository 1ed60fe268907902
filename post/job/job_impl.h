/* post/job/job_impl.h - the report of an MPI job (issue 19), the internals its files share:
 *   job.c        the ranks found, read in parallel, grouped; the entry point
 *   job_merge.c  one rank's report (its JSON, parsed) added into its group
 *   job_out.c    the merged groups as text or JSON (docs/report-schema.md, "Jobs")
 *
 * A job is a job directory (rank-<r>/ run directories, docs/format.md "MPI jobs") or
 * several run directories given together. Every rank is reported alone, with the code and
 * options of `memphis-report --json` and every table entry kept, into memory; its JSON is
 * parsed (json-c), added into its group and freed, so memory holds one rank's report per
 * worker plus the sums, whatever the number of ranks. Ranks of another job id, topology,
 * executable (build id) or backend than the job's make groups of their own, reported apart
 * with a warning, never summed. A rank is missing when no directory of its number was
 * found (the job's size: its ranks' RUN mpi_size).
 */
#ifndef MR_JOB_IMPL_H
#define MR_JOB_IMPL_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "job.h"

enum job_status {
	JOB_OK,
	JOB_INCOMPLETE,  /* no END: killed, or ended without the library's shutdown */
	JOB_DAMAGED,     /* its report has damage (a file and offset named) */
	JOB_UNREADABLE,  /* no report at all (why says why) */
};

struct job_rank {
	char *dir;                /* its run directory */
	long rank;                /* RUN mpi_rank, else the number in the name rank-<r>, else -1 */
	long size;                /* RUN mpi_size, 0 unknown */
	char *host, *job_id;      /* "" unknown */
	uint64_t samples, attributed, remote;
	enum job_status status;   /* damaged before incomplete */
	int incomplete;           /* no END (also when damaged) */
	char *why;                /* unreadable: the error; incomplete: how much may be missing */
	char **notes;             /* its report's warnings and damage, as the report words them */
	size_t nnotes;
	size_t group;             /* index into job.groups */
};

/* What the ranks of a group share, and their reports summed. The maps are JSON objects
 * keyed by name (job_merge.c); job_merge_finish turns them into the report's arrays. */
struct job_group {
	char *job_id, *topology, *build_id, *backend;
	uint64_t nodes;
	size_t first;             /* index in job.ranks of its first rank */
	size_t nranks;
	json_object *run, *options; /* its first rank's */
	json_object *samples;     /* summed */
	json_object *regions;     /* "seq name" -> region, summed */
	json_object *tables;      /* "host node" (--by rank: "rank node") -> table */
	json_object *fallback;    /* the same, of ranks without remote samples (all samples) */
	json_object *far;         /* the same, the far tier's (a node without CPUs); NULL
				   * when no rank's report has far_tables */
	json_object *vars;        /* "kind name" -> variable, summed, with its ranks */
	json_object *lines;       /* --by line: name -> line, summed */
	json_object *doc;         /* after job_merge_finish: the group's report */
};

struct job {
	const struct report_opts *o;
	const char *dir;          /* the job directory; NULL for run directories given */
	struct job_rank *ranks;   /* by rank number, then directory */
	size_t nranks;
	struct job_group *groups; /* after the pass: the job's own first, then by first rank */
	size_t ngroups;
	long size;                /* mpi_size of the job's ranks, 0 unknown */
	pthread_mutex_t lock;     /* the pass: next, groups */
	pthread_mutex_t open_lock;/* report_opts.open_lock of the ranks' reports */
	size_t next;              /* the next rank a worker takes */
	size_t inner;             /* threads of each rank's sample pass */
	int failed;               /* out of memory */
};

/* job_merge.c: add rank k's report doc (of the group g it belongs to) into g; under the
 * job's lock. Returns 0 or -ENOMEM. */
int job_merge_add(struct job *jb, struct job_group *g, size_t k, json_object *doc);
/* The group's report document (g->doc) from the sums, tables sorted and cut to --top. */
int job_merge_finish(struct job *jb, struct job_group *g);
void job_group_free(struct job_group *g);

/* job_out.c: is rank r of the job missing (no directory of that rank at all)? */
bool job_missing(const struct job *jb, long r);
/* job_out.c: the job's report (every group) as text or JSON on out. */
void job_print_text(const struct job *jb, FILE *out);
void job_print_json(const struct job *jb, FILE *out);

/* Reading the ranks' report documents (json-c): o[key], NULL when o or the member is
 * absent; its integer (0 otherwise) and its string ("" otherwise). */
static inline json_object *job_get(json_object *o, const char *key)
{
	json_object *v;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static inline int64_t job_geti(json_object *o, const char *key)
{
	json_object *v = job_get(o, key);

	return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
}

static inline const char *job_gets(json_object *o, const char *key)
{
	json_object *v = job_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

#endif /* MR_JOB_IMPL_H */
