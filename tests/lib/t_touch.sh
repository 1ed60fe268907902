# First touch: a 64 MiB buffer touched page by page by two threads, each its half. Every
# page must be covered by a first-touch record of the thread that touched it; with
# transparent huge pages, one fault covers 512 pages and its record must say so.
. "$MEMPHIS_SRC/tests/tap.sh"

cover() { # cover MODE: checks for one run of prog_touch MODE
	mode=$1
	rm -rf memphis-prog_touch-*/
	"$B/tests/prog_touch" "$mode" > "$mode.out" || not_ok "$mode: prog_touch runs"
	d=$(rundir prog_touch)
	"$REPORT" dump --touches "$d" > "$mode.touches"
	python3 - "$mode.out" "$mode.touches" > "$mode.res" <<'PY'
import sys
halves = []
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] == "half":
        halves.append((int(w[2]), int(w[3], 16), int(w[4], 16)))
first = {}
huge = 0
for l in open(sys.argv[2]):
    w = l.split()
    t, tid, addr, size = float(w[0]), int(w[2]), int(w[4], 16), int(w[5])
    huge += len(w) > 6 and w[6] == "huge"
    base = addr & ~(size - 1)
    for page in range(base, base + size, 4096):
        if page not in first or first[page][0] > t:
            first[page] = (t, tid)
right = wrong = missing = 0
for tid, lo, hi in halves:
    for page in range(lo, hi, 4096):
        if page not in first:
            missing += 1
        elif first[page][1] == tid:
            right += 1
        else:
            wrong += 1
print(right, wrong, missing, huge)
PY
	read right wrong missing huge < "$mode.res"
	echo "# $mode: $right pages by the right thread, $wrong by another, $missing without a record; $huge huge-page records"
	"$REPORT" dump --meta "$d" | grep "records lost" | sed "s/^#/# $mode:/"
	check "$mode: all 16384 pages covered by a record of the thread that touched them" \
		test "$right" = 16384 -a "$wrong" = 0 -a "$missing" = 0
}

cover small
check "small: no record claims a huge page (MADV_NOHUGEPAGE)" test "$huge" = 0
if grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; then
	skip "huge pages" "transparent huge pages are disabled on this machine"
else
	cover huge
	check "huge: the 32 huge-page faults are flagged as covering 2 MiB ($huge)" test "$huge" = 32
fi
rm -rf memphis-prog_touch-*/
# The runs above opened no region: their first touches kept the run directory. Without
# them nothing is left to report, and no directory is left.
MEMPHIS_FIRST_TOUCH=0 "$B/tests/prog_touch" small > off.out
check "MEMPHIS_FIRST_TOUCH=0, no region: no first-touch record, so no run directory left" \
	test -z "$(rundir prog_touch)"

# A page faulted in a region and unmapped before the print (a freed buffer): its record is
# kept, and the print does not wait for the page to appear (it waited 100 ms, 400 sleeps of
# 250 us, at every such print; $B/tests/shim_calls.so counts the library's sleeps).
rm -rf memphis-prog_touch-*/
LD_PRELOAD="$B/tests/shim_calls.so" "$B/tests/prog_touch" freed > freed.out 2> freed.err ||
	not_ok "freed: prog_touch runs"
d=$(rundir prog_touch)
page=$(sed -n 's/^freed //p' freed.out)
sleeps=$(sed -n 's/^usleep //p' freed.err)
check "freed: the unmapped page has its first-touch record" \
	sh -c "'$REPORT' dump --touches '$d' | awk '{ print \$5 }' | grep -qx '$page'"
check "freed: the print did not wait for the unmapped page ($sleeps sleeps)" \
	test -n "$sleeps" -a "${sleeps:-0}" -lt 10

# A range faulted page by page whose first record was flushed alone, its other pages
# faulted before that record was judged (the pagemap read late, SHIM_PREAD_MS): the whole
# range is present then, as after a huge page's fault, but the next batch has the other
# faults, so the first record is a base page's (it was flagged huge, now and then, in the
# "small" run above when a flush cut a range so).
rm -rf memphis-prog_touch-*/
MEMPHIS_VERBOSE=3 SHIM_PREAD_MS=600 LD_PRELOAD="$B/tests/shim_calls.so" "$B/tests/prog_touch" cut \
	> cut.out 2> cut.err || not_ok "cut: prog_touch runs"
d=$(rundir prog_touch)
"$REPORT" dump --touches "$d" > cut.touches
range=$(sed -n 's/^cut //p' cut.out)
echo "# cut: $(wc -l < cut.touches) records, $(grep -c ' huge' cut.touches) huge"
check "cut: the range's first fault is not flagged huge" \
	sh -c "! grep -q ' huge' cut.touches && awk '{ print \$5 }' cut.touches | grep -qx '$range'"
if grep -q "the fault at $range is not a huge page's" cut.err; then
	ok "cut: the first fault was judged after its range filled, and held"
else
	skip "cut: the first fault held" "its record was not flushed alone or was judged early (a loaded machine)"
fi
