#!/bin/sh
# tests/vm/run.sh [BUILD] - the NUMA guest tests, as TAP on stdout.
# setup.sh (packages, kernels) -> for each kernel: mkinitramfs.sh (BUILD's memphis goes in
# when built, with the module built against that kernel's headers) -> boot.sh for each
# topology -> one TAP line per in-guest check, then each guest-tests/NAME.host.sh on the
# run directories brought back. The newest kernel runs every guest test in each topology of
# $VM_TOPOLOGIES (default "2x2 4x1 2x2m1"; one with memory-only nodes, NxCmM, runs only
# $VM_TIER_ONLY, default "tiers*"); each older one (Debian 12: 6.1 beside 6.12) runs the
# module's tests and the smoke test ($VM_OTHER_ONLY, default "kmod*,smoke") in
# $VM_OTHER_TOPOLOGIES (default "2x2"). $VM_ONLY, when set, applies to every kernel.
# Exit 0 when everything passed, 1 on any failure, 77 (reason on stderr, last line) when
# this host cannot run the guests (not root and packages missing, kernel image not
# downloadable), MEMPHIS_VM=0, or another run in the same checkout kept the cache locked
# for VM_LOCK_WAIT (300) s. MEMPHIS_VM_REQUIRED=1 (for CI) turns every such skip but
# MEMPHIS_VM=0 into a failure.
# Logs and the guests' /out stay in tests/vm/cache/work-KERNEL-TOPOLOGY/.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/guest-lib.sh" # vm_only
build=${1:-build}
cache=${VM_CACHE:-$here/cache}
export VM_CACHE=$cache

# skip WHY: exit 77, or fail where skipping is not acceptable (CI sets MEMPHIS_VM_REQUIRED=1).
skip() {
	if [ "${MEMPHIS_VM_REQUIRED:-0}" = 1 ]; then
		echo "not ok 1 - vm: cannot run the guests, and MEMPHIS_VM_REQUIRED=1: $*"
		echo "vm: $*" >&2
		exit 1
	fi
	echo "1..0 # SKIP $*"
	echo "vm: $*" >&2
	exit 77
}
[ "${MEMPHIS_VM:-1}" = 0 ] && MEMPHIS_VM_REQUIRED=0 skip "VM tests disabled by MEMPHIS_VM=0"
[ "$(uname -m)" = x86_64 ] || skip "the guests are x86_64 only"
[ -d "$build" ] && build=$(cd "$build" && pwd)
t0=$(date +%s)

# One run at a time per cache (several engineers run make check in one checkout): the
# cache's kernel, initramfs and work directories are shared.
mkdir -p "$cache" && [ -w "$cache" ] || skip "cannot write to $cache"
exec 9> "$cache/.lock"
if ! flock -w "${VM_LOCK_WAIT:-300}" 9; then
	# Same checkout, same code, tested by that run right now: not a failure of this tree.
	skip "another VM run in this checkout held $cache/.lock for ${VM_LOCK_WAIT:-300} s"
fi

kvers=$(timeout 900 sh "$here/setup.sh" "$cache" 2> "$cache/setup.log")
rc=$?
if [ "$rc" != 0 ]; then
	[ "$rc" = 77 ] && skip "$(tail -n 1 "$cache/setup.log" | sed 's/^vm: //')"
	cat "$cache/setup.log" >&2
	echo "not ok 1 - vm: setup.sh failed (exit $rc)"
	exit 1
fi
newest=$(printf '%s\n' $kvers | tail -n 1)
memphis=no
[ -f "$build/libmemphis.so" ] && memphis=yes

n=0
failed=0
# tap FILE TOPOLOGY: turn "@@VM" lines into numbered TAP lines.
tap() {
	while IFS= read -r line; do
		case $line in
		"@@VM ok - "*) n=$((n + 1)); echo "ok $n - [$2] ${line#@@VM ok - }" ;;
		"@@VM not ok - "*) n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - [$2] ${line#@@VM not ok - }" ;;
		"@@VM # "*) echo "# [$2] ${line#@@VM # }" ;;
		"@@VM-HOST "*) echo "# ${line#@@VM-HOST }" ;;
		esac
	done < "$1"
}

