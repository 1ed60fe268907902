#!/usr/bin/env python3
"""tests/vm/guest-tests/tiers_check.py OUT FAR - the tier plan's checks (issue 44 items 2-4)
on tiers.guest.sh's files in OUT (the host's copy of the guest's output), FAR the
memory-only node; one "ok DESC" / "fail DESC" line each, notes else.

  tiers-base.json       memphis-report --json --region tiers of the profiled run: the hot
                        array's accesses far-tier (>= 90 % of those with a known home), in
                        far_tables, none of node FAR's accesses called remote
  tiers-B.advice.json   the advice at budget B (128M, 16M, 28M), tiers-B.plan its plan,
  tiers-B.out           what prog_tiers printed under memphis apply: its arrays' pages by
                        node (move_pages) and policy (get_mempolicy at the middle byte)
  tiers-28M.err         apply --kernel-weights' line; tiers-28M.weights: the kernel's
                        weights read back after the run
  tiers-cmp.json        compare --json tiers-base tiers-128M; tiers-cmp.rc its exit status
"""
import json
import os
import sys

MIB = 1 << 20
out, far = sys.argv[1], int(sys.argv[2])


def say(cond, desc):
    print(("ok " if cond else "fail ") + desc)


def load(name):
    try:
        with open(os.path.join(out, name)) as f:
            return json.load(f) if name.endswith(".json") else f.read()
    except (OSError, ValueError) as e:
        print("%s: %s" % (name, e))
        return None


def var(doc, prefix, key="variables"):
    return next((v for v in (doc or {}).get(key) or [] if v["name"].startswith(prefix)), None)


def where(text):
    """prog_tiers' lines: {array: (pages, {node: pages}, policy, [nodes])}"""
    res = {}
    for line in (text or "").splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] in ("hot", "cold") and f[2] == "pages":
            nodes, k = {}, 4
            while f[k].startswith("node"):
                nodes[int(f[k][4:])] = int(f[k + 1])
                k += 2
            pol = int(f[k + 1])
            lst = [int(x) for x in f[k + 3].split(",")] if len(f) > k + 3 else []
            res[f[0]] = (int(f[3]), nodes, pol, lst)
    return res


# the profiled run: far-tier accesses
base = load("tiers-base.json")
hot = var(base, "main::hot")
if hot:
    known = hot["remote"] + hot["local"] + hot["far"]
    say(known and hot["far"] >= 0.9 * known and base["samples"]["far"] >= hot["far"],
        "base run: the hot array's accesses are far-tier (%d of %d with a known home; %d "
        "remote, %d local)" % (hot["far"], known, hot["remote"], hot["local"]))
    in_far = [e for t in base.get("far_tables", []) for e in t["entries"]
              if e["name"] == hot["name"]]
    say(in_far and not any(x["cpus"] == 0 and x["node"] != far for x in base["run"]["nodes"]),
        "base run: the hot array in the far-tier tables of %d CPU node(s)" % len(in_far))
else:
    say(False, "base run: the hot array is in the report")


def advice(b):
    a = load("tiers-%s.advice.json" % b)
    t = a and a.get("tier_advice")
    return (var(t, "main::hot"), var(t, "main::cold"), load("tiers-%s.plan" % b),
            where(load("tiers-%s.out" % b)))


def before(b, h):
    """the budget the variables denser than h took (a runtime's small heap objects)"""
    v = load("tiers-%s.advice.json" % b)["tier_advice"]["variables"]
    return sum(x["fast_bytes"] for x in v[:v.index(h)])


def share(w, arr, nodes):
    pages, by, _, _ = w[arr]
    return sum(by.get(n, 0) for n in nodes) / pages if pages else 0


# 128M: the hot array in the fast tier, the cold one left
h, c, plan, w = advice("128M")
fast = [n for n in range(far)]
say(h and c and h["tier"] == "fast" and set(h["placement"]["nodes"]) <= set(fast) and
    c["tier"] == "slow" and c["placement"] == {"policy": "move", "nodes": [far]},
    "128M: the advice puts the hot array in the fast tier (%s) and leaves the cold one "
    "(%s, cold %s)" % (h and h["placement"], c and c["tier"], c and c["cold"]))
