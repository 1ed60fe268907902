# numa-bind.guest.sh - a single-threaded program on node 0 with its memory bound to node 1,
# and the Debian default perf_event_paranoid=3 for an unprivileged user.
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "membind and paranoid checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=1
run membind numactl --membind=1 --cpunodebind=0 "$MEMPHIS_BUILD/tests/prog_ratio" 0.3 262144

echo 3 > /proc/sys/kernel/perf_event_paranoid
mkdir -p /tmp/user && chmod 777 /tmp/user
(cd /tmp/user && OMP_NUM_THREADS=2 timeout -k 5 120 \
	vmrunas 1000 1000 "$MEMPHIS_BUILD/examples/cg/cg" $CG_SIZE \
	> "$VM_OUT/paranoid.out" 2> "$VM_OUT/paranoid.err")
echo "rc=$?" >> "$VM_OUT/paranoid.out"
echo -1 > /proc/sys/kernel/perf_event_paranoid
vm_result ok "paranoid=3: cg ran as uid 1000 (judged on the host)"
