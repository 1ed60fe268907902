/* lib/rank.h - is this process a rank of a parallel job? Read from the launcher's
 * environment only (no MPI is linked or called), once at library start by api.c, which
 * hands the result to the writer (directory) and the RUN block (keys). A leaf: libc only.
 *
 * Launchers, in the order checked (the first whose rank variable holds a number wins):
 *   openmpi  OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK, _LOCAL_SIZE
 *   pmix     PMIX_RANK (size and local rank are not in the environment)
 *   mpich    PMI_RANK, PMI_SIZE, MPI_LOCALRANKID, MPI_LOCALNRANKS (Hydra)
 *   slurm    SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID
 * Job id, the first set of: SLURM_JOB_ID (+ "." SLURM_STEP_ID when set), PMIX_NAMESPACE,
 * OMPI_MCA_ess_base_jobid, PMI_KVSNAME; else the parent's pid (the process that started
 * the ranks of this host: all ranks of one host share it, ranks of other hosts do not).
 * The id is sanitised for a file name ([A-Za-z0-9._-], anything else '_') and cut to
 * MEMPHIS__JOB_ID_MAX - 1 bytes. */
#ifndef MEMPHIS_RANK_H
#define MEMPHIS_RANK_H

#define MEMPHIS__JOB_ID_MAX 65

struct memphis__rank {
	const char *launcher;  /* "openmpi", "pmix", "mpich", "slurm"; NULL: not a rank */
	long rank;             /* 0.. */
	long size;             /* ranks in the job; -1 unknown */
	long local_rank;       /* rank among those of this host; -1 unknown */
	long local_size;       /* ranks on this host; -1 unknown */
	char job_id[MEMPHIS__JOB_ID_MAX]; /* sanitised, never empty for a rank */
};

/* Fill *r from the environment (getenv only). Never fails: a process without a usable
 * rank variable gets launcher NULL; a variable that is not a decimal number is treated as
 * absent (a size or local value then is -1). */
void memphis__rank_read(struct memphis__rank *r);

/* Replace, in place, every character outside [A-Za-z0-9._-] with '_' (directory names). */
void memphis__sanitize_name(char *s);

#endif /* MEMPHIS_RANK_H */
