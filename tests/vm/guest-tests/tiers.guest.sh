# tiers.guest.sh - a guest with a memory-only node (topology NxCmM, boot.sh: HMAT figures of a
# CXL expander): what the kernel says of it, and a run whose arrays the master first
# touched on that node (numactl --membind), for the report's node kinds (issue 44). Then
# the tier plan carried out: prog_tiers (a hot 32 MiB array every thread streams, a cold
# 512 MiB one) first touched on the memory-only node (its own MPOL_BIND), profiled; its
# advice over the streaming region at three budgets, each plan run under memphis apply,
# the program printing where its pages went and the policy get_mempolicy(2) reads back:
#   128M  the hot array in the fast tier, the cold one left (profiled: compare's input)
#   16M   smaller than the hot array: its first 16 MiB on a fast node, the rest far
#   28M   the shared stream weighted-interleaved 2:2:1 by the HMAT bandwidths, the
#         kernel's weights set (apply --kernel-weights) and read back
# tiers.host.sh checks them.
# vm-limit: 600
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
if [ "${VM_MEM_NODES:-0}" = 0 ]; then
	vm_result skip "memory tiers" "they run in a guest with a memory-only node (2x2m1)"
	exit 0
fi
far=$VM_NODES # the first memory-only node
for f in /sys/devices/system/node/node$far/cpulist \
	/sys/devices/system/node/node$far/access0/initiators/read_latency \
	/sys/devices/system/node/node$far/access0/initiators/read_bandwidth; do
	vm_note "$f: $(cat "$f" 2>&1)"
done
vm_note "memory tiers: $(for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	printf '%s=%s ' "${t##*/}" "$(cat "$t/nodelist")"; done 2>&1)"
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}" MEMPHIS_PERIOD=1ms
run tiers $ON0 numactl --membind=$far "$MEMPHIS_BUILD/tests/prog_members" 8

# the tier plan (items 3, 4). prog_tiers stops itself after its first touches and after
# its region (--pause): only the region is single-stepped (zeroing its 544 MiB one
# instruction at a time would take longer than a run may; without single-stepping a sample
# is taken at a block's start, whose instruction before is the branch that led there).
# stopped PID: wait (150 s at most) until PID has stopped itself; false if it ended
stopped() {
	i=0
	while [ $i -lt 150 ]; do
		grep -q "^State:.*T" "/proc/$1/status" 2> /dev/null && return 0
		kill -0 "$1" 2> /dev/null || return 1
		sleep 1
		i=$((i + 1))
	done
	return 1
}
# paused NAME CMD...: CMD (prog_tiers ...) with --pause, its region single-stepped
paused() {
	name=$1
	shift
	rm -f "$VM_OUT/$name.pid"
	MEMPHIS_OUTPUT="$VM_OUT/$name" "$@" --pause "$VM_OUT/$name.pid" > "$VM_OUT/$name.out" \
		2> "$VM_OUT/$name.err" &
	bg=$!
	i=0
	while [ ! -s "$VM_OUT/$name.pid" ] && kill -0 $bg 2> /dev/null && [ $i -lt 150 ]; do
		sleep 1
		i=$((i + 1))
	done
	pid=$(cat "$VM_OUT/$name.pid" 2> /dev/null)
	if [ -n "$pid" ] && stopped "$pid" && vm_singlestep on; then
		kill -CONT "$pid"
		stopped "$pid"
		vm_singlestep off
		kill -CONT "$pid"
	fi
	wait $bg
	rc=$?
	if [ "$rc" = 0 ] && grep -q "^hot " "$VM_OUT/$name.out"; then
		vm_result ok "$name runs in the $VM_TOPO guest"
	else
		vm_note "$name: exit $rc: $(tail -n 2 "$VM_OUT/$name.err")"
		vm_result fail "$name runs in the $VM_TOPO guest"
	fi
}
R=$MEMPHIS_BUILD/memphis-report
M=$MEMPHIS_BUILD/memphis
WIDE="taskset -c 0-$((${VM_NODES:-1} * ${VM_CPUS_PER_NODE:-1} - 1))"
# 20 ms: single-stepped, 1 ms of a thread's clock is some 2,500 instructions, fewer than
# the drain takes for a sample (the decode, the page's node): at 1 ms this run lost 1,704 of
# 2,345 samples, at 20 ms none. 24 rounds gave 537-1,164 samples, a quarter to a half of
# them on hot. The advice calls cold cold (the slow tier: the 128M checks) when its samples
# per MiB stay under a tenth of the mean, here under 0.104 of hot's samples, and cold needs
# one sample to be in the advice at all. A cold read touches a new page, which costs QEMU a
# TLB refill: cold's samples are not its 2 % of the accesses. Base runs of 24 rounds: 39
# cold samples to 345 hot with half of cold read each round (--slice 2; 0.113: the check
# failed), 7 to 136 with a fifth (0.051); 48 and 96 rounds, a sixth: 13 to 583 (0.022),
# 13 to 775 (0.017). Scaled to a fifth: 0.020-0.052 of hot's samples; 96 rounds give
# 540-1,380 of those: 11 to 72 cold samples expected, none or over 0.104 of hot's each
# below 2e-5 (Poisson; four runs are all the ratio rests on)
TIERS="$MEMPHIS_BUILD/tests/prog_tiers 96 --far $far --slice 5"
export MEMPHIS_PERIOD=20ms
paused tiers-base $ON0 $TIERS
for b in 128M 16M 28M; do
	"$R" --json --advice --region tiers --tier-budget $b "$VM_OUT/tiers-base" \
		> "$VM_OUT/tiers-$b.advice.json" 2> "$VM_OUT/tiers-$b.advice.err"
	"$R" --advice --region tiers --tier-budget $b "$VM_OUT/tiers-base" \
		> "$VM_OUT/tiers-$b.advice.txt" 2>> "$VM_OUT/tiers-$b.advice.err"
	"$R" plan --exe "$MEMPHIS_BUILD/tests/prog_tiers" "$VM_OUT/tiers-$b.advice.json" \
		> "$VM_OUT/tiers-$b.plan" 2>> "$VM_OUT/tiers-$b.advice.err"
done
paused tiers-128M taskset -c 0 "$M" apply --plan "$VM_OUT/tiers-128M.plan" --profile -- $WIDE $TIERS
paused tiers-16M taskset -c 0 "$M" apply --plan "$VM_OUT/tiers-16M.plan" -- $WIDE $TIERS
wi=/sys/kernel/mm/mempolicy/weighted_interleave
vm_note "weighted interleave before: $(cat $wi/node* 2>&1 | tr '\n' ' ')"
paused tiers-28M taskset -c 0 "$M" apply --plan "$VM_OUT/tiers-28M.plan" --kernel-weights -- $WIDE $TIERS
for n in 0 1 2; do cat $wi/node$n; done > "$VM_OUT/tiers-28M.weights" 2>&1
for n in 0 1 2; do echo 1 > $wi/node$n; done 2> /dev/null # the guest's default again
