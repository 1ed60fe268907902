#!/bin/sh
# The runtimes apart (issue 16 item 3): tests/programs/prog_waits.c has long barriers
# (thread 0 does 4 times the others' work) and measures the share of its threads' CPU time
# spent at the barrier. With OMP_WAIT_POLICY=active the waiting threads spin in libgomp:
# the header's runtime wait share must be the program's own; the user's arrays head the
# tables and the runtimes' own data (kind "runtime") come after every other variable. With
# OMP_WAIT_POLICY=passive the threads sleep in the kernel: the sampler's task clock does
# not tick for a sleeping thread, so the header shows about the threads' CPU time in the
# wait (a few %), not the wall-clock wait the program also prints.
# The header's K of N samples in the wait is Binomial(N, the wait's share of the sampled
# time). Active: the spinning is user time, sampled: K within the threads' CPU share at the
# barrier +- 2.5 points (timing around the barrier) and its noise (stats.py share: P <=
# 1e-4 of failing by chance). Passive: the wait's few % of CPU time are mostly the
# kernel's, which the sampler does not see (4.7 % of CPU time, 0.0 % of samples): K at most
# what that CPU share + 2.5 points allows (stats.py max), however little of it is user
# time; "within 5 points" held only while the CPU share stayed below 5.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
P="$B/tests/prog_waits"
export OMP_NUM_THREADS=2

# run POLICY HEAP_SAMPLE: profile prog_waits, leave POLICY.out, POLICY.txt, POLICY.json
run() {
	rm -rf memphis-*/
	OMP_WAIT_POLICY=$1 MEMPHIS_HEAP_SAMPLE=$2 MEMPHIS_PERIOD=100us "$P" 150 4 > "$1.out" 2>&1
	d=$(ls -d memphis-prog_waits-*/ 2>/dev/null | head -n 1)
	"$REPORT" --all "$d" > "$1.txt" 2>&1
	"$REPORT" --all --json --top 0 "$d" > "$1.json" 2>&1
}
# share POLICY cpu|wall: the program's own wait share, in percent
share() { sed -n "s/.*wait share: cpu \([0-9.]*\) %, wall \([0-9.]*\) %.*/\\$([ "$2" = cpu ] && echo 1 || echo 2)/p" "$1.out"; }
# header POLICY: the header's runtime wait share, in percent
header() { sed -n 's/^runtime wait: .* samples (\([0-9.]*\) %) in a runtime.*/\1/p' "$1.txt"; }
# counts POLICY: "K N" of the header's "runtime wait: K of N samples"
counts() { sed -n 's/^runtime wait: \([0-9,]*\) of \([0-9,]*\) samples.*/\1 \2/p' "$1.txt" | tr -d ,; }
# band POLICY: "LO HI", the program's CPU share of the wait +- 2.5 points, as fractions
band() { awk -v c="$(share "$1" cpu)" 'BEGIN { lo = (c - 2.5) / 100; hi = (c + 2.5) / 100
	print (lo < 0 ? 0 : lo), (hi > 1 ? 1 : hi) }'; }
