/* lib/rank.c - the rank of a parallel job from the launcher's environment (rank.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank.h"

void memphis__sanitize_name(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
			*s = '_';
}

/* The variable as a decimal number in 0..INT_MAX; -1 when unset, empty or anything else
 * (a sign, spaces, hexadecimal, too large). */
static long env_count(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	return v;
}

/* One launcher's variables; NULL where it has none. */
struct launcher {
	const char *name, *rank, *size, *local_rank, *local_size;
};

static const struct launcher launchers[] = {
	{ "openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
	  "OMPI_COMM_WORLD_LOCAL_SIZE" },
	{ "pmix", "PMIX_RANK", NULL, NULL, NULL },
	{ "mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS" },
	{ "slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", NULL },
};

static void read_job_id(char *id, size_t n)
{
	static const char *const names[] = { "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
					     "PMI_KVSNAME" };
	const char *job = getenv("SLURM_JOB_ID"), *step = getenv("SLURM_STEP_ID");

	id[0] = 0;
	if (job && *job) {
		if (step && *step)
			snprintf(id, n, "%s.%s", job, step);
		else
			snprintf(id, n, "%s", job);
	}
	for (size_t i = 0; !id[0] && i < sizeof(names) / sizeof(names[0]); i++) {
		const char *s = getenv(names[i]);
		if (s && *s)
			snprintf(id, n, "%s", s);
	}
	if (!id[0])
		snprintf(id, n, "%d", (int)getppid());
	memphis__sanitize_name(id);
}

void memphis__rank_read(struct memphis__rank *r)
{
	memset(r, 0, sizeof(*r));
	r->rank = r->size = r->local_rank = r->local_size = -1;
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		const struct launcher *l = &launchers[i];
		long rank = env_count(l->rank);

		if (rank < 0)
			continue;
		r->launcher = l->name;
		r->rank = rank;
		r->size = l->size ? env_count(l->size) : -1;
		r->local_rank = l->local_rank ? env_count(l->local_rank) : -1;
		r->local_size = l->local_size ? env_count(l->local_size) : -1;
		read_job_id(r->job_id, sizeof(r->job_id));
		return;
	}
}
