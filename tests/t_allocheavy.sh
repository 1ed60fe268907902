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
rm -rf memphis-*/

# The library's own work (its allocator wrapper, its locks and tables, its TLS) is sampled
# too: the report sets it aside in one header line and never names it as the program's.
MEMPHIS_HEAP_SAMPLE=1 MEMPHIS_PERIOD=100us "$P" 100000 > self.out 2>&1
d=$(rundir prog_allocheavy)
"$REPORT" "$d" --all --top 0 > self.txt 2>&1
"$REPORT" "$d" --all --top 0 --by line > selfl.txt 2>&1
"$REPORT" "$d" --all --top 0 --json > self.json 2>&1
"$REPORT" "$d" --all --top 0 --by line --json > selfl.json 2>&1
# the library's source files, as line names would show them ("heap.c:181")
srcs=$(cd "$S" && ls lib/*.c lib/backend/*.c common/*.c | sed 's#.*/##; s#\.c$##' |
	tr '\n' '|' | sed 's/|$//')
n=$(sed -n 's/^set aside: \([0-9,]*\) samples in libmemphis itself.*/\1/p' self.txt | tr -d ,)
check "header: samples in libmemphis itself set aside (${n:-none})" \
	sh -c "[ -n '$n' ] && [ '$n' -gt 0 ]"
check "no row names libmemphis or a line of its sources (text, by variable and by line)" \
	sh -c "! grep -v '^set aside: ' self.txt selfl.txt | grep -Eq 'libmemphis|(^|[ (])($srcs)\.c:[0-9]'"
check "JSON: in_libmemphis is the header's count, no variable, entry or item is the library's" \
	python3 - "$n" "$srcs" self.json selfl.json <<'PY'
import json, re, sys
n, srcs = int(sys.argv[1] or 0), sys.argv[2]
bad = re.compile(r"libmemphis|(^|[ (])(%s)\.c:[0-9]" % srcs)
ok = n > 0
for f in sys.argv[3:]:
    r = json.load(open(f))
    ok = ok and r["samples"].get("in_libmemphis") == n
    names = [v["name"] for v in r["variables"]] + [v.get("object") or "" for v in r["variables"]]
    for t in r["tables"]:
        for e in t["entries"]:
            names.append(e["name"])
            names += [i["name"] for i in e["items"]]
    ok = ok and not [x for x in names if bad.search(x)]
sys.exit(not ok)
PY
