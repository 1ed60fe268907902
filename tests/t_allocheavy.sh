# Allocation-heavy code: small allocations are sampled, an explicit choice written into the
# run and printed by the report; large ones are always recorded; output unchanged.
# (Its cost is a ratio in `make bench`, not asserted here.)
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_allocheavy"
N=400000

MEMPHIS_DISABLE=1 "$P" $N > plain.out 2>&1
"$P" $N > prof.out 2>&1
check "output unchanged" cmp -s plain.out prof.out
d=$(rundir prog_allocheavy)
"$REPORT" dump --meta "$d" > meta.txt 2>&1
allocs=$(sed -n 's/^# allocs: \([0-9,]*\),.*/\1/p' meta.txt | tr -d ,)
check "small allocations sampled: far fewer than $N records (got ${allocs:-none})" \
	sh -c "[ -n '$allocs' ] && [ '$allocs' -gt 0 ] && [ '$allocs' -lt $((N / 8)) ]"
check "the choice is in the run" grep -q "heap_sample_every=64" meta.txt
"$REPORT" "$d" > report.txt 2>&1
check "the report says small allocations are sampled" \
	grep -Eq '^heap: allocations under 4,096 bytes recorded 1 in 64' report.txt
"$REPORT" --json "$d" > report.json 2>&1
check "--json says it too" grep -q '"heap_sample_every": *64' report.json
rm -rf memphis-*/

MEMPHIS_HEAP_SAMPLE=1 "$P" 20000 > all.out 2>&1
d=$(rundir prog_allocheavy)
"$REPORT" dump --meta "$d" > meta1.txt 2>&1
allocs=$(sed -n 's/^# allocs: \([0-9,]*\),.*/\1/p' meta1.txt | tr -d ,)
check "MEMPHIS_HEAP_SAMPLE=1 records every allocation (${allocs:-none})" \
	sh -c "[ -n '$allocs' ] && [ '$allocs' -ge 20000 ]"
"$REPORT" "$d" > report1.txt 2>&1
check "... and the report then says nothing of sampling" sh -c '! grep -q "^heap: " report1.txt'