# The newest kernel first: its full suite is what most tests are about.
for kver in $newest $(printf '%s\n' $kvers | sed '$d'); do
	initrd=$cache/initramfs-$kver.cpio.gz
	if ! out=$(timeout 300 sh "$here/mkinitramfs.sh" "$initrd" "$build" "$kver" 2>&1); then
		n=$((n + 1))
		failed=$((failed + 1))
		echo "not ok $n - vm: mkinitramfs.sh for $kver failed"
		printf '%s\n' "$out" | sed 's/^/# /'
		continue
	fi
	ko=no
	[ -f "$build/kmod/$kver/memphismod.ko" ] && ko="$kver's build (vermagic $(modinfo -F vermagic "$build/kmod/$kver/memphismod.ko" 2>/dev/null | cut -d' ' -f1))"
	if [ "$kver" = "$newest" ]; then
		topos=${VM_TOPOLOGIES:-2x2 4x1 2x2m1}
		only=${VM_ONLY:-}
	else
		topos=${VM_OTHER_TOPOLOGIES:-2x2}
		only=${VM_ONLY:-${VM_OTHER_ONLY:-kmod*,smoke}}
	fi
	echo "# vm: kernel $kver, initramfs $(($(wc -c < "$initrd") / 1024)) KiB, memphis build packed: $memphis, module: $ko, guest tests: ${only:-all}"
	for topo in $topos; do
		label="$topo $kver"
		tonly=$only
		case $topo in # memory-only nodes: their own tests (and the smoke checks)
		*m*) tonly=${VM_ONLY:-${VM_TIER_ONLY:-tiers*}} ;;
		esac
		work=$cache/work-$kver-$topo
		log=$cache/boot-$kver-$topo.log
		tb=$(date +%s)
		VM_ONLY=$tonly sh "$here/boot.sh" "$topo" --kernel "$kver" --initrd "$initrd" --work "$work" \
			> "$log" 2> "$log.err"
		rc=$?
		if [ "$rc" != 0 ]; then
			# The boot failed: the guest fell silent (boot.sh's silence watch; the int3
			# loop vmkeep.c tells of, or whatever else stops a guest), QEMU crashed or ran
			# out of time, or results were lost on the way (boot.sh's status line says
			# which). The guest's own checks cannot fail a boot: they are results. What
			# it showed is kept as notes, and it boots once more; a second failure fails
			# the run. (CI's 4x1 boot failed in two runs in a row, for a cause the log's
			# tail did not show.)
			case $rc in
			3) why="the guest fell silent" ;;
			4) why="QEMU crashed" ;;
			*) why="the boot failed (boot.sh exit $rc)" ;;
			esac
			echo "# [$label] $why; its last lines and state, then a second boot:"
			{ grep -o '@@VM.*' "$log" | tail -n 3; cat "$log.err"; } | sed 's/^/#   /'
			rm -rf "$work.first" && mv "$work" "$work.first"
			VM_ONLY=$only sh "$here/boot.sh" "$topo" --kernel "$kver" --initrd "$initrd" \
				--work "$work" > "$log" 2> "$log.err"
			rc=$?
		fi
		tap "$log" "$label"
		echo "# [$label] boot to power-off: $(($(date +%s) - tb)) s"
		n=$((n + 1))
		if [ "$rc" = 0 ]; then
			echo "ok $n - [$label] guest ran to its final marker, no result lost, results intact"
		else
			failed=$((failed + 1))
			echo "not ok $n - [$label] guest ran to its final marker, no result lost, results intact"
			sed 's/^/# /' "$log.err"
			continue
		fi
		# Host halves of the memphis tests, on the run directories the guest sent back.
		for h in "$here"/guest-tests/*.host.sh; do
			[ -f "$h" ] || continue
			name=$(basename "$h" .host.sh)
			vm_only "$name" "$tonly" || continue
			VM_TOPO=$topo VM_KERNEL=$kver VM_OUT=$work/out/$name VM_TEST_NAME=$name \
				VM_LIB=$here/guest-lib.sh VM_RESULTS=$work/host-results MEMPHIS_BUILD=$build \
				MEMPHIS_SRC=$(dirname "$(dirname "$here")") \
				timeout 300 sh "$h" > "$work/host-$name.log" 2>&1
			hrc=$?
			before=$n
			tap "$work/host-$name.log" "$label host"
			if [ "$hrc" != 0 ] || [ "$n" = "$before" ]; then
				n=$((n + 1))
				failed=$((failed + 1))
				echo "not ok $n - [$label host] $name.host.sh ran and reported (exit status $hrc)"
				tail -n 20 "$work/host-$name.log" | sed 's/^/# /'
			fi
		done
	done
done
echo "1..$n"
echo "# vm: $n checks, $failed failed, $(($(date +%s) - t0)) s in all"
[ "$failed" = 0 ]
