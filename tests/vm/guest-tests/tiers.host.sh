# tiers.host.sh - issue 44's checks on tiers.guest.sh's runs: the report lists the
# memory-only node with its kind, memory tier and HMAT figures (JSON run.nodes too), and
# the tier advice moves the densest arrays, first touched on it, into the fast tier; the
# tier plans carried out by memphis apply (tiers_check.py).
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in *m*) ;; *) vm_result skip "tiers: host checks" "they run for a guest with a memory-only node"; exit 0 ;; esac
R="$MEMPHIS_BUILD/memphis-report"
if [ ! -f "$VM_OUT/tiers/meta.mph" ]; then
	vm_result fail "tiers: no run directory came back from the guest"
	exit 0
fi
"$R" "$VM_OUT/tiers" > "$VM_OUT/tiers.txt" 2> "$VM_OUT/tiers.err"
"$R" --json "$VM_OUT/tiers" > "$VM_OUT/tiers.json" 2>> "$VM_OUT/tiers.err"
line=$(grep "^node kinds:" "$VM_OUT/tiers.txt")
vm_note "$line"
far=${VM_TOPO%%x*}
if printf '%s\n' "$line" | grep -q "node $far: no CPU (memory only: a far tier), memory tier [0-9]*, HMAT from its nearest CPUs: read [0-9]* ns"; then
	vm_result ok "tiers: the header lists node $far as memory-only with its tier and HMAT figures"
else
	vm_result fail "tiers: the header lists node $far as memory-only with its tier and HMAT figures"
fi
if python3 -c 'import json, sys
n = json.load(open(sys.argv[1]))["run"]["nodes"]
far = int(sys.argv[2])
assert n[far]["cpus"] == 0 and n[far]["read_latency_ns"] and n[far]["read_bandwidth_mbs"]
assert all(x["cpus"] > 0 for x in n[:far])
assert n[far]["read_latency_ns"] > n[0]["read_latency_ns"], "far slower than local"' "$VM_OUT/tiers.json" "$far" 2> "$VM_OUT/tiers.check"; then
	vm_result ok "tiers: JSON run.nodes: node $far without CPUs, slower than node 0 by HMAT"
else
	vm_result fail "tiers: JSON run.nodes: node $far without CPUs, slower than node 0 by HMAT ($(tail -n 1 "$VM_OUT/tiers.check"))"
fi
# The tier advice: every array was first touched on the memory-only node (numactl
# --membind); with a budget of 4 MiB the densest go to the fast tier, each told to move
"$R" --advice --tier-budget 4M "$VM_OUT/tiers" > "$VM_OUT/tiers.advice.txt" 2>> "$VM_OUT/tiers.err"
"$R" --advice --tier-budget 4M --json "$VM_OUT/tiers" > "$VM_OUT/tiers.advice.json" 2>> "$VM_OUT/tiers.err"
sed -n '/^Tier advice/,/^$/p' "$VM_OUT/tiers.advice.txt" | while IFS= read -r l; do vm_note "$l"; done
if python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["tier_advice"]
v = [x for x in t["variables"] if x["now_fast"] is not None]
assert t["slow_nodes"] == [int(sys.argv[2])] and t["budget_bytes"] == 4 << 20, t
assert sum(x["fast_bytes"] for x in t["variables"]) <= 4 << 20
big = [x for x in v if x["bytes"] >= 1 << 20]
assert big and all(x["now_fast"] == 0 for x in big), big
assert any(x["fast_bytes"] == x["bytes"] for x in big) and any(x["fast_bytes"] == 0 for x in big)' \
	"$VM_OUT/tiers.advice.json" "$far" 2> "$VM_OUT/tiers.advice.check" &&
	grep -q "^  ([0-9]*) .*: fast tier (budget used .*; now 0 % of its sampled pages in the fast tier: place it (first touched at prog_members.c:[0-9]*); apply: " "$VM_OUT/tiers.advice.txt"; then
	vm_result ok "tiers: the tier advice moves the densest arrays (all on node $far now) into the fast tier within a 4 MiB budget, and leaves the rest"
else
	vm_result fail "tiers: the tier advice moves the densest arrays (all on node $far now) into the fast tier within a 4 MiB budget, and leaves the rest ($(tail -n 1 "$VM_OUT/tiers.advice.check"))"
fi

# the tier plans carried out (tiers_check.py): prog_tiers' runs
"$R" --json --region tiers "$VM_OUT/tiers-base" > "$VM_OUT/tiers-base.json" 2>> "$VM_OUT/tiers.err"
"$R" --region tiers "$VM_OUT/tiers-base" > "$VM_OUT/tiers-base.txt" 2>> "$VM_OUT/tiers.err"
sed -n '/^attributed/p;/^Far-tier samples/,/^$/p' "$VM_OUT/tiers-base.txt" | head -n 8 |
	while IFS= read -r l; do vm_note "$l"; done
for b in 128M 16M 28M; do
	grep "^  (1)" "$VM_OUT/tiers-$b.advice.txt" 2> /dev/null | while IFS= read -r l; do vm_note "$b: $l"; done
done
"$R" compare --json --region tiers "$VM_OUT/tiers-base" "$VM_OUT/tiers-128M" > "$VM_OUT/tiers-cmp.json" 2>> "$VM_OUT/tiers.err"
echo $? > "$VM_OUT/tiers-cmp.rc"
python3 "$MEMPHIS_SRC/tests/vm/guest-tests/tiers_check.py" "$VM_OUT" "$far" > "$VM_OUT/tiers-plan.check" 2>&1
results tiers-plan "$VM_OUT/tiers-plan.check"
