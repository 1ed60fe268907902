# numa-ring.host.sh - each row of the ring arrays' node x node matrix is in its column.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 4x*) ;; *) vm_result skip "ring: host checks" "they run for the 4-node guest"; exit 0 ;; esac
judge ring ring
