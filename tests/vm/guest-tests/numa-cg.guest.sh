# numa-cg.guest.sh - examples/cg on 2 nodes, one OpenMP thread per node (CPU 0 = the
# master on node 0, and the first CPU of node 1): master-initialised, NUMA-aware, and
# master-initialised under numactl --interleave=all.
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "examples/cg NUMA checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
CG="$MEMPHIS_BUILD/examples/cg/cg $CG_SIZE"
# The master's first stack pages are placed where execve runs, before libgomp binds it to
# CPU 0: exec on CPU 0 (node 0), then widen the mask again for the places. Without it the
# exec ran on the shell's CPU, the master's stack landed on node 1 in some runs, and node
# 0's remote share of identical runs differed by 25 points (compare's guest check).
# (busybox taskset: numactl cannot widen a mask it was started in.)
ON0="taskset -c 0 taskset -c 0-$((VM_NODES * VM_CPUS_PER_NODE - 1))"
run cg-master $ON0 $CG
run cg-aware $ON0 $CG --numa-aware
run cg-interleave $ON0 numactl --interleave=all $CG
