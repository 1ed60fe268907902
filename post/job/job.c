/* post/job/job.c - the report of an MPI job: its ranks found (a job directory's rank-<r>/, or
 * the run directories given), each reported alone by one of several workers and added
 * into its group (job_merge.c), the groups ordered, printed (job_out.c). See job.h. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "binary/debuginfo.h"
#include "job_impl.h"
#include "run/rundir.h"

/* The rank number of a name "rank-<r>" or "rank-<r>.<n>" (a re-run), -1 for others. */
static long rank_of_name(const char *name)
{
	const char *b = strrchr(name, '/');
	char *end;
	long r;

	b = b && b[1] ? b + 1 : name;
	if (strncmp(b, "rank-", 5) || b[5] < '0' || b[5] > '9')
		return -1;
	r = strtol(b + 5, &end, 10);
	return *end == '\0' || *end == '.' || *end == '/' ? r : -1;
}

bool job_is_dir(const char *dir)
{
	char path[4096];
	struct stat st;
	struct dirent *e;
	DIR *d;
	bool found = false;

	snprintf(path, sizeof(path), "%s/%s", dir, MEMPHIS_META_FILE);
	if (stat(path, &st) == 0 || !(d = opendir(dir)))
		return false;
	while (!found && (e = readdir(d)))
		if (rank_of_name(e->d_name) >= 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			found = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
		}
	closedir(d);
	return found;
}

/* Order of ranks: by rank number (unknown last), then directory. */
static int rank_cmp(const void *x, const void *y)
{
	const struct job_rank *a = x, *b = y;
	unsigned long ra = (unsigned long)a->rank, rb = (unsigned long)b->rank;

	if (ra != rb)
		return ra < rb ? -1 : 1;
	return strcmp(a->dir, b->dir);
}

/* Append run directory dir (malloc'd, taken) to jb->ranks. 0 or -ENOMEM. */
static int add_rank(struct job *jb, char *dir)
{
	struct job_rank *nr = dir ? realloc(jb->ranks, (jb->nranks + 1) * sizeof(*nr)) : NULL;

	if (!nr) {
		free(dir);
		return -ENOMEM;
	}
	jb->ranks = nr;
	memset(&nr[jb->nranks], 0, sizeof(*nr));
	nr[jb->nranks].dir = dir;
	nr[jb->nranks].rank = rank_of_name(dir);
	jb->nranks++;
	return 0;
}

/* The ranks of the job: the job directory's rank-<r> subdirectories, or the directories
 * given. 0, or -errno after printing the error. */
static int find_ranks(struct job *jb)
{
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if (!jb->dir) {
		for (size_t i = 0; i < jb->o->ndirs && !rc; i++)
			rc = add_rank(jb, strdup(jb->o->dirs[i]));
		return rc ? mr_error(MR_EXIT_DATA, "out of memory"), rc : 0;
	}
	if (!(d = opendir(jb->dir)))
		return mr_error(MR_EXIT_DATA, "%s: %s", jb->dir, strerror(errno)), -errno;
	while (!rc && (e = readdir(d))) {
		char *path;
		struct stat st;

		if (rank_of_name(e->d_name) < 0)
			continue;
		size_t dl = strlen(jb->dir);

		if (asprintf(&path, "%s%s%s", jb->dir, dl && jb->dir[dl - 1] == '/' ? "" : "/",
			     e->d_name) < 0) {
			rc = -ENOMEM;
			break;
		}
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			free(path);
		else
			rc = add_rank(jb, path);
	}
	closedir(d);
	if (rc)
		return mr_error(MR_EXIT_DATA, "out of memory"), rc;
	qsort(jb->ranks, jb->nranks, sizeof(*jb->ranks), rank_cmp);
	return 0;
}

/* Member key of o as a string ("" when absent or not one). */
static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v) : "";
}

/* Member key of o as a number (dflt when absent or not one). */
static int64_t num_of(json_object *o, const char *key, int64_t dflt)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_int)
		       ? json_object_get_int64(v) : dflt;
}

static json_object *obj_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_object)
		       ? v : NULL;
}

