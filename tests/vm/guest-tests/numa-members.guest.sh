# numa-members.guest.sh - struct members on 2 nodes (issue 43): prog_members with one
# OpenMP thread per node (thread 0 on CPU 0, node 0; thread 1 on node 1's first CPU), its
# arrays first touched by the master on node 0.
# vm-limit: 240
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "struct members NUMA checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
# At 250 us (numa-lib.sh) the drain, single-stepped too, lost half the samples and thread 1
# kept 428 (3 on p[].c). At 1 ms it still loses half of thread 1's (832 of 1,500 in a run
# of 32 rounds: 26 samples on p[].c, 10 stores on fs.y): 96 rounds, ~10 s in the region,
# some 80 samples on each of thread 1's members and 30 stores on fs.y
MEMPHIS_PERIOD=1ms run members $ON0 "$MEMPHIS_BUILD/tests/prog_members" 96
