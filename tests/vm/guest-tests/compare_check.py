#!/usr/bin/env python3
"""compare_check.py COMPARE.json JUNIT.xml EXIT EXPECT - the expectations of issue 13 on a
`memphis-report compare A B` of examples/cg in the 2-node guest (numa-cg.host.sh).

EXPECT is "improved" (A master-initialised, B NUMA-aware: node 1 and its `a` improved,
`colidx`'s share down, exit 0 or regressions only on node 0's side) or "regressed" (the
pair swapped: exit 1, node 1 and `a` regressed, `colidx`'s share up, and the JUnit file
has the regressions as failures).
Prints "ok DESC", "fail DESC" or a note line (the shares, changes and intervals) per
expectation, like numa_check.py."""
import json
import sys
import xml.etree.ElementTree as ET


def say(cond, desc):
    print(("ok " if cond else "fail ") + desc)


def pts(x):
    return "%+.1f" % (100.0 * x)


def cell_text(c):
    """'A% -> B% (delta pts, 95 % CI lo..hi) verdict [x/n -> x/n]' of one node cell."""
    a, b = c["a"], c["b"]
    return "%.1f %% -> %.1f %% (%s pts, 95 %% CI %s..%s) %s [%d/%d -> %d/%d samples]" % (
        100.0 * a["share"], 100.0 * b["share"], pts(c["delta"]), pts(c["ci95"][0]),
        pts(c["ci95"][1]), c["verdict"], a["samples"], a["of"], b["samples"], b["of"])


path, junit, rc, expect = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
want_rc = 0 if expect == "improved" else 1
try:
    r = json.load(open(path))
except (OSError, ValueError) as e:
    say(False, "compare --json output readable: %s" % e)
    sys.exit(0)
if "error" in r:
    say(False, "compare: " + r["error"]["message"])
    sys.exit(0)

for n in r["nodes"]:
    print("node %s: %s" % ("all" if n["node"] is None else n["node"], cell_text(n)))
var = {v["name"]: v for v in r["variables"]}
for name in ("cg.c:a", "cg.c:colidx"):
    v = var.get(name)
    for c in (v["cells"] if v else []):
        if c["node"] is not None:
            print("%s, share of node %d's accesses: %s" % (name, c["node"], cell_text(c)))
s = r["summary"]
print("summary: %s, %d regressions, %d improvements, %d new, %d gone, exit %d" % (
    s["verdict"], s["regressions"], s["improvements"], s["new"], s["gone"], s["exit"]))
# Variables judged against the expected direction, with their cells and their own remote
# fraction (remote / (remote + local) over all nodes), which tells a variable whose locality
# changed from one whose part of the node's accesses moved because other accesses did.
for v in r["variables"]:
    if v["verdict"] != ("regressed" if want_rc == 0 else "improved"):
        continue
    own = ["%d/%d" % (x["remote"], x["remote"] + x["local"]) if x else "-" for x in (v["in_a"], v["in_b"])]
    for c in v["cells"]:
        if c["verdict"] not in ("unchanged", "no data"):
            print("judged %s: %s on node %s: %s; own remote samples %s -> %s" % (
                v["verdict"], v["name"], "all" if c["node"] is None else c["node"],
                cell_text(c), own[0], own[1]))

# The fix also moves half of the vectors to node 1, so node 0's random reads of
# p[colidx[k]] become partly remote: node 0 +1.8 to +10.2 pts in the CI runs recorded, the
# vectors' part of node 1's accesses up too (numa-cg.host.sh). Real changes: master -> aware
# may judge them regressed at the gate (exit 1), and nothing else.
side = {"node 0"} | {v["name"] for v in r["variables"] if v["name"] not in ("cg.c:a", "cg.c:colidx")}
regressed = {("all nodes" if n["node"] is None else "node %d" % n["node"])
             for n in r["nodes"] if n["verdict"] == "regressed"}
regressed |= {v["name"] for v in r["variables"] if v["verdict"] == "regressed"}
if expect == "improved":
    say(rc == s["exit"] and rc == (1 if regressed else 0) and regressed <= side,
        "exit status %d: regressions only where the fix moves accesses to node 0's remote "
        "side (%s)" % (rc, sorted(regressed) or "none"))
else:
    say(rc == want_rc and s["exit"] == want_rc, "exit status %d (want %d)" % (rc, want_rc))
node1 = [n for n in r["nodes"] if n["node"] == 1]
say(node1 and node1[0]["verdict"] == expect, "node 1's remote share %s" % expect)
v = var.get("cg.c:a")
c = [c for c in (v["cells"] if v else []) if c["node"] == 1]
say(c and c[0]["verdict"] == expect and v["in_a"] and v["in_b"],
    "cg.c:a, matched in both runs: its share of node 1's accesses %s" % expect)
# colidx's whole share of node 1's accesses in the master-initialised run was 9 to 23 % in
# the runs recorded (9.3 pts, 56 -> 0 samples, in one judged unchanged): at the gate's 10 pts
# its verdict is a coin toss. What the compare must show is that its share moved the
# expected way, the 95 % interval of the change excluding 0, and not the other way.
v = var.get("cg.c:colidx")
c = [c for c in (v["cells"] if v else []) if c["node"] == 1]
sign = -1 if expect == "improved" else 1
say(c and v["in_a"] and v["in_b"] and c[0]["verdict"] != ("regressed" if sign < 0 else "improved")
    and sign * c[0]["ci95"][0] > 0 and sign * c[0]["ci95"][1] > 0,
    "cg.c:colidx, matched in both runs: its share of node 1's accesses %s, the 95 %% interval "
    "of the change excluding 0 (%s at the gate)" % ("fell" if sign < 0 else "rose",
                                                     c[0]["verdict"] if c else "no cell"))

try:
    root = ET.parse(junit).getroot()
except (OSError, ET.ParseError) as e:
    say(False, "--junit file parses: %s" % e)
    sys.exit(0)
failed = {tc.get("name") for tc in root.iter("testcase") if tc.find("failure") is not None}
total = sum(1 for _ in root.iter("testcase"))
if expect == "regressed":
    say({"node 1", "cg.c:a"} <= failed and len(failed) == s["regressions"],
        "--junit: %d testcases, one failure per regression (%d), among them node 1 and cg.c:a: %s"
        % (total, s["regressions"], sorted(failed)))
else:
    say(failed == regressed and failed <= side,
        "--junit: %d testcases, failures only for those regressions (%s)" % (total, sorted(failed)))
