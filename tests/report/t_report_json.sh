#!/bin/sh
# memphis-report --json: parses, agrees with the text output number for number, and with
# the ground truth the generator wrote (remote/local counts per variable, lines, first
# touch, regions, approximate addresses, one-node runs).
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to parse the JSON" >&2
	exit 77
fi

"$GEN" run -n 60000 --allocs 5000 --truth truth.json >/dev/null
"$R" run --top 0 > text.txt; rc1=$?
"$R" run --top 0 --json > rep.json; rc2=$?
check_if "report and report --json exit 0 ($rc1, $rc2)" '[ "$rc1" = 0 ] && [ "$rc2" = 0 ]'
check "JSON parses and has the schema version" python3 -c '
import json,sys; r=json.load(open("rep.json")); sys.exit(r["schema"] != "memphis-report/1")'

cat > cmp.py <<'PY'
# cmp.py TEXT JSON: the tables and header numbers of the text output equal the JSON's.
import json, re, sys
text = open(sys.argv[1]).read().splitlines()
r = json.load(open(sys.argv[2]))
def num(s): return int(s.replace(",", ""))
tables, cur, ent = [], None, None
for ln in text:
    m = re.match(r"^(Node\S+(?: \(local\))?): total (\d+)$", ln)
    if m:
        cur = {"label": m.group(1), "total": int(m.group(2)), "entries": []}; tables.append(cur); continue
    if cur is None: continue
    if ln.startswith("Pages and first touch"): cur = None; continue
    m = re.match(r"^\((\d+)\) (.*) (\d+)$", ln)
    if m:
        ent = {"rank": int(m.group(1)), "name": m.group(2), "count": int(m.group(3)), "items": []}
        cur["entries"].append(ent); continue
    m = re.match(r"^    (?!\.\.\.)(.*) (\d+)$", ln)
    if m and ent is not None:
        ent["items"].append({"name": m.group(1), "count": int(m.group(2))})
bad = []
jt = r["tables"]
if len(jt) != len(tables): bad.append("table count %d vs %d" % (len(tables), len(jt)))
for t, j in zip(tables, jt):
    if t["label"] != j["label"] or t["total"] != j["total"]: bad.append("table %s" % t["label"])
    if len(t["entries"]) != len(j["entries"]): bad.append("entries of %s" % t["label"])
    for e, je in zip(t["entries"], j["entries"]):
        if (e["rank"], e["name"], e["count"]) != (je["rank"], je["name"], je["count"]):
            bad.append("entry %s vs %s" % (e, je["name"]))
        if [(i["name"], i["count"]) for i in e["items"]] != [(i["name"], i["count"]) for i in je["items"]]:
            bad.append("items of %s" % e["name"])
head = "\n".join(text[:8])
s = r["samples"]
m = re.search(r"samples: ([\d,]+) total: ([\d,]+) exact, ([\d,]+) approximate.*?, ([\d,]+) no address, ([\d,]+) non-memory.*lost ([\d,]+), throttled ([\d,]+)", head)
if not m: bad.append("header samples line not found")
else:
    got = [num(x) for x in m.groups()]
    want = [s[k] for k in ("total", "exact", "approximate", "no_address", "non_memory", "lost", "throttled")]
    if got != want: bad.append("header %s vs %s" % (got, want))
m = re.search(r"attributed: ([\d,]+) samples with a data address: ([\d,]+) remote, ([\d,]+) local, ([\d,]+) with", head)
if not m or [num(x) for x in m.groups()] != [s["attributed"], s["remote"], s["local"], s["unknown_page_node"]]:
    bad.append("attributed line")
m = re.search(r"nodes: (\d+);", head)
if not m or int(m.group(1)) != r["nodes"]: bad.append("nodes")
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
check "text and JSON agree (tables, header)" python3 cmp.py text.txt rep.json
python3 cmp.py text.txt rep.json | head -5 | sed 's/^/# /'

cat > truth.py <<'PY'
# truth.py JSON TRUTH MODE: per-variable counts equal the generator's ground truth.
import json, sys
r = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2])); mode = sys.argv[3]
vs = {v["name"]: v for v in r["variables"]}
bad = []
for name, tv in t["vars"].items():
    v = vs.get(name)
    if mode == "approx":
        want = tv["samples"] + tv["approx"]
        if (v["samples"] if v else 0) != want: bad.append("%s: %s vs %d" % (name, v and v["samples"], want))
        continue
    if tv["samples"] == 0: continue
    if v is None: bad.append("missing " + name); continue
    for k in ("samples", "remote", "local"):
        if v[k] != tv[k]: bad.append("%s %s: %d vs %d" % (name, k, v[k], tv[k]))
    # matrix rows are CPU nodes: remote per CPU node = off-diagonal of the row
    m = v["matrix"]["counts"]
    for node in (0, 1):
        off = sum(m[node][p] for p in range(len(m) - 1) if p != node)
        if off != tv["remote_by_node"][node]: bad.append("%s remote on node %d: %d vs %d" % (name, node, off, tv["remote_by_node"][node]))
