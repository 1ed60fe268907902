# memphis apply on this host (issue 42; one NUMA node: what lands where is checked in the
# 2-node guest, tests/vm/guest-tests/numa-apply.*). Here: the plan finds each kind of
# variable (a static array, one of two heap arrays from one wrapper, an mmap'd array, a
# Fortran COMMON array) and the library gives exactly it the policy asked for, as the
# kernel shows it in /proc/PID/numa_maps (tests/programs/shim_numamaps.c copies it at
# exit); a run whose advice is all local makes no mbind call (strace counts them); output
# and exit status never change; mbind refused (strace injects EPERM) is one line; advice of
# another program, or damaged, is exit 2 with one line naming the file (and offset); the
# processes the program execs are not placed; --profile's report shows the placement.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v strace >/dev/null || { echo "strace is needed to count mbind calls" >&2; exit 77; }
export OMP_NUM_THREADS=2
PROG=$B/tests/prog_place
SWEEPS="2000 1024" # the profiled runs': enough samples on each array, under load too
ASWEEPS="20 1024"  # the applied runs': what is placed does not need a long run
M="$B/memphis"

# The advice of a profiled run: all local on one node, so no placement at all.
MEMPHIS_PERIOD=250us "$M" run -o base -- "$PROG" $SWEEPS >base.out 2>base.err
check "the profiled run exits with the program's status 3" [ $? = 3 ]
"$REPORT" --json --advice --all --top 0 base >base.json 2>base.rerr
"$PROG" $SWEEPS >plain.out 2>plain.err
check "the program's output is the same profiled" cmp -s plain.out base.out
"$PROG" $ASWEEPS >aplain.out 2>aplain.err

# applied NAME ARGS...: memphis apply ARGS -- prog_place under strace (mbind calls in
# NAME.st) and the numa_maps shim (NAME.numa, NAME.maps); NAME.out, NAME.err, NAME.rc
applied() {
	name=$1
	shift
	PLACE_ADDRS=$name.addrs SHIM_NUMAMAPS=$PWD/$name strace -E LD_PRELOAD=$B/tests/shim_numamaps.so \
		-f -qq -o "$name.st" -e trace=mbind $STRACE_MORE \
		"$M" apply "$@" -- "$PROG" ${RUN_SWEEPS:-$ASWEEPS} $PROG_MORE >"$name.out" 2>"$name.err"
	echo $? >"$name.rc"
}
mbinds() { grep -c 'mbind(' "$1.st"; }

applied local --advice base.json
check "advice all local: exit status 3" [ "$(cat local.rc)" = 3 ]
check "advice all local: the same output" cmp -s aplain.out local.out
check_if "advice all local: no mbind call ($(mbinds local))" '[ "$(mbinds local)" = 0 ]'
check_if "advice all local: nothing on stderr but plan's note" \
	'! grep -v "no variable of base.json has a placement" local.err | grep -q .'

# A placement written into the advice as the report writes it for 2 nodes, with node 0
# (the only one here): table partitioned, hx (not hy) moved, mp interleaved.
python3 - base.json placed.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = {"prog_place.c:table": {"policy": "partitioned", "block_bytes": 1 << 17,
                               "block_nodes": [0] * 8},
        "main::hx": {"policy": "move", "nodes": [0]},
        "main::mp": {"policy": "interleave", "nodes": [0]}}
for v in d["variables"]:
    key = v["name"].split(" (")[0]
    if key in want and v.get("advice"):
        v["advice"]["placement"] = want.pop(key)
if want:
    print("# not in the advice: %s; its variables: %s" % (sorted(want), [v["name"] for v in d["variables"]]))
    sys.exit(1)
json.dump(d, open(sys.argv[2], "w"))
EOF
rc=$?
check_if "the advice names table, hx and mp" '[ $rc = 0 ] || { sed "s/^/# /" base.err base.rerr; false; }'

