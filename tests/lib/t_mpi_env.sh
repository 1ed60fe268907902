#!/bin/sh
# tests/lib/t_mpi_env.sh - ranks without MPI: a program started with a launcher's environment
# (Open MPI, PMIx, MPICH, Slurm; faked here, no MPI needed) writes
# memphis-<exe>-job-<jobid>/rank-<r>/ with the rank's RUN keys (lib/rank.h, docs/format.md);
# two ranks of one job at once share the job directory; a re-run of a rank gets rank-<r>.1;
# a job directory made before (by another rank) is used, a symlink planted in its place is
# not; MEMPHIS_OUTPUT names the job directory; `memphis run -- prog` under a launcher is
# the rank; a process without a launcher's variables writes memphis-<exe>-<pid>/ as before;
# two ranks in separate UTS namespaces (two "hosts") record two host names.
. "$MEMPHIS_SRC/tests/tap.sh"
P=$B/examples/hello/hello
[ -x "$P" ] || { echo "examples/hello not built" >&2; exit 77; }
VARS="OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK
OMPI_COMM_WORLD_LOCAL_SIZE PMIX_RANK PMIX_NAMESPACE OMPI_MCA_ess_base_jobid PMI_RANK PMI_SIZE
MPI_LOCALRANKID MPI_LOCALNRANKS PMI_KVSNAME SLURM_PROCID SLURM_NTASKS SLURM_LOCALID
SLURM_JOB_ID SLURM_STEP_ID"
for v in $VARS; do unset "$v"; done
unset MEMPHIS_OUTPUT

# keys DIR: the rank keys of a run directory, one "key=value" a line
keys() {
	"$REPORT" dump "$1" 2>/dev/null |
		sed -n 's/^#   \(mpi_[a-z_]*=.*\|job_id=.*\|launcher=.*\|hostname=.*\)$/\1/p' |
		grep -v hostname= | tr '\n' ' '
}
# complete DIR: readable, finished cleanly (END blocks), and the example's region is there
complete() {
	"$REPORT" dump "$1" > complete.out 2> complete.err &&
		! grep -q "no END block\|did not finish cleanly" complete.out complete.err &&
		grep -q 'region 1 "sum"' complete.out
}

# --- each launcher: directory and keys
env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=1 \
	OMPI_COMM_WORLD_LOCAL_SIZE=2 PMIX_RANK=1 PMIX_NAMESPACE=310771713 \
	OMPI_MCA_ess_base_jobid=310771713 "$P" > out.ompi
d=memphis-hello-job-310771713/rank-1
check "openmpi: $d/ is a complete run" complete $d
check_if "openmpi: rank keys" \
	'[ "$(keys $d)" = "mpi_rank=1 mpi_size=4 mpi_local_rank=1 mpi_local_size=2 job_id=310771713 launcher=openmpi " ]'
env PMIX_RANK=3 PMIX_NAMESPACE='prterun-vm-1@1' "$P" > /dev/null
d=memphis-hello-job-prterun-vm-1_1/rank-3
check_if "pmix: $d/ with rank keys (job id sanitised)" \
	'complete $d && [ "$(keys $d)" = "mpi_rank=3 job_id=prterun-vm-1_1 launcher=pmix " ]'
# no job id: the parent's pid (this shell)
env PMI_RANK=2 PMI_SIZE=3 MPI_LOCALRANKID=0 MPI_LOCALNRANKS=1 "$P" > /dev/null
d=memphis-hello-job-$$/rank-2
check_if "mpich, no job id: $d/ (the parent's pid) with rank keys" \
	'complete $d && [ "$(keys $d)" = "mpi_rank=2 mpi_size=3 mpi_local_rank=0 mpi_local_size=1 job_id=$$ launcher=mpich " ]'
env SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_LOCALID=0 SLURM_JOB_ID=4242 SLURM_STEP_ID=7 "$P" > /dev/null
d=memphis-hello-job-4242.7/rank-0
check_if "slurm: $d/ with rank keys" \
	'complete $d && [ "$(keys $d)" = "mpi_rank=0 mpi_size=2 mpi_local_rank=0 job_id=4242.7 launcher=slurm " ]'
check_if "each rank's report names its heap array like a single run's" \
	'"$REPORT" $d > slurm.rep 2>&1 && grep -q "main::x (malloc at hello.c:11)" slurm.rep'

