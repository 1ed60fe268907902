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
check "the site map is on by default (heap_map=1)" grep -q "heap_map=1" meta.txt
"$REPORT" "$d" > report.txt 2>&1
check "the report says small allocations are sampled" \
	grep -Eq '^heap: allocations under 4,096 bytes recorded 1 in 64' report.txt
"$REPORT" --json "$d" > report.json 2>&1
check "--json says it too" grep -q '"heap_sample_every": *64' report.json
check "--json says the site map named the others" grep -q '"heap_map": *true' report.json
check "the text says so" grep -Eq '^heap: .* the others named by call chain \(the site map' report.txt
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
# too, and so is the runtime code it calls for itself (issue 38: memcpy of the records,
# the clock, libgcc_s unwinding a call site): the report sets it aside in one header line
# and never names it as the program's. The same with the library linked into the
# program (libmemphis.a: its code and data in sections of their own, memphis_*).
# the library's source files, as line names would show them ("heap.c:181")
srcs=$(cd "$S" && ls lib/*.c lib/backend/*.c common/*.c | sed 's#.*/##; s#\.c$##' |
	tr '\n' '|' | sed 's/|$//')
# the library's own data, as variables of the program would be named ("heap_lock")
vars=$(nm "$B/libmemphis.a" 2>/dev/null | awk '$2 ~ /^[bBdDrR]$/ { print $3 }' | sort -u |
	tr '\n' '|' | sed 's/|$//')

# self_checks KIND RUNDIR: the checks above on one run directory
self_checks() {
	"$REPORT" "$2" --all --top 0 > self.txt 2>&1
	"$REPORT" "$2" --all --top 0 --by line > selfl.txt 2>&1
	"$REPORT" "$2" --all --top 0 --json > self.json 2>&1
	"$REPORT" "$2" --all --top 0 --by line --json > selfl.json 2>&1
	cp self.txt "self.$1.txt"
	n=$(sed -n 's/^set aside: \([0-9,]*\) samples in libmemphis itself.*/\1/p' self.txt | tr -d ,)
	check "$1: header: samples in libmemphis itself set aside (${n:-none})" \
		sh -c "[ -n '$n' ] && [ '$n' -gt 0 ]"
	check "$1: no row names libmemphis or a line of its sources (text, by variable and by line)" \
		sh -c "! grep -v '^set aside: ' self.txt selfl.txt | grep -Eq 'libmemphis|(^|[ (])($srcs)\.c:[0-9A-Za-z_]'"
	check "$1: no row is runtime code the library ran for itself (memcpy, clock, errno)" \
		sh -c "! grep -Eq '\\(in (__mem(cpy|move|set)|mem(cpy|move|set)|clock_gettime|__errno_location|backtrace)' self.txt selfl.txt"
	# the unwinder runs once per chain; a sample there whose captured stack ends before
	# the library's frame stays where its chain ends (a few at most)
	u=$(awk '/libgcc_s|_Unwind/ && $NF ~ /^[0-9]+$/ { s += $NF } END { print s + 0 }' self.txt)
	check "$1: the unwinder's samples are the library's ($u left as runtime code)" [ "$u" -le 5 ]
	check "$1: JSON: in_libmemphis is the header's count, no variable, entry or item is the library's" \
		python3 - "$n" "$srcs" "$vars" self.json selfl.json <<'PY'
import json, re, sys
n, srcs, names_lib = int(sys.argv[1] or 0), sys.argv[2], set(sys.argv[3].split("|"))
bad = re.compile(r"libmemphis|(^|[ (])(%s)\.c:[0-9A-Za-z_]" % srcs)
ok = n > 0
for f in sys.argv[4:]:
    r = json.load(open(f))
    ok = ok and r["samples"].get("in_libmemphis") == n
    names = [v["name"] for v in r["variables"]] + [v.get("object") or "" for v in r["variables"]]
    for t in r["tables"]:
        for e in t["entries"]:
            names.append(e["name"])
            names += [i["name"] for i in e["items"]]
    ok = ok and not [x for x in names if bad.search(x) or x in names_lib]
sys.exit(not ok)
PY
	check "$1: the program's own data still named (main::big)" grep -q 'main::big' self.txt
}

MEMPHIS_HEAP_SAMPLE=1 MEMPHIS_PERIOD=100us "$P" 100000 > self.out 2>&1
self_checks shared "$(rundir prog_allocheavy)"
rm -rf memphis-*/

# the program linked with the archive: its libraries are those the shared one needs
libs=$(readelf -d "$B/libmemphis.so" | sed -n 's/.*Shared library: \[lib\([A-Za-z0-9_+-]*\)\.so.*/-l\1/p' |
	grep -v -e '^-lc$' | tr '\n' ' ')
if ${CC:-cc} -g -O2 -I"$S/include" -o allocheavy_static "$S/tests/programs/prog_allocheavy.c" \
	"$B/libmemphis.a" $libs -pthread 2> static.err; then
	MEMPHIS_HEAP_SAMPLE=1 MEMPHIS_PERIOD=100us ./allocheavy_static 100000 > static.out 2>&1
	check "static: output unchanged" cmp -s self.out static.out
	d=$(rundir allocheavy_static)
	check "static: the run says the library is in the executable (RUN lib=)" \
		sh -c "'$REPORT' dump --meta '$d' | grep -qx '#   lib='"
	self_checks static "$d"
else
	sed 's/^/# /' static.err
	not_ok "static: prog_allocheavy.c links with libmemphis.a ($libs)"
fi
done_testing
