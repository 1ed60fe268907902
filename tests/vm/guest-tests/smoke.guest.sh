# smoke.guest.sh - runs in the guest (single-stepped), in $VM_OUT = /out/smoke, which the
# host gets back; smoke.host.sh then reads it there. The example to copy for memphis tests.
. "$VM_LIB"
vm_require_memphis

# A whole run under the launcher (LD_PRELOAD of libmemphis.so); the workload's stdout is
# kept next to the run directory for the host half.
timeout 120 "$MEMPHIS_BUILD/memphis" run -o "$VM_OUT/touch" -- \
	"$MEMPHIS_BUILD/tests/prog_touch" > "$VM_OUT/touch.stdout" 2> "$VM_OUT/touch.stderr"
rc=$?
if [ "$rc" = 0 ] && [ -f "$VM_OUT/touch/meta.mph" ]; then
	vm_result ok "memphis run prog_touch writes a run directory in the $VM_TOPO guest"
else
	vm_note "exit $rc: $(tail -n 3 "$VM_OUT/touch.stderr")"
	vm_result fail "memphis run prog_touch writes a run directory in the $VM_TOPO guest"
fi
