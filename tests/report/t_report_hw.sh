#!/bin/sh
# memphis-report on a hardware run ($B/tests/tool_gen --hw: data sources, latencies, loads and
# stores, the hardware's remote flag on pages whose home node the run records): the "Data
# sources" tables and the JSON "hardware" members equal the generator's per-sample truth
# (counts exactly, latency mean exactly, p90 within the histogram's 6.25 %), text and JSON
# agree, all-zero source columns are left out, and a soft run shows none of it.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to parse the JSON" >&2
	exit 77
fi

"$GEN" hw -n 30000 --allocs 2000 --hw hw.tsv >/dev/null
"$R" hw --top 0 > hw.txt; rc1=$?
"$R" hw --top 0 --json > hw.json; rc2=$?
"$R" hw --top 0 --by line > line.txt; rc3=$?
"$R" hw --top 0 --by line --json > line.json; rc4=$?
"$R" hw --top 2 > top2.txt; rc5=$?
"$R" hw --top 2 --json > top2.json
check_if "hardware run: report exits 0 ($rc1 $rc2 $rc3 $rc4 $rc5)" \
	'[ "$rc1$rc2$rc3$rc4$rc5" = 00000 ]'
check "the truth file has samples" test -s hw.tsv

cat > truth.py <<'PY'
# truth.py JSON TSV BY: the JSON's hardware members equal the truth of tool_gen --hw.
# BY: variable (tables by variable) or line (--by line).
import json, math, sys
r = json.load(open(sys.argv[1])); by = sys.argv[3]
SRC = ["l1", "lfb", "l1_miss", "l2", "l3", "near_cache", "l3_miss", "local_dram", "remote_dram",
       "remote_cache", "pmem", "cxl", "io", "uncached", "na"]
def new(): return {"n": 0, "loads": 0, "stores": 0, "src": dict.fromkeys(SRC, 0),
                   "ssrc": dict.fromkeys(SRC, 0), "hitm": 0, "lat": [], "page": 0, "hw": 0, "dis": 0}
agg = {}
def add(key, f):
    t = agg.setdefault(key, new())
    node, var, line, src, store, hitm, lat, page, hw = f
    t["n"] += 1; t["stores" if store == "1" else "loads"] += 1
    t["src"][src] += 1; t["ssrc"][src] += store == "1"
    t["hitm"] += hitm == "1"
    if int(lat): t["lat"].append(int(lat))
    t["page"] += page == "1"; t["hw"] += hw == "1"; t["dis"] += page != hw
for ln in open(sys.argv[2]):
    f = ln.rstrip("\n").split("\t")
    node, var, line = int(f[0]), f[1], f[2]
    add(("node", node), f); add(("var", var), f); add(("varline", var, line), f)
    add(("nodevar", node, var if by == "variable" else line), f)
bad = []
def cmp(what, j, t):
    got = (j["samples"], j["loads"], j["stores"], j["sources"], j["store_sources"], j["hitm"],
           j["page_remote"], j["hw_remote"], j["hw_remote_disagree"], j["latency"]["samples"])
    want = (t["n"], t["loads"], t["stores"], t["src"], t["ssrc"], t["hitm"], t["page"], t["hw"],
            t["dis"], len(t["lat"]))
    if got != want:
        bad.append("%s: %s vs %s" % (what, got, want)); return
    if t["lat"]:
        mean = sum(t["lat"]) / len(t["lat"])
        p90 = sorted(t["lat"])[math.ceil(0.9 * len(t["lat"])) - 1]
        if abs(j["latency"]["mean"] - mean) > 1e-5 * mean: bad.append("%s: mean %s vs %s" % (what, j["latency"]["mean"], mean))
        if abs(j["latency"]["p90"] - p90) > 0.0625 * p90: bad.append("%s: p90 %s vs %s" % (what, j["latency"]["p90"], p90))
    cmp.n += 1
cmp.n = 0
for n in r["hardware"]["nodes"]:
    cmp("node %s" % n["node"], n, agg.pop(("node", n["node"]), new()))
for k in [k for k in agg if k[0] == "node"]: bad.append("node missing: %s" % (k,))
for tb in r["tables"]:
    for e in tb["entries"]:
        cmp("node %s %s" % (tb["node"], e["name"]), e["hardware"], agg.get(("nodevar", tb["node"], e["name"]), new()))
