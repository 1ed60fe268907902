#!/bin/sh
# Many small objects (issue 16 item 6). The library records 1 in 64 small allocations and
# finds the frees of the recorded ones in a set of their addresses: that set grows, so
# with 6,000,000 small blocks live about 94,000 are recorded (one fixed table of 65,536
# slots recorded no more than about 65,000: the blocks allocated after that were never
# recorded). The output is unchanged. memphis-report on a run where a freed 256 MiB
# temporary lies under 200,000 live rows (tests/programs/prog_manyobj.c, every allocation recorded)
# names the rows as one call site (tests/unit/unit_heap checks that a lookup there does not
# walk back over every row: the bench's 1 M rows took 67 s so). Costs are printed by
# make bench, not asserted.
. "$MEMPHIS_SRC/tests/tap.sh"
export OMP_NUM_THREADS=2

N=6000000
MEMPHIS_DISABLE=1 "$B/tests/prog_livesmall" $N > plain.out 2>&1
"$B/tests/prog_livesmall" $N > prof.out 2>&1
check "livesmall: output unchanged" cmp -s plain.out prof.out
d=$(ls -d memphis-prog_livesmall-*/ 2>/dev/null | head -n 1)
allocs=$("$REPORT" dump --meta "$d" 2>/dev/null | sed -n 's/^# allocs: \([0-9,]*\),.*/\1/p' | tr -d ,)
check "livesmall: about 1 in 64 of $N live blocks recorded (${allocs:-none}; expected about $((N / 64)), more than 65,536)" \
	awk -v a="$allocs" -v n=$N 'BEGIN { exit !(a != "" && a > 0.9 * n / 64 && a < 1.1 * n / 64) }'
rm -rf memphis-*/

MEMPHIS_HEAP_SAMPLE=1 timeout 300 "$B/tests/prog_manyobj" 200000 1 > rows.out 2>&1
d=$(ls -d memphis-prog_manyobj-*/ 2>/dev/null | head -n 1)
timeout 120 "$REPORT" --all --top 0 --json "$d" > rows.json 2> rows.err
check "manyobj: the report names 200,000 rows recorded over a freed temporary as one call site" \
	python3 - rows.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = [v for v in r["variables"] if v["kind"] == "heap" and v["objects"] >= 100000]
sys.exit(0 if rows and rows[0]["objects"] >= 199000 else 1)
PY
done_testing
