#!/bin/sh
# Variables that share a name (issue 38) are told apart, in the report and in compare:
# tests/programs/prog_collide.c and tests/programs/collide_b.c each have a `static double
# work[N]` of one size (named prog_collide.c:work and collide_b.c:work: a file static gets
# its unit's file), tests/programs/prog_collide_cxx.cc has S::arr and T::arr, ns1::v and
# ns2::v, H<1>::data and H<2>::data (C++ scopes from the DIE tree, template arguments
# included). Each program runs one region reading them at known ratios; then:
#   - the text tables and the JSON name each variable once, with its scope; the JSON's
#     scope and base_name give the name's parts;
#   - compare of a run with itself (run directory, saved JSON, default, --local, --all) is
#     unchanged everywhere: no variable new, gone, up or down, exit 0; also of the run
#     spread over two nodes ($B/tests/tool_nodes: CPU 0's samples remote), where pairing
#     same-named variables by order made a report regress against itself;
#   - compare matches a variable by name, kind and declaration: a declaration 3 lines
#     further down still matches, another size is another variable (gone + new); a report
#     from before scopes (names bare, no base_name) pairs each variable with its scoped
#     name.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to read the JSON" >&2
	exit 77
fi
NODES="$B/tests/tool_nodes"
export MEMPHIS_PERIOD=250us
# The programs run on CPU 0, which tool_nodes puts on node 1, away from the pages (node 0):
# on two nodes every sample is remote. Without taskset (or CPU 0) they run where they may.
PIN=
taskset -c 0 true 2> /dev/null && PIN="taskset -c 0"