# policy NAME VAR: the policy numa_maps shows for the mapping holding VAR's first page of its
# own (apply places only those: a page shared with a neighbour keeps the neighbour's)
policy() {
	python3 - "$1" "$2" <<'EOF'
import sys
name, var = sys.argv[1], sys.argv[2]
addr = ({l.split()[0]: int(l.split()[1], 16) for l in open(name + ".addrs")}[var] + 4095) & ~4095
start = None
for l in open(name + ".maps"):
    lo, hi = (int(x, 16) for x in l.split()[0].split("-"))
    if lo <= addr < hi:
        start = lo
for l in open(name + ".numa"):
    f = l.split()
    if int(f[0], 16) == start:
        print(f[1])
EOF
}
applied move --advice placed.json
check "placed: exit status 3" [ "$(cat move.rc)" = 3 ]
check "placed: the same output" cmp -s aplain.out move.out
check_if "placed: table is MPOL_PREFERRED on node 0 ($(policy move table))" '[ "$(policy move table)" = prefer:0 ]'
check_if "placed: hx is MPOL_PREFERRED on node 0 ($(policy move hx))" '[ "$(policy move hx)" = prefer:0 ]'
check_if "placed: hy, of the same call site but another chain, is not placed ($(policy move hy))" \
	'[ "$(policy move hy)" = default ]'
check_if "placed: mp is interleaved over node 0 ($(policy move mp))" '[ "$(policy move mp)" = interleave:0 ]'
check_if "placed: three mbind calls ($(mbinds move))" '[ "$(mbinds move)" = 3 ]'
check_if "placed: one line per variable, with its bytes" \
	'[ "$(grep -c "^memphis: apply: .*: [0-9]* bytes in 1 object$" move.err)" = 3 ] &&
	 grep -q "^memphis: apply: prog_place.c:table: partitioned over nodes 0 in 1 part: 1048576 bytes" move.err'

applied bind --advice placed.json --bind
check_if "--bind: table is MPOL_BIND on node 0 ($(policy bind table))" '[ "$(policy bind table)" = bind:0 ]'
check_if "--bind: mp is still interleaved ($(policy bind mp))" '[ "$(policy bind mp)" = interleave:0 ]'

# --plan: the plan memphis-report plan wrote, used as is; a damaged one places nothing
"$B/memphis-report" plan --exe "$PROG" placed.json >placed.plan 2>placed.plan.err
applied fromplan --plan placed.plan
check_if "--plan: the same three placements ($(mbinds fromplan) mbind calls)" \
	'[ "$(cat fromplan.rc)" = 3 ] && [ "$(mbinds fromplan)" = 3 ] && [ "$(policy fromplan hx)" = prefer:0 ]'
sed 's/^sym .*/sym zz 12/' placed.plan >damaged.plan
applied badplan --plan damaged.plan
check_if "--plan damaged: one line naming its line, nothing placed, the program as ever" \
	'[ "$(cat badplan.rc)" = 3 ] && cmp -s aplain.out badplan.out && [ "$(mbinds badplan)" = 0 ] &&
	 [ "$(grep -c .  badplan.err)" = 1 ] && grep -q "^memphis: MEMPHIS_PLACE: line [0-9]* is damaged: nothing is placed$" badplan.err'

# --weights: the kernel's weighted interleave where it has one with these weights (Linux
# 6.9: one node here, any weight is proportional), else stripes of MPOL_PREFERRED
applied weighted --advice placed.json --weights 0:2
if [ -d /sys/kernel/mm/mempolicy/weighted_interleave ]; then
	check_if "--weights: mp by the kernel's weighted interleave ($(policy weighted mp))" \
		'[ "$(policy weighted mp)" = "weighted" ] && grep -q "^memphis: apply: main::mp .*: interleaved over nodes 0, weighted 2 (the kernel.s weighted interleave): 1048576 bytes in 1 object$" weighted.err'
else
	check_if "--weights: mp by stripes, no weighted interleave in this kernel ($(policy weighted mp))" \
		'[ "$(policy weighted mp)" = prefer:0 ] && grep -q "weighted 2 (by stripes)" weighted.err'
fi

# The run directory as ADVICE: the plan made from it in memory (all local: nothing).
applied fromdir --advice base
check_if "a run directory as ADVICE: exit 3, no mbind call" \
	'[ "$(cat fromdir.rc)" = 3 ] && [ "$(mbinds fromdir)" = 0 ]'

# mbind refused (a seccomp filter, a cpuset): injected by strace
STRACE_MORE="-e inject=mbind:error=EPERM" applied refused --advice placed.json
check "mbind refused: exit status 3" [ "$(cat refused.rc)" = 3 ]
check "mbind refused: the same output" cmp -s aplain.out refused.out
check_if "mbind refused: one line" \
	'[ "$(grep -c . refused.err)" = 1 ] && grep -q "^memphis: apply: mbind refused (Operation not permitted): the program runs unplaced$" refused.err'
