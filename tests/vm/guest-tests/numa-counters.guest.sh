# numa-counters.guest.sh - the kernel's NUMA counters per region (issue 15): prog_counters
# faults 5000 pages in region "faults" on a node-0 CPU with its memory bound to node 1
# (MEMPHIS_NUMA_COUNTERS=1, and the two PAPI software events). Judged on the host.
. "$VM_LIB"
vm_require_memphis
case $VM_TOPO in
2x*) ;;
*) vm_result skip "NUMA counters under membind=1" "they run in the 2-node guest"; exit 0 ;;
esac
MEMPHIS_NUMA_COUNTERS=1 MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS \
	MEMPHIS_OUTPUT="$VM_OUT/counters" timeout 150 \
	numactl --membind=1 --cpunodebind=0 "$MEMPHIS_BUILD/tests/prog_counters" \
	> "$VM_OUT/counters.out" 2> "$VM_OUT/counters.err"
rc=$?
if [ "$rc" = 0 ] && [ -f "$VM_OUT/counters/meta.mph" ] && grep -q '^sum 1$' "$VM_OUT/counters.out"; then
	vm_result ok "counters: prog_counters runs under membind=1 with the NUMA counters on"
else
	vm_note "counters: exit $rc: $(tail -n 2 "$VM_OUT/counters.err")"
	vm_result fail "counters: prog_counters runs under membind=1 with the NUMA counters on"
fi
