# mpi.guest.sh - issue 19 in the 2-node guest: a job of 2 ranks of examples/mpi's stencil,
# rank R started on node R (its master thread and so its master-initialised arrays there),
# each rank with 2 OpenMP threads, one per node; single-stepped so that timer samples carry
# exact addresses. mpi.host.sh checks per rank that the other node's thread reads the
# rank's arrays remotely and that the report names them.
# The guest has no Open MPI runtime (mpirun, its plugins and help files are not packed), so
# the ranks are the MPI-free build of the same code (halo-nompi, -DMEMPHIS_NO_MPI: no halo
# exchange) started with a Slurm launcher's environment, which is what makes each process
# a rank for libmemphis (lib/rank.h): one job directory, rank-0 and rank-1.
. "$VM_LIB"
vm_require_memphis
case $VM_TOPO in
2x*) ;;
*) vm_result skip "mpi: 2 ranks, one per node" "they run in the 2-node guest"; exit 0 ;;
esac
HALO=$MEMPHIS_BUILD/examples/mpi/halo-nompi
if [ ! -x "$HALO" ]; then
	vm_result skip "mpi: 2 ranks, one per node" "examples/mpi/halo-nompi was not built"
	exit 0
fi
# user mode only (MEMPHIS_KERNEL=0): under TCG the guest's sampling is capped (rings lose
# thousands of samples a run), and the ranks' kernel time (MPI's system calls, page faults)
# took 60 % of what was left, leaving rank 0's home thread 4 user samples of its arrays
# where it had 98: too few for the locality checks, which are about user accesses
export MEMPHIS_PERIOD=250us OMP_PROC_BIND=true OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2
export MEMPHIS_KERNEL=0
export SLURM_JOB_ID=1919 SLURM_NTASKS=2 MEMPHIS_OUTPUT="$VM_OUT/job"
ALL=0-$((VM_NODES * VM_CPUS_PER_NODE - 1))
C=$VM_CPUS_PER_NODE
vm_singlestep on || exit 1
# rank R: exec and master on the first CPU of node R (taskset there, then widened for the
# places, as numa-cg does), its second thread on a CPU of the other node
for r in 0 1; do
	home=$((r * C)) other=$(((1 - r) * C + 1))
	SLURM_PROCID=$r SLURM_LOCALID=$r OMP_PLACES="{$home},{$other}" \
		timeout 200 taskset -c $home taskset -c $ALL "$HALO" -r 128 -c 512 -s 20 \
		> "$VM_OUT/rank$r.out" 2> "$VM_OUT/rank$r.err" &
done
wait
vm_singlestep off
for r in 0 1; do
	if [ -f "$VM_OUT/job/rank-$r/meta.mph" ] && grep -q "checksum" "$VM_OUT/rank$r.out"; then
		vm_result ok "mpi: rank $r ran under memphis into job/rank-$r in the $VM_TOPO guest"
	else
		vm_note "mpi rank $r: $(tail -n 2 "$VM_OUT/rank$r.err")"
		vm_result fail "mpi: rank $r ran under memphis into job/rank-$r in the $VM_TOPO guest"
	fi
done
