# numa-cg.host.sh - the hot-spot of master-initialised CG, its fix, and interleaving.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "cg: host checks" "they run for the 2-node guest"; exit 0 ;; esac
SRC="$MEMPHIS_SRC/examples/cg/cg.c"
lines() { grep -n "$1" "$SRC" | cut -d: -f1 | sed 's/^/cg.c:/' | paste -sd, -; }
judge cg-master hotspot "cg.c:a=$(lines 'a\[k + o\] = v;\|a\[k\] = diag;')" \
	"cg.c:colidx=$(lines 'colidx\[k + o\] = (int)j;\|colidx\[k\] = (int)i;')"
judge cg-aware aware
judge cg-interleave interleave

# compare A B (issue 13): master-initialised -> NUMA-aware improves node 1 and its `a` and
# `colidx`; the pair swapped regresses them with exit 1 and --junit failures.
# The gate runs at --max-regress 10pt: the fix also moves half of the vectors to node 1, so
# node 0's random reads of p[colidx[k]] become partly remote (node 0 +1.8 to +10.2 pts in
# CI's runs, the vectors +5.7 pts of node 1's accesses in one pair) — real changes, which
# the default 2 pts reports as regressions (its verdict is printed as a note) and the gate
# at times too: master -> aware passes with exit 0, or with exit 1 for those alone; a moves
# by 14-23 pts, colidx, about a tenth of node 1's accesses, by as much as it has
# (compare_check.py).
compare_pair() {
	a=$1 b=$2
	shift 2
	if [ ! -d "$VM_OUT/$a" ] || [ ! -d "$VM_OUT/$b" ]; then
		vm_result fail "compare $a $b: a run directory did not come back from the guest"
		return
	fi
	out="$VM_OUT/compare-$a-$b"
	"$MEMPHIS_BUILD/memphis-report" compare --max-regress 10pt "$VM_OUT/$a" "$VM_OUT/$b" \
		--json --junit "$out.xml" > "$out.json" 2> "$out.err"
	rc=$?
	"$MEMPHIS_BUILD/memphis-report" compare "$VM_OUT/$a" "$VM_OUT/$b" > "$out.txt" 2>&1
	vm_note "[compare $a $b] at the default 2 pts: $(grep '^verdict' "$out.txt")"
	python3 "$MEMPHIS_SRC/tests/vm/guest-tests/compare_check.py" "$out.json" "$out.xml" \
		"$rc" "$@" > "$out.check" 2>&1
	results "compare $a $b" "$out.check"
}
compare_pair cg-master cg-aware improved
compare_pair cg-aware cg-master regressed
