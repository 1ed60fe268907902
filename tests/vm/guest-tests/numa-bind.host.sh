# numa-bind.host.sh - membind: all samples remote, in node 0's table; paranoid=3: the
# program's output is intact and memphis said in one line why it cannot sample.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "membind and paranoid: host checks" "they run for the 2-node guest"; exit 0 ;; esac
judge membind membind
desc="paranoid=3, unprivileged: the program runs and memphis says in one line why it cannot sample"
if grep -q "^memphis: cannot sample memory accesses: .*perf_event_paranoid=3" "$VM_OUT/paranoid.err" &&
   [ "$(grep -c '^memphis' "$VM_OUT/paranoid.err")" = 1 ] &&
   grep -q "^cg: master-initialised" "$VM_OUT/paranoid.out" && grep -q "^rc=0" "$VM_OUT/paranoid.out"; then
	vm_result ok "$desc"
else
	vm_note "$(cat "$VM_OUT/paranoid.err" "$VM_OUT/paranoid.out" 2>/dev/null | head -n 5)"
	vm_result fail "$desc"
fi
