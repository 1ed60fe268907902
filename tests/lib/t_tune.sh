# memphis tune on this host (issue 42 item 2; one NUMA node: the advice is all local, so
# nothing is placed; what a placement's promise looks like is judged on the 2-node guest's
# runs, tests/vm/guest-tests/numa-place.host.sh). Here: the whole loop runs from one
# command and keeps every run (before/, after/, the advice, both reports, the comparison,
# the exit statuses, the timed runs, the program's output out of the terminal's way); its
# text, --json and --markdown; the interval of the wall-time ratio, or why there is none;
# a program whose exit status changes under the placement is exit 2; bad usage is exit 2.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON" >&2; exit 77; }
export OMP_NUM_THREADS=2 MEMPHIS_PERIOD=1ms
M="$B/memphis"
PROG="$B/tests/prog_place"

"$M" tune -n 4 -o t1 -- "$PROG" 100 4096 >t1.out 2>t1.err
rc=$?
check_if "tune exits 0 (nothing regressed: $rc)" '[ $rc = 0 ]'
check_if "tune keeps every run and file in its directory" \
	'[ -f t1/before/meta.mph ] && [ -f t1/after/meta.mph ] && for f in advice.json plan before.json after.json compare.json status times before.out after.out plain.out applied.out; do [ -s t1/$f ] || exit 1; done'
check_if "the program's own output is not on tune's stdout" '! grep -q "prog_place:" t1.out && grep -q "prog_place: parent sum" t1/before.out'
check_if "the status file has the program's status 3 before and after" \
	'[ "$(cat t1/status)" = "before 3
after 3" ]'
check_if "4 timed runs of each placement, interleaved (plain first, then applied first)" \
	'[ "$(cut -d" " -f1 t1/times | paste -sd" ")" = "plain applied applied plain plain applied applied plain" ] &&
	 [ "$(cut -d" " -f3 t1/times | sort -u)" = 3 ]'
check_if "one node here: the advice placed nothing, and tune says so" \
	'grep -q "^  (the advice placed nothing" t1.out'
check_if "the wall-time ratio with its interval, or that the times cannot be told apart" \
	'grep -q "^wall time, 4 unprofiled runs of each placement, interleaved: plain [0-9.]* s, applied [0-9.]* s (medians); applied / plain [0-9.]* (95 % CI [0-9.]*…[0-9.]*): \(the two placements. times cannot be told apart\|applied faster\|applied slower\)$" t1.out'
check_if "the verdict line: no regression, exit 0" 'grep -q "^verdict: 0 regressions, 0 expected trades of an interleave; exit 0$" t1.out'
check_if "its steps on stderr (1/5 .. 5/5)" '[ "$(grep -c "^memphis tune: [1-5]/5 " t1.err)" = 5 ]'

"$B/memphis-report" tune --json t1 >t1.json 2>t1.jerr
rc=$?
python3 - t1.json <<'EOF' >t1.check 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "memphis-tune/1", d["schema"]
assert d["variables"] == [] and d["summary"]["exit"] == 0, d["summary"]
assert d["status"] == {"before": "3", "after": "3", "changed": False}, d["status"]
t = d["time"]
assert t["runs"] == 4 and t["plain_s"] > 0 and t["applied_s"] > 0 and len(t["ci95"]) == 2
assert t["ci95"][0] <= t["ratio"] <= t["ci95"][1], t
print("ok")
EOF
check_if "--json: schema memphis-tune/1, status, time with its interval ($(tail -n 1 t1.check))" '[ $rc = 0 ] && [ "$(tail -n 1 t1.check)" = ok ]'
"$B/memphis-report" tune --markdown t1 >t1.md
check_if "--markdown: a table of the placed variables" \
	'grep -q "^| variable | placement | measure | before -> after | verdict |$" t1.md'

"$M" tune -n 2 -o t2 -- "$PROG" 20 1024 >t2.out 2>t2.err
check_if "2 runs each: too few for an interval, said" \
	'grep -q "applied / plain [0-9.]* (too few runs for an interval: --repeat 4 or more)$" t2.out'

# the program behaves otherwise under the placement (here: when MEMPHIS_PLACE is set)
cat >status.sh <<'EOF'
#!/bin/sh
test -z "$MEMPHIS_PLACE"
EOF
chmod +x status.sh
"$M" tune -n 0 -o t3 -- /bin/sh ./status.sh >t3.out 2>t3.err
rc=$?
check_if "exit status changed under the placement: exit 2, said ($rc)" \
	'[ $rc = 2 ] && grep -q "^the program.s exit status changed: 0 before, 1 placed" t3.out'

"$M" tune -n x -- "$PROG" >t4.out 2>t4.err
rc=$?
check_if "bad usage: exit 2 with one line ($rc)" '[ $rc = 2 ] && [ "$(grep -c . t4.err)" = 1 ]'
mkdir -p full && touch full/x
"$M" tune -o full -- "$PROG" 20 1024 >t5.out 2>t5.err
rc=$?
check_if "a directory that holds something is refused: exit 2 ($rc)" '[ $rc = 2 ] && grep -q "cannot make full" t5.err && [ -f full/x ]'
done_testing
