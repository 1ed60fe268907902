#!/usr/bin/env python3
"""tests/vm/guest-tests/place_check.py - checks of `memphis apply` in the 2-node guest
(numa-place.host.sh), one "ok DESC" / "fail DESC" line each, "skip DESC: WHY" for a check
that cannot judge, notes else. NAME is a workload's files in the host's copy of the guest's
output: NAME.advice.json (the advice applied), NAME.{pages,numa,maps,addrs} (what the shim
found at exit), NAME.samples (memphis-report dump --samples of the applied run), NAME.json
(its --json report).

  all NAME [VAR=POLICY[,POLICY]...]
                       the advice places each VAR by POLICY (move, partitioned, interleave;
                       one of them),
                       the apply run said one line of bytes placed for every variable its
                       plan holds (NAME.err), and each placed variable passes `blocks` or
                       `spread` below
  blocks NAME VAR...   the pages of each VAR (a name of the advice; "table" for
                       "prog_place.c:table", "hx" for "main::hx (...)") with a move or
                       partitioned placement: >= 95 % of its pages touched (move_pages, for
                       the plan's statics) and of its sampled pages (the applied run's page
                       homes) on the node the plan named for their block. A page belongs
                       to the block that holds its last byte (lib/place.c); the pages the
                       variable shares with its neighbours are left out.
  weighted NAME VAR W,W stripes|kernel
                       VAR interleaved with these weights, the way the apply line says;
                       each node's share of its sampled pages within 10 points of its
                       weight's (stats.py's range when wider)
  spread NAME VAR      VAR interleaved: numa_maps shows its mapping MPOL_INTERLEAVE over the
                       plan's nodes, each holding 40-60 % of its pages; its sampled pages
                       spread likewise (within stats.py's range of a 40-60 % share when
                       that is wider: the sampled pages are a sample)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
import stats  # noqa: E402  (tests/stats.py)

SHARE = 0.95


def say(ok, desc):
    print(("ok " if ok else "fail ") + desc)


def advice_var(doc, var):
    """The advice's variable for VAR: an exact name, the name before " (", or its base."""
    for v in doc["variables"]:
        n = v["name"]
        if var in (n, n.split(" (")[0], n.split(" (")[0].split("::")[-1].split(":")[-1]):
            return v
    return None


