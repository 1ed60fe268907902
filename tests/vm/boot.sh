#!/bin/sh
# tests/vm/boot.sh TOPOLOGY [OPTIONS] - boot the test guest once under QEMU TCG and report.
#   TOPOLOGY   NxC: N NUMA nodes (one socket each) with C CPUs each, e.g. 2x2 or 4x1;
#              2048 MiB split evenly over the nodes. NxCmM: and M memory-only nodes
#              (1024 MiB each, nodes N..N+M-1) with HMAT figures (-machine hmat=on): 100
#              ns 20 GB/s local, 150 ns 15 GB/s the other socket, 300 ns 10 GB/s memory-only
#              (a CXL expander's 3x latency, half bandwidth), e.g. 2x2m1.
#   --kernel KVER        boot cache/vmlinux-KVER (default: the newest kernel setup.sh
#                        prepared, cache/vmlinux)
#   --initrd F           the initramfs (default: cache/initramfs-KVER.cpio.gz, what
#                        run.sh packs for KVER)
#   --work D             work directory (default: cache/work-TOPOLOGY), emptied first; it
#                        keeps console.log, monitor.log, and out/ (the guest's /out)
#   --results-mb M       size of the sparse results disk (default 512)
#   --singlestep-boot    run the whole guest single-stepped (-singlestep) instead of
#                        switching it on through the monitor when the guest asks
#   --thp, --autonuma    leave transparent huge pages / AutoNUMA at Debian's defaults
#   --timeout S          QEMU's wall-clock limit (default $VM_TIMEOUT or 1500)
# $VM_CHECK_TIMEOUT, $VM_TEST_TIMEOUT and $VM_ONLY (shell patterns separated by commas:
# only the guest-tests scripts they name run) reach the guest on the kernel command line.
# $VM_SILENCE (150 s): a guest whose console stays silent this long has stopped (a healthy
# one prints at least every 30 s, guest-run.sh); QEMU is stopped then, exit status 3. The
# kernel's soft-lockup and RCU-stall warnings do not count as output: a guest stuck at
# 6 s of uptime (init on a vCPU that never came back) repeated one every 28 s until
# QEMU's limit, 900 s later, and that boot was never tried again.
# $VM_CPU replaces -cpu max (e.g. max,la57=off: under load 10-13 no difference could be
# told from the noise).
# Prints the guest's "@@VM" lines (escape codes and CRs stripped) and one
# "@@VM-HOST ..." line with timings. Exit 0 only when the guest printed its final marker,
# no result line was lost and the results it sent arrived intact; QEMU's own exit status
# says nothing (it is 0 after a kernel panic too).
#
# Channels: ttyS0 = console (file), ttyS1 = host -> guest acknowledgements (FIFO pair
# ack.in/ack.out), HMP monitor on the FIFO pair mon.in/mon.out (FIFOs need no socat and
# never block: we hold them open read-write), results = a tar the guest writes raw to a
# sparse virtio disk image (results.img), checked against the size and sha256 it prints.
# Exit 0 when the run is good, 3 when the guest fell silent, 4 when QEMU died of a fault
# (SIGSEGV, SIGABRT, SIGBUS, SIGILL, SIGFPE) before the final marker, 1 on any other failure.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${VM_CACHE:-$here/cache}
[ $# -ge 1 ] || { sed -n '2,17s/^# \{0,1\}//p' "$0" >&2; exit 2; }
topo=$1
shift
# NxC: N nodes of C CPUs; NxCmM: and M memory-only nodes after them (CXL-like: HMAT gives
# them 3 times the local latency and half the bandwidth)
base=${topo%m*}
mnodes=0
[ "$base" = "$topo" ] || mnodes=${topo##*m}
nodes=${base%x*}
cpn=${base#*x}
case $nodes$cpn$mnodes in
*[!0-9]* | "") echo "vm: bad topology '$topo' (want NxC or NxCmM, e.g. 2x2, 2x2m1)" >&2; exit 2 ;;
esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 8 ] && [ "$cpn" -ge 1 ] && [ "$cpn" -le 8 ] &&
	[ "$mnodes" -le 2 ] ||
	{ echo "vm: topology '$topo' out of range (1..8 x 1..8, 0..2 memory-only)" >&2; exit 2; }

initrd=
work=$cache/work-$topo
ssboot=0
thp=never
autonuma=disable
limit=${VM_TIMEOUT:-1500}
silence=$(((${VM_SILENCE:-150} + 4) / 5 * 5))
results_mb=512
kver=$(readlink "$cache/vmlinux" 2>/dev/null | sed 's/^vmlinux-//')
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kver=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--work) work=$2; shift ;;
	--singlestep-boot) ssboot=1 ;;
	--thp) thp= ;;
	--autonuma) autonuma= ;;
	--timeout) limit=$2; shift ;;
	--results-mb) results_mb=$2; shift ;;
	*) echo "vm: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
