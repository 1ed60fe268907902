# numa-place.host.sh - issue 42's checks of memphis apply on numa-place.guest.sh's runs (and
# numa-cg's, numa-advice's and fortran's, whose advice it applied):
#   every placed variable's pages where its plan says (place_check.py: >= 95 % of its pages
#   touched and sampled on its block's node; an interleaved one 40-60 % on each node), the
#   advice kinds each workload is known for, one line per placed variable;
#   examples/cg: the program's output unchanged, node 1's remote share within 5 points of
#   the NUMA-aware build's (numa-cg's cg-aware) or lower, and `compare` from the
#   master-initialised run to the applied one exits 0 with a and colidx improved.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "apply: host checks" "they run for the 2-node guest"; exit 0 ;; esac
R="$MEMPHIS_BUILD/memphis-report"
CHECK="python3 $MEMPHIS_SRC/tests/vm/guest-tests/place_check.py"

# placed_regressed COMPARE PLAN: "placed: NAMES" when compare judged the share of all
# accesses of a variable the plan moved or partitioned regressed (an interleaved one's rise
# is its trade), else "others: NAMES" (what compare judged regressed: variables, any
# cell, and nodes).
# compare judges some 15 variables and their nodes at 95 % each, and single-stepped runs of
# one program differ in what apply does not touch (cg's p, first touched by both threads:
# 22 % then 37 % of node 1's accesses to it; a thread's stack, libgomp's state): even the
# hand-fixed build's compare (numa-cg) exits 1 in some runs. Its exit status 1 says nothing
# of apply unless a placed variable regressed over all its accesses.
placed_regressed() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
plan = [l.split(" ", 3)[3].rstrip("\n") for l in open(sys.argv[2])
        if l.startswith("var ") and not l.startswith("var interleave ")]
bad = [v["name"] for v in d["variables"] if v["verdict"] == "regressed"]
nodes = ["node %s" % n["node"] for n in d["nodes"] if n["verdict"] == "regressed" and n["node"] is not None]
mine = [v["name"] for v in d["variables"] if v["name"] in plan and
        [c for c in v["cells"] if c["node"] is None and c["verdict"] == "regressed"]]
print(("placed: " + ", ".join(mine)) if mine else ("others: " + ", ".join(bad + nodes)))' "$1" "$2"
}

# placed NAME BASE SPEC...: place_check.py all on workload NAME (applied run $VM_OUT/NAME,
# advice from BASE, an earlier test's run or NAME-base here)
placed() {
	name=$1 base=$2
	shift 2
	if [ ! -f "$VM_OUT/$name/meta.mph" ]; then
		vm_result fail "$name: no applied run directory came back from the guest"
		return
	fi
	"$R" --json "$VM_OUT/$name" > "$VM_OUT/$name.json" 2> "$VM_OUT/$name.report.err"
	"$R" dump --samples "$VM_OUT/$name" > "$VM_OUT/$name.samples" 2>> "$VM_OUT/$name.report.err"
	[ -f "$VM_OUT/$name-base/meta.mph" ] && base=$VM_OUT/$name-base
	vm_note "$name: advice from $base"
	why=$("$R" dump --meta "$base" 2> /dev/null | tr -d , |
		awk '$2 == "region" && $4 == "tid" && $8 > $6 { print "tid " $5 " kept " $6 " of " $6 + $8; exit }')
	if [ -n "$why" ]; then # numa-advice.host.sh: a starved run's advice is not judged
		vm_note "$name: the advice's run starved ($why): its kinds are not judged"
		set --
	fi
	(cd "$VM_OUT" && $CHECK all "$name" "$@") > "$VM_OUT/$name.check" 2>&1
	results "$name apply" "$VM_OUT/$name.check"
}
placed cg "$VM_OUT/../numa-cg/cg-master" cg.c:a=partitioned cg.c:colidx=partitioned
placed gather "$VM_OUT/../numa-advice/gather" main::x=interleave
placed ocean "$VM_OUT/../fortran/ocean" hycom1r/dp=partitioned hycom1r/temp=partitioned
# weighted: numa-place.guest.sh's gather-w31 (3:1, stripes) and gather-w11 (the kernel's)
for w in w31:3,1:stripes w11:1,1:kernel; do
	n=gather-${w%%:*}
	if [ ! -f "$VM_OUT/$n/meta.mph" ]; then
		vm_result fail "$n: no applied run directory came back from the guest"
		continue
	fi
	"$R" --json "$VM_OUT/$n" > "$VM_OUT/$n.json" 2> /dev/null
	(cd "$VM_OUT" && $CHECK weighted "$n" main::x $(echo "${w#*:}" | tr : ' ')) > "$VM_OUT/$n.check" 2>&1
	results "$n apply" "$VM_OUT/$n.check"
