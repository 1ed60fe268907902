#!/bin/sh
# The nodes' kinds and memory tiers (issue 44 item 2) on this one-node host: the library
# records a "node" RUN key per node (its CPUs, memory tier, HMAT figures, memory at start);
# a run rewritten by tool_nodes to two CPU nodes and a memory-only node 2 (a CXL expander's
# tier and HMAT figures) gets the header's "node kinds" line and JSON run.nodes; rewritten
# to two CPU nodes of one tier its text and JSON are byte for byte those of a run without
# node keys. With --advice the tier advice ranks the variables by samples per byte and fills
# the fast tier's budget. The 2-node guest with a memory-only node: tests/vm/guest-tests/tiers.*.
. "$MEMPHIS_SRC/tests/report_common.sh"
have_python || { echo "t_nodes: python3 is needed to read the JSON" >&2; exit 77; }

# 40 rounds at 100 us: every array some 100 samples or more (the tier checks need several)
MEMPHIS_PERIOD=100us OMP_NUM_THREADS=2 "$B/memphis" run -o run -- "$B/tests/prog_members" 40 > run.out 2> run.err
check_if "the library records this host's node: node=0, its CPUs, tier, memory" \
	'"$R" dump --meta run | grep -q "^#   node=0\\\\t$(getconf _NPROCESSORS_CONF)\\\\t-\{0,1\}[0-9]*\\\\t.*\\\\t[0-9][0-9]*\\\\t[0-9][0-9]*\$"'
"$B/tests/tool_nodes" run far 3 --memory-only && "$B/tests/tool_nodes" run tiers 2 --tiers &&
	"$B/tests/tool_nodes" run plain 2
"$R" far > far.txt 2> far.err
"$R" --json far > far.json 2>> far.err
check_if "a memory-only node: the header's node kinds line" \
	'grep -q "^node kinds: node 0: 1 CPU, memory tier 4, 1\.0 GiB (0\.5 GiB free at start); node 1: 1 CPU, memory tier 4, .*; node 2: no CPU (memory only: a far tier), memory tier 5, HMAT from its nearest CPUs: read 300 ns, 10240 MB/s; write 320 ns, 8192 MB/s, 1\.0 GiB" far.txt'
check_if "a memory-only node: JSON run.nodes" \
	'python3 -c "import json; n = json.load(open(\"far.json\"))[\"run\"][\"nodes\"]; assert [x[\"cpus\"] for x in n] == [1, 1, 0] and n[2][\"tier\"] == 5 and n[2][\"read_latency_ns\"] == 300 and n[2][\"write_bandwidth_mbs\"] == 8192 and n[0][\"read_latency_ns\"] is None"'
# the tier advice (--advice): densest first, the fast tier's budget not exceeded, nothing
# denser left out of it
"$R" --advice --tier-budget 3M --top 0 far > tier.txt 2>> far.err
"$R" --advice --tier-budget 3M --json far > tier.json 2>> far.err
check_if "tier advice: a section naming the fast nodes, the slow one and the budget" \
	'grep -q "^Tier advice (--advice: .* in the fast tier (nodes 0,1) while its budget lasts, the rest in the slow tier (node 2)); budget 3\.0 MiB (--tier-budget):\$" tier.txt'
check_if "tier advice: densest first, at most the budget in the fast tier, a denser variable never left out" \
	'python3 -c "
import json
t = json.load(open(\"tier.json\"))[\"tier_advice\"]
v = t[\"variables\"]
assert t[\"fast_nodes\"] == [0, 1] and t[\"slow_nodes\"] == [2] and t[\"budget_bytes\"] == 3 << 20, t
assert len(v) >= 3 and all(a[\"per_mib\"] >= b[\"per_mib\"] for a, b in zip(v, v[1:]))
assert sum(x[\"fast_bytes\"] for x in v) <= 3 << 20
k = [x[\"fast_bytes\"] > 0 for x in v]
assert k == sorted(k, reverse=True) and any(k) and not all(k), k
"'
"$R" --advice tiers > tiers-advice.txt 2>&1
check_if "tier advice: none for sockets of one tier" '! grep -q "^Tier advice" tiers-advice.txt'
for f in "" --json; do
	"$R" $f tiers 2>&1 | sed 's/tiers/DIR/g' > "tiers$f.out"
	"$R" $f plain 2>&1 | sed 's/plain/DIR/g' > "plain$f.out"
done
check "sockets of one tier: the text as without node keys" cmp -s tiers.out plain.out
check "sockets of one tier: the JSON as without node keys" cmp -s tiers--json.out plain--json.out
done_testing