cmdline_extra=${thp:+transparent_hugepage=$thp}${autonuma:+ numa_balancing=$autonuma}
kernel=$cache/vmlinux-$kver
initrd=${initrd:-$cache/initramfs-$kver.cpio.gz}
[ -s "$kernel" ] || { echo "vm: no $kernel (run tests/vm/setup.sh)" >&2; exit 2; }
[ -s "$initrd" ] || { echo "vm: no $initrd (run tests/vm/mkinitramfs.sh)" >&2; exit 2; }

rm -rf "$work"
mkdir -p "$work/out"
cd "$work"
mkfifo mon.in mon.out ack.in ack.out
truncate -s "${results_mb}M" results.img

numa=""
mem=$((2048 / nodes))
mmem=1024 # each memory-only node's
machine=""
for n in $(seq 0 $((nodes - 1))); do
	numa="$numa -object memory-backend-ram,id=m$n,size=${mem}M"
	numa="$numa -numa node,nodeid=$n,cpus=$((n * cpn))-$((n * cpn + cpn - 1)),memdev=m$n"
	[ "$mnodes" -gt 0 ] && numa="$numa,initiator=$n"
done
if [ "$mnodes" -gt 0 ]; then
	# HMAT: local 100 ns 20 GB/s, the other socket 150 ns 15 GB/s, memory-only 300 ns
	# 10 GB/s; SLIT distances 10, 20 and 30 to match
	machine=",hmat=on"
	total=$((nodes + mnodes))
	for m in $(seq "$nodes" $((total - 1))); do
		numa="$numa -object memory-backend-ram,id=m$m,size=${mmem}M"
		numa="$numa -numa node,nodeid=$m,memdev=m$m,initiator=0"
	done
	for i in $(seq 0 $((nodes - 1))); do
		for t in $(seq 0 $((total - 1))); do
			if [ "$t" = "$i" ]; then lat=100 bw=20G dist=10
			elif [ "$t" -lt "$nodes" ]; then lat=150 bw=15G dist=20
			else lat=300 bw=10G dist=30
			fi
			numa="$numa -numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-latency,latency=$lat"
			numa="$numa -numa hmat-lb,initiator=$i,target=$t,hierarchy=memory,data-type=access-bandwidth,bandwidth=$bw"
			[ "$t" = "$i" ] || numa="$numa -numa dist,src=$i,dst=$t,val=$dist"
		done
	done
	for m in $(seq "$nodes" $((total - 1))); do
		for t in $(seq 0 $((total - 1))); do
			[ "$t" = "$m" ] || [ "$t" -lt "$nodes" ] ||
				numa="$numa -numa dist,src=$m,dst=$t,val=30"
		done
	done
fi
ss=""
[ "$ssboot" = 1 ] && ss=-singlestep