/* The messages of array key of doc into rk->notes, with prefix. 0 or -ENOMEM. */
static int take_notes(struct job_rank *rk, json_object *doc, const char *key, const char *prefix)
{
	json_object *a;
	size_t n;

	if (!json_object_object_get_ex(doc, key, &a) || !json_object_is_type(a, json_type_array))
		return 0;
	n = json_object_array_length(a);
	for (size_t i = 0; i < n; i++) {
		char **nn = realloc(rk->notes, (rk->nnotes + 1) * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		rk->notes = nn;
		if (asprintf(&nn[rk->nnotes], "%s%s", prefix,
			     json_object_get_string(json_object_array_get_idx(a, i))) < 0)
			return -ENOMEM;
		rk->nnotes++;
	}
	return 0;
}

/* What the job report says of rank rk from its report doc. 0 or -ENOMEM. */
static int summarise(struct job_rank *rk, json_object *doc)
{
	json_object *run = obj_of(doc, "run"), *mpi = obj_of(run, "mpi");
	json_object *s = obj_of(doc, "samples"), *dmg;
	int64_t unwritten = num_of(s, "unwritten_max_ms", -1);

	rk->rank = num_of(mpi, "rank", rk->rank);
	rk->size = num_of(mpi, "size", 0);
	rk->host = strdup(str_of(run, "hostname"));
	rk->job_id = strdup(str_of(mpi, "job_id"));
	rk->samples = (uint64_t)num_of(s, "total", 0);
	rk->attributed = (uint64_t)num_of(s, "attributed", 0);
	rk->remote = (uint64_t)num_of(s, "remote", 0);
	if (json_object_object_get_ex(doc, "damage", &dmg) &&
	    json_object_is_type(dmg, json_type_array) && json_object_array_length(dmg))
		rk->status = JOB_DAMAGED;
	rk->incomplete = unwritten >= 0 || *str_of(s, "write_error");
	if (rk->incomplete && rk->status == JOB_OK)
		rk->status = JOB_INCOMPLETE;
	if (*str_of(s, "write_error"))
		rk->why = strdup(str_of(s, "write_error"));
	else if (unwritten >= 0 && asprintf(&rk->why, "no END: killed, or it ended without the "
					    "library's shutdown; up to %lld ms of its samples may "
					    "be missing", (long long)unwritten) < 0)
		rk->why = NULL;
	if (!rk->host || !rk->job_id || (rk->incomplete && !rk->why) ||
	    take_notes(rk, doc, "warnings", "") || take_notes(rk, doc, "damage", "damaged input: "))
		return -ENOMEM;
	return 0;
}

/* The group of rank rk's doc (made when none matches), NULL when out of memory. Under the
 * job's lock. */
static struct job_group *group_of(struct job *jb, size_t k, json_object *doc)
{
	json_object *run = obj_of(doc, "run");
	const char *topo = str_of(obj_of(run, "mpi"), "topology");
	const char *bid = str_of(run, "build_id"), *be = str_of(run, "backend");
	uint64_t nodes = (uint64_t)num_of(doc, "nodes", 0);
	struct job_group *g;

	for (size_t i = 0; i < jb->ngroups; i++) {
		g = &jb->groups[i];
		if (!strcmp(g->job_id, jb->ranks[k].job_id) && !strcmp(g->topology, topo) &&
		    !strcmp(g->build_id, bid) && !strcmp(g->backend, be) && g->nodes == nodes)
			return g;
	}
	g = realloc(jb->groups, (jb->ngroups + 1) * sizeof(*g));
	if (!g)
		return NULL;
	jb->groups = g;
	g = &g[jb->ngroups++];
	memset(g, 0, sizeof(*g));
	g->first = k;
	g->nodes = nodes;
	g->job_id = strdup(jb->ranks[k].job_id);
	g->topology = strdup(topo);
	g->build_id = strdup(bid);
	g->backend = strdup(be);
	return g->job_id && g->topology && g->build_id && g->backend ? g : NULL;
}

/* Rank k's report into buf (its JSON, or with *failed its error message). */
static void report_rank(struct job *jb, size_t k, size_t inner, char **buf, int *failed)
{
	struct report_opts o = *jb->o;
	char *err = NULL;
	size_t n = 0, en = 0;
	FILE *mem = open_memstream(buf, &n), *errf = open_memstream(&err, &en);

	*failed = 1;
	if (!mem || !errf) {
		if (mem)
			fclose(mem);
		if (errf)
			fclose(errf);
		return;
	}
	o.dir = jb->ranks[k].dir;
	o.dirs = NULL;
	o.ndirs = 0;
	o.json = 1;
	o.top = 0;
	o.jobs = inner;
	o.by_rank = o.one_rank = 0;
	o.open_lock = &jb->open_lock;
	mr_err_capture = errf;
	*failed = report_run(&o, mem) != MR_EXIT_OK && n == 0;
	mr_err_capture = NULL;
	fclose(mem);
	fclose(errf);
	if (*failed) {
		free(*buf);
		*buf = err;
		err = NULL;
	}
	free(err);
}

/* Report, summarise and merge rank k. Returns 0 or -ENOMEM. */
static int do_rank(struct job *jb, size_t k, size_t inner)
{
	struct job_rank *rk = &jb->ranks[k];
	char *buf = NULL;
	json_object *doc = NULL;
	struct job_group *g;
	int failed, rc = 0;

	report_rank(jb, k, inner, &buf, &failed);
	if (!buf)
		return -ENOMEM;
	if (!failed && !(doc = json_tokener_parse(buf)))
		failed = 1; /* not expected: our own JSON */
	if (failed) {
		size_t len = strlen(buf);

		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		rk->status = JOB_UNREADABLE;
		rk->why = buf;
		rk->group = SIZE_MAX;
		return 0;
	}
	free(buf);
	rc = summarise(rk, doc);
	pthread_mutex_lock(&jb->lock);
	if (!rc) {
		g = group_of(jb, k, doc);
		rc = g ? job_merge_add(jb, g, k, doc) : -ENOMEM;
		rk->group = g ? (size_t)(g - jb->groups) : SIZE_MAX;
	}
	pthread_mutex_unlock(&jb->lock);
	json_object_put(doc);
	return rc;
}

/* A worker: takes the next rank until none is left (a thread's start routine). */
static void *worker(void *arg)
{
	struct job *jb = arg;

	for (;;) {
		size_t k;

		pthread_mutex_lock(&jb->lock);
		k = jb->failed ? jb->nranks : jb->next++;
		pthread_mutex_unlock(&jb->lock);
		if (k >= jb->nranks)
			return NULL;
		if (do_rank(jb, k, jb->inner)) {
			pthread_mutex_lock(&jb->lock);
			jb->failed = 1;
			pthread_mutex_unlock(&jb->lock);
		}
	}
}

/* The workers: --jobs (else MEMPHIS_REPORT_JOBS, else the online CPUs) ranks at once, the
 * first in this thread; with fewer ranks than that, each rank's pass gets the rest. */
static void run_workers(struct job *jb)
{
	size_t n = report_jobs(jb->o), nw = n < jb->nranks ? n : jb->nranks;
	pthread_t th[MR_MAX_JOBS];
	int started[MR_MAX_JOBS];

	if (!nw)
		return;
	jb->inner = n / nw;
	for (size_t k = 1; k < nw; k++)
		started[k] = pthread_create(&th[k], NULL, worker, jb) == 0;
	worker(jb);
	for (size_t k = 1; k < nw; k++)
		if (started[k])
			pthread_join(th[k], NULL);
}

/* The job's own group: of the job id in the job directory's name (memphis-EXE-job-ID),
 * else any; the most ranks, then the first rank first. */
static size_t main_group(const struct job *jb)
{
	const char *id = jb->dir ? strstr(jb->dir, "-job-") : NULL;
	size_t best = 0;

	for (size_t i = 1; i < jb->ngroups; i++) {
		const struct job_group *a = &jb->groups[i], *b = &jb->groups[best];
		int ma = id && !strncmp(id + 5, a->job_id, strlen(a->job_id)) &&
			 strlen(a->job_id) > 0;
		int mb = id && !strncmp(id + 5, b->job_id, strlen(b->job_id)) &&
			 strlen(b->job_id) > 0;

		if (ma != mb ? ma > mb
			     : a->nranks != b->nranks ? a->nranks > b->nranks : a->first < b->first)
			best = i;
	}
	return best;
}

/* After the pass: ranks sorted by number, groups' first ranks found, the job's own group
 * first and the others by their first rank; jb->size from the job's ranks. */
static void order(struct job *jb)
{
	size_t *map, m;

	for (size_t i = 0; i < jb->ngroups; i++)
		jb->groups[i].first = SIZE_MAX;
	qsort(jb->ranks, jb->nranks, sizeof(*jb->ranks), rank_cmp);
	for (size_t i = 0; i < jb->nranks; i++) {
		size_t g = jb->ranks[i].group;

		if (g < jb->ngroups && jb->groups[g].first == SIZE_MAX)
			jb->groups[g].first = i;
	}
	if (!jb->ngroups || !(map = malloc(jb->ngroups * sizeof(*map))))
		return;
	m = main_group(jb);
	{	/* new order: m, then the rest by first rank (insertion: few groups) */
		struct job_group *ng = malloc(jb->ngroups * sizeof(*ng));
		size_t *idx = malloc(jb->ngroups * sizeof(*idx)), n = 0;

		if (!ng || !idx) {
			free(ng);
			free(idx);
			free(map);
			return;
		}
		idx[n++] = m;
		for (size_t i = 0; i < jb->ngroups; i++) {
			size_t p;

			if (i == m)
				continue;
			for (p = n; p > 1 && jb->groups[idx[p - 1]].first > jb->groups[i].first; p--)
				idx[p] = idx[p - 1];
			idx[p] = i;
			n++;
		}
		for (size_t i = 0; i < jb->ngroups; i++) {
			ng[i] = jb->groups[idx[i]];
			map[idx[i]] = i;
		}
		free(jb->groups);
		jb->groups = ng;
		free(idx);
	}
	for (size_t i = 0; i < jb->nranks; i++)
		if (jb->ranks[i].group < jb->ngroups)
			jb->ranks[i].group = map[jb->ranks[i].group];
	free(map);
	for (size_t i = 0; i < jb->nranks; i++)
		if (jb->ranks[i].group == 0 && jb->ranks[i].size > jb->size)
			jb->size = jb->ranks[i].size;
}

/* --rank N: the report of the job's rank N alone. */
static int one_rank(struct job *jb, FILE *out)
{
	struct report_opts o = *jb->o;

	for (size_t i = 0; i < jb->nranks; i++) {
		struct mr_run *run = NULL;
		char err[1024];
		long r = jb->ranks[i].rank;

		if (mr_run_open(jb->ranks[i].dir, &run, err, sizeof(err)) == 0) {
			r = (long)mr_run_get_u64(run, "mpi_rank", (uint64_t)r);
			mr_run_close(run);
		}
		if (r != o.rank)
			continue;
		o.dir = jb->ranks[i].dir;
		o.dirs = NULL;
		o.ndirs = 0;
		o.one_rank = o.by_rank = 0;
		return report_run(&o, out);
	}
	return mr_error(MR_EXIT_DATA, "%s: no rank %ld", jb->dir ? jb->dir : jb->o->dir,
			jb->o->rank);
}

/* The exit status of a merged job: 2 when a rank is damaged, unreadable or missing. */
static int job_exit(const struct job *jb)
{
	for (size_t i = 0; i < jb->nranks; i++)
		if (jb->ranks[i].status == JOB_DAMAGED || jb->ranks[i].status == JOB_UNREADABLE)
			return MR_EXIT_DATA;
	for (long r = 0; r < jb->size; r++)
		if (job_missing(jb, r))
			return MR_EXIT_DATA;
	return MR_EXIT_OK;
}

static void job_free(struct job *jb)
{
	for (size_t i = 0; i < jb->nranks; i++) {
		struct job_rank *rk = &jb->ranks[i];

		free(rk->dir);
		free(rk->host);
		free(rk->job_id);
		free(rk->why);
		for (size_t k = 0; k < rk->nnotes; k++)
			free(rk->notes[k]);
		free(rk->notes);
	}
	free(jb->ranks);
	for (size_t i = 0; i < jb->ngroups; i++)
		job_group_free(&jb->groups[i]);
	free(jb->groups);
	pthread_mutex_destroy(&jb->lock);
	pthread_mutex_destroy(&jb->open_lock);
}

/* The merged report of job jb on out. Returns the exit status. */
static int merged(struct job *jb, FILE *out)
{
	mr_debuginfo_cache_hold(); /* each executable and library read once for all ranks */
	run_workers(jb);
	mr_debuginfo_cache_release();
	if (jb->failed)
		return mr_error(MR_EXIT_DATA, "out of memory merging the ranks' reports");
	order(jb);
	for (size_t i = 0; i < jb->ngroups; i++)
		if (job_merge_finish(jb, &jb->groups[i]))
			return mr_error(MR_EXIT_DATA, "out of memory merging the ranks' reports");
	if (jb->o->json)
		job_print_json(jb, out);
	else
		job_print_text(jb, out);
	fflush(out);
	return job_exit(jb);
}

int job_report_run(const struct report_opts *o, FILE *out)
{
	struct job jb;
	int rc;

	if (o->ndirs <= 1 && !job_is_dir(o->dir)) {
		if (o->one_rank || o->by_rank)
			return mr_usage("report", "--rank and --by rank want a job: a job directory "
					"or several run directories");
		return report_run(o, out);
	}
	memset(&jb, 0, sizeof(jb));
	jb.o = o;
	jb.dir = o->ndirs <= 1 ? o->dir : NULL;
	pthread_mutex_init(&jb.lock, NULL);
	pthread_mutex_init(&jb.open_lock, NULL);
	rc = find_ranks(&jb);
	if (!rc && !jb.nranks)
		rc = mr_error(MR_EXIT_DATA, "%s: no rank directory", o->dir);
	else if (!rc && o->one_rank)
		rc = one_rank(&jb, out);
	else if (!rc && (o->format == REPORT_PPROF || o->format == REPORT_TRACE))
		rc = mr_usage("report", "--format %s writes the profile of one process: add --rank N "
			      "(the job's ranks one at a time)",
			      o->format == REPORT_PPROF ? "pprof" : "trace");
	else if (!rc) {
		/* the ranks' reports are captured: the job's directory, or each one given, noted */
		if (jb.dir)
			mr_note_owner(jb.dir);
		for (size_t i = 0; !jb.dir && i < o->ndirs; i++)
			mr_note_owner(o->dirs[i]);
		rc = merged(&jb, out);
	}
	else
		rc = MR_EXIT_DATA;
	job_free(&jb);
	return rc;
}
