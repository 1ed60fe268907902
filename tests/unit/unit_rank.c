/* tests/unit/unit_rank.c - lib/rank.c: each launcher's environment gives the right launcher,
 * rank, sizes and job id; the order when several launchers' variables are set (Open MPI
 * also sets PMIX_*); values that are not decimal numbers count as absent; the job id
 * sanitised, cut, and the parent's pid without one. Table-driven, TAP output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank.h"
#include "tap.h"

static const char *const all_vars[] = {
	"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK",
	"OMPI_COMM_WORLD_LOCAL_SIZE", "PMIX_RANK", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
	"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS", "PMI_KVSNAME",
	"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID",
};

struct rank_case {
	int line;
	const char *env;      /* "NAME=VALUE" separated by spaces */
	const char *launcher; /* NULL: not a rank */
	long rank, size, local_rank, local_size;
	const char *job_id;   /* "PPID": the parent's pid */
};

static const struct rank_case cases[] = {
	{ __LINE__, "", NULL, -1, -1, -1, -1, "" },
	/* what Open MPI 4.1's mpirun sets (checked with `mpirun -np 2 env`) */
	{ __LINE__, "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 "
		    "OMPI_COMM_WORLD_LOCAL_SIZE=2 PMIX_RANK=1 PMIX_NAMESPACE=310771713 "
		    "OMPI_MCA_ess_base_jobid=310771713",
	  "openmpi", 1, 2, 1, 2, "310771713" },
	{ __LINE__, "OMPI_COMM_WORLD_RANK=3 OMPI_MCA_ess_base_jobid=42", "openmpi", 3, -1, -1, -1,
	  "42" },
	{ __LINE__, "PMIX_RANK=5 PMIX_NAMESPACE=prterun-host-123@1", "pmix", 5, -1, -1, -1,
	  "prterun-host-123_1" },
	{ __LINE__, "PMI_RANK=2 PMI_SIZE=4 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=2", "mpich", 2, 4, 0,
	  2, "PPID" },
	{ __LINE__, "PMI_RANK=2 PMI_KVSNAME=kvs_77_0", "mpich", 2, -1, -1, -1, "kvs_77_0" },
	{ __LINE__, "SLURM_PROCID=7 SLURM_NTASKS=8 SLURM_LOCALID=3 SLURM_JOB_ID=9001 "
		    "SLURM_STEP_ID=0", "slurm", 7, 8, 3, -1, "9001.0" },
	{ __LINE__, "SLURM_PROCID=0 SLURM_JOB_ID=9001", "slurm", 0, -1, -1, -1, "9001" },
	{ __LINE__, "OMPI_COMM_WORLD_RANK=0 PMIX_NAMESPACE=ns1 OMPI_MCA_ess_base_jobid=99",
	  "openmpi", 0, -1, -1, -1, "ns1" },
	/* the job id of Slurm wins over the launcher's namespace (mpirun inside an allocation) */
	{ __LINE__, "OMPI_COMM_WORLD_RANK=0 PMIX_NAMESPACE=1234 SLURM_JOB_ID=55 SLURM_PROCID=0",
	  "openmpi", 0, -1, -1, -1, "55" },
	/* not numbers: absent */
	{ __LINE__, "OMPI_COMM_WORLD_RANK=x SLURM_PROCID=4", "slurm", 4, -1, -1, -1, "PPID" },
	{ __LINE__, "OMPI_COMM_WORLD_RANK=-1", NULL, -1, -1, -1, -1, "" },
	{ __LINE__, "PMI_RANK=1x", NULL, -1, -1, -1, -1, "" },
	{ __LINE__, "PMI_RANK=99999999999", NULL, -1, -1, -1, -1, "" },
	{ __LINE__, "SLURM_PROCID=", NULL, -1, -1, -1, -1, "" },
	{ __LINE__, "PMI_RANK=1 PMI_SIZE=0x10 MPI_LOCALRANKID=+1", "mpich", 1, -1, -1, -1, "PPID" },
	/* a job id that would leave the directory: sanitised */
	{ __LINE__, "SLURM_PROCID=0 SLURM_JOB_ID=../../etc", "slurm", 0, -1, -1, -1,
	  ".._.._etc" },
};

static void set_env(const char *env)
{
	char buf[512], *save = NULL;

	for (size_t i = 0; i < sizeof(all_vars) / sizeof(all_vars[0]); i++)
		unsetenv(all_vars[i]);
	snprintf(buf, sizeof(buf), "%s", env);
	for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');
		*eq = 0;
		setenv(t, eq + 1, 1);
	}
}

static void test_cases(void)
{
	char ppid[24];

	snprintf(ppid, sizeof(ppid), "%d", (int)getppid());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct rank_case *c = &cases[i];
		const char *job = strcmp(c->job_id, "PPID") ? c->job_id : ppid;
		struct memphis__rank r;

		set_env(c->env);
		memphis__rank_read(&r);
		tap((c->launcher ? r.launcher && !strcmp(r.launcher, c->launcher) : !r.launcher) &&
		    r.rank == c->rank && r.size == c->size && r.local_rank == c->local_rank &&
		    r.local_size == c->local_size && (!c->launcher || !strcmp(r.job_id, job)),
		    c->line, "rank from \"%s\": %s %ld/%ld local %ld/%ld job %s", c->env,
		    r.launcher ? r.launcher : "(none)", r.rank, r.size, r.local_rank, r.local_size,
		    r.job_id);
	}
}

static void test_long_job_id(void)
{
	char id[200];
	struct memphis__rank r;

	memset(id, '7', sizeof(id) - 1);
	id[sizeof(id) - 1] = 0;
	set_env("SLURM_PROCID=0");
	setenv("SLURM_JOB_ID", id, 1);
	memphis__rank_read(&r);
	ok(strlen(r.job_id) == MEMPHIS__JOB_ID_MAX - 1 && !strncmp(r.job_id, id, strlen(r.job_id)),
	   "a 199-byte job id is cut to %d bytes", MEMPHIS__JOB_ID_MAX - 1);
}

int main(void)
{
	test_cases();
	test_long_job_id();
	return tap_done();
}