def expected(place, off):
    """The node the placement names for byte offset off of the variable: move's node, or
    the part of a partitioned one that holds off (its ranges, else its blocks)."""
    if place["policy"] == "move":
        return place["nodes"][0]
    if place.get("ranges"):
        return [n for start, n in place["ranges"] if start <= max(off, 0)][-1]
    nodes = place["block_nodes"]
    return nodes[min(max(off, 0) // place["block_bytes"], len(nodes) - 1)]


def ranges(name):
    """Each variable's [address, bytes) from the shim's pages file and the program's addrs."""
    out = {}
    if os.path.exists(name + ".pages"):
        for line in open(name + ".pages"):
            f = line.rstrip("\n").split("\t")
            out[f[0]] = (int(f[1], 16), int(f[2]), f[3].split())
    if os.path.exists(name + ".addrs"):
        for line in open(name + ".addrs"):
            f = line.split()
            out.setdefault(f[0], (int(f[1], 16), int(f[2]), None))
    return out


def sampled_pages(name, page):
    """{page address: node} of the applied run's samples with a known page node."""
    pages = {}
    for line in open(name + ".samples"):
        f = line.split()
        if line.startswith("#") or len(f) < 8 or f[7] in ("-", "?"):
            continue
        try:
            pages[int(f[5], 16) & ~(page - 1)] = int(f[7])
        except ValueError:
            pass
    return pages


def judge(desc, good, total, least=20):
    if total < least:
        print("skip %s: only %d pages to judge (%d needed)" % (desc, total, least))
    else:
        say(good >= SHARE * total, "%s: %d of %d pages (%.1f %%) on the plan's node" %
            (desc, good, total, 100.0 * good / total))


def blocks(name, vars_):
    doc = json.load(open(name + ".advice.json"))
    page = json.load(open(name + ".json"))["run"]["page_size"]
    where = ranges(name)
    sampled = sampled_pages(name, page)
    for var in vars_:
        v = advice_var(doc, var)
        place = (v or {}).get("advice", {}) or {}
        place = place.get("placement")
        if not place or place["policy"] not in ("move", "partitioned"):
            say(False, "%s: the advice places %s (move or partitioned): %s" %
                (name, var, place and place["policy"]))
            continue
        short = v["name"].split(" (")[0].split("::")[-1].split(":")[-1]
        r = where.get(v["name"]) or where.get(var) or where.get(short)
        if not r and v["kind"] == "heap":
            print("skip %s: %s: a heap object whose address the program does not tell" % (name, var))
            continue
        if not r:
            say(False, "%s: %s's address is known (the shim's move_pages)" % (name, var))
            continue
        addr, size, nodes = r
        lo = (addr + page - 1) & ~(page - 1)      # the pages wholly its own
        hi = (addr + size) & ~(page - 1)
        if nodes is not None:                     # move_pages of every page
            good = total = 0
            for i, n in enumerate(nodes):
                p = (addr & ~(page - 1)) + i * page
                if p < lo or p >= hi or n == "-":
                    continue
                total += 1
                good += int(n) == expected(place, p + page - 1 - addr)
            judge("%s: %s, touched pages (move_pages)" % (name, var), good, total)
        good = total = 0
        for p, n in sampled.items():
            if lo <= p < hi:
                total += 1
                good += n == expected(place, p + page - 1 - addr)
        judge("%s: %s, sampled pages (the run's page homes)" % (name, var), good, total)


def placed_pages(name, v, place):
    """The applied run's sampled pages of v by node (run.placement) and their sum over the
    placement's nodes; None with a failure said when the run does not have them."""
    run = json.load(open(name + ".json"))["run"]
    entry = [e for e in run.get("placement", []) if e["variable"] == v["name"]]
    by = entry and entry[0]["sampled_pages_by_node"]
    if not by:
        say(False, "%s: %s's sampled pages in run.placement" % (name, v["name"]))
        return None, 0
    return by, sum(by[k] for k in place["nodes"] if k < len(by))


def interleaved(name, var):
    """The advice's variable VAR and its placement, an interleave; None for the placement,
    said, when it is not one."""
    v = advice_var(json.load(open(name + ".advice.json")), var)
    place = ((v or {}).get("advice") or {}).get("placement")
    if not place or place["policy"] != "interleave":
        say(False, "%s: the advice interleaves %s: %s" % (name, var, place))
        return v, None
    return v, place


def spread(name, var):
    v, place = interleaved(name, var)
    if not place:
        return
    want = "interleave:" + ",".join(str(n) for n in place["nodes"])
    want_range = "interleave:%d-%d" % (min(place["nodes"]), max(place["nodes"]))
    found = []
    for line in open(name + ".numa"):
        f = line.split()
        if len(f) > 1 and f[1] in (want, want_range):
            counts = {int(x[1:].split("=")[0]): int(x.split("=")[1]) for x in f
                      if x.startswith("N") and "=" in x}
            found.append(counts)
    if not found:  # freed before the program's end: the sampled pages below tell
        print("skip %s: %s: no mapping with policy %s left in numa_maps at exit" % (name, var, want))
    else:
        biggest = max(found, key=lambda c: sum(c.values()))
        total = sum(biggest.values())
        shares = {n: biggest.get(n, 0) / total for n in place["nodes"]}
        say(total > 0 and all(0.40 <= s <= 0.60 for s in shares.values()),
            "%s: %s interleaved (numa_maps %s): pages by node %s" %
            (name, var, want, ", ".join("%d %.1f %%" % (n, 100 * s) for n, s in sorted(shares.items()))))
    by, n = placed_pages(name, v, place)
    if by is None:
        return
    for node in place["nodes"]:
        k = by[node]
        least, most = stats.share_range(n, 0.40, 0.60)
        least, most = min(least, int(0.40 * n)), max(most, int(0.60 * n + 0.999))
        say(least <= k <= most, "%s: %s: node %d holds %d of its %d sampled pages (%d to %d "
            "pass)" % (name, var, node, k, n, least, most))


def all_checks(name, expect):
    doc = json.load(open(name + ".advice.json"))
    for e in expect:
        var, policy = e.split("=")
        v = advice_var(doc, var)
        place = ((v or {}).get("advice") or {}).get("placement")
        say(bool(place) and place["policy"] in policy.split(","),
            "%s: the advice places %s: %s (%s wanted)" % (name, var, place and place["policy"],
                                                          policy.replace(",", " or ")))
    err = open(name + ".err").read().splitlines()
    for v in doc["variables"]:
        place = (v.get("advice") or {}).get("placement")
        if not place:
            continue
        line = [l for l in err if l.startswith("memphis: apply: %s: " % v["name"])]
        say(len(line) == 1 and " bytes in " in line[0],
            "%s: one line says what of %s was placed: %s" % (name, v["name"], line))
        if place["policy"] == "interleave":
            spread(name, v["name"])
        else:
            blocks(name, [v["name"]])


def weighted(name, var, weights, how):
    """VAR interleaved with WEIGHTS ("3,1" for its nodes in order) by HOW ("stripes" or
    "kernel"): the apply line says so, and each node's share of its sampled pages is within
    10 points of its weight's share (stats.py's range when that is wider)."""
    v, place = interleaved(name, var)
    if not place:
        return
    w = [int(x) for x in weights.split(",")]
    text = "by stripes" if how == "stripes" else "the kernel's weighted interleave"
    line = [l for l in open(name + ".err").read().splitlines()
            if l.startswith("memphis: apply: %s: " % v["name"])]
    say(len(line) == 1 and ("weighted %s (%s)" % (":".join(map(str, w)), text)) in line[0],
        "%s: %s weighted %s %s: %s" % (name, var, weights, text, line))
    by, n = placed_pages(name, v, place)
    if by is None:
        return
    for k, node in enumerate(place["nodes"]):
        share = w[k] / sum(w)
        least, most = stats.share_range(n, max(share - 0.10, 0), min(share + 0.10, 1))
        least = min(least, int((share - 0.10) * n))
        most = max(most, int((share + 0.10) * n + 0.999))
        say(least <= by[node] <= most, "%s: %s: node %d holds %d of its %d sampled pages, "
            "weight %d of %d (%d to %d pass)" % (name, var, node, by[node], n, w[k], sum(w),
                                                 least, most))


def main():
    mode, name = sys.argv[1], sys.argv[2]
    if mode == "all":
        all_checks(name, sys.argv[3:])
    elif mode == "blocks":
        blocks(name, sys.argv[3:])
    elif mode == "spread":
        spread(name, sys.argv[3])
    elif mode == "weighted":
        weighted(name, sys.argv[3], sys.argv[4], sys.argv[5])
    else:
        sys.exit("usage: place_check.py all|blocks|spread NAME ...")


if __name__ == "__main__":
    main()