# a node this machine does not have: that variable alone is not placed
python3 -c 'import json, sys
d = json.load(open("placed.json"))
for v in d["variables"]:
    if v["name"] == "prog_place.c:table":
        v["advice"]["placement"]["block_nodes"] = [0, 0, 0, 0, 7, 7, 7, 7]
json.dump(d, open("node7.json", "w"))'
applied node7 --advice node7.json
check "a node not here: exit status 3, the same output" \
	sh -c '[ "$(cat node7.rc)" = 3 ] && cmp -s aplain.out node7.out'
check_if "a node not here: table placed in part, hx and mp placed" \
	'grep -q "^memphis: apply: prog_place.c:table: placed in part, partitioned over nodes 0,7 in 2 parts (mbind: Invalid argument)$" node7.err &&
	 [ "$(grep -c " bytes in 1 object$" node7.err)" = 2 ]'

# Fork and exec: the child runs the same lines, allocates from the same chains, and is not
# placed (its mbind calls would carry its pid in the strace log).
PROG_MORE=--exec applied child --advice placed.json
check "--exec: exit status 3, both outputs" \
	sh -c '[ "$(cat child.rc)" = 3 ] && grep -q "child sum" child.out && grep -q "parent sum" child.out'
callers() { grep 'mbind(' "$1.st" | cut -d' ' -f1 | sort -u | wc -l; }
check_if "--exec: the child makes no mbind call ($(callers child) callers)" \
	'[ "$(callers child)" = 1 ] && [ "$(mbinds child)" = 3 ]'
PROG_MORE=--exec applied children --advice placed.json --children
check_if "--exec --children: the child is placed too ($(mbinds children) calls)" \
	'[ "$(callers children)" = 2 ] && [ "$(mbinds children)" = 6 ]'

# A site the program never reaches (its chain changed): said once, at the end.
python3 -c 'import json
d = json.load(open("placed.json"))
for v in d["variables"]:
    if v["name"].startswith("main::hx "):
        v["site"]["chain"] = "1 2 - -"
json.dump(d, open("unreached.json", "w"))'
applied unreached --advice unreached.json
check_if "a site never reached: one line" \
	'[ "$(grep -c "main::hx .*: allocation site never reached: nothing placed$" unreached.err)" = 1 ]'

# Advice that cannot be used: exit 2, one line, the program not run
"$M" apply --advice placed.json -- "$B/tests/prog_gather" 1 1 >other.out 2>other.err
rc=$?
check_if "advice of another program: exit 2 with one line naming both ($rc)" \
	'[ $rc = 2 ] && [ "$(grep -c . other.err)" = 1 ] && grep -q "placed.json is the advice of .*prog_place .*, not of .*prog_gather" other.err && [ ! -s other.out ]'
head -c 5000 placed.json >damaged.json
"$M" apply --advice damaged.json -- "$PROG" $ASWEEPS >damaged.out 2>damaged.err
rc=$?
check_if "damaged advice: exit 2, the file and offset named ($rc)" \
	'[ $rc = 2 ] && [ "$(grep -c . damaged.err)" = 1 ] && grep -q "damaged.json: not valid JSON: .* at offset 5000" damaged.err'
"$M" apply --advice nosuch.json -- "$PROG" $ASWEEPS >nosuch.out 2>nosuch.err
rc=$?
check_if "missing advice: exit 2 naming it ($rc)" '[ $rc = 2 ] && grep -q "nosuch.json: No such file" nosuch.err'
"$B/memphis-report" plan --exe "$B/tests/prog_gather" --force placed.json >forced.plan 2>forced.err
check_if "--force with another program: nothing of it found, each said" \
	'[ "$(grep -c "^var " forced.plan)" = 0 ] && grep -q "warning: .* another build id" forced.err &&
	 grep -q "main::hx .*: prog_place.c:30 not found in this build: not placed$" forced.err &&
	 grep -q "prog_place.c:table: no such variable in .*prog_gather: not placed$" forced.err'

