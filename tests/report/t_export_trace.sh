#!/bin/sh
# memphis-report report --format trace -o FILE (docs/export.md): the Chrome trace event JSON.
# On synthetic runs of tests/programs/tool_gen (4 threads, regions solve, solve, other; two
# nodes, and with --moved half of p's pages moving to node 1 in region 3) and on a run of
# examples/cg, read with python3's json module:
#   every event has the members its phase needs (ph, name, pid, tid, ts; dur for X, s for
#   i), the slices of each thread nest, the remote-share counters lie in [0, 100], every
#   shown variable has both counter tracks, otherData's samples (summed over the threads'
#   and regions' counts) are the JSON report's (with --region too), the pages that moved
#   are one event;
#   a golden file (tests/data/trace-golden.json) of a small tool_gen run, its
#   machine-dependent strings (the executable, tool_gen.c's line numbers, the version)
#   replaced by placeholders;
#   speedscope (its release build from npm, make check-deps) in headless chromium imports
#   the file and its Sandwich view lists the regions as frames (tests/trace_browser.js):
#   these checks are skipped, with the reason, without node, chromium or speedscope;
#   an output path that cannot be written: exit 2, its name in the message, nothing left.
# MEMPHIS_TRACE_SHOT=FILE keeps speedscope's screenshot of the cg trace (docs/export-trace.png).
# MEMPHIS_TRACE_GOLDEN_UPDATE=1 rewrites the golden file instead of comparing.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
have_python || { echo "t_export_trace: python3 is needed to read the trace" >&2; exit 77; }

# structure TRACE REPORT.json: the checks on one trace, as TAP lines prefixed with TRACE
structure() {
	python3 - "$1" "$2" > structure.out 2>&1 <<'PY'
import json, sys
trace_path, report_path = sys.argv[1], sys.argv[2]
d = json.load(open(trace_path, encoding="utf-8"))
rep = json.load(open(report_path, encoding="utf-8"))
ev = d.get("traceEvents")

def ok(cond, what):
    print(("ok " if cond else "not ok ") + what)

ok(isinstance(ev, list) and d.get("displayTimeUnit") == "ms" and
   all(isinstance(d.get("otherData", {}).get(k), str)
       for k in ("memphis_version", "run_directory", "executable", "backend")),
   "the JSON Object Format: traceEvents, displayTimeUnit ms, otherData with version, "
   "run directory, executable, backend")
num = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
bad = []
for k, e in enumerate(ev):
    ph = e.get("ph")
    need = ["name", "ph", "pid", "tid", "ts"]
    need += {"X": ["dur"], "i": ["s"], "C": ["args"], "M": ["args"]}.get(ph, [])
    if ph not in ("M", "X", "C", "i") or any(m not in e for m in need) or \
       not all(num(e[m]) for m in ("pid", "tid", "ts")) or not isinstance(e["name"], str) or \
       (ph == "X" and not (num(e["dur"]) and e["dur"] >= 0)) or \
       (ph == "i" and e["s"] not in ("t", "p")) or \
       (ph == "C" and not all(num(v) for v in e["args"].values())):
        bad.append(k)
count = {p: sum(e.get("ph") == p for e in ev) for p in "MXCi"}
ok(not bad, "%d events (%s), each with the members its phase needs%s" %
   (len(ev), ", ".join("%s %d" % kv for kv in count.items()), "; not: %s" % bad[:5] if bad else ""))

# slices on one thread nest: each starts after the one before it ends, or ends inside it
bad = []
for tid in sorted({e["tid"] for e in ev if e["ph"] == "X"}):
    stack = []
    for e in sorted((e for e in ev if e["ph"] == "X" and e["tid"] == tid),
                    key=lambda e: (e["ts"], -e["dur"])):
        while stack and e["ts"] >= stack[-1]:
            stack.pop()
        if stack and e["ts"] + e["dur"] > stack[-1]:
            bad.append((tid, e["name"], e["ts"]))
        stack.append(e["ts"] + e["dur"])
ok(count["X"] > 0 and not bad, "the slices of each thread nest%s" % ("; overlap: %s" % bad[:3] if bad else ""))

names = {(e["name"], e["tid"]) for e in ev if e["ph"] == "M"}
tids = {e["tid"] for e in ev if e["ph"] in "Xi" and e.get("s", "t") == "t"}
ok(any(n == "process_name" for n, _ in names) and all(("thread_name", t) in names for t in tids),
   "a process name, and a thread name for each of the %d threads with events" % len(tids))

shares = [e["args"]["remote %"] for e in ev if e["ph"] == "C" and e["name"].startswith("remote % ")]
ok(shares and all(0 <= v <= 100 for v in shares),
   "%d remote-share points, each in [0, 100]" % len(shares))
shown = [v["name"] for v in rep.get("variables", []) if v.get("shown")]
tracks = {e["name"] for e in ev if e["ph"] == "C"}
missing = [n for n in shown if "remote % " + n not in tracks or "samples " + n not in tracks]
ok(shown and not missing, "each of the %d shown variables has its two counter tracks%s" %
   (len(shown), "; missing: %s" % missing[:3] if missing else ""))

got = d["otherData"].get("samples", {})
want = {k: rep["samples"][k] for k in ("attributed", "remote", "local")}
ok(got == want and d["otherData"].get("samples_in_no_slice") == "0",
   "otherData.samples, summed over threads and regions, are the JSON report's (%s, %s)" % (got, want))
bad = [e for e in ev if e["ph"] == "X" and "args" in e]
ok(not bad, "no slice has args (speedscope would name each occurrence a frame of its own)")
PY
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$1: ${line#ok }" ;;
		"not ok "*) not_ok "$1: ${line#not ok }" ;;
		*) echo "# $line" ;;
		esac
	done < structure.out
	grep -q '^ok ' structure.out || not_ok "$1: the structure checks ran"
}

