#!/bin/sh
# memphis-report --format pprof (docs/export.md), read by the real reader: go tool pprof
# (golang-go, make check-deps). Its totals equal the JSON report's per variable and per
# (CPU node, page node); the data view's stacks are variable -> first touch or allocation
# site -> access line, the code view's the access line with the variable a label; the file
# is the same for any number of pass threads; bad paths fail cleanly. Skips (77) without go.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
have_python || { echo "t_export_pprof: python3 is needed to compare" >&2; exit 77; }
command -v go > /dev/null || { echo "t_export_pprof: go is missing (make check-deps)" >&2; exit 77; }
export HOME="$PWD" GOCACHE="$PWD/.gocache" GOFLAGS=-mod=mod PPROF_TMPDIR="$PWD"

"$GEN" run -n 20000 --allocs 500 > /dev/null
"$R" report --json --top 0 run > rep.json; rc=$?
check_if "the JSON report of a 2-node run (exit $rc)" '[ "$rc" = 0 ]'

rc=$(run_rc out.txt err.txt "$R" report --format pprof -o p.pb.gz run)
check_if "--format pprof -o FILE: exit 0, the file named on stderr ($rc)" \
	'[ "$rc" = 0 ] && [ ! -s out.txt ] && grep -q "wrote p.pb.gz (pprof: " err.txt'