done
# prog_place: any placement, whatever its kind. Its profiled region holds the master's
# first touch of every array, and single-stepped the drain thins the sweeps' samples (7,157
# lost of 13,461 in one run): the table's 89 samples said interleave once, hx's thread 0
# had 80 % of its use once (move). What is judged is that each lands where its plan says.
placed place "" table=partitioned,move,interleave hx=partitioned,move,interleave \
	mp=partitioned,move,interleave

# examples/cg: what the user came for
CGB=$VM_OUT/../numa-cg/cg-master
[ -f "$VM_OUT/cg-base/meta.mph" ] && CGB=$VM_OUT/cg-base
if [ -f "$VM_OUT/cg/meta.mph" ] && [ -f "$CGB/meta.mph" ]; then
	if cmp -s "$CGB.out" "$VM_OUT/cg.out"; then
		vm_result ok "cg: the same output under memphis apply"
	else
		vm_result fail "cg: the same output under memphis apply ($(head -c 300 "$VM_OUT/cg.out"))"
	fi
	"$R" compare --json "$CGB" "$VM_OUT/cg" > "$VM_OUT/cg.compare.json" 2> "$VM_OUT/cg.compare.err"
	rc=$?
	others=$(placed_regressed "$VM_OUT/cg.compare.json" "$VM_OUT/cg.plan")
	# a and colidx improved over all accesses (the all-nodes cells)
	verdicts=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s=%s" % (v["name"], [c["verdict"] for c in v["cells"] if c["node"] is None][0])
               for v in d["variables"] if v["name"] in ("cg.c:a", "cg.c:colidx")))' \
		"$VM_OUT/cg.compare.json" 2> /dev/null)
	case "$rc $verdicts" in
	[01]" "*cg.c:a=improved*) case $verdicts in *cg.c:colidx=improved*) ok=1 ;; *) ok= ;; esac ;;
	*) ok= ;;
	esac
	[ "$rc" = 1 ] && case $others in placed:*) ok= ;; *) vm_note "cg: compare exit 1 beyond what apply claims (a placed variable over all its accesses): $others" ;; esac
	if [ -n "$ok" ]; then
		vm_result ok "cg: compare master-initialised -> applied exits 0 (or 1 beyond the placed variables over all their accesses), a and colidx improved ($verdicts)"
	else
		vm_result fail "cg: compare master-initialised -> applied exits 0 (or 1 beyond the placed variables over all their accesses), a and colidx improved (exit $rc: $verdicts; $others)"
	fi
	AWARE=$VM_OUT/../numa-cg/cg-aware
	if [ -f "$AWARE/meta.mph" ]; then
		"$R" --json --all "$AWARE" > "$VM_OUT/cg-aware.json" 2> /dev/null
		"$R" --json --all "$VM_OUT/cg" > "$VM_OUT/cg.all.json" 2> /dev/null
		set -- $(share "$VM_OUT/cg.all.json") $(share "$VM_OUT/cg-aware.json")
		vm_note "cg node 1 remote share, all variables: applied $1 % ($2 of $3), NUMA-aware build $4 % ($5 of $6)"
		# Judged on the variables the plan placed (b608a3d; 0c1117a went back to all of
		# them): the others' remote shares vary between runs whatever memphis does. Over
		# all variables the applied run's lead over the NUMA-aware build's was -2.2 to +13.6
		# points in ten full checks, failing at 22.2 against 8.6 % (cg.c:p, not placed, and
		# libgomp's team state), its placed variables 5.3 against 3.2 %.
		# An interleaved variable is left out: its remote share is half by design (tune
		# judges its spread); one plan of cg.c:p's interleave made the share 26.0 against
		# 8.2 %, 9.2 against 4.1 % without it.
		placed=$(sed -n 's/^var \(move\|partitioned\) [a-z]* //p' "$VM_OUT/cg.plan" | paste -sd '\t' -)
		set -- $(PLACED="$placed" share "$VM_OUT/cg.all.json") $(PLACED="$placed" share "$VM_OUT/cg-aware.json")
		vm_note "cg node 1 remote share, the placed variables: applied $1 % ($2 of $3), NUMA-aware build $4 % ($5 of $6)"
		# Both are shares of ~800 samples: their difference's noise is ~2 points, so a bare
		# "applied <= aware + 5" fails by chance in about 1 run of 200 when the two are
		# alike. Failed only when the applied share exceeds the aware one by more than 5
		# points beyond noise: the lower end of Newcombe's interval for the difference at
		# z = 3.719 (one-sided, 1e-4) above 5 points.
		lo=$(python3 -c 'import math, sys
def wilson(x, n, z):
    p = x / n; d = 1 + z * z / n; m = (p + z * z / (2 * n)) / d
    h = z / d * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)); return m - h, m + h
