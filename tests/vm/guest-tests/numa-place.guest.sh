# numa-place.guest.sh - issue 42: `memphis apply` in the 2-node guest, one OpenMP thread per
# node. Each workload's advice is made here, as a user makes it (memphis-report --json
# --advice of a profiled run), then the workload runs under `memphis apply --profile` with
# tests/programs/shim_numamaps.so preloaded, which writes where the kernel put its pages
# (numa_maps, and move_pages(2) for the plan's statics): numa-place.host.sh checks them.
#   cg       examples/cg master-initialised, numa-cg's run (a, colidx: partitioned statics)
#   gather   prog_gather, numa-advice's run (main::x: a heap array, interleave; and
#            weighted 3:1 by stripes, 1:1 by the kernel's weighted interleave)
#   ocean    examples/fortran/ocean, fortran's run (COMMON arrays hycom1r/dp, /temp)
#   place    prog_place, profiled here (a static, a heap array behind a wrapper, an mmap'd
#            array: partitioned)
# An earlier test's run that is missing is made here. The applied runs take the earlier
# runs' settings (numa-lib.sh; gather and ocean their own, as there).
# Its ten programs under single-stepping took 484 s in the 2x2 guest on an AMD EPYC VM
# (a paravirtual host, TCG), where 480 s was the limit.
# vm-limit: 720
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "memphis apply checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
M=$MEMPHIS_BUILD/memphis
WIDE="taskset -c 0-$((${VM_NODES:-1} * ${VM_CPUS_PER_NODE:-1} - 1))"
R=$MEMPHIS_BUILD/memphis-report
SHIM=$MEMPHIS_BUILD/tests/shim_numamaps.so

# base NAME EARLIER CMD...: the run the advice comes from: EARLIER when an earlier test left
# it, else CMD run here as NAME-base; its path into $base
base() {
	name=$1 earlier=$2
	shift 2
	base=$earlier
	[ -f "$base/meta.mph" ] && return
	base=$VM_OUT/$name-base # before run, which sets name
	run "$name-base" "$@"
}
# apply NAME CMD...: NAME's advice made from $base and its plan (memphis-report plan, with
# $PLAN_OPTS), then CMD under memphis apply --plan --profile (run directory $VM_OUT/NAME,
# the shim's $VM_OUT/NAME.{maps,numa,pages}). The program must be exec'd on CPU 0, as $ON0
# does for the runs the advice comes from: the main thread's first stack pages land where
# the exec runs. The launcher stays on CPU 0 and execs busybox's taskset ($WIDE), which
# widens the mask and execs CMD at once (a static program: the launcher says it cannot
# preload it; CMD gets the preload and the plan from the environment). Made inside the
# single-stepped run by memphis apply --advice, the plan took long enough for the launcher
# to wake on node 1 and exec there; with only its exec after `$ON0` it did once too: the
# main thread's stack on node 1, node 0's accesses to it all remote (cg's compare then
# judged node 0 regressed).
apply() {
	name=$1
	shift
	if ! "$R" --json --advice "$base" > "$VM_OUT/$name.advice.json" 2> "$VM_OUT/$name.advice.err" ||
		! "$R" plan --exe "$1" $PLAN_OPTS "$VM_OUT/$name.advice.json" > "$VM_OUT/$name.plan" \
			2>> "$VM_OUT/$name.advice.err"; then
		vm_result fail "$name: the advice and plan of $base ($(tail -n 1 "$VM_OUT/$name.advice.err"))"
		return
	fi
	# env: assignments before a shell function may outlive it
	run "$name" taskset -c 0 env SHIM_NUMAMAPS="$VM_OUT/$name" PLACE_ADDRS="$VM_OUT/$name.addrs" \
		LD_PRELOAD="$SHIM" $PIN "$M" apply --plan "$VM_OUT/$name.plan" --profile -- $WIDE "$@"
}

