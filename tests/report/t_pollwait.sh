#!/bin/sh
# The program's own waits (issue 41 item 3): tests/programs/prog_pipeline.c (C,
# __sync_synchronize) and tests/fixtures/pipeline_f.f90 (Fortran, !$omp flush) are a
# two-thread pipeline whose consumer polls a flag array with a fence between reads, a locked
# no-op on its stack top; each measures the share of its threads' CPU time spent polling.
# The report must give that share as the program's own waits, at the poll lines, on the flag
# array; count the fences as non-memory instead of accesses to `<stack of thread N>` (which
# held 94 % of the attributed samples before); and keep the consumer's real work on its
# stack array named as the local it is (consume::tmp).
# The header's K of N samples in the poll loop is Binomial(N, the poll's share of the
# sampled time): K within the threads' CPU share polling +- 2.5 points (the clock read
# around the poll) and its noise (stats.py share: P <= 1e-4 of failing by chance).
. "$MEMPHIS_SRC/tests/report_common.sh"
have_python || { echo "t_pollwait: python3 is needed to read the JSON" >&2; exit 77; }

# measured NAME: the program's wait share, in percent
measured() { sed -n 's/.*wait share: cpu *\([0-9.]*\) %.*/\1/p' "$1.out"; }
# counts NAME: "K N", the poll loops' samples and all samples
counts() { python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))["samples"]
print(s["runtime_wait"].get("program", {}).get("samples", 0), s["total"])' "$1.json"; }
share_in_band() {
	set -- $(counts "$1") $(awk -v c="$(measured "$1")" 'BEGIN { if (c == "") exit
		lo = (c - 2.5) / 100; hi = (c + 2.5) / 100; print (lo < 0 ? 0 : lo), (hi > 1 ? 1 : hi) }')
	[ $# = 4 ] && share_ok "$@"
}
# poll_line SRC: the first of the two poll lines: the line marked "/* the poll */" (C), the
# line after the one marked "! the poll" (Fortran: the loop's flush, then its test)
poll_line() {
	l=$(grep -nE '(/\* the poll \*/|! the poll)$' "$1" | head -n 1 | cut -d: -f1)
	case $1 in *.f90) l=$((l + 1)) ;; esac
	echo "$l"
}
# loop_ok NAME SRC VAR: the one poll loop is at SRC's poll lines, on VAR
loop_ok() {
	python3 - "$1.json" "${2##*/}" "$(poll_line "$2")" "$3" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["samples"]["runtime_wait"]["program"]
f, l, var = sys.argv[2], int(sys.argv[3]), sys.argv[4]
want = {"%s:%d" % (f, l), "%s:%d" % (f, l + 1)}
loop = w["loops"][0]
ok = w["poll_loops"] == 1 and loop["variable"] == var and set(loop["lines"]) <= want
ok = ok and loop["samples"] == w["samples"]
if not ok:
    print("# %s" % json.dumps(w))
sys.exit(0 if ok else 1)
PY
}
# no_stack_at NAME SRC: no <stack of thread N> group holds a line of SRC's poll
no_stack_at() {
	l=$(poll_line "$2")
	! sed -n '/^([0-9]*) <stack of thread/,/^([0-9]*) /p' "$1.txt" |
		grep -Eq "^    ${2##*/}:($l|$((l + 1)))( |\$)"
}

# only_var NAME SRC VAR: every table entry with a sample at SRC's poll lines is VAR (the
# loads of the flag; its fences have no address: how many loads are sampled is chance, a
# few in thousands, so that they are, is not checked)
only_var() {
	python3 - "$1.json" "${2##*/}" "$(poll_line "$2")" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f, l, var = sys.argv[2], int(sys.argv[3]), sys.argv[4]
want = {"%s:%d" % (f, l), "%s:%d" % (f, l + 1)}
bad = {e["name"] for t in r["tables"] for e in t["entries"]
       if e["name"] != var and any(i["name"] in want for i in e["items"])}
if bad:
    print("# at the poll lines: %s" % sorted(bad))
sys.exit(1 if bad else 0)
PY
}

# run NAME PROGRAM: profile it, leave NAME.out, NAME.txt, NAME.json
run() {
	rm -rf memphis-*/
	MEMPHIS_PERIOD=100us "$2" > "$1.out" 2>&1
	d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
	"$R" --all "$d" > "$1.txt" 2>&1
	"$R" --all --json --top 0 "$d" > "$1.json" 2>&1
}

src=$S/tests/programs/prog_pipeline.c
run c "$B/tests/prog_pipeline"
check "C: the program's own waits ($(counts c)) are its CPU share polling ($(measured c) % +- 2.5 and chance)" \
	share_in_band c
share_in_band c || grep -E '^(samples|runtime wait|threads)' c.txt | sed 's/^/# /'
check "C: one poll loop, at the poll lines, on flag" loop_ok c "$src" flag
check "C: the header says it" grep -Eq "^runtime wait: .*; program's own waits: [0-9.]+ % in 1 poll loop: [0-9.]+ % at prog_pipeline\.c:[0-9]+.* on flag;" c.txt
check "C: no <stack of thread N> at the poll lines" no_stack_at c "$src"
check "C: the fences are non-memory samples, said in the legend" sh -c '
	python3 -c "import json, sys; s = json.load(open(\"c.json\"))[\"samples\"]; sys.exit(not 0 < s[\"fences\"] <= s[\"non_memory\"])" &&
	grep -Eq "^  non-memory: .*\([0-9,]+ of them fences" c.txt'
check "C: the consumer's stack array keeps its name (consume::tmp)" grep -Eq '^\([0-9]+\) consume::tmp [0-9]+$' c.txt
check "C: the poll lines' samples with an address are flag's in the tables, under no other name" \
	only_var c "$src" flag

FC=${FC:-gfortran}
if command -v "$FC" >/dev/null && [ -f "$B/fortran/memphis.mod" ] &&
	"$FC" -g -O2 -fopenmp -I"$B/fortran" "$S/tests/fixtures/pipeline_f.f90" -o pipeline_f \
		-L"$B" -Wl,-rpath,"$B" -lmemphis_f -lmemphis > fc.log 2>&1; then
	fsrc=$S/tests/fixtures/pipeline_f.f90
	run f ./pipeline_f
	check "Fortran: the program's own waits ($(counts f)) are its CPU share polling ($(measured f) % +- 2.5 and chance)" \
		share_in_band f
	share_in_band f || grep -E '^(samples|runtime wait|threads)' f.txt | sed 's/^/# /'
	check "Fortran: one poll loop, at the poll lines, on pipecfg::isync" loop_ok f "$fsrc" pipecfg::isync
	check "Fortran: no <stack of thread N> at the poll lines" no_stack_at f "$fsrc"
else
	for t in "the program's own waits" "one poll loop" "no <stack of thread N>"; do
		skip "Fortran: $t" "no $FC or no memphis.mod"
	done
fi
done_testing
