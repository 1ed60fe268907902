#!/usr/bin/env python3
"""tests/advice/check.py - checks of issue 18's pattern data and advice on memphis-report
JSON: `check.py MODE JSON [ARGS]`, one "ok DESC" / "fail DESC" line per check, notes else.

  structure JSON PLAIN   every shown variable's pattern is consistent with itself and with
                         the variable (samples, sizes, bounds), and the document without
                         pattern/advice equals PLAIN (the --json output)
  advice JSON VAR=KIND[/SHAPE][@LINE][~LOOP] ...
                         the advice of the variable named VAR (exact name, or the name
                         before " (" for heap sites) is KIND (and its shape SHAPE), naming
                         first-touch line LINE and loop line LOOP (comma-separated choices)
"""
import json
import sys


def say(ok, desc):
    print(("ok " if ok else "fail ") + desc)


def structure(doc, plain):
    for name in ("pattern", "advice"):
        if any(name in v for v in plain["variables"]):
            say(False, "plain --json has no %s member" % name)
            return
    say(True, "plain --json has no pattern or advice member")
    stripped = json.loads(json.dumps(doc))
    for v in stripped["variables"]:
        v.pop("pattern", None)
        v.pop("advice", None)
    say(stripped == plain, "the document less pattern/advice is the plain --json output")
    shown = [v for v in doc["variables"] if v["shown"]]
    say(all("pattern" in v for v in shown) and
        not any("pattern" in v for v in doc["variables"] if not v["shown"]),
        "pattern: on every shown variable (%d), on no other" % len(shown))
    page = doc["run"]["page_size"]
    laid = [v for v in shown if v["pattern"]]
    say(len(laid) > 0, "some shown variable has a pattern (%d)" % len(laid))
    for v in laid:
        p, name, bad = v["pattern"], v["name"], []
        nt, nb = len(p["threads"]), p["blocks"]
        span = v.get("size", v.get("bytes"))
        if p["span_bytes"] != span:
            bad.append("span %d != size/bytes %s" % (p["span_bytes"], span))
        if p["block_bytes"] % page or nb > 256 or nb * p["block_bytes"] < p["span_bytes"] \
                or (nb - 1) * p["block_bytes"] >= p["span_bytes"]:
            bad.append("blocks %d x %d for %d" % (nb, p["block_bytes"], p["span_bytes"]))
        if p["samples"] + p["unplaced"] != v["samples"]:
            bad.append("placed %d + unplaced %d != samples %d" % (p["samples"], p["unplaced"],
                                                                  v["samples"]))
        if len(p["thread_blocks"]) != nt or any(len(r) != nb for r in p["thread_blocks"]):
            bad.append("thread_blocks is not threads x blocks")
        if sum(map(sum, p["thread_blocks"])) != p["samples"]:
            bad.append("thread_blocks sum %d" % sum(map(sum, p["thread_blocks"])))
        if [sum(r) for r in p["thread_blocks"]] != [t["samples"] for t in p["threads"]]:
            bad.append("thread rows != thread samples")
        if len(p["block_home"]) != nb or len(p["block_first_touch"]) != nb:
            bad.append("per-block arrays' length")
        if any(h is not None and not 0 <= h < doc["nodes"] for h in p["block_home"]):
            bad.append("block_home out of range")
        if any(f is not None and not -1 <= f < nt for f in p["block_first_touch"]):
            bad.append("block_first_touch out of range")
        if p["reads"] is not None and p["reads"] + p["writes"] > p["samples"]:
            bad.append("reads + writes > samples")
        tm = p["time"]
        if tm["bins"] > 100 or (tm["bins"] and sum(c[2] for c in tm["cells"]) != p["samples"]):
            bad.append("time cells do not sum to the samples")
        if any(not (0 <= c[0] < tm["bins"] and 0 <= c[1] < nb and 0 <= c[3] < nt and c[2] > 0)
               for c in tm["cells"]):
            bad.append("a time cell out of range")
        if [c[:2] for c in tm["cells"]] != sorted(c[:2] for c in tm["cells"]):
            bad.append("time cells not by bin then block")
        idx = [t["index"] for t in p["threads"]]
        if idx != sorted(idx, key=lambda i: (i is None, i)):
            bad.append("threads not by index")
        say(not bad, "%s: pattern consistent (%d blocks of %d, %d threads, %d samples)%s" %
            (name, nb, p["block_bytes"], nt, p["samples"], ": " + "; ".join(bad) if bad else ""))


def find(doc, name):
    for v in doc["variables"]:
        if v["name"] == name or v["name"].split(" (")[0] == name:
            return v
    return None


def advice(doc, specs):
    for spec in specs:
        name, want = spec.split("=", 1)
        loop = want.split("~")[1] if "~" in want else None
        want = want.split("~")[0]
        line = want.split("@")[1] if "@" in want else None
        want = want.split("@")[0]
        kind, shape = (want.split("/") + [None])[:2]
        v = find(doc, name)
        a = v.get("advice") if v else None
        if not a:
            say(False, "%s: has advice (%s)" % (name, "no variable" if not v else "none"))
            continue
        print("%s: %s: %s (%s)" % (name, a["pattern"], a["action"], a["evidence"]))
        ok = a["pattern"] == kind and (shape is None or a["shape"] == shape)
        desc = "%s: advice %s%s" % (name, kind, "" if shape is None else ", shape " + shape)
        if line:
            ok = ok and a["line"] in line.split(",")
            desc += ", line %s" % line
        if loop:
            ok = ok and a["loop"] in loop.split(",")
            desc += ", loop %s" % loop
        say(ok, desc + " (got %s, shape %s, line %s, loop %s)" %
            (a["pattern"], a["shape"], a["line"], a["loop"]))


def main():
    doc = json.load(open(sys.argv[2]))
    if sys.argv[1] == "structure":
        structure(doc, json.load(open(sys.argv[3])))
    else:
        advice(doc, sys.argv[3:])


main()