check "the file is gzip'd" sh -c '[ "$(od -An -tx1 -N2 p.pb.gz | tr -d " ")" = 1f8b ]'
rc=$(run_rc raw.txt raw.err go tool pprof -raw p.pb.gz)
check_if "go tool pprof -raw reads it (exit $rc: $(head -c 300 raw.err))" '[ "$rc" = 0 ] && [ -s raw.txt ]'
# the profile's start on the wall clock: the first sample's CLOCK_MONOTONIC time through
# RUN start_realtime (tool_gen's samples start 1 ms after the run); none without it
check "no start time without RUN start_realtime" sh -c '! grep -q "^Time:" raw.txt'
rt=$(date +%s)000000000
"$GEN" rt -n 2000 --allocs 50 --realtime "$rt" > /dev/null
"$R" report --format pprof -o rt.pb.gz rt 2> /dev/null
TZ=UTC go tool pprof -raw rt.pb.gz > rt.raw 2> /dev/null
want=$(python3 -c 'import datetime, sys
t = datetime.datetime.fromtimestamp(int(sys.argv[1]) // 10**9, datetime.timezone.utc)
print(t.strftime("%Y-%m-%d %H:%M:%S") + ".001 +0000 UTC")' "$rt")
check "the start is RUN start_realtime + 1 ms ($(grep "^Time:" rt.raw), $want expected)" \
	grep -qx "Time: $want" rt.raw

# rawsum.py RAW JSON VIEW: the -raw listing against the JSON report, "bad: ..." per
# difference; a summary line on success.
cat > rawsum.py <<'PY'
import json, re, sys
raw = open(sys.argv[1]).read().splitlines()
rep = json.load(open(sys.argv[2]))
view = sys.argv[3]
types, samples, locs, sec, cur = [], [], {}, None, None
for ln in raw:
    if ln in ("Samples:", "Locations", "Mappings"):
        sec = ln; continue
    if sec == "Samples:" and not types:
        types = [t.split("/")[0] for t in ln.split()]; continue
    if sec == "Samples:":
        m = re.match(r"^\s+([\d\s]+): ([\d ]+)\s*$", ln)
        if m:
            cur = {"v": [int(x) for x in m.group(1).split()], "stack": [int(x) for x in m.group(2).split()], "l": {}}
            samples.append(cur); continue
        for k, v in re.findall(r"(\w+):\[([^\]]*)\]", ln):
            cur["l"][k] = v.split(" ")[0] if k != "region" and k != "variable" else v
    if sec == "Locations":
        m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S*):(\d+) s=\d+(?:\(.*\))?$", ln)
        if m: locs[int(m.group(1))] = (m.group(2), m.group(3), int(m.group(4)))
bad = []
if types[:3] != ["samples", "remote", "local"]: bad.append("sample types %s" % types)
nn = len(rep["nodes"]) if isinstance(rep["nodes"], list) else rep["nodes"]
by_var, tot = {}, [0, 0, 0]
for s in samples:
    names = [locs[i][0] for i in s["stack"]]
    if view == "data":
        var = names[-1]
        if len(names) not in (2, 3): bad.append("stack of %d: %s" % (len(names), names))
        if len(names) == 3 and not re.match(r"^(first touch at|allocated at) ", names[1]): bad.append("origin %s" % names[1])
    else:
        var = s["l"].get("variable")
        if len(names) != 1: bad.append("code stack %s" % names)
    cn = int(s["l"].get("cpu_node", nn)); pn = int(s["l"].get("page_node", nn))
    m = by_var.setdefault(var, [[0] * (nn + 1) for _ in range(nn + 1)])
    m[cn][pn] += s["v"][0]
    known = cn < nn and pn < nn
    if s["v"][1] != (s["v"][0] if known and cn != pn else 0) or s["v"][2] != (s["v"][0] if known and cn == pn else 0):
        bad.append("values %s at nodes %d,%d" % (s["v"], cn, pn))
    if "region" not in s["l"] or "tid" not in s["l"]: bad.append("labels %s" % s["l"])
    for k in range(3): tot[k] += s["v"][k]
jv = {v["name"]: v["matrix"]["counts"] for v in rep["variables"]}
if by_var != jv:
    for k in sorted(set(by_var) | set(jv), key=str):
        if by_var.get(k) != jv.get(k): bad.append("variable %s: pprof %s, JSON %s" % (k, by_var.get(k), jv.get(k)))
js = rep["samples"]
if tot != [js["attributed"], js["remote"], js["local"]]: bad.append("totals %s vs %s" % (tot, js))
for b in bad[:10]: print("bad:", b)
if not bad: print("%d variables, %d samples, totals %s" % (len(by_var), len(samples), tot))
sys.exit(1 if bad else 0)
PY
python3 rawsum.py raw.txt rep.json data > sum.txt 2>&1; rc=$?
check_if "data view: per variable and node pair, and in all, the samples, remote and local equal the JSON report's ($(head -n 3 sum.txt | tr '\n' ' '))" '[ "$rc" = 0 ]'
go tool pprof -top -sample_index=remote -nodecount=1000 p.pb.gz > top.txt 2> /dev/null
want=$(python3 -c 'import json; print(json.load(open("rep.json"))["samples"]["remote"])')
check_if "go tool pprof -top -sample_index=remote: its total is the report's $want remote samples" \
	'grep -q "Total samples = $want *\$" top.txt'
v1=$(python3 -c 'import json; v=json.load(open("rep.json"))["variables"][0]; print(v["name"], v["remote"])')
check_if "-top shows the first variable's $v1 remote samples as its cumulative count" \
	'awk -v n="${v1% *}" -v c="${v1##* }" "{ f=\$0; sub(/^ *[0-9]+ +[0-9.]+% +[0-9.]+% +/, \"\", f); split(f, a, \" \"); if (a[1] == c && index(f, n)) ok = 1 } END { exit !ok }" top.txt'
go tool pprof -top -tagfocus=cpu_node=1 -sample_index=samples -nodefraction=0 -nodecount=100000 \
	p.pb.gz > top1.txt 2> /dev/null
want=$(python3 -c 'import json; r=json.load(open("rep.json")); print(sum(sum(v["matrix"]["counts"][1]) for v in r["variables"]))')
check_if "-tagfocus=cpu_node=1: the samples taken on node 1 ($want)" \
	'grep -q "accounting for $want, " top1.txt'

# a hardware run (tool_gen --hw: IBS-like samples with latencies): a fourth sample type,
# latency in cycles, whose sum per variable is the JSON's latency mean x samples (the mean
# is printed to 3 decimals: within 0.0005 cycles a sample)
"$GEN" hw -n 30000 --allocs 2000 --hw hw.tsv > /dev/null
"$R" report --json --top 0 hw > hw.json 2> /dev/null
"$R" report --format pprof -o hw.pb.gz hw 2> /dev/null
go tool pprof -raw hw.pb.gz > hwraw.txt 2> /dev/null
python3 - > hwlat.txt 2>&1 <<'PY'
import json, re, sys
raw = open("hwraw.txt").read().splitlines()
rep = json.load(open("hw.json"))
locs, samples, sec, types = {}, [], None, []
for ln in raw:
    if ln in ("Samples:", "Locations", "Mappings"): sec = ln; continue
    if sec == "Samples:" and not types: types = ln.split(); continue
    m = re.match(r"^\s+([\d\s]+): ([\d ]+)\s*$", ln)
    if sec == "Samples:" and m: samples.append(([int(x) for x in m.group(1).split()], m.group(2).split()))
    m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S*):(\d+) s=\d+(?:\(.*\))?$", ln)
    if sec == "Locations" and m: locs[m.group(1)] = m.group(2)
if [t.replace("[dflt]", "") for t in types] != ["samples/count", "remote/count", "local/count", "latency/cycles"]:
    print("types", types); sys.exit(1)
lat = {}
for v, st in samples: lat[locs[st[-1]]] = lat.get(locs[st[-1]], 0) + v[3]
bad = 0
for v in rep["variables"]:
    h = (v.get("hardware") or {}).get("latency")
    if h and abs(lat.get(v["name"], 0) - h["samples"] * h["mean"]) > 0.0005 * h["samples"] + 1:
        print("variable", v["name"], lat.get(v["name"]), h); bad += 1
print("%d variables checked" % len(lat))
sys.exit(bad > 0)
PY
hwrc=$?
check_if "a hardware run: sample type latency/cycles, its sum per variable the JSON's ($(tail -n 2 hwlat.txt | tr '\n' ' '))" \
	'[ "$hwrc" = 0 ]'
"$R" report --format pprof --pprof-view code -o c.pb.gz run 2> /dev/null; rc=$?
go tool pprof -raw c.pb.gz > craw.txt 2> /dev/null
python3 rawsum.py craw.txt rep.json code > csum.txt 2>&1; rc2=$?
check_if "code view: one frame per sample, the variable a label, the same totals ($rc, $(head -n 3 csum.txt | tr '\n' ' '))" \
	'[ "$rc" = 0 ] && [ "$rc2" = 0 ]'

