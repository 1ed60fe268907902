#!/bin/sh
# /init of the memphis NUMA test guest (packed by tests/vm/mkinitramfs.sh).
# Mounts the pseudo file systems, prepares the kernel for the tests, runs (sources)
# /vm/guest-run.sh, writes /out (the tests' run directories) as a tar to the virtio disk
# for the host, prints the final marker "@@VM-DONE" and powers off. The host judges the
# run only by the "@@VM" lines (QEMU exits 0 on a panic too).
export PATH=/vm/bin:/usr/bin:/usr/sbin HOME=/tmp TMPDIR=/tmp VM_RESULTS=/tmp/vm-results
export VM_LIB=/vm/guest-lib.sh
. /vm/env # MEMPHIS_BUILD=... when the library was packed in
[ -n "${MEMPHIS_BUILD:-}" ] && export MEMPHIS_BUILD
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
# /tmp stays the initramfs (writable) when the packed build lives under it (a checkout in
# /tmp); either way it must be world-writable and sticky like a tmpfs /tmp.
[ -n "$(ls -A /tmp 2>/dev/null)" ] || mount -t tmpfs tmpfs /tmp
chmod 1777 /tmp
exec </dev/console >/dev/console 2>&1
echo "@@VM-BOOT uptime $(cut -d' ' -f1 /proc/uptime)"

# Test parameters from the kernel command line (boot.sh sets them).
VM_TOPO=unknown
for w in $(cat /proc/cmdline); do
	case $w in
	vmtest.topo=*) VM_TOPO=${w#*=} ;;
	vmtest.limit=*) VM_LIMIT=${w#*=} ;; # QEMU's wall-clock limit: uptime never reaches it
	vmtest.check_timeout=*) export VM_CHECK_TIMEOUT=${w#*=} ;;
	vmtest.test_timeout=*) export VM_TEST_TIMEOUT=${w#*=} ;;
	vmtest.only=*) export VM_ONLY=${w#*=} ;;
	esac
done
# NxC, or NxCmM: M memory-only nodes after the N with CPUs
VM_BASE=${VM_TOPO%m*}
VM_MEM_NODES=0
[ "$VM_BASE" = "$VM_TOPO" ] || VM_MEM_NODES=${VM_TOPO##*m}
export VM_LIMIT=${VM_LIMIT:-600} VM_TOPO VM_NODES=${VM_BASE%x*} VM_CPUS_PER_NODE=${VM_BASE#*x} \
	VM_MEM_NODES

# Root tests may use perf freely; tests of the unprivileged case set 3 themselves.
echo -1 > /proc/sys/kernel/perf_event_paranoid
# A task stuck in the kernel is named on the console (KERN_ERR passes `quiet`) after 30 s.
echo 30 > /proc/sys/kernel/hung_task_timeout_secs
# Holds the kernel's perf static keys on for the whole run (vmkeep.c says why); the
# runner spares it when it ends what a script left behind.
vmkeep &
export VM_KEEPER=$!
# THP and AutoNUMA are off from the command line unless boot.sh was asked otherwise.

# Hold the acknowledgement port open for the whole run: while it is open, bytes the host
# sends wait in the tty buffer for vm_singlestep to read them.
stty -F /dev/ttyS1 raw -echo
exec 3< /dev/ttyS1
: > "$VM_RESULTS"
mkdir -p /out

. /vm/guest-lib.sh
# Sourced, not run: as PID 1 the runner can kill whatever a test left behind (kill -1
# spares only PID 1), and every script runs under a limit that ends before QEMU's.
. /vm/guest-run.sh
# Results travel faster at full speed.
[ "$(cat /tmp/vm-singlestep 2>/dev/null)" = on ] && vm_singlestep off

# Results: a tar of /out written raw to the virtio disk (its modules are loaded only now,
# and only when there is something to send); size and checksum go to the console.
if [ -n "$(ls -A /out)" ]; then
	for m in $(cat /vm/modules/load-order); do
		insmod "/vm/modules/$m.ko" || echo "@@VM # insmod $m failed"
	done
	i=0
	while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	if [ ! -b /dev/vda ]; then
		vm_result fail "results disk /dev/vda appeared"
	else
		# Straight to the disk (no second copy in memory), then read back for the checksum.
		n=$(tar -C /out -cf - . | tee /dev/vda | wc -c)
		sync
		if [ "$n" -gt "$(blockdev --getsize64 /dev/vda)" ]; then
			vm_result fail "results ($n bytes) fit the results disk (boot.sh --results-mb)"
		else
			echo "@@VM-RESULTS bytes=$n sha256=$(head -c "$n" /dev/vda | sha256sum | cut -d' ' -f1)"
		fi
	fi
fi
echo "@@VM-DONE results=$(wc -l < "$VM_RESULTS") failed=$(grep -c fail "$VM_RESULTS") uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