x1, n1, x2, n2 = (int(a) for a in sys.argv[1:5]); z = 3.719
p1, p2 = x1 / n1, x2 / n2; l1, u1 = wilson(x1, n1, z); l2, u2 = wilson(x2, n2, z)
print("%.1f" % (100 * (p1 - p2 - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2))))' $2 $3 $5 $6)
		if python3 -c "import sys; sys.exit(not ($3 > 0 and $6 > 0 and $lo <= 5))"; then
			vm_result ok "cg: node 1's remote share of the placed variables under apply ($1 %) within 5 points of the NUMA-aware build's ($4 %) or lower (difference at least $lo points, P 1e-4)"
		else
			vm_result fail "cg: node 1's remote share of the placed variables under apply ($1 %) within 5 points of the NUMA-aware build's ($4 %) or lower (difference at least $lo points, P 1e-4)"
		fi
	else
		vm_result skip "cg: node 1's remote share against the NUMA-aware build's" "numa-cg's cg-aware run is missing"
	fi
fi

# memphis-report tune on directories made of the guest's runs as memphis tune makes them
# (the launcher itself runs its whole loop in tests/lib/t_tune.sh; here its profiled runs
# must be single-stepped, its timed runs not): cg judged by the promise of its partitioned
# arrays, with the guest's timed runs; gather's interleave, node 0's rise its trade.
# tunedir NAME BASE: $VM_OUT/NAME.tune from BASE (before) and the applied run (after)
tunedir() {
	d=$VM_OUT/$1.tune
	rm -rf "$d"
	mkdir -p "$d"
	cp "$VM_OUT/$1.advice.json" "$d/advice.json"
	"$R" --json "$2" > "$d/before.json" 2> /dev/null
	"$R" --json "$VM_OUT/$1" > "$d/after.json" 2> /dev/null
	"$R" compare --json "$2" "$VM_OUT/$1" > "$d/compare.json" 2> /dev/null
	printf 'before 0\nafter 0\n' > "$d/status"
	[ -f "$VM_OUT/$1.times" ] && cp "$VM_OUT/$1.times" "$d/times"
	"$R" tune "$d" > "$VM_OUT/$1.tune.txt" 2> "$VM_OUT/$1.tune.err"
	echo $?
}
if [ -f "$VM_OUT/cg/meta.mph" ] && [ -f "$CGB/meta.mph" ]; then
	rc=$(tunedir cg "$CGB")
	sed 's/^/    /' "$VM_OUT/cg.tune.txt" | while IFS= read -r l; do vm_note "$l"; done
	ok=$(grep -c '^  cg\.c:\(a\|colidx\)   partitioned over nodes 0,1   remote share .* kept: fewer remote accesses$' "$VM_OUT/cg.tune.txt")
	others=$(placed_regressed "$VM_OUT/cg.tune/compare.json" "$VM_OUT/cg.plan")
	[ "$rc" = 1 ] && case $others in others:*) vm_note "cg: tune exit 1 beyond what apply claims (a placed variable over all its accesses): $others"; rc=0 ;; esac
	if [ "$rc" = 0 ] && [ "$ok" = 2 ]; then
		vm_result ok "cg: memphis-report tune exits 0 (or 1 beyond the placed variables over all their accesses), a and colidx kept their promise (fewer remote accesses)"
	else
		vm_result fail "cg: memphis-report tune exits 0 (or 1 beyond the placed variables over all their accesses), a and colidx kept their promise (exit $rc, $ok of 2; $others)"
	fi
	if grep -q '^wall time, 4 unprofiled runs of each placement, interleaved: .*applied / plain [0-9.]* (95 % CI [0-9.]*…[0-9.]*): \(the two placements. times cannot be told apart\|applied faster\|applied slower\)$' "$VM_OUT/cg.tune.txt"; then
		vm_result ok "cg: tune gives the wall-time ratio with its interval, or says the times cannot be told apart"
	else
		vm_result fail "cg: tune gives the wall-time ratio with its interval, or says the times cannot be told apart"
	fi
