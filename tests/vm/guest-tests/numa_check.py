#!/usr/bin/env python3
"""numa_check.py ALL.json REMOTE.json CHECK [ARGS] - the NUMA expectations of numa.guest.sh.

Prints "ok DESC", "fail DESC" or a note line per expectation. The report was made with
--all, so every variable's node x node matrix holds all its samples:
counts[cpu node][page node], last row and column = unknown node. REMOTE.json is the default
report: its tables are the per-node remote tables."""
import json
import sys


def pct(a, b):
    return 100.0 * a / b if b else 0.0


def say(cond, desc):
    print(("ok " if cond else "fail ") + desc)


rep = json.load(open(sys.argv[1]))
remote_rep = json.load(open(sys.argv[2]))
check, args = sys.argv[3], sys.argv[4:]
if "error" in rep:
    say(False, "memphis-report: " + rep["error"]["message"])
    sys.exit(0)
nodes = rep["nodes"]
var = {v["name"]: v for v in rep["variables"]}
print("samples: %(total)d total, %(exact)d exact, %(remote)d remote, %(local)d local" % rep["samples"])


def matrix(name):
    v = var.get(name)
    return v["matrix"]["counts"] if v else None


def row_remote(name, node):
    """(remote, total) of node `node`'s samples of `name` with a known page node."""
    m = matrix(name)
    if not m:
        return 0, 0
    row = m[node][:nodes]
    return sum(row) - row[node], sum(row)


def pages(name):
    v = var.get(name)
    ft = v and v.get("first_touch")
    return ft["by_node"][:nodes] if ft else [0] * nodes


if check == "hotspot":
    expected_lines = dict(a.split("=", 1) for a in args)
    for name in ("cg.c:a", "cg.c:colidx"):
        p = pages(name)
        say(pct(p[0], sum(p)) >= 95, "%s: %.1f %% of %d pages on node 0 (>= 95)" % (name, pct(p[0], sum(p)), sum(p)))
        r, t = row_remote(name, 1)
        say(t >= 20 and pct(r, t) >= 90, "%s: %.1f %% of node 1's %d samples remote (>= 90)" % (name, pct(r, t), t))
        r, t = row_remote(name, 0)
        say(t >= 20 and pct(t - r, t) >= 90, "%s: %.1f %% of node 0's %d samples local (>= 90)" % (name, pct(t - r, t), t))
        ft = var.get(name, {}).get("first_touch") or {}
        say(ft.get("thread_index") == 0 and ft.get("line") in expected_lines[name].split(","),
            "%s: first touched by thread 0 at its initialisation line (%s at %s; expected %s)"
            % (name, ft.get("thread"), ft.get("line"), expected_lines[name]))
    remote_names = set()
    for t in remote_rep.get("tables", []):
        if t["node"] == 1 and remote_rep.get("table_mode") == "remote":
            remote_names = {e["name"] for e in t["entries"]}
    print("node 1 remote table: " + ", ".join(sorted(remote_names)))
    say({"cg.c:a", "cg.c:colidx"} <= remote_names, "cg.c:a and cg.c:colidx are in node 1's remote table")
elif check == "aware":
    for name in ("cg.c:a", "cg.c:colidx"):
        p = pages(name)
        say(sum(p) > 0 and min(p) >= 0.3 * sum(p), "%s: pages split by partition %s" % (name, p))
        r, t = row_remote(name, 1)
        say(t >= 20 and pct(r, t) < 10, "%s: %.1f %% of node 1's %d samples remote (< 10)" % (name, pct(r, t), t))
elif check == "interleave":
    p = pages("cg.c:a")
    say(sum(p) > 0 and abs(pct(p[0], sum(p)) - 50) <= 10, "cg.c:a: pages %s, node 0 share %.1f %% (50 +- 10)" % (p, pct(p[0], sum(p))))
    for n in range(nodes):
        r = sum(row_remote(v, n)[0] for v in var)
        say(r > 0, "node %d shows remote samples (%d)" % (n, r))
elif check == "membind":
    s = rep["samples"]
    known = s["remote"] + s["local"]
    say(known >= 50 and pct(s["remote"], known) >= 99, "%.2f %% of %d address-bearing samples remote (>= 99)" % (pct(s["remote"], known), known))
    tables = [t for t in rep["tables"] if t["total"] > 0]
    say(len(tables) == 1 and tables[0]["node"] == 0, "all samples in node 0's table (%s)" % [t["node"] for t in tables])
elif check == "ring":
    # the ring arrays come from one call site into the static array ring (ring[k] =
    # malloc(...)): one heap variable, named by its receiver since issue 41
    heap = [v for v in rep["variables"]
            if v["name"].startswith("prog_ring.c:ring[] (malloc at prog_ring.c:")]
    say(len(heap) == 1, "one heap variable for the ring arrays")
    if heap:
        m = heap[0]["matrix"]["counts"]
        for k in range(nodes):
            row = m[k][:nodes]
            want = (k + 1) % nodes
            say(sum(row) >= 20 and pct(row[want], sum(row)) >= 95,
                "row %d: %.1f %% of %d samples in column %d (>= 95): %s" % (k, pct(row[want], sum(row)), sum(row), want, row))
elif check == "rank":
    # a rank of examples/mpi/halo started on node HOME: its master-initialised arrays on
    # HOME, the other node's thread reading them remotely, HOME's thread locally; the
    # default (remote) report names them in the other node's table
    home = int(args[0])
    other = 1 - home
    names = {}
    for v in rep["variables"]:
        for a in ("main::grid", "main::next"):
            if v["name"].startswith(a + " "):
                names[a] = v["name"]
    say(len(names) == 2, "both arrays found: %s" % sorted(names.values()))
    for a, name in sorted(names.items()):
        p = pages(name)
        say(pct(p[home], sum(p)) >= 95, "%s: %.1f %% of %d pages on node %d (>= 95)" % (a, pct(p[home], sum(p)), sum(p), home))
        r, t = row_remote(name, other)
        say(t >= 10 and pct(r, t) >= 90, "%s: %.1f %% of node %d's %d samples remote (>= 90)" % (a, pct(r, t), other, t))
        r, t = row_remote(name, home)
        say(t >= 10 and pct(t - r, t) >= 90, "%s: %.1f %% of node %d's %d samples local (>= 90)" % (a, pct(t - r, t), home, t))
    named = set()
    for t in remote_rep["tables"]:
        if t["node"] == other:
            for e in t.get("variables", t.get("entries", [])):
                named.add(e.get("name", "").split(" ")[0])
    say({"main::grid", "main::next"} <= named, "node %d's remote table names main::grid and main::next: %s" % (other, sorted(named)))
else:
    say(False, "unknown check " + check)