# Limits the guest applies itself (guest-lib.sh, guest-run.sh).
guest_env="vmtest.check_timeout=${VM_CHECK_TIMEOUT:-120} vmtest.test_timeout=${VM_TEST_TIMEOUT:-180}"
guest_env="$guest_env${VM_ONLY:+ vmtest.only=$VM_ONLY}"
now() { date +%s.%N; }
# The serial log holds escape codes (SeaBIOS is skipped with PVH, but the kernel may emit
# some) and CRs; a guest line may be glued to other output, so nothing is anchored.
strip='s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g; s/\r//g'
t_start=$(now)
# shellcheck disable=SC2086 # $numa and $ss are word lists
timeout -k 5 "$limit" qemu-system-x86_64 -machine "pc$machine" -accel tcg -cpu "${VM_CPU:-max}" -nodefaults -display none \
	-no-reboot -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 quiet printk.devkmsg=on $cmdline_extra vmtest.topo=$topo vmtest.limit=$limit $guest_env" \
	-smp $((nodes * cpn)),sockets=$nodes,cores=$cpn,threads=1 -m $((mem * nodes + mmem * mnodes))M $numa \
	-serial file:console.log -serial pipe:ack -monitor pipe:mon \
	-drive file=results.img,format=raw,if=virtio $ss > qemu.log 2>&1 &
qpid=$!
exec 4<> mon.in 5<> ack.in
cat mon.out > monitor.log &
catpid=$!
# Stopped by a signal (a caller's timeout), QEMU goes too (sh runs an EXIT trap only on exit).
trap 'kill "$qpid" "$catpid" ${watchpid:-} 2>/dev/null || true' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP

# monitor CMD WANT: run an HMP command followed by "info status", wait (10 s at most) for
# a status line matching the extended regex WANT. Under mon.lock: the console follower
# and the silence watch both ask.
monitor() {
	flock 7
	_n=$(grep -c 'VM status' monitor.log || true)
	printf '%s\ninfo status\n' "$1" >&4
	_i=0
	while [ $_i -lt 200 ]; do
		if [ "$(grep -c 'VM status' monitor.log || true)" -gt "$_n" ]; then
			grep 'VM status' monitor.log | tail -n 1 | tr -d '\r' | grep -qE "$2"
			return
		fi
		sleep 0.05
		_i=$((_i + 1))
	done
	return 1
} 7> mon.lock

since() { [ -n "$1" ] && echo "$1 $t_start" | awk '{printf "%.1f", $1 - $2}' || echo "-"; }

# snapshot: where each vCPU is (RIP, ring, halted), how much CPU QEMU's threads have had,
# and the host's load, on one line each.
snapshot() {
	_from=$(wc -c < monitor.log)
	monitor "info registers -a" . || echo "monitor did not answer"
	echo "vcpus at $(since "$(now)") s: $(tail -c +$((_from + 1)) monitor.log | sed "$strip" |
		awk '/^CPU#/ {c = $1} /^RIP=/ {printf "%s %s %s %s; ", c, substr($1, 5), $4, $NF}')"
	echo "qemu threads (tid stat cputime): $(ps -L --ppid "$qpid" -o tid=,stat=,time= | tr -s ' \n' ' ;')"
	echo "host load: $(cut -d' ' -f1-3 /proc/loadavg)"
}

: > events
# The silence watch: a snapshot at 2/3 and 5/6 of the silence limit, then QEMU stopped.
look1=$((silence * 2 / 3 / 5 * 5)) look2=$((silence * 5 / 6 / 5 * 5))
(
	seen=-1 quiet=0
	while kill -0 "$qpid" 2>/dev/null; do
		sleep 5
		size=$(grep -vE 'watchdog: BUG: soft lockup|rcu: INFO: rcu_|self-detected stall' \
			console.log 2>/dev/null | wc -c)
		if [ "$size" != "$seen" ]; then
			seen=$size quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		if [ "$quiet" -ge "$silence" ]; then
			echo "silent $(now)" >> events
			kill "$qpid" 2>/dev/null
			break
		fi
		[ "$quiet" = "$look1" ] || [ "$quiet" = "$look2" ] && snapshot >> stall.log
	done
) &
watchpid=$!

