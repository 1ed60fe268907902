#!/bin/sh
# /init of the memphis NUMA test guest (packed by tests/vm/mkinitramfs.sh).
# Mounts the pseudo file systems, prepares the kernel for the tests, runs /vm/guest-run.sh,
# sends /out (the tests' run directories) to the host as base64 on the third serial port,
# prints the final marker "@@VM-DONE" and powers off. The host judges the run only by the
# "@@VM" lines (QEMU exits 0 on a panic too).
export PATH=/vm/bin:/usr/bin:/usr/sbin HOME=/tmp TMPDIR=/tmp VM_RESULTS=/tmp/vm-results
export VM_LIB=/vm/guest-lib.sh
. /vm/env # MEMPHIS_BUILD=... when the library was packed in
[ -n "${MEMPHIS_BUILD:-}" ] && export MEMPHIS_BUILD
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
exec </dev/console >/dev/console 2>&1
echo "@@VM-BOOT uptime $(cut -d' ' -f1 /proc/uptime)"

# Test parameters from the kernel command line (boot.sh sets them).
VM_TOPO=unknown
for w in $(cat /proc/cmdline); do
	case $w in
	vmtest.topo=*) VM_TOPO=${w#*=} ;;
	esac
done
export VM_TOPO VM_NODES=${VM_TOPO%x*} VM_CPUS_PER_NODE=${VM_TOPO#*x}

# Root tests may use perf freely; tests of the unprivileged case set 3 themselves.
echo -1 > /proc/sys/kernel/perf_event_paranoid
# THP and AutoNUMA are off from the command line unless boot.sh was asked otherwise.

# Hold the acknowledgement port open for the whole run: while it is open, bytes the host
# sends wait in the tty buffer for vm_singlestep to read them.
stty -F /dev/ttyS1 raw -echo
exec 3< /dev/ttyS1
: > "$VM_RESULTS"
mkdir -p /out

. /vm/guest-lib.sh
timeout "${VM_GUEST_TIMEOUT:-600}" sh /vm/guest-run.sh
rc=$?
[ "$rc" = 0 ] || vm_result fail "guest runner finished (exit status $rc)"
# Results travel faster at full speed.
[ "$(cat /tmp/vm-singlestep 2>/dev/null)" = on ] && vm_singlestep off

# Results: a gzip'd tar of /out, base64, framed with its size and checksum.
if [ -n "$(ls -A /out)" ]; then
	tar -C /out -cf - . | gzip -1 > /tmp/out.tgz
	stty -F /dev/ttyS2 raw -echo
	{
		echo "@@VM-RESULTS-BEGIN $(wc -c < /tmp/out.tgz) $(sha256sum < /tmp/out.tgz | cut -d' ' -f1)"
		base64 /tmp/out.tgz
		echo "@@VM-RESULTS-END"
	} > /dev/ttyS2 # the last close waits until the port has sent everything
fi
echo "@@VM-DONE results=$(wc -l < "$VM_RESULTS") failed=$(grep -c fail "$VM_RESULTS") uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
