# numa-cg.guest.sh - examples/cg on 2 nodes, one OpenMP thread per node (CPU 0 = the
# master on node 0, and the first CPU of node 1): master-initialised, NUMA-aware, and
# master-initialised under numactl --interleave=all.
# vm-limit: 420
# (the three runs single-stepped went past the default 180 s in a 6.12 guest 1.5 times as
# slow as usual, beside two CPU hogs on the host)
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "examples/cg NUMA checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
CG="$MEMPHIS_BUILD/examples/cg/cg $CG_SIZE"
run cg-master $ON0 $CG
run cg-aware $ON0 $CG --numa-aware
run cg-interleave $ON0 numactl --interleave=all $CG