if "hot" in w and "cold" in w:
    hs, cs = share(w, "hot", fast), share(w, "cold", [far])
    say(hs >= 0.95 and cs >= 0.95, "128M applied: %.1f %% of the hot array's pages on nodes "
        "%s, %.1f %% of the cold one's on node %d (move_pages)" % (100 * hs, fast, 100 * cs, far))
else:
    say(False, "128M applied: prog_tiers printed where its arrays are")
cmp = load("tiers-cmp.json")
rc = (load("tiers-cmp.rc") or "").strip()
if cmp and "far_tier" in cmp:
    a = cmp["far_tier"][-1]
    say(rc == "0" and a["verdict"] == "improved" and a["b"]["share"] < a["a"]["share"],
        "128M: compare shows the far-tier share fall, %.1f %% -> %.1f %% (%s), exit %s" %
        (100 * a["a"]["share"], 100 * a["b"]["share"], a["verdict"], rc))
else:
    say(False, "128M: compare has far-tier cells (exit %s)" % rc)

# 16M: smaller than the hot array: what fits
h, c, plan, w = advice("16M")
cut = (16 * MIB - before("16M", h)) // 4096 * 4096 if h else 0
ok = h and h["tier"] == "part" and h["fast_bytes"] == cut and \
    h["placement"]["ranges"] == [[0, h["users"][0]], [cut, far]]
say(ok and plan and ("ranges 0 %d %d %d" % (h["users"][0], cut, far)) in plan,
    "16M: the plan places the hot array's first 16 MiB in the fast tier, the rest on node %d "
    "(%s)" % (far, h and h["placement"]))
text = load("tiers-16M.advice.txt") or ""
say("MiB of it in the fast tier, the rest in the slow tier: it does not fit the budget left"
    in text, "16M: the advice says the hot array does not fit the budget")
if "hot" in w:
    hs, fs = share(w, "hot", fast), share(w, "hot", [far])
    say(abs(hs - 0.5) <= 0.02 and abs(fs - 0.5) <= 0.02, "16M applied: %.1f %% of the hot "
        "array's pages on nodes %s, %.1f %% on node %d (half each: 16 of 32 MiB)" %
        (100 * hs, fast, 100 * fs, far))
else:
    say(False, "16M applied: prog_tiers printed where its arrays are")

# 28M: the shared stream weighted by the HMAT bandwidths, the kernel's weights set
h, c, plan, w = advice("28M")
nodes = sorted(fast + [far])
say(h and h["tier"] == "weighted" and h["placement"]["nodes"] == nodes and
    h["placement"]["weights"] == [2] * len(fast) + [1],
    "28M: the hot array (shared by nodes %s, a steady stream: %s) weighted %s over nodes %s "
    "from the HMAT read bandwidths" % (h and h["users"], h and h["time_bins"],
                                       h and h["placement"].get("weights"), nodes))
err = load("tiers-28M.err") or ""
kw = (load("tiers-28M.weights") or "").split()
say("the kernel's weighted-interleave weights set" in err and kw == ["2"] * len(fast) + ["1"],
    "28M: apply --kernel-weights set the kernel's weights (read back: %s)" % " ".join(kw))
if "hot" in w:
    pages, by, pol, lst = w["hot"]
    fs = share(w, "hot", [far])
    say(pol == 6 and lst == nodes and abs(fs - 0.2) <= 0.05,
        "28M applied: get_mempolicy reads MPOL_WEIGHTED_INTERLEAVE (mode %d) over nodes %s for "
        "the hot array, %.1f %% of its pages on node %d (weight 1 of 5)" % (pol, lst, 100 * fs, far))
else:
    say(False, "28M applied: prog_tiers printed where its arrays are")