# trace OUT RUNDIR [OPTIONS]: the trace and the JSON report of RUNDIR; its exit status
trace() {
	out=$1; dir=$2; shift 2
	"$R" report --format trace -o "$out" "$@" "$dir" 2> "$out.err"
	trc=$?
	"$R" report --json "$@" "$dir" > "$out.report"
	return $trc
}

# 1. a synthetic run with pages that move
"$GEN" moved -n 20000 --moved > /dev/null 2>&1
trace moved.json moved; rc=$?
check_if "--format trace -o FILE: exit $rc, one line on stderr naming the file and its events" \
	'[ "$rc" = 0 ] && [ "$(wc -l < moved.json.err)" = 1 ] && grep -qE "^memphis-report: wrote moved.json \(Chrome trace: [0-9]+ events; open in https://ui.perfetto.dev or speedscope\)$" moved.json.err'
structure moved.json moved.json.report
check_if "moved: the 512 pages of p that moved to node 1 in region 3 are one process-scoped event" \
	'python3 -c "
import json, sys
ev = [e for e in json.load(open(\"moved.json\"))[\"traceEvents\"] if e[\"name\"].startswith(\"pages moved\")]
sys.exit(not (len(ev) == 1 and ev[0][\"s\"] == \"p\" and ev[0][\"args\"][\"pages\"] == 512 and
              ev[0][\"args\"][\"from_node\"] == 0 and ev[0][\"args\"][\"to_node\"] == 1 and
              ev[0][\"args\"][\"region\"] == 3 and \"site_p\" in ev[0][\"args\"][\"variable\"]))"'
check_if "moved: the first touches are one event per thread, variable, line and node (5, 3072 pages: colidx, a, p)" \
	'python3 -c "
import json, sys
ev = [e for e in json.load(open(\"moved.json\"))[\"traceEvents\"] if e[\"ph\"] == \"i\" and e[\"s\"] == \"t\"]
sys.exit(not (len(ev) == 5 and sum(e[\"args\"][\"pages\"] for e in ev) == 3072))"'
trace other.json moved --region other; rc=$?
check_if "--region other: its slices only (exit $rc)" \
	'[ "$rc" = 0 ] && python3 -c "
import json, sys
ev = json.load(open(\"other.json\"))[\"traceEvents\"]
sys.exit(not {e[\"name\"] for e in ev if e[\"ph\"] == \"X\"} == {\"other\"})"'
structure other.json other.json.report

"$GEN" one -n 20000 --one-node > /dev/null 2>&1
trace one.json one; rc=$?
check_if "one node: written (exit $rc), no page migration" \
	'[ "$rc" = 0 ] && ! grep -q "pages moved" one.json'

# 2. golden: a small run, the strings that depend on the machine as placeholders; one
# reading thread (-j 1), so that ids, hence the order of equal keys, are the same
"$GEN" golden -n 6000 --moved --truth golden.truth > /dev/null 2>&1
"$R" report --format trace -o golden.json -j 1 golden 2> /dev/null
python3 - golden.json golden.truth > golden.norm <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
truth = json.load(open(sys.argv[2]))
lines = {v: "@L%s" % k for k, v in truth["lines"].items()}
d["otherData"]["memphis_version"] = "@VERSION"
d["otherData"]["executable"] = "@EXE"
text = json.dumps(d, indent=1, sort_keys=True, ensure_ascii=False)
text = re.sub(r"tool_gen\.c:\d+", lambda m: "tool_gen.c:" + lines.get(m.group(0), "@SITE"), text)
print(text)
PY
if [ "${MEMPHIS_TRACE_GOLDEN_UPDATE:-0}" = 1 ]; then
	cp golden.norm "$S/tests/data/trace-golden.json"
	skip "the trace of a small synthetic run equals tests/data/trace-golden.json" "rewritten (MEMPHIS_TRACE_GOLDEN_UPDATE=1)"
else
	check "the trace of a small synthetic run equals tests/data/trace-golden.json" \
		cmp -s golden.norm "$S/tests/data/trace-golden.json"
	cmp -s golden.norm "$S/tests/data/trace-golden.json" ||
		diff -u "$S/tests/data/trace-golden.json" golden.norm | head -n 20 | sed 's/^/# /'
fi

# 3. a real run: examples/cg, two threads
OMP_NUM_THREADS=2 "$B/examples/cg/cg" > cg.out 2>&1
run=$(rundir cg)
if [ -z "$run" ]; then
	not_ok "examples/cg left a run directory"
else
	trace cg.json "$run"; rc=$?
	check_if "cg: the trace is written (exit $rc)" '[ "$rc" = 0 ] && [ -s cg.json ]'
	structure cg.json cg.json.report
	check_if "cg: its region cg on both threads" \
		'python3 -c "
import json, sys
ev = json.load(open(\"cg.json\"))[\"traceEvents\"]
sys.exit(not len({e[\"tid\"] for e in ev if e[\"ph\"] == \"X\" and e[\"name\"] == \"cg\"}) == 2)"'
fi

# 4. speedscope reads them (skipped without node, chromium or speedscope)
CHROMIUM=${MEMPHIS_CHROMIUM:-/usr/bin/chromium}
PUPPETEER=$(sed -n 's/^PUPPETEER := //p' "$S/Makefile")
SPEEDSCOPE=$(sed -n 's/^SPEEDSCOPE := //p' "$S/Makefile")
why=
if ! command -v node > /dev/null; then
	why="node is missing (make check-deps)"
elif [ ! -x "$CHROMIUM" ]; then
	why="$CHROMIUM is missing (make check-deps)"
else
	for pkg in "$PUPPETEER:puppeteer-core/package.json" "$SPEEDSCOPE:speedscope/dist/release/index.html"; do
		[ -f "$B/npm/node_modules/${pkg#*:}" ] && continue
		mkdir -p "$B/npm" && npm install --silent --no-audit --no-fund --prefix "$B/npm" "${pkg%%:*}" > npm.log 2>&1 ||
			{ why="npm install ${pkg%%:*} failed (make check-deps): $(tail -n 1 npm.log)"; break; }
	done
fi
# browser TRACE SHOT FRAME...: trace_browser.js's lines as TAP lines, prefixed with TRACE
browser() {
	if [ -n "$why" ]; then
		skip "$1: speedscope opens it" "$why"
		return
	fi
	NODE_PATH="$B/npm/node_modules" MEMPHIS_CHROMIUM="$CHROMIUM" \
		node "$S/tests/trace_browser.js" "$@" > browser.out 2>&1
	tap_lines "$1" browser.out $?
}
browser moved.json moved.png solve other
# the pprof file of the same run too (--format pprof, t_export_pprof.sh): its stacks, a
# variable over the line that placed it over the function that read it
"$R" report --format pprof -o moved.pb.gz moved 2> /dev/null
browser moved.pb.gz moved-pprof.png colidx "first touch at tool_gen.c:102" kernel_colidx
if [ -s cg.json ]; then
	browser cg.json cg.png cg
	[ -n "$MEMPHIS_TRACE_SHOT" ] && [ -s cg.png ] && cp cg.png "$MEMPHIS_TRACE_SHOT"
fi

# 5. an output that cannot be written: exit 2, the message names it, nothing is left
"$R" report --format trace -o /nonexistent/dir/x.json moved 2> err.txt; rc=$?
check_if "-o /nonexistent/dir/x.json: exit 2 (got $rc), the message names the path" \
	'[ "$rc" = 2 ] && grep -q "^memphis-report: cannot write /nonexistent/dir/x.json: No such file or directory$" err.txt'
mkdir -p out/taken.json && : > out/taken.json/x
"$R" report --format trace -o out/taken.json moved 2> err.txt; rc=$?
check_if "-o a directory: exit 2 (got $rc), the message names it, no temporary file left" \
	'[ "$rc" = 2 ] && grep -q "out/taken.json" err.txt && [ "$(ls out)" = taken.json ] && [ "$(ls out/taken.json)" = x ]'
"$R" report --format trace moved > /dev/null 2> err.txt; rc=$?
check_if "--format trace without -o: usage error (exit $rc)" '[ "$rc" = 1 ] && grep -q "needs -o FILE" err.txt'
"$R" report --format trace -o - moved > stdout.json 2> err.txt; rc=$?
check_if "-o -: the trace on standard output (exit $rc)" \
	'[ "$rc" = 0 ] && python3 -c "import json; json.load(open(\"stdout.json\"))" && grep -q "wrote standard output" err.txt'

# a node without CPUs (tool_nodes --memory-only): otherData.samples.far is the report's
# far-tier count, remote without it, and each shown variable has a far-tier % track
"$B/tests/tool_nodes" moved far 3 --memory-only
"$R" report --json --top 0 far > far.json
"$R" report --format trace -o far.trace.json far 2> /dev/null
check "a node without CPUs: otherData.samples has the far tier, each shown variable its track" python3 - <<'PY'
import json
rep = json.load(open("far.json"))
d = json.load(open("far.trace.json"))
got = d["otherData"]["samples"]
assert got == {k: rep["samples"][k] for k in ("attributed", "remote", "local", "far")}, got
assert got["far"] > 0
tracks = {e["name"] for e in d["traceEvents"] if e["ph"] == "C"}
shown = [v["name"] for v in rep["variables"] if v["shown"]]
assert shown and all("far-tier % " + n in tracks for n in shown), sorted(tracks)[:5]
PY
done_testing
