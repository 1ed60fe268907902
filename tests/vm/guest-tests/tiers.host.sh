# tiers.host.sh - issue 44's checks on tiers.guest.sh's run: the report lists the
# memory-only node with its kind, memory tier and HMAT figures (JSON run.nodes too).
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