# same_run NAME DIR: compare DIR with itself in every way; all unchanged, exit 0. Saves
# its report as DIR.json.
same_run() {
	name=$1 sd=${2%/}
	"$R" --json "$sd" > "$sd.json" 2> /dev/null
	for how in "$sd $sd" "$sd.json $sd" "--local $sd $sd" "--all $sd $sd"; do
		# shellcheck disable=SC2086
		rc=$(run_rc o e "$R" compare $how)
		check_if "$name: compare $how: unchanged, nothing new or gone, exit $rc" \
			'[ "$rc" = 0 ] && has o "verdict: unchanged (0 regressions, 0 improvements, 0 new, 0 gone" && ! grep -qE " (up|down|new|gone|regressed|improved)\$" o'
	done
	rc=$(run_rc o e "$R" compare --json "$sd" "$sd")
	check_if "$name: compare --json: every variable paired with itself, exit $rc" \
		'[ "$rc" = 0 ] && python3 -c "
import json; r = json.load(open(\"o\"))
assert all(v[\"in_a\"] and v[\"in_b\"] and v[\"in_a\"][\"name\"] == v[\"in_b\"][\"name\"] and v[\"verdict\"] == \"unchanged\" for v in r[\"variables\"]), [(v[\"name\"], v[\"verdict\"]) for v in r[\"variables\"]]
assert r[\"summary\"][\"new\"] == r[\"summary\"][\"gone\"] == r[\"summary\"][\"regressions\"] == 0"'
}

# names NAME DIR "VAR|SCOPE|BASE|KIND"...: the text and the JSON name each variable once
names() {
	name=$1
	"$R" --all "$2" > "$name.txt" 2> "$name.err"
	"$R" --all --json "$2" > "$name.all.json" 2>> "$name.err"
	shift 2
	for want; do
		var=${want%%|*}
		check_if "$name: the text table names $var once" \
			"[ \$(grep -cF ') $var ' '$name.txt') = 1 ] && grep -q '^([0-9]*) $var [0-9]*\$' '$name.txt'"
		check "$name: the JSON has $var with its scope, base name and kind" python3 -c '
import json, sys
want = sys.argv[2].split("|")
r = json.load(open(sys.argv[1]))
v = [v for v in r["variables"] if v["name"] == want[0]]
assert len(v) == 1, v
v = v[0]
assert [v.get("scope"), v.get("base_name"), v["kind"]] == want[1:], v
assert v["size"] > 0 and v["decl"], v' "$name.all.json" "$want"
	done
	check "$name: no two variables of the JSON share a name" python3 -c '
import json, sys
n = [v["name"] for v in json.load(open(sys.argv[1]))["variables"]]
assert len(n) == len(set(n)), n' "$name.all.json"
}

# two NAME DIR: DIR on two nodes compares unchanged with itself
two() {
	rm -rf "$1-2n"
	if "$NODES" "$2" "$1-2n" 2 2> nodes.err; then
		"$R" "$1-2n" > 2n.txt 2>&1
		if [ -n "$PIN" ]; then
			check_if "$1 on two nodes: a two-node report, every sample remote" \
				'grep -q "^nodes: 2" 2n.txt && grep -q "^attributed: .* [1-9][0-9,]* remote, 0 local" 2n.txt'
		else
			check_if "$1 on two nodes: a two-node report" 'grep -q "^nodes: 2" 2n.txt'
		fi
		same_run "$1 on two nodes" "$1-2n"
	else
		not_ok "$1 on two nodes: tool_nodes $(cat nodes.err)"
	fi
}

P="$B/tests/prog_collide"
if $PIN "$P" 1 > c.out 2> c.err && d=$(rundir prog_collide) && [ -n "$d" ]; then
	ok "prog_collide ran under memphis"
	names c "$d" "prog_collide.c:work|prog_collide.c|work|static" \
		"collide_b.c:work|collide_b.c|work|static"
	same_run c "$d"
	two c "$d"
	# the reads' ratio (3:1) shows the two apart in the table, not mixed
	check "c: prog_collide.c:work has about 3 times collide_b.c:work's samples" python3 -c '
import json
v = {v["name"]: v["samples"] for v in json.load(open("c.all.json"))["variables"]}
a, b = v["prog_collide.c:work"], v["collide_b.c:work"]
assert 2 * b < a < 4.5 * b, (a, b)'
	# matching by declaration, on the saved report edited as a rebuild would change it
	python3 - "${d%/}.json" moved.json resized.json bare.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def edit(out, f):
    x = json.loads(json.dumps(r))
    for v in x["variables"]:
        if v["name"] == "collide_b.c:work":
            f(v)
    json.dump(x, open(out, "w"))
edit(sys.argv[2], lambda v: v.update(decl="collide_b.c:%d" % (int(v["decl"].split(":")[1]) + 3)))
edit(sys.argv[3], lambda v: v.update(size=v["size"] // 2))
x = json.loads(json.dumps(r))       # as a report from before issue 38 names them
for v in x["variables"]:
    if "base_name" in v:
        v["name"] = v.pop("base_name")
        del v["scope"]
json.dump(x, open(sys.argv[4], "w"))
PY
	rc=$(run_rc o e "$R" compare "${d%/}.json" moved.json)
	check_if "a declaration 3 lines down is the same variable (exit $rc)" \
		'[ "$rc" = 0 ] && has o "0 new, 0 gone"'
	rc=$(run_rc o e "$R" compare --local "${d%/}.json" resized.json)
	check_if "another size is another variable: gone + new (exit $rc)" \
		'[ "$rc" = 0 ] && has o "1 new, 1 gone" && grep -q "^  collide_b.c:work .* gone\$" o'
	rc=$(run_rc o e "$R" compare --local bare.json "$d")
	check_if "a report from before scopes: each bare name paired with its scoped one (exit $rc)" \
		'[ "$rc" = 0 ] && has o "0 new, 0 gone" && has o "prog_collide.c:work (was work)" && has o "collide_b.c:work (was work)"'
else
	not_ok "prog_collide ran under memphis"
	sed 's/^/# /' c.err
fi

P="$B/tests/prog_collide_cxx"
if [ ! -x "$P" ]; then
	skip "C++ scopes" "prog_collide_cxx is not built (no C++ compiler?)"
elif $PIN "$P" 1 > x.out 2> x.err && d=$(rundir prog_collide_cxx) && [ -n "$d" ]; then
	ok "prog_collide_cxx ran under memphis"
	names cxx "$d" "S::arr|S|arr|global" "T::arr|T|arr|global" "ns1::v|ns1|v|global" \
		"ns2::v|ns2|v|global" "H<1>::data|H<1>|data|global" "H<2>::data|H<2>|data|global"
	same_run cxx "$d"
	two cxx "$d"
else
	not_ok "prog_collide_cxx ran under memphis"
	sed 's/^/# /' x.err
fi
done_testing