# active_ok: the active run's count within its band and chance
active_ok() {
	set -- $(counts active) $(band active)
	[ $# = 4 ] && share_ok "$@"
}
# passive_ok: the passive run's count no more than its band's top allows
passive_ok() {
	set -- $(counts passive) $(band passive)
	[ $# = 4 ] && [ "$1" -le "$(stats max "$2" "$4")" ]
}

# libgomp's team and barrier are small allocations: mostly unrecorded with the default
# heap sampling (the active run), recorded with MEMPHIS_HEAP_SAMPLE=1 (the passive run);
# either way their accesses by libgomp's code are its own, not <unknown>
run active 64
cpu=$(share active cpu) head=$(header active)
check "active: the header's runtime wait share (${head:-none} %: $(counts active)) is the threads' CPU time at the barrier (${cpu:-none} % +- 2.5 and chance)" \
	active_ok
# what to look at when it fails: samples lost or throttled, the scope, the program's times
active_ok || grep -E '^(samples|sampled|scope|note|warning)|lost|behind|per thread' active.txt |
	cat - active.out | head -n 8 | sed 's/^/# active: /'
check "active: the wait is libgomp's" grep -Eq '^runtime wait: .*: OpenMP runtime \(libgomp\) [0-9.]+ %' active.txt
check "active: the user's arrays head the table" sh -c '
	grep -E "^\([12]\) " active.txt | grep -Ec "^\([12]\) (prog_waits\.c:grid \(malloc at prog_waits\.c:[0-9]+\)|coef) " | grep -qx 2'
# every runtime group comes after every other group, in text and in the JSON variables
order_ok() {
	awk '/^\([0-9]+\) / { if ($0 ~ /^\([0-9]+\) <(OpenMP|C|MPI) runtime/) rt = 1; else if (rt) bad = 1 }
		END { exit bad }' "$1.txt"
}
check "active: the runtimes' groups come after every other variable (text)" order_ok active
check "active: JSON: runtime_wait and the variables' order (kind runtime last)" python3 - active.json "$head" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
w = r["samples"]["runtime_wait"]
ok = w["samples"] > 0 and "openmp" in w["by_runtime"]
ok = ok and abs(100 * w["share"] - float(sys.argv[2])) < 0.1
kinds = [v["kind"] for v in r["variables"]]
seen = False
for k in kinds:
    if k == "runtime":
        seen = True
    elif seen:
        ok = False
sys.exit(0 if ok else 1)
PY

run passive 1
pcpu=$(share passive cpu) pwall=$(share passive wall) phead=$(header passive)
check "passive: the header's wait share (${phead:-none} %: $(counts passive)) is at most the threads' CPU time waiting (${pcpu:-none} % + 2.5 and chance)" \
	passive_ok
check "passive: ... and far below their wall-clock wait (${pwall:-none} %): sleeping threads take no samples" \
	awk -v h="$phead" -v w="$pwall" 'BEGIN { exit !(h != "" && w != "" && h < 5 && w > h + 15) }'
check "passive: the runtimes' groups come after every other variable (text)" order_ok passive
check "no libgomp address is named as a heap call site" sh -c '! grep -Eq "^\([0-9]+\) [a-z_]+ at libgomp" active.txt passive.txt'
check "no line of libgomp's code under <unknown>" sh -c '
	for f in active.txt passive.txt; do sed -n "/^([0-9]*) <unknown> /,/^([0-9]*) /p" $f; done |
		grep -q "^    libgomp" && exit 1; exit 0'

# stdio: putc into a stream's buffer; the buffer (_IO_file_doallocate) and the FILE (fopen)
# are libc's own: its group, not a heap call site of the program or of libc
rm -rf memphis-*/
MEMPHIS_PERIOD=100us "$B/tests/prog_stdio" > stdio.out 2>&1
d=$(ls -d memphis-prog_stdio-*/ 2>/dev/null | head -n 1)
"$REPORT" --all --json --top 0 "$d" > stdio.json 2>&1
check "stdio: the stream's buffer and FILE are the C runtime's (90 % or more of the attributed samples)" \
	python3 - stdio.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
c = sum(v["samples"] for v in r["variables"]
        if v["kind"] == "runtime" and v["name"].startswith("<C runtime (libc): "))
heap = [v["name"] for v in r["variables"] if v["kind"] == "heap"]
sys.exit(0 if r["samples"]["attributed"] > 0 and c >= 0.9 * r["samples"]["attributed"] and not heap else 1)
PY
# every runtime variable of the three runs is one runtime's group, and there is one: the
# prog_waits runs alone sample libgomp's barrier and team state about once in four runs
# (their spinning samples land on PAUSE, no access), prog_stdio's libc buffer every time
check "the runtimes' data are one variable per runtime, of kind runtime" python3 - active.json passive.json stdio.json <<'PY'
import json, sys
names = {}
for f in sys.argv[1:]:
    for v in json.load(open(f))["variables"]:
        if v["kind"] == "runtime":
            names[v["name"]] = names.get(v["name"], 0) + v["samples"]
ok = names and all(n.startswith(("<OpenMP runtime (libgomp): ", "<C runtime (libc): ")) for n in names)
sys.exit(0 if ok else 1)
PY
done_testing
