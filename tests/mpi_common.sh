# tests/mpi_common.sh - sourced by the tests that run examples/mpi under Open MPI's mpirun
# (tests/lib/t_mpi.sh, tests/report/t_mpi_report.sh; on top of tests/tap.sh): H, the C
# stencil; exit 77 without mpirun or the example.
# mpirun's environment is set here, not its failures ignored: root is allowed (the env
# equivalents of --allow-run-as-root), more ranks than CPUs (oversubscribe), no binding (a
# rank's threads may use every CPU), shared memory between ranks without CMA/ptrace
# (refused in containers), the out-of-band channel on the loopback interface only (no
# network needed), the ob1 messaging layer (no UCX probing of absent hardware). A
# launcher's variables of the shell that runs the test are dropped.
. "$MEMPHIS_SRC/tests/tap.sh"
H=$B/examples/mpi/halo
command -v mpirun > /dev/null || { echo "no mpirun: make deps installs openmpi-bin" >&2; exit 77; }
[ -x "$H" ] || { echo "examples/mpi/halo not built (no mpicc)" >&2; exit 77; }
for v in OMPI_COMM_WORLD_RANK PMIX_RANK PMI_RANK SLURM_PROCID SLURM_JOB_ID MEMPHIS_OUTPUT; do
	unset "$v"
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_pml=ob1
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive MEMPHIS_PERIOD=250us