# A rebuilt program, three lines added above everything: refused without --force; with it,
# its static by name and its heap sites by their source lines, shifted (codefind.c)
mkdir -p shifted
{ printf '/* shifted */\n/* by */\n/* three */\n'; cat "$S/tests/programs/prog_place.c"; } >shifted/prog_place.c
if ${CC:-cc} -std=gnu11 -g -O2 -fopenmp -pthread -I"$S/include" shifted/prog_place.c -o place2 \
	-L"$B" -Wl,-rpath,"$B" -lmemphis -lnuma 2>place2.err; then
	"$M" apply --advice placed.json -- ./place2 $ASWEEPS >norebuilt.out 2>norebuilt.err
	rc=$?
	check_if "a rebuilt program without --force: exit 2, one line ($rc)" \
		'[ $rc = 2 ] && [ "$(grep -c . norebuilt.err)" = 1 ] && grep -q "is the advice of .*prog_place .*, not of .*place2" norebuilt.err'
	PROG=./place2 applied rebuilt --advice placed.json --force
	check_if "rebuilt, --force: exit 3, the same output" '[ "$(cat rebuilt.rc)" = 3 ] && cmp -s aplain.out rebuilt.out'
	check_if "rebuilt, --force: table, hx and mp placed, hy not ($(policy rebuilt table) $(policy rebuilt hx) $(policy rebuilt hy) $(policy rebuilt mp))" \
		'[ "$(policy rebuilt table) $(policy rebuilt hx) $(policy rebuilt hy) $(policy rebuilt mp)" = "prefer:0 prefer:0 default interleave:0" ]'
	check_if "rebuilt, --force: the shifted lines said (prog_place.c:30 -> 33, :61 -> 64, :63 -> 66)" \
		'grep -q "main::hx .*: prog_place.c:30 is at line 33 in this build$" rebuilt.err &&
		 grep -q "main::hx .*: prog_place.c:61 is at line 64 in this build$" rebuilt.err &&
		 grep -q "main::mp .*: prog_place.c:63 is at line 66 in this build$" rebuilt.err'
else
	skip "a rebuilt program placed with --force" "cannot build it: $(head -n 1 place2.err)"
fi
# ... and built with -fno-plt: its calls to malloc and mmap are "call *GOT" (no PLT stub)
if ${CC:-cc} -std=gnu11 -g -O2 -fno-plt -fopenmp -pthread -I"$S/include" shifted/prog_place.c \
	-o place3 -L"$B" -Wl,-rpath,"$B" -lmemphis -lnuma 2>place3.err; then
	PROG=./place3 applied noplt --advice placed.json --force
	check_if "rebuilt -fno-plt, --force: exit 3, the same output" '[ "$(cat noplt.rc)" = 3 ] && cmp -s aplain.out noplt.out'
	check_if "rebuilt -fno-plt, --force: table, hx and mp placed, hy not ($(policy noplt table) $(policy noplt hx) $(policy noplt hy) $(policy noplt mp))" \
		'[ "$(policy noplt table) $(policy noplt hx) $(policy noplt hy) $(policy noplt mp)" = "prefer:0 prefer:0 default interleave:0" ]'
else
	skip "a rebuilt -fno-plt program placed with --force" "cannot build it: $(head -n 1 place3.err)"
fi

# --profile: the run shows the placement and its pages
RUN_SWEEPS=$SWEEPS applied prof --advice placed.json --profile -p 250us -o prof.run
"$REPORT" prof.run >prof.txt 2>prof.rerr
"$REPORT" --json prof.run >prof.json 2>>prof.rerr
check_if "--profile: exit 3, the same output, a run directory" \
	'[ "$(cat prof.rc)" = 3 ] && cmp -s plain.out prof.out && [ -f prof.run/meta.mph ]'
check_if "--profile: the header shows each placement" \
	'[ "$(grep -c "^placement (memphis apply): " prof.txt)" = 3 ] &&
	 grep -q "^placement (memphis apply): prog_place.c:table: partitioned over node 0, 1048576 bytes in 1 object; its [0-9]* sampled pages: node 0 100 %" prof.txt'
python3 - prof.json <<'EOF' >prof.check
import json, sys
p = json.load(open(sys.argv[1]))["run"]["placement"]
got = sorted((e["variable"].split(" (")[0], e["policy"], e["nodes"], e["status"]) for e in p)
want = [("main::hx", "move", [0], "placed"), ("main::mp", "interleave", [0], "placed"),
        ("prog_place.c:table", "partitioned", [0], "placed")]
print("ok" if got == want else "got %s" % got)
EOF
check_if "--profile: JSON run.placement ($(cat prof.check))" '[ "$(cat prof.check)" = ok ]'

