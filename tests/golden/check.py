#!/usr/bin/env python3
"""tests/golden/check.py - the checks of tests/report/t_golden.sh for one build of the golden
program.

usage: check.py START TAG SRCDIR EXPECT JSON...

EXPECT holds one expectation a line: "region|name|kind|weight|line", where
  region  is the region's name; "main@O0" is region main in the build tagged O0 only,
  name    is the report's name of the variable; "@SITE:tag" in it becomes the line number
          of the source line marked /* SITE:tag */ (a malloc call site),
  kind    is the report's kind (global, static, function static, heap, stack, tls, local),
  weight  names the macros of golden.h whose ratio is the expected share, "W_GLOBAL/W_MAIN",
  line    is the tag of the source line marked /* LINE:tag */ that loads the variable.
Each JSON is `memphis-report --all --json --top 0 --region R` of region R, in the order of
the regions' first appearance in EXPECT. Prints TAP lines numbered from START, TAG first
in each description.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import stats  # noqa: E402  (tests/stats.py)

# A variable's count of the region's N attributed samples is Binomial(N, its true share),
# which is its weight's share within SYSTEMATIC points (the CPU's cost of each load: 2.0
# at most seen); the count must fall within stats.py's share range for that band
# (P <= 1e-4 of failing by chance; about +-5 points at 2,000 samples).
SYSTEMATIC = 2.5      # percentage points, either side
MIN_SAMPLES = 400     # fewer and the band says little
MIN_ATTRIBUTED = 90.0 # % of the region's samples that must have an exact data address
MIN_COVERED = 95.0    # % of the attributed samples that must fall on expected variables


class Tap:
    def __init__(self, start, tag):
        self.n = start
        self.tag = tag

    def check(self, good, what, detail=""):
        self.n += 1
        print("%s %d - %s: %s%s" % ("ok" if good else "not ok", self.n, self.tag, what,
                                     " (" + detail + ")" if detail else ""))


def markers(srcdir):
    """{('LINE'|'SITE', tag): 'file:line'} from the sources in srcdir."""
    found = {}
    for f in sorted(os.listdir(srcdir)):
        if not f.endswith((".c", ".h")):
            continue
        with open(os.path.join(srcdir, f)) as fh:
            for i, text in enumerate(fh, 1):
                for kind, tag in re.findall(r"/\* (LINE|SITE):(\w+) \*/", text):
                    if (kind, tag) in found:
                        sys.exit("check.py: %s:%s marked twice" % (kind, tag))
                    found[(kind, tag)] = "%s:%d" % (f, i)
    return found


def macros(path):
    """The integer macros of golden.h, sums of other macros included."""
    m = {}
    with open(path) as fh:
        text = fh.read().replace("\\\n", " ")
        for name, expr in re.findall(r"^#define (\w+) (.*?)\s*(?:/\*.*)?$", text, re.M):
            expr = re.sub(r"\b[A-Z_]+\b", lambda w: str(m.get(w.group(0), w.group(0))), expr)
            if re.fullmatch(r"[\d\s()+*<u]+", expr):
                m[name] = eval(expr.replace("u", ""))
    return m


def region_counts(doc):
    """{name: (kind, count, {line: count})} summed over the node tables."""
    out = {}
    for table in doc["tables"]:
        for e in table["entries"]:
            kind, count, lines = out.get(e["name"], (e["kind"], 0, {}))
            for item in e["items"]:
                lines[item["name"]] = lines.get(item["name"], 0) + item["count"]
            out[e["name"]] = (kind, count + e["count"], lines)
    return out


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    tap = Tap(int(sys.argv[1]), sys.argv[2])
    srcdir = sys.argv[3]
    mark = markers(srcdir)
    mac = macros(os.path.join(srcdir, "golden.h"))
    expect = []
    with open(sys.argv[4]) as fh:
        for text in fh:
            if text.strip() and not text.startswith("#"):
                row = [f.strip() for f in text.split("|")]
                region, _, only = row[0].partition("@")
                if not only or only == tap.tag:
                    expect.append([region] + row[1:])
    regions = []
    for e in expect:
        if e[0] not in regions:
            regions.append(e[0])
    docs = {}
    for region, path in zip(regions, sys.argv[5:]):
        try:
            with open(path) as fh:
                docs[region] = json.load(fh)
            if "error" in docs[region] or "tables" not in docs[region]:
                raise ValueError(docs[region].get("error", {}).get("message", "no tables"))
        except (OSError, ValueError, AttributeError) as err:
            docs[region] = None
            tap.check(False, "region %s: report" % region, "%s: %s" % (path, err))

    for region in regions:
        doc = docs.get(region)
        rows = [e for e in expect if e[0] == region]
        if doc is None:
            for _, name, _, _, _ in rows:
                for what in ("found", "share", "hottest line"):
                    tap.check(False, "%s %s %s" % (region, name, what), "no report")
            continue
        s = doc["samples"]
        counts = region_counts(doc)
        total = sum(c for _, c, _ in counts.values())
        tap.check(total >= MIN_SAMPLES, "%s: at least %d attributed samples" % (region, MIN_SAMPLES),
                  "%d" % total)
        pct = 100.0 * s["attributed"] / s["total"] if s["total"] else 0.0
        tap.check(pct >= MIN_ATTRIBUTED,
                  "%s: at least %.0f %% of the samples attributed" % (region, MIN_ATTRIBUTED),
                  "%.1f %% of %d; %d no address, %d approximate, %d non-memory"
                  % (pct, s["total"], s["no_address"], s["approximate"], s["non_memory"]))
        names = []
        for _, name, kind, weight, line in rows:
            name = re.sub(r"@SITE:(\w+)",
                          lambda m: mark.get(("SITE", m.group(1)), "?:?").split(":")[1], name)
            names.append(name)
            num, den = weight.split("/")
            if num not in mac or den not in mac or ("LINE", line) not in mark:
                sys.exit("check.py: %s or %s not in golden.h, or no LINE:%s in %s"
                         % (num, den, line, srcdir))
            want = 100.0 * mac[num] / mac[den]
            where = mark[("LINE", line)]
            got_kind, count, lines = counts.get(name, (None, 0, {}))
            tap.check(got_kind == kind, "%s %s found as %s" % (region, name, kind),
                      "not in the report" if got_kind is None else "kind %s" % got_kind)
            share = 100.0 * count / total if total else 0.0
            lo, hi = max(want - SYSTEMATIC, 0) / 100, min(want + SYSTEMATIC, 100) / 100
            good, least, most, _ = stats.share_check(count, total, lo, hi) if total else \
                (False, 0, 0, 0)
            tap.check(good, "%s %s share %.1f %% (expect %.1f +- %.1f and chance)"
                      % (region, name, share, want, SYSTEMATIC),
                      "%d of %d samples, %d-%d allowed" % (count, total, least, most))
            hot = max(lines.items(), key=lambda kv: kv[1]) if lines else ("none", 0)
            tap.check(hot[0] == where, "%s %s hottest line %s (expect %s)" % (region, name, hot[0],
                                                                           where),
                      "%d of %d samples" % (hot[1], count))
        covered = sum(counts[n][1] for n in set(names) if n in counts)
        pct = 100.0 * covered / total if total else 0.0
        others = sorted(((c, n) for n, (_, c, _) in counts.items() if n not in names), reverse=True)
        tap.check(pct >= MIN_COVERED,
                  "%s: at least %.0f %% of the attributed samples on the expected variables"
                  % (region, MIN_COVERED),
                  "%.1f %%; others: %s" % (pct, ", ".join("%s %d" % (n, c) for c, n in others[:4])
                                           or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
