#!/bin/sh
# Re-faulted memory (issue 41 item 2): a work array mapped, touched and unmapped on each of
# 2,000 calls (tests/programs/prog_refault.c each) has its 64 pages first-touched 2,000
# times each, the kernel zeroing a new page every time; the report says so on the
# variable's first-touch line, with the fix, and the JSON counts the re-faults. The same
# program mapping the array once shows none, nor does a calloc'd array read before it is
# written (two faults a page, one mapping).
. "$MEMPHIS_SRC/tests/report_common.sh"
have_python || { echo "t_report_refault: python3 is needed to read the JSON" >&2; exit 77; }
P="$B/tests/prog_refault"

MEMPHIS_DISABLE=1 "$P" each > plain.out 2>&1
# 100us: the "once" run takes about 40 ms of CPU, 400 samples, some 50 on the array (none
# at all: e^-50); its first touches are reported for a variable with samples
MEMPHIS_PERIOD=100us "$P" each > each.out 2>&1
check "output unchanged" cmp -s plain.out each.out
d=$(rundir prog_refault)
"$R" "$d" > each.txt 2> each.err; rc1=$?
"$R" --json "$d" > each.json 2> /dev/null
mv "$d" each.run
MEMPHIS_PERIOD=100us "$P" once > once.out 2>&1
d=$(rundir prog_refault)
"$R" "$d" > once.txt 2> once.err; rc2=$?
"$R" --json "$d" > once.json 2> /dev/null
check_if "both reports exit 0 ($rc1, $rc2)" '[ "$rc1" = 0 ] && [ "$rc2" = 0 ]'

# refaults NAME.json: "PAGES REFAULTS" of the work array ("mmap at prog_refault.c:N in
# work_each", or main's "main::w (mmap at prog_refault.c:N)")
refaults() {
	python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = [x for x in r["variables"] if "mmap at prog_refault.c:" in x["name"]]
ft = v[0]["first_touch"] if v and v[0]["first_touch"] else {"pages": 0, "refaults": 0}
print(ft["pages"], ft["refaults"], ft.get("distinct_pages", 0))
PY
}
read -r pages re distinct <<EOF2
$(refaults each.json)
EOF2
# every fault is recorded (FIRST_TOUCH records are not sampled): 128,000 touches of 64
# pages, 127,936 of them re-faults; a tenth fewer would be records lost, not chance
check_if "each call maps it anew: $re of its $pages first touches are re-faults, of $distinct distinct pages (127,936 of 128,000 made, 64 pages)" \
	'[ "$pages" -ge 115200 ] && [ "$re" -ge 115136 ] && [ "$distinct" = 64 ]'
check "the text says it was re-faulted, the distinct pages and how often, and the fix" \
	grep -qE "^mmap at prog_refault.c:[0-9]+ in work_each: .*; re-faulted: its 64 distinct pages were mapped anew [0-9,]+ times \\([0-9.]+ each\\), the kernel zeroing a new page every time; allocate it once, outside the loop, and reuse it$" each.txt
read -r pages re distinct <<EOF2
$(refaults once.json)
EOF2
check_if "mapped once: its $pages first touches, no re-fault ($re)" '[ "$pages" = 64 ] && [ "$re" = 0 ]'
check "... and the text says nothing of re-faults" sh -c '! grep -q "re-faulted" once.txt'
mv "$d" once.run
# calloc: a read fault, then a write fault of each page, in one mapping: no re-fault
MEMPHIS_PERIOD=100us "$P" calloc > calloc.out 2>&1
d=$(rundir prog_refault)
"$R" --json "$d" > calloc.json 2> /dev/null
read -r pages re distinct <<EOF2
$(python3 - calloc.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
v = [x for x in r["variables"] if "calloc at prog_refault.c:" in x["name"]]
ft = v[0]["first_touch"] if v and v[0]["first_touch"] else {}
print(ft.get("pages", 0), ft.get("refaults", -1), ft.get("distinct_pages", 0))
PY
)
EOF2
check_if "calloc'd, read, then written: $pages faults of $distinct pages, no re-fault ($re)" \
	'[ "$distinct" = 64 ] && [ "$pages" -ge 64 ] && [ "$re" = 0 ]'
done_testing
