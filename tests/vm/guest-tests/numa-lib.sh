# numa-lib.sh - shared by the numa-*.guest.sh / numa-*.host.sh tests (sourced after $VM_LIB).
# Guest: run NAME CMD... runs one workload single-stepped (timer samples then carry exact
# addresses, shared/VM-RECIPE.md) with its run directory in $VM_OUT/NAME.
# Host: judge NAME CHECK [ARGS] runs memphis-report --json (with --all, and the default
# remote tables) on it and reports the checks of numa_check.py as results (results).
# Per thread, as these checks' sample minimums were tuned: single-stepped, events per CPU
# (what auto takes as root) gave cg-master about half the samples (1,216-1,421 against
# 2,887) and once 14 of `a` on node 1 where 20 are needed.
export MEMPHIS_SCOPE=thread MEMPHIS_PERIOD=250us OMP_PROC_BIND=true OMP_WAIT_POLICY=passive
CG_SIZE="-n 4000 -i 4"  # ~20 s single-stepped (TCG runs ~1.4 M instructions/s so)
# Guest: `run NAME $ON0 CMD...` execs CMD on CPU 0 (node 0), then widens the mask again for
# the places: the master's first stack pages are placed where execve runs, before libgomp
# binds it to CPU 0. Without it the exec ran on the shell's CPU, the master's stack landed
# on node 1 in some runs, and node 0's remote share of identical runs differed by 25 points
# (compare's guest check). (busybox taskset: numactl cannot widen a mask it was started in.)
ON0="taskset -c 0 taskset -c 0-$((${VM_NODES:-1} * ${VM_CPUS_PER_NODE:-1} - 1))"

# A run's limit. The longest of numa-place's applied runs, ocean's, took 65 to 130 s on an
# idle host (the watch's 30 s snapshots), and CI's guest once ran 1.45 times as slow as
# that host's: there prog_place's applied run passed the 150 s this was.
RUN_LIMIT=240
run() {
	name=$1
	shift
	vm_singlestep on || return 1
	run_t0=$(cut -d' ' -f1 /proc/uptime)
	MEMPHIS_OUTPUT="$VM_OUT/$name" timeout -k 5 "$RUN_LIMIT" "$@" > "$VM_OUT/$name.out" 2> "$VM_OUT/$name.err"
	rc=$?
	vm_singlestep off
	run_s=$(awk -v a="$run_t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }')
	if [ "$rc" = 0 ] && [ -f "$VM_OUT/$name/meta.mph" ]; then
		vm_result ok "$name runs under memphis in the $VM_TOPO guest"
		vm_note "$name: $run_s s"
	else
		vm_result fail "$name runs under memphis in the $VM_TOPO guest"
		# after the result: a CI log's tail shows the lines that follow a failure
		vm_note "$name: exit $rc after $run_s s (limit $RUN_LIMIT s): $(tail -n 2 "$VM_OUT/$name.err" | tr "\n" " ")"
	fi
}

judge() {
	name=$1
	shift
	if [ ! -d "$VM_OUT/$name" ]; then
		vm_result fail "$name: no run directory came back from the guest"
		return
	fi
	R="$MEMPHIS_BUILD/memphis-report"
	"$R" --all --json --top 1000 "$VM_OUT/$name" > "$VM_OUT/$name.json" 2> "$VM_OUT/$name.report.err"
	"$R" --json --top 1000 "$VM_OUT/$name" > "$VM_OUT/$name.remote.json" 2>> "$VM_OUT/$name.report.err"
	python3 "$MEMPHIS_SRC/tests/vm/guest-tests/numa_check.py" "$VM_OUT/$name.json" \
		"$VM_OUT/$name.remote.json" "$@" > "$VM_OUT/$name.check" 2>&1
	results "$name" "$VM_OUT/$name.check"
}

# results TAG FILE: a checker's "ok DESC" / "fail DESC" lines as results, the rest as notes,
# each prefixed with [TAG].
results() {
	while IFS= read -r line; do
		case $line in
		ok\ *) vm_result ok "[$1] ${line#ok }" ;;
		fail\ *) vm_result fail "[$1] ${line#fail }" ;;
		*) vm_note "[$1] $line" ;;
		esac
	done < "$2"
}

# Host: share JSON: node 1's remote share of run JSON (--all --json): "PERCENT REMOTE TOTAL",
# its samples on node 1's CPUs whose page is on node 0, of those on node 0 or 1; with
# PLACED (names, tab-separated) only those variables'
share() {
	python3 -c 'import json, os, sys
d = json.load(open(sys.argv[1]))
only = [n for n in os.environ.get("PLACED", "").split("\t") if n]
rem = tot = 0
for v in d["variables"]:
    if only and v["name"] not in only:
        continue
    row = v["matrix"]["counts"][1]
    tot += row[0] + row[1]
    rem += row[0]
print("%.1f %d %d" % (100.0 * rem / tot if tot else -1, rem, tot))' "$1"
}
