# tiers.guest.sh - a guest with a memory-only node (topology NxCmM, boot.sh: HMAT figures of a
# CXL expander): what the kernel says of it, and a run whose arrays the master first
# touched on that node (numactl --membind), for the report's node kinds (issue 44).
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