if mode == "all":
    for k in ("total", "exact", "approximate", "no_address", "non_memory"):
        if r["samples"][k] != t["samples"][k]: bad.append("samples %s" % k)
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
"$R" run --all --top 0 --json > all.json
check "--all: every variable's samples/remote/local and matrix match the ground truth" python3 truth.py all.json truth.json all
python3 truth.py all.json truth.json all | head -5 | sed 's/^/# /'
"$R" run --all --top 0 --approx --json > approx.json
check "--approx: approximate addresses are added to their variable" python3 truth.py approx.json truth.json approx

# SAMPLES blocks larger than the reader's buffer (1 MiB) are read another way: the same
# samples in blocks of 20,000 (1.3 MB) give the same report.
"$GEN" small -n 200000 --allocs 5000 >/dev/null
"$GEN" big -n 200000 --allocs 5000 --block 20000 >/dev/null
"$R" small --all --top 0 --json > small.json
"$R" big --all --top 0 --json > big.json
check "blocks of 1.3 MB: the same report as blocks of 4,096 samples" python3 -c '
import json, sys
a = json.load(open("small.json")); b = json.load(open("big.json"))
a.pop("rundir"); b.pop("rundir")
sys.exit(a != b or a["samples"]["total"] != 200000)'

# Pages that moved: half of p's pages are on another node in region 3 than before. The
# report caches a page's home across regions; a moved page's must be taken per region.
"$GEN" moved -n 60000 --allocs 5000 --moved --truth moved.truth >/dev/null
for j in 1 2; do
	"$R" moved -j $j --all --top 0 --json > moved$j.json
	check "moved pages, -j $j: samples/remote/local and matrices match the ground truth" \
		python3 truth.py moved$j.json moved.truth all
	python3 truth.py moved$j.json moved.truth all | head -5 | sed 's/^/# /'
done
check "moved pages: p's matrix differs from the run without the move" python3 -c '
import json, sys
a = [v for v in json.load(open("all.json"))["variables"] if "site_p" in v["name"]]
b = [v for v in json.load(open("moved1.json"))["variables"] if "site_p" in v["name"]]
sys.exit(not (a and b and a[0]["matrix"] != b[0]["matrix"]))'

check "remote tables: per-node totals and lines match the truth" python3 -c '
import json, sys
r = json.load(open("rep.json")); t = json.load(open("truth.json"))
tot = {0: 0, 1: 0}
for v in t["vars"].values():
    for n in (0, 1): tot[n] += v["remote_by_node"][n]
got = {tb["node"]: tb["total"] for tb in r["tables"]}
ok = got == tot
for tb in r["tables"]:
    for e in tb["entries"]:
        want = t["vars"][e["name"]]
        lines = {i["name"]: i["count"] for i in e["items"]}
        n = tb["node"]
        ok = ok and e["count"] == want["remote_by_node"][n]
        ok = ok and sum(lines.values()) == e["count"]
        ok = ok and all(k in want["line_remote"] for k in lines)
sys.exit(0 if ok else 1)'

check "the hot spot: colidx is remote only from node 1, all from one line pair" python3 -c '
import json, sys
r = json.load(open("rep.json"))
n1 = [tb for tb in r["tables"] if tb["node"] == 1][0]
n0 = [tb for tb in r["tables"] if tb["node"] == 0][0]
sys.exit(not (n1["entries"][0]["name"] == "colidx" and all(e["name"] != "colidx" for e in n0["entries"])))'

L=$(python3 -c 'import json; print(json.load(open("truth.json"))["lines"]["9"])')
check "first touch of colidx: all pages on node 0, thread 0, its init line ($L)" \
	has text.txt "colidx: 100 % of 1,024 pages on node 0, first touched by thread 0 (node 0) at $L"
check "first touch in JSON: colidx thread 0 node 0 pages 1024" python3 -c '
import json, sys
v = [v for v in json.load(open("rep.json"))["variables"] if v["name"] == "colidx"][0]["first_touch"]
sys.exit(not (v["pages"] == 1024 and v["thread_index"] == 0 and v["thread_node"] == 0 and v["by_node"][0] == 1024))'
check "first touch of a: mixed threads shown with their share" grep -q "^a: 50 % of 1,024 pages on node [01], 50 % on node [01], first touched by thread [02] (node [01]) for 50 %" text.txt

"$GEN" tlsrun -n 60000 --allocs 5000 --tls-block >/dev/null
"$R" tlsrun --all --top 0 --json > tls.json
check "TLS block of the run: same attribution as from the executable's PT_TLS" python3 -c '
import json, sys
a = {v["name"]: v["samples"] for v in json.load(open("all.json"))["variables"]}
b = {v["name"]: v["samples"] for v in json.load(open("tls.json"))["variables"]}
sys.exit(not (a == b and a.get("tls_buf", 0) > 0))'

