#!/bin/sh
# memphis-report compare on synthetic runs ($B/tests/tool_gen --remote-pct): a known 5-point
# shift of the remote share on ~10,000 samples is found every time (10 seeds, both
# directions); 20 pairs of runs of the same distribution give at most 1 regression verdict
# in total (the count is printed); a saved report compares like its run directory; heap
# sites match across a line shift, a renamed variable is gone + new; bad input (truncated
# JSON, another schema version, other node counts, bad usage) gives one clear line and
# exit 2; an executable of another name (app.before, app.after) is compared with a
# warning; --strict refuses runs that differ; --junit is valid XML with the
# regressions as failures; --markdown has a table.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to read the JSON and XML" >&2
	exit 77
fi
N=12500 # about 10,700 samples with a known page and CPU node

# verdict FILE.json: "REGRESSIONS ALL-NODES-VERDICT EXIT" of a compare --json output.
verdict() {
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["summary"]
print(s["regressions"], r["nodes"][-1]["verdict"], s["exit"])' "$1"
}

# 1. a 5-point shift, 10 seeds, both ways
found=0 back=0
for s in 1 2 3 4 5 6 7 8 9 10; do
	"$GEN" a$s -n $N --remote-pct 50 --seed $s > /dev/null
	"$GEN" b$s -n $N --remote-pct 55 --seed $((s + 100)) > /dev/null
	"$R" compare a$s b$s --json > ab.json; rc=$?
	set -- $(verdict ab.json)
	[ "$rc" = 1 ] && [ "$2" = regressed ] && [ "$3" = 1 ] && found=$((found + 1))
	"$R" compare b$s a$s --json > ba.json; rc=$?
	set -- $(verdict ba.json)
	[ "$rc" = 0 ] && [ "$2" = improved ] && back=$((back + 1))
done
check_if "50 % -> 55 % remote: regressed with exit 1 in $found of 10 seeds" '[ $found = 10 ]'
check_if "55 % -> 50 % remote: improved with exit 0 in $back of 10 seeds" '[ $back = 10 ]'

# 2. false alarms: 20 pairs of the same distribution
total=0 pairs_failed=0
for s in $(seq 1 20); do
	"$GEN" x -n $N --remote-pct 50 --seed $((s + 1000)) > /dev/null
	"$GEN" y -n $N --remote-pct 50 --seed $((s + 2000)) > /dev/null
	"$R" compare x y --json > xy.json; rc=$?
	set -- $(verdict xy.json)
	total=$((total + $1))
	[ "$rc" = 0 ] || pairs_failed=$((pairs_failed + 1))
	rm -rf x y
done
echo "# false alarms: $total regression verdicts in 20 same-distribution pairs ($pairs_failed pairs exit 1)"
check_if "20 same-distribution pairs: $total regression verdicts in total (at most 1)" '[ $total -le 1 ]'

# 3. a saved report compares like its run directory
"$R" --json a1 > a1.json
"$R" compare a1 b1 --json > dd.json
"$R" compare a1.json b1 --json > jd.json; rc=$?
cat > same.py <<'PY'
import json, sys
x, y = (json.load(open(f)) for f in sys.argv[1:3])
for r in (x, y):
    del r["a"]["input"], r["a"]["kind"]
sys.exit(0 if x == y else 1)
PY
check "JSON vs run directory gives what run directory vs run directory gives (exit $rc)" \
	python3 same.py dd.json jd.json
"$R" compare a1 b1 > dd.txt
check "the text names both build ids" sh -c 'grep -c "build id [0-9a-f]\{8,\}" dd.txt | grep -qx 2'
check "the text ends with the verdict and exit status" \
	sh -c 'tail -n 1 dd.txt | grep -q "^verdict: regressed (.* at --max-regress 2 pts); exit 1$"'
"$R" --json --by line a1 > a1l.json
"$R" compare --by line a1l.json b1 --json > l.json; rc=$?
check_if "--by line: a saved --by line report against a run directory (exit $rc)" \
	'[ "$rc" = 1 ] && python3 -c "import json; r=json.load(open(\"l.json\")); assert r[\"options\"][\"by\"] == \"line\" and all(\":\" in v[\"name\"] for v in r[\"variables\"] if v[\"name\"] != \"??\")"'
rc=$(run_rc o e "$R" compare --by line a1.json b1)
check_if "a report saved without --by line refused for --by line (exit $rc, one line)" \
	'[ "$rc" = 2 ] && [ $(wc -l < e) = 1 ] && has e "saved without --by line"'
rc=$(run_rc o e "$R" compare --region solve a1.json b1)
check_if "a report saved for other regions refused (exit $rc)" '[ "$rc" = 2 ] && has e "--region"'
rc=$(run_rc o e "$R" compare --region solve a1 b1)
check_if "--region on run directories (exit $rc)" '[ "$rc" = 1 ] && [ ! -s e ]'

# 4. matching: a heap site 3 lines further down, a renamed global
# (moved.json as a newer report writes it, with "site" members; old.json as an older one
# did, without them: the sites are then read from the names)
python3 - a1.json moved.json old.json <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
for v in r["variables"]:
    if v["kind"] == "heap":
        v["name"] = re.sub(r":(\d+) in ", lambda m: ":%d in " % (int(m.group(1)) + 3), v["name"])
        v["site"]["line"] += 3
    if v["name"] == "colidx":
        v["name"] = "colidx_renamed"