# Follow the console, answer the guest's requests, note when things happened.
touch console.log
tail -n +1 -F --pid="$qpid" console.log 2>/dev/null |
	sed -u "$strip" |
	while IFS= read -r line; do
		case $line in
		*@@VM-BOOT*) echo "first $(now)" >> events ;;
		*"@@VM-REQ singlestep "*)
			want=${line##*singlestep }
			echo "req_$want $(now)" >> events
			if [ "$ssboot" = 1 ]; then
				: # single-stepped from boot: nothing to switch
			elif [ "$want" = on ]; then
				monitor "singlestep on" 'single step mode' || echo "monitor_failed $(now)" >> events
			else
				monitor "singlestep off" 'running$' || echo "monitor_failed $(now)" >> events
			fi
			printf 'ack singlestep %s\n' "$want" >&5
			echo "ack_$want $(now)" >> events
			;;
		*@@VM-DONE*) echo "done $(now)" >> events ;;
		esac
	done &
follower=$!
# `wait` returns at a trapped signal; a foreground pipeline would have held it back.
rc=0
wait "$qpid" || rc=$?
t_end=$(now)
wait "$follower" || true
kill "$catpid" "$watchpid" 2>/dev/null || true

sed "$strip" console.log > console.txt
grep -o '@@VM.*' console.txt || true

ev() { sed -n "s/^$1 //p" events | head -n 1; }
status=ok
done_line=$(grep -o '@@VM-DONE.*' console.txt | tail -n 1 || true)
if [ -z "$done_line" ]; then
	status="no final marker (qemu exit $rc)"
	[ "$rc" != 124 ] || status="no final marker (qemu timed out after $limit s)"
	[ -z "$(ev silent)" ] || status="no final marker: the console was silent for $silence s"
else
	want=$(echo "$done_line" | sed -n 's/.*results=\([0-9]*\).*/\1/p')
	got=$(grep -cE '@@VM (ok|not ok) ' console.txt || true)
	[ "$want" = "$got" ] || status="guest reported $want results, $got arrived"
fi
! grep -q monitor_failed events || status="monitor did not confirm a singlestep switch"

# Results: the tar at the start of the disk, checked against what the guest printed.
res=$(grep -o '@@VM-RESULTS .*' console.txt | tail -n 1 || true)
if [ -n "$res" ]; then
	bytes=$(echo "$res" | sed -n 's/.*bytes=\([0-9]*\).*/\1/p')
	sum=$(echo "$res" | sed -n 's/.*sha256=\([0-9a-f]*\).*/\1/p')
	if [ -z "$bytes" ] || [ "$(head -c "$bytes" results.img | sha256sum | cut -d' ' -f1)" != "$sum" ]; then
		status="results on the disk do not match the guest's checksum"
	elif ! head -c "$bytes" results.img | tar -C out -xf -; then
		status="results tar unreadable"
	fi
fi
rm -f results.img

echo "@@VM-HOST topo=$topo status=$status first_line_s=$(since "$(ev first)")" \
	"singlestep_req_s=$(since "$(ev req_on)") singlestep_ack_s=$(since "$(ev ack_on)")" \
	"done_s=$(since "$(ev done)") exit_s=$(since "$t_end") mode=$([ "$ssboot" = 1 ] && echo singlestep-boot || echo singlestep-on-request)"
if [ "$status" != ok ]; then
	# What the TAP stream has not shown already: the last console lines that are not
	# results or notes (requests, kernel messages), then the silence watch's snapshots.
	echo "vm: $topo: $status; last events (s): $(tail -n 4 events |
		awk -v t0="$t_start" '{printf "%s %.1f; ", $1, $2 - t0}')" >&2
	grep -vE '@@VM (ok|not ok|#) ' console.txt | tail -n 12 | cut -c1-300 >&2
	[ -s stall.log ] && cut -c1-600 stall.log >&2
	tail -n 5 qemu.log >&2
	[ -z "$(ev silent)" ] || exit 3
	# QEMU itself died of a fault before the guest's final marker (TCG segfaulted about
	# once in 15 boots here): the emulator's defect, not the guest's
	[ -n "$done_line" ] || case $rc in 132|134|135|136|139) exit 4 ;; esac
	exit 1
fi