# the same block recorded as libmemphis's own TLS, under a file name only RUN lib_name gives
"$GEN" selfrun -n 60000 --allocs 5000 --self-tls >/dev/null
"$R" selfrun --all --top 0 --json > self.json
"$R" selfrun --all --top 0 > self.txt
check "libmemphis's TLS block (named by RUN lib_name): its samples set aside, nothing else moves" python3 -c '
import json, sys
a = json.load(open("all.json")); b = json.load(open("self.json"))
va = {v["name"]: v["samples"] for v in a["variables"]}
vb = {v["name"]: v["samples"] for v in b["variables"]}
n = va.get("tls_buf", 0)
sys.exit(not (n > 0 and "tls_buf" not in vb and vb == {k: v for k, v in va.items() if k != "tls_buf"}
              and b["samples"].get("in_libmemphis") == n
              and b["samples"]["attributed"] + n == a["samples"]["attributed"]))'
n=$(python3 -c '
import json
print(format(json.load(open("self.json"))["samples"].get("in_libmemphis", 0), ","))')
check "... and the text header says how many ($n)" grep -q "^set aside: $n samples in libmemphis itself" self.txt
check "no header line and no in_libmemphis when nothing is set aside" sh -c \
	"! grep -q '^set aside' text.txt && ! grep -q in_libmemphis all.json"

"$R" run --json --region other --all > other.json
check "--region other: only that region's samples" python3 -c '
import json, sys
r = json.load(open("other.json")); t = json.load(open("truth.json"))
sys.exit(r["samples"]["total"] != t["regions"]["other"])'
"$R" run --json --region solve --region other --all > both.json
check "--region repeated: regions accumulate to the whole run" python3 -c '
import json, sys
r = json.load(open("both.json")); t = json.load(open("truth.json"))
sys.exit(r["samples"]["total"] != t["samples"]["total"])'

check "losses: a region's LOSS records summed where they say more than its REGION, a region without REGION counted" python3 -c '
import json, sys
r = json.load(open("rep.json")); t = json.load(open("truth.json"))
sys.exit((r["samples"]["lost"], r["samples"]["throttled"]) != (t["samples"]["lost"], t["samples"]["throttled"]))'
check "header: each region name once, in first-region order, with its count" \
	grep -q "regions: $(python3 -c 'import json; print(json.load(open("truth.json"))["region_list"])')$" text.txt

"$R" run --json --local --top 0 > local.json
check "--local: tables hold exactly the local samples" python3 -c '
import json, sys
r = json.load(open("local.json"))
sys.exit(sum(t["total"] for t in r["tables"]) != r["samples"]["local"] or r["table_mode"] != "local")'

"$R" run --by line --top 0 > byline.txt
"$R" run --by line --top 0 --json > byline.json
check "--by line: text and JSON agree" python3 cmp.py byline.txt byline.json
check "--by line: lines first, variables under them" python3 -c '
import json, sys
r = json.load(open("byline.json"))
e = r["tables"][0]["entries"][0]
sys.exit(not (e["name"].startswith("tool_gen.c:") and r["options"]["by"] == "line" and "kind" not in e))'

"$R" run --top 1 --json > top1.json
check "--top 1: one entry per node, the rest counted under more" python3 -c '
import json, sys
r = json.load(open("top1.json")); a = json.load(open("rep.json"))
ok = all(len(t["entries"]) <= 1 for t in r["tables"])
ok = ok and all(t["entries"][0]["count"] + t["more"]["count"] == t["total"] for t in r["tables"])
ok = ok and [t["total"] for t in r["tables"]] == [t["total"] for t in a["tables"]]
sys.exit(not ok)'

"$R" run --matrix > matrix.txt
check "--matrix prints the node x node matrix" has matrix.txt "Node x node matrix"

"$GEN" one -n 20000 --one-node >/dev/null
"$R" one > one.txt
"$R" one --json > one.json
check "one node: says there are no remote samples" has one.txt "No remote samples"
check "one node: the table is labelled Node0 (local)" has one.txt "Node0 (local): total"
check "one node: JSON says no_remote and agrees with the text" sh -c \
	'python3 -c "import json,sys; sys.exit(not json.load(open(\"one.json\"))[\"no_remote\"])" && python3 cmp.py one.txt one.json'

mkdir empty
"$R" empty --json > err.json; rc=$?
check "--json error: exit 2 (got $rc)" [ "$rc" = 2 ]
check "--json error: the error is a JSON object" python3 -c '
import json, sys
e = json.load(open("err.json"))["error"]
sys.exit(not ("meta.mph" in e["message"] and e["exit"] == 2))'

# a path with a quote, a backslash and a tab must come back intact through the JSON
weird="$PWD/we\"ird\\na	me"
"$GEN" weird -n 100 --exe "$weird" >/dev/null
"$R" weird --json > weird.json
check "JSON strings are escaped (quote, backslash, tab in a path)" python3 -c '
import json, sys
e = json.load(open("weird.json"))["error"]["message"]
sys.exit(not (sys.argv[1] in e))' "$weird"
done_testing