# Fortran COMMON: /grid/ u placed by its name, at the address of the block's symbol
if command -v gfortran >/dev/null && gfortran -g -O1 -fopenmp -o place_f "$S/tests/fixtures/place_f.f90" 2>fc.err; then
	MEMPHIS_PERIOD=250us "$M" run -o fbase -- ./place_f >fbase.out 2>fbase.err
	"$REPORT" --json --advice --all --top 0 fbase >fbase.json 2>/dev/null
	python3 -c 'import json
d = json.load(open("fbase.json"))
n = [v for v in d["variables"] if v["name"] == "grid/u" and v.get("advice")]
for v in n:
    v["advice"]["placement"] = {"policy": "move", "nodes": [0]}
json.dump(d, open("fplaced.json", "w"))
print(len(n))' >fnames
	check_if "Fortran: the advice names grid/u" '[ "$(cat fnames)" = 1 ]'
	SHIM_NUMAMAPS=$PWD/fort strace -E LD_PRELOAD=$B/tests/shim_numamaps.so -f -qq -o fort.st -e trace=mbind \
		"$M" apply --advice fplaced.json -- ./place_f >fort.out 2>fort.err
	python3 - <<'EOF' >fort.check
import re, subprocess
sym = [l.split() for l in subprocess.run(["nm", "place_f"], capture_output=True, text=True).stdout.splitlines()]
grid = [int(f[0], 16) for f in sym if len(f) == 3 and f[2] == "grid_"][0]
base = None
for l in open("fort.maps"):
    f = l.split()
    if f[-1].endswith("/place_f") and int(f[2], 16) == 0:
        base = int(f[0].split("-")[0], 16)
        break
calls = [int(m.group(1), 16) for m in re.finditer(r"mbind\((0x[0-9a-f]+)", open("fort.st").read())]
want = (base + grid + 4095) & ~4095  # its first page of its own
print("ok" if calls == [want] else "calls %s, want %#x" % ([hex(c) for c in calls], want))
EOF
	check_if "Fortran: one mbind at /grid/'s address ($(cat fort.check))" '[ "$(cat fort.check)" = ok ]'
	check_if "Fortran: the same output, one line for grid/u" \
		'cmp -s fbase.out fort.out && grep -q "^memphis: apply: grid/u: moved to node 0: 8388608 bytes in 1 object$" fort.err'
else
	skip "Fortran COMMON placed by name" "no gfortran: $(head -n 1 fc.err 2>/dev/null)"
fi
# --kernel-weights (issue 44): the plan's weights written as the kernel's (here a directory
# standing in for /sys/kernel/mm/mempolicy/weighted_interleave), the lines they fit told
# "weights kernel" in the plan the library gets; where they cannot be written, one line
# and stripes
printf 'memphis-plan 1\nnodes 0 1 2\nweights 2 2 1\nnodes 0 2\nweights 3 1\n' > kw.plan
mkdir kw
MEMPHIS_WEIGHTED_INTERLEAVE=$PWD/kw "$M" apply --plan kw.plan --kernel-weights -- \
	sh -c 'printf "%s" "$MEMPHIS_PLACE"' > kw.out 2> kw.err
check_if "--kernel-weights: the weights written (node0 2, node1 2, node2 1), their line told kernel, a conflicting one left to stripes" \
	'[ "$(cat kw/node0 kw/node1 kw/node2 | tr "\n" " ")" = "2 2 1 " ] &&
	 grep -qx "weights kernel 2 2 1" kw.out && grep -qx "weights 3 1" kw.out &&
	 grep -q "^memphis: apply: the kernel.s weighted-interleave weights set (system-wide, in .*/kw, until changed): node0 2, node1 2, node2 1\$" kw.err'
MEMPHIS_WEIGHTED_INTERLEAVE=$PWD/none "$M" apply --plan kw.plan --kernel-weights -- \
	sh -c 'printf "%s" "$MEMPHIS_PLACE"' > kw2.out 2> kw2.err
check_if "--kernel-weights where they cannot be set: one line naming the file, the plan unchanged" \
	'cmp -s kw.plan kw2.out && grep -q "^memphis: apply: --kernel-weights: .*/none/node0: No such file or directory (root sets them, on Linux 6.9 or later): the weights go by stripes\$" kw2.err'
done_testing