for v in r["variables"]:
    h = v["hardware"]
    cmp(v["name"], h, agg.get(("var", v["name"]), new()))
    if [l["samples"] for l in h["lines"]] != sorted((l["samples"] for l in h["lines"]), reverse=True):
        bad.append("%s: lines not by samples" % v["name"])
    for l in h["lines"]:
        cmp("%s %s" % (v["name"], l["name"]), l, agg.get(("varline", v["name"], l["name"]), new()))
    if len(h["lines"]) != len([k for k in agg if k[0] == "varline" and k[1] == v["name"]]):
        bad.append("%s: line count" % v["name"])
if len(r["variables"]) != len([k for k in agg if k[0] == "var"]): bad.append("variable count")
if bad: print("\n".join(bad[:10])); sys.exit(1)
print("%d stats compared" % cmp.n)
PY
check "JSON by variable: nodes, table entries, variables and lines equal the truth" \
	python3 truth.py hw.json hw.tsv variable
python3 truth.py hw.json hw.tsv variable | head -5 | sed 's/^/# /'
check "JSON --by line: table entries (node x line) equal the truth" \
	python3 truth.py line.json hw.tsv line

cat > text.py <<'PY'
# text.py TEXT JSON: every "Data sources" table of the text equals the JSON, columns of
# sources with no sample on the node are left out, and the names follow the node's table.
import json, re, sys
text = open(sys.argv[1]).read().splitlines(); r = json.load(open(sys.argv[2]))
KEYS = {"L1": "l1", "LFB": "lfb", "L1miss": "l1_miss", "L2": "l2", "L3": "l3", "near$": "near_cache",
        "L3miss": "l3_miss", "lDRAM": "local_dram",
        "rDRAM": "remote_dram", "rem$": "remote_cache", "PMEM": "pmem", "CXL": "cxl", "IO": "io",
        "UC": "uncached", "n/a": "na"}
nodes = {n["label"]: n for n in r["hardware"]["nodes"]}
tables = {t["label"]: t for t in r["tables"]}
def share(a, n): return "-" if not a or not n else "%.1f" % (100.0 * a / n)
def count(v): return "{:,}".format(v)
bad, seen, i = [], 0, 0
while i < len(text):
    m = re.match(r"^  Data sources on (.+?) \(% of", text[i])
    if not m: i += 1; continue
    label = m.group(1); node = nodes[label]; tab = tables.get(label)
    head = text[i + 1].split()
    src = [h for h in head if h in KEYS]
    want_src = [k for k in KEYS if node["sources"][KEYS[k]]]
    if src != want_src: bad.append("%s: columns %s vs %s" % (label, src, want_src))
    rows = []
    i += 2
    while i < len(text) and re.match(r"^  (all|\(\d+\)) ", text[i]):
        rows.append(text[i]); i += 1
    ents = [node] + (tab["entries"] if tab else [])
    if len(rows) != len(ents): bad.append("%s: %d rows vs %d" % (label, len(rows), len(ents))); continue
    for row, e in zip(rows, ents):
        h = e if e is node else e["hardware"]
        cells = row.split(None, len(head))
        name = cells[len(head)] if len(cells) > len(head) else ""
        want = [count(h["samples"]), count(h["loads"]), count(h["stores"])]
        want += [share(h["sources"][KEYS[k]], h["samples"]) for k in src]
        if "HITM" in head: want.append(share(h["hitm"], h["samples"]))
        if "lat" in head:
            l = h["latency"]
            want += ["%.0f" % l["mean"], "%.0f" % l["p90"]] if l["samples"] else ["-", "-"]
        want += [count(h["page_remote"]), count(h["hw_remote"]), count(h["hw_remote_disagree"])]
        if cells[1:len(head)] != want: bad.append("%s row %s: %s vs %s" % (label, cells[0], cells[1:len(head)], want))
        if e is not node and name != e["name"]: bad.append("%s: name %r vs %r" % (label, name, e["name"]))
        seen += 1
if not seen: bad.append("no Data sources table")
if bad: print("\n".join(bad[:10])); sys.exit(1)
print("%d rows compared" % seen)
PY
check "text Data sources tables equal the JSON (by variable)" python3 text.py hw.txt hw.json
python3 text.py hw.txt hw.json | head -5 | sed 's/^/# /'
check "text Data sources tables equal the JSON (--by line)" python3 text.py line.txt line.json