"$R" report --format pprof --jobs 1 -o j1.pb.gz run 2> /dev/null
"$R" report --format pprof --jobs 3 -o j3.pb.gz run 2> /dev/null
check "the same file for 1 and 3 pass threads" cmp -s j1.pb.gz j3.pb.gz
"$R" report --format pprof -o - run 2> /dev/null | cat > stdout.pb.gz
check "-o - writes the same bytes to standard output" cmp -s j1.pb.gz stdout.pb.gz

rc=$(run_rc out.txt err.txt "$R" report --format pprof -o /nonexistent/dir/p.pb.gz run)
check_if "an unwritable -o: exit 2, the path named ($rc: $(head -c 200 err.txt))" \
	'[ "$rc" = 2 ] && grep -q "cannot write /nonexistent/dir/p.pb.gz" err.txt'
rc=$(run_rc out.txt err.txt "$R" report --format pprof run)
check_if "--format pprof without -o: usage error ($rc)" '[ "$rc" = 1 ] && grep -q "needs -o FILE" err.txt'
rc=$(run_rc out.txt err.txt "$R" report --pprof-view code run)
check_if "--pprof-view without --format pprof: usage error ($rc)" '[ "$rc" = 1 ]'
rc=$(run_rc out.txt err.txt "$R" report --format svg run)
check_if "--format svg: usage error naming the formats ($rc)" '[ "$rc" = 1 ] && grep -q "text, json, pprof or trace" err.txt'
mkdir ro && chmod 500 ro
if [ "$(id -u)" != 0 ]; then
	rc=$(run_rc out.txt err.txt "$R" report --format pprof -o ro/p.pb.gz run)
	check_if "a read-only directory: exit 2, nothing left in it ($rc)" '[ "$rc" = 2 ] && [ -z "$(ls ro)" ]'
fi
# a damaged run still gets its profile, with exit status 2 and the damage on stderr
"$GEN" bad -n 5000 --flip cpu001.mph:3 > /dev/null 2>&1
rc=$(run_rc out.txt err.txt "$R" report --format pprof -o bad.pb.gz bad)
check_if "a damaged run: its profile written, exit 2, the damage named ($rc)" \
	'[ "$rc" = 2 ] && [ -s bad.pb.gz ] && grep -q "cpu001.mph" err.txt'

# The golden listing: a small run's profile as go tool pprof lists it, the locations by
# name (their ids are the writer's order). tests/data/export_pprof.txt; MEMPHIS_BLESS=1
# writes it.
"$GEN" small -n 400 --allocs 40 --seed 7 > /dev/null
"$R" report --format pprof -o small.pb.gz small 2> /dev/null
go tool pprof -raw small.pb.gz 2> /dev/null | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
locs = {}
for ln in lines:
    m = re.match(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (.*) s=\d+", ln)
    if m: locs[m.group(1)] = m.group(2)
out, sec, cur = [], None, None
for ln in lines:
    if ln in ("Samples:", "Locations", "Mappings"): sec = ln; continue
    if sec != "Samples:": continue
    m = re.match(r"^\s+([\d\s]+): ([\d ]+)\s*$", ln)
    if m:
        cur = [" ".join(m.group(1).split()), " <- ".join(locs[i] for i in m.group(2).split())]; out.append(cur)
    elif cur and ln.strip() and ":" in ln and "[" in ln:
        cur.append(" ".join(ln.split()))
    elif not out:
        out.append([ln.strip()])
for o in sorted(out[1:], key=lambda o: (o[1:], o[0])): print(" | ".join(o))
' > small.txt
if [ -n "$MEMPHIS_BLESS" ]; then cp small.txt "$S/tests/data/export_pprof.txt"; fi
check "a small run's profile equals tests/data/export_pprof.txt" \
	diff -u "$S/tests/data/export_pprof.txt" small.txt

# a node without CPUs (tool_nodes --memory-only: node 2 holds every other page): a fourth
# sample type, far, whose total is the report's far-tier samples, remote without them
"$B/tests/tool_nodes" run far 3 --memory-only
"$R" report --json --top 0 far > far.json
"$R" report --format pprof -o far.pb.gz far 2> /dev/null
go tool pprof -top -sample_index=far -nodecount=1000 far.pb.gz > fartop.txt 2> /dev/null
go tool pprof -top -sample_index=remote -nodecount=1000 far.pb.gz > farrem.txt 2> /dev/null
nfar=$(python3 -c 'import json; print(json.load(open("far.json"))["samples"]["far"])')
nrem=$(python3 -c 'import json; print(json.load(open("far.json"))["samples"]["remote"])')
check_if "a node without CPUs: sample type far totals the report's $nfar far-tier samples, remote its $nrem" \
	'[ "$nfar" -gt 0 ] && grep -q "Total samples = $nfar *\$" fartop.txt && grep -q "Total samples = $nrem *\$" farrem.txt'
done_testing