json.dump(r, open(sys.argv[2], "w"))
for v in r["variables"]:
    v.pop("site", None)
json.dump(r, open(sys.argv[3], "w"))
PY
check "the report's heap variables have their site in parts" python3 -c '
import json
r = json.load(open("a1.json"))
s = [v["site"] for v in r["variables"] if v["kind"] == "heap"]
assert s and all(x["file"] == "tool_gen.c" and x["line"] > 0 and x["function"].startswith("site_") and x["callers"] == [] for x in s), s'
for m in moved old; do
"$R" compare a1.json $m.json --json > mv.json
check "$m.json: heap sites 3 lines down still match; the renamed global is gone + new" python3 -c '
import json
r = json.load(open("mv.json"))
heap = [v for v in r["variables"] if v["kind"] == "heap"]
nm = {v["name"]: v["verdict"] for v in r["variables"]}
assert heap and all(v["in_a"] and v["in_b"] and v["line_shift"] == 3 for v in heap), heap
assert nm["colidx"] == "gone" and nm["colidx_renamed"] == "new", nm
assert r["summary"]["new"] == 1 and r["summary"]["gone"] == 1'
done

# 5. bad input: one clear line, exit 2
head -c 3000 a1.json > cut.json
sed 's/"memphis-report\/1"/"memphis-report\/2"/' a1.json > v2.json
cp "$GEN" other_prog
./other_prog other -n 5000 --exe "$PWD/other_prog" > /dev/null
"$GEN" one -n 5000 --one-node > /dev/null
bad() {
	desc=$1; want=$2; shift 2
	rc=$(run_rc o e "$R" compare "$@")
	if [ "$rc" = 2 ] && [ "$(wc -l < e)" = 1 ] && [ ! -s o ] && has e "$want"; then
		ok "$desc: exit 2, one line: $(cat e)"
	else
		not_ok "$desc: exit 2 and one line with '$want' (exit $rc)"
		sed 's/^/# /' e | head -n 5
	fi
}
bad "truncated JSON" "truncated" cut.json b1
bad "another schema version" 'schema "memphis-report/2"' a1 v2.json
bad "different node counts" "different node counts" a1 one
bad "a missing input" "No such file" a1 nowhere
bad "one input only" "two inputs expected" a1
bad "a bad --max-regress" "--max-regress" --max-regress 2px a1 b1
rc=$(run_rc o e "$R" compare --json cut.json b1)
check_if "with --json the error is a memphis-compare/1 object (exit $rc)" \
	'[ "$rc" = 2 ] && python3 -c "import json; r=json.load(open(\"o\")); assert r[\"schema\"] == \"memphis-compare/1\" and r[\"error\"][\"exit\"] == 2"'

# 6. provenance: another sampling period warns; --strict refuses
python3 -c 'import json; r=json.load(open("a1.json")); r["run"]["period_ns"] = 2000000
json.dump(r, open("p2.json", "w"))'
rc=$(run_rc o e "$R" compare a1.json p2.json)
check_if "another period: a warning, compared (exit $rc)" \
	'[ "$rc" = 0 ] && has o "warning: sampling periods differ: 1000000 ns, 2000000 ns"'
bad "--strict and another period" "--strict" --strict a1.json p2.json
# the same program copied under another name, as two builds are kept side by side
rc=$(run_rc o e "$R" compare a1 other)
check_if "an executable of another name: a warning, compared (exit $rc)" \
	'[ "$rc" != 2 ] && has o "warning: executables differ: tool_gen, other_prog"'
bad "--strict and an executable of another name" "executables differ" --strict a1 other

# 7. outputs: JUnit XML, Markdown
rc=$(run_rc o e "$R" compare a1 b1 --junit cmp.xml)
check_if "--junit: exit $rc, file written" '[ "$rc" = 1 ] && [ -s cmp.xml ]'
check "--junit: valid XML, a testcase per node, failures = the regressions judged" python3 -c '
import json, subprocess, sys, xml.etree.ElementTree as ET
t = ET.parse("cmp.xml").getroot()
cases = t.findall(".//testcase")
fails = [c for c in cases if c.find("failure") is not None]
names = [c.get("name") for c in cases]
assert "node 0" in names and "node 1" in names and "all nodes" in names, names
assert int(t.get("failures")) == len(fails) > 0 and int(t.get("tests")) == len(cases)
r = json.load(open("dd.json"))
want = sum(n["verdict"] == "regressed" for n in r["nodes"]) + \
       sum(v["verdict"] == "regressed" and v["tracked"] for v in r["variables"])
assert len(fails) == want, (len(fails), want)'
"$R" compare a1 b1 --markdown > md.txt; rc=$?
check_if "--markdown: a table (exit $rc)" \
	'[ "$rc" = 1 ] && has md.txt "| node / variable | A | B |" && has md.txt "|---|" && has md.txt "| all nodes |"'
rc=$(run_rc o e "$R" compare a1 a1)
check_if "a run against itself: unchanged, exit 0" '[ "$rc" = 0 ] && has o "verdict: unchanged (0 regressions"'
check "compare --help names every option" sh -c "'$R' compare --help | grep -q -- --max-regress"
done_testing