# by construction (tool_gen.c hw_local / hw_remote): colidx lives on node 0, so from node 1
# every access is page-remote, and it disagrees with the hardware exactly for the L1 hits,
# the stores (L1) and the uncached loads; from node 0 nothing disagrees: the other-CCX
# hits (near$) carry remote with hops 0, a core of the same node, not hardware-remote
# (review W4); every store is an L1 hit or an L1 miss of unknown source (a precise store's
# L1|MISS, review W3), and Intel's data source 0 is a miss of L3 (W2).
check "by construction: colidx disagreements on both nodes, stores in L1 or L1miss, loads in L3miss" python3 -c '
import json, sys
r = json.load(open("hw.json"))
e = {t["node"]: {x["name"]: x["hardware"] for x in t["entries"]} for t in r["tables"]}
n1 = e[1]["colidx"]
ok = n1["page_remote"] == n1["samples"] and n1["hw_remote_disagree"] == n1["sources"]["l1"] + n1["sources"]["uncached"]
ok = ok and n1["sources"]["local_dram"] == 0 and n1["sources"]["near_cache"] == 0 and n1["hitm"] == n1["sources"]["remote_cache"] > 0
v = [v for v in r["variables"] if v["name"] == "colidx"][0]["hardware"]
ok = ok and v["hw_remote_disagree"] == n1["hw_remote_disagree"] and v["sources"]["near_cache"] > 0
ok = ok and v["store_sources"]["l1"] + v["store_sources"]["l1_miss"] == v["stores"] > 0
ok = ok and v["store_sources"]["l1_miss"] == v["sources"]["l1_miss"] > 0 and v["sources"]["l3_miss"] > 0
ok = ok and v["store_sources"]["l3_miss"] == 0 and v["loads"] + v["stores"] == v["samples"]
sys.exit(not ok)'
check "columns left out: no PMEM or CXL column (none generated)" sh -c \
	'! grep -E "^ +samples .*(PMEM|CXL)" hw.txt && grep -qE "^ +samples +loads +stores +L1 " hw.txt'
check "the legend once: another core of the node (AMD's other CCX) is near, not remote" sh -c \
	'[ "$(grep -c "^Data sources: where the hardware says" hw.txt)" = 1 ] && grep -q "AMD.s other CCX, is near\\$" hw.txt'
check "--top 2: two ranked rows under each node's table plus all" python3 text.py top2.txt top2.json
check "latency: header says the weighting points at the tables" has hw.txt "sources and latencies under Data sources"

# the ibs run's RUN keys and coverage NOTEs (tool_gen: 80 % of the enabled time sampled
# over the run, 7 of 9 s in the regions named solve; review M14, M3/W6)
check "hw_notes printed under the backend line (l3missonly's skew)" \
	sh -c 'grep -q "^hardware events: l3missonly: .*period skew" hw.txt'
check "coverage: IBS shared with another user, 80.0 % of the time sampled" \
	has hw.txt "sampled time: IBS shared with another user (perf, numatop, another memphis): 80.0 % of the time sampled"
"$R" hw --region solve > solve.txt
"$R" hw --region other > other.txt
check "coverage of the selected regions only: solve 77.8 %, other 100.0 %" sh -c \
	'grep -q ": 77.8 % of the time sampled" solve.txt && grep -q "^sampled time: ibs_op 100.0 % of the time it was enabled$" other.txt'
check "JSON run: hw_notes and hw_coverage (ibs_op, 10 s enabled, 8 s running, share 0.8)" python3 -c '
import json, sys
r = json.load(open("hw.json"))["run"]
c = r["hw_coverage"]
sys.exit(not (r["hw_notes"].startswith("l3missonly:") and len(c) == 1 and c[0]["event"] == "ibs_op" and
              c[0]["enabled_ns"] == 10**10 and c[0]["running_ns"] == 8 * 10**9 and abs(c[0]["share"] - 0.8) < 1e-9))'

# soft run: none of it
"$GEN" soft -n 20000 --allocs 2000 >/dev/null
"$R" soft > soft.txt
"$R" soft --json > soft.json
check "soft run: no Data sources section, no hardware events or sampled time line" sh -c \
	'! grep -qE "Data sources|^hardware events:|^sampled time:" soft.txt'
check "soft run: no hardware member in the JSON" python3 -c '
import json, sys
s = open("soft.json").read(); json.loads(s); sys.exit("\"hardware\"" in s)'
done_testing
