# numa-cg.host.sh - the hot-spot of master-initialised CG, its fix, and interleaving.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "cg: host checks" "they run for the 2-node guest"; exit 0 ;; esac
SRC="$MEMPHIS_SRC/examples/cg/cg.c"
lines() { grep -n "$1" "$SRC" | cut -d: -f1 | sed 's/^/cg.c:/' | paste -sd, -; }
judge cg-master hotspot "a=$(lines 'a\[k + o\] = v;\|a\[k\] = diag;')" \
	"colidx=$(lines 'colidx\[k + o\] = (int)j;\|colidx\[k\] = (int)i;')"
judge cg-aware aware
judge cg-interleave interleave
