# numa-ring.guest.sh - 4 nodes: the thread on node k reads the array first touched on
# node (k+1) mod 4 (tests/programs/prog_ring.c).
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
4x*) ;;
*) vm_result skip "node x node ring" "it runs in the 4-node guest"; exit 0 ;;
esac
# 8 passes over 1 MiB a thread: 2 gave a row 18-68 samples (20 asked) on a 2.6 GHz host
run ring "$MEMPHIS_BUILD/tests/prog_ring" 131072 8
