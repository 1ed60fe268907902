# numa-counters.host.sh - region "faults" of prog_counters, run on node 0 with its memory
# bound to node 1: numastat's other_node and numa_hit moved on node 1 by at least the
# 5000 pages faulted (the pages are node 1's, allocated from a node-0 CPU), node 0's
# other_node hardly; numa_maps puts the process's resident pages on node 1; the page
# faults are counted per thread.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "NUMA counters: host checks" "they run for the 2-node guest"; exit 0 ;; esac
if [ ! -d "$VM_OUT/counters" ]; then
	vm_result fail "counters: no run directory came back from the guest"
	exit 0
fi
"$MEMPHIS_BUILD/memphis-report" --json "$VM_OUT/counters" > "$VM_OUT/counters.json" 2> "$VM_OUT/counters.report.err"
python3 - "$VM_OUT/counters.json" > "$VM_OUT/counters.check" 2>&1 << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {r["seq"]: r["name"] for r in d["regions"]}
ctr = {names[c["region"]]: c for c in d.get("counters", [])}
def say(ok, what): print(("ok " if ok else "fail ") + what)
f = ctr.get("faults")
say(f is not None, "region faults has counters")
if f:
    def k(src, node, name):
        return sum(x["value"] for x in f["kernel"]
                   if x["source"] == src and x["node"] == node and x["name"] == name)
    o1, o0 = k("numastat", 1, "other_node"), k("numastat", 0, "other_node")
    h1 = k("numastat", 1, "numa_hit") + k("numastat", 1, "numa_miss")
    r1, r0 = k("numa_maps", 1, "resident_pages"), k("numa_maps", 0, "resident_pages")
    say(o1 >= 4900, "node 1 other_node moved by %d (>= 4900: node 1's pages for a node-0 CPU)" % o1)
    say(o0 < o1 / 4, "node 0 other_node moved by %d (well below node 1's %d)" % (o0, o1))
    say(h1 >= 4900, "node 1 numa_hit + numa_miss moved by %d (>= 4900)" % h1)
    say(r1 >= 5000 and r1 > r0, "numa_maps: %d resident pages on node 1 (>= 5000), %d on node 0" % (r1, r0))
    pf = sum(t["values"].get("perf::PAGE-FAULTS", 0) for t in f["threads"])
    say("perf::PAGE-FAULTS" not in f["events"] or pf >= 4900,
        "page faults counted per thread: %d in all" % pf)
PY
results counters "$VM_OUT/counters.check"