fi
if [ -f "$VM_OUT/gather/meta.mph" ]; then
	GB=$VM_OUT/../numa-advice/gather
	[ -f "$VM_OUT/gather-base/meta.mph" ] && GB=$VM_OUT/gather-base
	rc=$(tunedir gather "$GB")
	sed 's/^/    /' "$VM_OUT/gather.tune.txt" | while IFS= read -r l; do vm_note "$l"; done
	others=$(placed_regressed "$VM_OUT/gather.tune/compare.json" "$VM_OUT/gather.plan")
	# a node's rise is judged below; here what tune counts beyond the trades
	[ "$rc" = 1 ] && ! grep -q '^  node [0-9]*: .*regressed$' "$VM_OUT/gather.tune.txt" &&
		case $others in others:*) vm_note "gather: tune exit 1 beyond what apply claims (a placed variable over all its accesses): $others"; rc=0 ;; esac
	if [ "$rc" = 0 ] && grep -q '^  main::x (malloc at prog_gather.c:[0-9]*)   interleave over nodes 0,1   sampled pages by node .* kept: spread evenly$' "$VM_OUT/gather.tune.txt"; then
		vm_result ok "gather: memphis-report tune exits 0 (or 1 beyond the placed variables over all their accesses), main::x spread evenly over both nodes"
	else
		vm_result fail "gather: memphis-report tune exits 0 (or 1 beyond the placed variables over all their accesses), main::x spread evenly over both nodes (exit $rc; $others)"
	fi
	if grep -q '^  node 0: .*regressed$' "$VM_OUT/gather.tune.txt"; then
		vm_result fail "gather: node 0's rise is shown as the interleave's trade, not a regression"
	elif grep -q '^  node 0: .*the expected trade of the interleave' "$VM_OUT/gather.tune.txt"; then
		vm_result ok "gather: node 0's rise is shown as the interleave's trade, not a regression"
	else
		vm_note "gather: node 0's remote share did not rise significantly (no trade to show)"
	fi
fi
