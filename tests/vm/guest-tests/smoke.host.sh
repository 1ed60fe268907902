# smoke.host.sh - runs on the host after the guest finished, with $VM_OUT = the guest's
# /out/smoke brought back, and memphis-report from $MEMPHIS_BUILD.
. "$VM_LIB"
if [ ! -d "$VM_OUT/touch" ]; then
	vm_result skip "memphis-report reads the guest's run directory" "no run directory came back"
	exit 0
fi
dump=$(timeout 60 "$MEMPHIS_BUILD/memphis-report" dump "$VM_OUT/touch" 2>&1)
rc=$?
topo=$(printf '%s\n' "$dump" | grep -m1 '^# topology:')
vm_note "run directory ${topo#\# }"
if [ "$rc" = 0 ]; then
	vm_result ok "memphis-report dump reads the run directory from the $VM_TOPO guest"
else
	vm_note "exit $rc: $(printf '%s\n' "$dump" | tail -n 3)"
	vm_result fail "memphis-report dump reads the run directory from the $VM_TOPO guest"
fi
case $topo in
*" ${VM_TOPO%x*} nodes"*) vm_result ok "the run directory records the guest's ${VM_TOPO%x*} NUMA nodes" ;;
*) vm_result fail "the run directory records the guest's ${VM_TOPO%x*} NUMA nodes" ;;
esac