# timed NAME CMD...: 4 unprofiled runs of CMD plain and under memphis apply (NAME's advice),
# interleaved as memphis tune runs them, not single-stepped; NAME.times as tune writes it
# (the host judges them with memphis-report tune: numa-place.host.sh)
timed() {
	name=$1
	shift
	: > "$VM_OUT/$name.times"
	for i in 1 2 3 4; do
		order="plain applied"
		[ $((i % 2)) = 0 ] && order="applied plain"
		for k in $order; do
			t0=$(cut -d' ' -f1 /proc/uptime)
			if [ "$k" = plain ]; then # cg profiles itself unless the library is off
				MEMPHIS_DISABLE=1 $ON0 "$@" > /dev/null 2>&1
			else
				taskset -c 0 "$M" apply --plan "$VM_OUT/$name.plan" -- $WIDE "$@" > /dev/null 2>&1
			fi
			rc=$?
			echo "$k $(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }') $rc" >> "$VM_OUT/$name.times"
		done
	done
}

CG="$MEMPHIS_BUILD/examples/cg/cg $CG_SIZE"
base cg "$VM_OUT/../numa-cg/cg-master" $ON0 $CG
apply cg $CG
timed cg $CG

export MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD=1ms # as numa-advice.guest.sh runs it, and why
base gather "$VM_OUT/../numa-advice/gather" $ON0 "$MEMPHIS_BUILD/tests/prog_gather" 24 1
# gather's tune judges node 0 on what main::x leaves: a dozen samples of the master's stack
# and libc's data. Single-stepped, the master's start (the loader, the constructors) ran
# long enough on node 1 before libgomp bound it to CPU 0 to put 3 of its 11 stack pages
# there (9 of node 0's 11 other samples remote: "regressed"; the check failed in both
# numa-place runs of stop 61). Its memory goes to node 0 by default, as in the advice's
# run; main::x has its own policy.
PIN="numactl --preferred=0"
apply gather "$MEMPHIS_BUILD/tests/prog_gather" 24 1
PIN=
# weighted: 3:1 by stripes (this kernel's weights are its default 1:1), 1:1 the kernel's own
PLAN_OPTS="--weights 0:3,1:1" apply gather-w31 "$MEMPHIS_BUILD/tests/prog_gather" 24 1
PLAN_OPTS="--weights 0:1,1:1" apply gather-w11 "$MEMPHIS_BUILD/tests/prog_gather" 24 1
unset MEMPHIS_STACK_BYTES
export MEMPHIS_PERIOD=250us

OCEAN=$MEMPHIS_BUILD/examples/fortran/ocean
if [ -x "$OCEAN" ]; then
	base ocean "$VM_OUT/../fortran/ocean" $ON0 "$OCEAN" -n 200000 -s 16
	apply ocean "$OCEAN" -n 200000 -s 16
else
	vm_result skip "ocean under memphis apply" "examples/fortran/ocean was not built"
fi

# prog_place: all of its 1 MiB arrays, 32 sweeps (with 512 KiB of an 8 MiB static array and
# 16 sweeps it had 48 samples, under the advice's 50, and in 32 KiB blocks its threads'
# ranges overlapped by more than a block once: interleave); exit 0 for run
export PLACE_EXIT=0
base place "" $ON0 "$M" run -- "$MEMPHIS_BUILD/tests/prog_place" 32 1024 # no region of its own
# The applied run at 1 ms: only where its pages are is judged. At 250 us it took 80 s
# (22,597 to 30,020 samples kept of 54,158 to 104,370) on an idle host, 215-220 s beside
# two CPU hogs, and passed run's 150 s in a CI run: a single-stepped guest pays the
# kernel's sampling for every sample taken, kept or lost, and takes more the longer it
# runs. At 1 ms: 19-21 s, and each array 117-247 sampled pages (place_check.py wants 20).
export MEMPHIS_PERIOD=1ms
apply place "$MEMPHIS_BUILD/tests/prog_place" 32 1024
