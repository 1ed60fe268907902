#!/bin/sh
# examples/ci/numa-gate.sh, the example CI gate (issue 13): --record writes a baseline from a
# run of examples/cg; a second run of the same program against it exits 0 with a JUnit file
# (one testcase per node and tracked variable, no failure) and a markdown table; a run
# given with --run that regresses against its baseline (tool_gen, 50 % -> 60 % remote: this
# host has one node, so a real program cannot regress here) exits 1 with the regressions
# as JUnit failures; a baseline on another node count exits 2; bad usage exits 2.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to read the JUnit XML" >&2
	exit 77
fi
GATE="$S/examples/ci/numa-gate.sh"
CG="$B/examples/cg/cg"
export OMP_NUM_THREADS=2 MEMPHIS_PERIOD=100us
[ -x "$CG" ] || { echo "not ok 1 - $CG is not built"; exit 1; }

# junit FILE: "TESTCASES FAILURES" counted in the XML (after parsing it).
junit() {
	python3 -c 'import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
t = list(r.iter("testcase"))
print(len(t), sum(1 for c in t if c.find("failure") is not None))' "$1" 2> /dev/null
}

sh "$GATE" --no-build -B "$B" -o rec --record baseline.json "$CG" -n 150000 -i 6 > rec.log 2>&1
rc=$?
check_if "--record: exit 0 and the baseline is a memphis-report/1 report of cg" \
	'[ "$rc" = 0 ] && grep -q "\"schema\": *\"memphis-report/1\"" baseline.json && grep -q "examples/cg/cg" baseline.json'
# the documented way to record one by hand gives the same kind of file
"$R" --json rec/run > by-hand.json
check_if "the documented memphis-report --json RUN > baseline.json compares with it: exit 0" \
	'"$R" compare by-hand.json baseline.json > /dev/null 2>&1'

sh "$GATE" --no-build -B "$B" -o gate baseline.json "$CG" -n 150000 -i 6 > gate.log 2>&1
rc=$?
sed 's/^/# /' gate.log | tail -n 4
check_if "a second run of cg against it: exit 0 (compare's)" '[ "$rc" = 0 ]'
counts=$(junit gate/junit.xml)
tc=${counts% *} tf=${counts#* }
check_if "its JUnit file parses: ${tc:-no} testcases, ${tf:-?} failures (want >= 2 and 0)" \
	'[ "${tc:-0}" -ge 2 ] && [ "${tf:-1}" = 0 ]'
check_if "its markdown has the table" \
	'grep -q "^| node / variable |" gate/compare.md && grep -q "^| node 0 |" gate/compare.md'
check_if "the run, its report and the text are kept" \
	'[ -f gate/run/meta.mph ] && [ -s gate/report.json ] && grep -q "^verdict: " gate/compare.txt'

# a regression, with a run made elsewhere (--run)
"$GEN" g50 -n 12500 --remote-pct 50 --seed 1 > /dev/null
"$GEN" g60 -n 12500 --remote-pct 60 --seed 2 > /dev/null
"$R" --json g50 > g50.json
sh "$GATE" --no-build -B "$B" -o reg --run g60 g50.json > reg.log 2>&1
rc=$?
check_if "--run of a run 10 points more remote than its baseline: exit 1 (compare's)" '[ "$rc" = 1 ]'
counts=$(junit reg/junit.xml)
tc=${counts% *} tf=${counts#* }
check_if "its JUnit file has the regressions as failures: ${tf:-?} of ${tc:-?} testcases" \
	'[ "${tf:-0}" -ge 1 ] && grep -q "<failure message=\"all nodes regressed" reg/junit.xml'
check_if "its markdown says regressed" 'grep -q "regressed" reg/compare.md'
sh "$GATE" --no-build -B "$B" -o reg2 --max-regress 20 --run g60 g50.json > reg2.log 2>&1
rc=$?
check_if "--max-regress 20 reaches compare: the same pair exits 0" '[ "$rc" = 0 ]'

# cannot compare, cannot run
sh "$GATE" --no-build -B "$B" -o other --run g60 baseline.json > other.log 2>&1
rc=$?
check_if "a baseline on another node count (cg's here, tool_gen's two nodes): exit 2, and compare's reason once" \
	'[ "$rc" = 2 ] && [ "$(grep -c "different node counts" other.log)" = 1 ]'
sh "$GATE" --no-build -B "$B" -o bad baseline.json > bad.log 2>&1
rc=$?
check_if "no PROGRAM: exit 2 with a usage line" '[ "$rc" = 2 ] && grep -q "^usage: " bad.log'
sh "$GATE" --no-build -B "$B" -o bad baseline.json ./no-such-program > bad2.log 2>&1
rc=$?
check_if "a program that cannot run: exit 2, not 0 or 1" '[ "$rc" = 2 ]'
done_testing