# --- two ranks of one job at once; then rank 1 again
export SLURM_JOB_ID=5 SLURM_NTASKS=2
SLURM_PROCID=0 "$P" > r0.out & a=$!
SLURM_PROCID=1 "$P" > r1.out & b=$!
wait $a; ra=$?; wait $b; rb=$?
check_if "two ranks at once: both exit 0" '[ $ra = 0 ] && [ $rb = 0 ]'
check "two ranks at once: rank-0 complete" complete memphis-hello-job-5/rank-0
check "two ranks at once: rank-1 complete" complete memphis-hello-job-5/rank-1
check_if "two ranks at once: nothing else in the job directory" \
	'[ "$(ls -A memphis-hello-job-5 | tr "\n" " ")" = "rank-0 rank-1 " ]'
SLURM_PROCID=1 "$P" > /dev/null
check_if "a rank run again writes rank-1.1, rank-1 untouched" \
	'complete memphis-hello-job-5/rank-1.1 && complete memphis-hello-job-5/rank-1 &&
	 [ "$(keys memphis-hello-job-5/rank-1.1)" = "mpi_rank=1 mpi_size=2 job_id=5 launcher=slurm " ]'
# --- the job directory exists already (another rank made it), or is a planted symlink
mkdir memphis-hello-job-6
SLURM_JOB_ID=6 SLURM_PROCID=0 "$P" > /dev/null
check "a job directory made before is used" complete memphis-hello-job-6/rank-0
mkdir elsewhere && ln -s elsewhere memphis-hello-job-8
SLURM_JOB_ID=8 SLURM_PROCID=0 "$P" > sym.out 2> sym.err; rc=$?
check_if "a symlink as job directory: not followed, the program runs (exit 0, same output)" \
	'[ $rc = 0 ] && [ -z "$(ls -A elsewhere)" ] && cmp -s sym.out r0.out'
# --- MEMPHIS_OUTPUT names the job directory
SLURM_JOB_ID=9 SLURM_PROCID=3 MEMPHIS_OUTPUT=myjob "$P" > /dev/null
check_if "MEMPHIS_OUTPUT=myjob: myjob/rank-3/" \
	'complete myjob/rank-3 && [ "$(keys myjob/rank-3)" = "mpi_rank=3 mpi_size=2 job_id=9 launcher=slurm " ]'
# --- memphis run as the launched program: the program is the rank
SLURM_JOB_ID=10 SLURM_PROCID=1 "$B/memphis" run -- "$P" > /dev/null
d=memphis-hello-job-10/rank-1
check_if "memphis run under a launcher: $d/ with the whole-run region" \
	'"$REPORT" dump $d > run.dump 2>&1 && grep -q "region 1 \"run\"" run.dump &&
	 [ "$(keys $d)" = "mpi_rank=1 mpi_size=2 job_id=10 launcher=slurm " ] &&
	 [ "$(ls -A memphis-hello-job-10)" = rank-1 ]'
SLURM_JOB_ID=10 SLURM_PROCID=2 "$B/memphis" run -o runjob -- "$P" > /dev/null
check "memphis run -o runjob under a launcher: runjob/rank-2/" test -f runjob/rank-2/meta.mph
unset SLURM_JOB_ID SLURM_NTASKS

# --- not a rank: as before
"$P" > /dev/null
check_if "without a launcher: memphis-hello-PID/, no rank keys" \
	'd=$(ls -d memphis-hello-[0-9]*/ | head -n 1) && complete "$d" && [ -z "$(keys "$d")" ]'

# --- two hosts: ranks in separate UTS namespaces, one job id
if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null; then
	for r in 0 1; do
		SLURM_JOB_ID=11 SLURM_NTASKS=2 SLURM_PROCID=$r unshare --uts \
			sh -c "hostname memphis-host$r && exec '$P'" > /dev/null &
	done
	wait
	check_if "two hosts: rank-0 and rank-1 record hosts memphis-host0 and memphis-host1" \
		'"$REPORT" dump memphis-hello-job-11/rank-0 | grep -qx "#   hostname=memphis-host0" &&
		 "$REPORT" dump memphis-hello-job-11/rank-1 | grep -qx "#   hostname=memphis-host1"'
else
	skip "two hosts in UTS namespaces" "not root, or unshare --uts refused"
fi
done_testing
