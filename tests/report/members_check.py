#!/usr/bin/env python3
"""tests/report/members_check.py - checks of a `memphis-report --by member --json` report
(issue 43), one "ok SPEC (why)" / "fail SPEC (why)" line each: t_members.sh on this host,
tests/vm/guest-tests/numa-members.host.sh on the 2-node guest's runs.

  members_check.py REPORT.json SPEC...

SPEC is KIND|VARIABLE|ARG:
  remote|V|MEMBER@NODE   >= 90 % of MEMBER's samples from NODE's CPUs, and >= 90 % remote
  local|V|MEMBER@NODE    the same, local
  split|V|M1,M2          a split advice with M1 and M2 in different groups
  shared|V|M1,M2         one shared line, at offset 0, its two sides storing to M1 and M2,
                         5 store samples each at least
  unshared|V|-           no shared line
  writer|V|M@NODE        M is read by two nodes or more and written by NODE alone
  none|V|-               V has no member data (a type without members)
"""
import json, sys
d = json.load(open(sys.argv[1]))
V = {v["name"]: v for v in d["variables"]}

def member(var, m):
    ms = (V.get(var) or {}).get("members") or {}
    return {x["name"]: x for x in ms.get("list", [])}.get(m)

def node_share(x, n):
    row = sum(x["counts"][n])
    return row / x["samples"] if x["samples"] else 0

for spec in sys.argv[2:]:
    kind, var, rest = spec.split("|", 2)
    ms = (V.get(var) or {}).get("members")
    ok, why = False, "no such variable"
    if kind == "remote":     # MEMBER@NODE: >= 90 % of its samples from NODE and remote
        m, n = rest.split("@")
        x = member(var, m)
        if x:
            r = x["remote"] / x["samples"]
            ok, why = node_share(x, int(n)) >= 0.9 and r >= 0.9, "%d samples, node %s %.0f %%, remote %.0f %%" % (x["samples"], n, 100 * node_share(x, int(n)), 100 * r)
    elif kind == "local":    # MEMBER@NODE: >= 90 % from NODE and local
        m, n = rest.split("@")
        x = member(var, m)
        if x:
            l = x["local"] / x["samples"]
            ok, why = node_share(x, int(n)) >= 0.9 and l >= 0.9, "%d samples, node %s %.0f %%, local %.0f %%" % (x["samples"], n, 100 * node_share(x, int(n)), 100 * l)
    elif kind == "split":    # M1,M2: a split advice whose groups name M1 and M2 apart
        want = rest.split(",")
        groups = [g["members"] for g in (ms or {}).get("split", [])]
        ok = any(want[0] in g for g in groups) and any(want[1] in g for g in groups) and \
            not any(want[0] in g and want[1] in g for g in groups)
        why = "groups %s" % groups
    elif kind == "shared":   # M1,M2: one shared line, its sides storing to M1 and M2
        want = set(rest.split(","))
        lines = (ms or {}).get("shared_lines", [])
        ok = len(lines) == 1 and {s["member"] for s in lines[0]["sides"]} == want and \
            all(s["stores"] >= 5 for s in lines[0]["sides"]) and lines[0]["offset"] == 0
        why = "lines %s" % [(l["offset"], [(s["node"], s["member"], s["stores"]) for s in l["sides"]]) for l in lines]
    elif kind == "writer":   # M@NODE: read by all, written by NODE alone
        m, n = rest.split("@")
        w = (ms or {}).get("written_by_one", [])
        ok, why = {"member": m, "writer": int(n)} in w, "written_by_one %s" % w
    elif kind == "unshared": # -: no shared line
        lines = (ms or {}).get("shared_lines")
        ok, why = lines == [], "lines %s" % lines
    elif kind == "none":     # -: no member rows at all
        ok, why = var in V and ms is None, "members %s" % ms
    print(("ok " if ok else "fail ") + spec + " (" + why + ")")
