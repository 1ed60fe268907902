#!/bin/sh
# tests/vm/guest-run.sh - the checks that run inside the guest, sourced by /init (PID 1).
# Never `exit` here: that would end PID 1 and panic the guest.
# Phase 1 runs at full TCG speed (placement needs no sampling); phase 2 asks the host for
# single-stepping and runs the sampling checks and every guest-tests/*.guest.sh script.
# From /init: VM_TOPO (e.g. 2x2, 2x2m1), VM_NODES (with CPUs), VM_CPUS_PER_NODE,
# VM_MEM_NODES (memory-only, after them), VM_RESULTS, VM_LIMIT, and
# the functions of guest-lib.sh.

vm_note "$VM_TOPO guest: kernel $(uname -r), $(nproc) cpus," \
	"thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)," \
	"numa_balancing=$(cat /proc/sys/kernel/numa_balancing), uptime $(cut -d' ' -f1 /proc/uptime) s;" \
	"limits: check ${VM_CHECK_TIMEOUT:-120} s, script ${VM_TEST_TIMEOUT:-180} s, qemu $VM_LIMIT s"

# --- phase 1: placement (no sampling, full speed) ---
if [ "$VM_MEM_NODES" = 0 ]; then
	vm_check "topology is $VM_NODES nodes x $VM_CPUS_PER_NODE cpus, distances 10/20" \
		vmnuma topo "$VM_NODES" "$VM_CPUS_PER_NODE"
else
	vm_check "topology is $VM_NODES nodes x $VM_CPUS_PER_NODE cpus and $VM_MEM_NODES without CPUs, distances 10/20/30" \
		vmnuma topo "$VM_NODES" "$VM_CPUS_PER_NODE" "$VM_MEM_NODES"
fi
vm_check "vmkeep holds the perf static keys (its page-fault event is open)" \
	sh -c 'for f in /proc/$1/fd/*; do [ "$(readlink "$f")" = "anon_inode:[perf_event]" ] &&
		exit 0; done; exit 1' sh "$VM_KEEPER"
vm_check "kernel not tainted (no topology_sane warning)" \
	sh -c 't=$(cat /proc/sys/kernel/tainted); echo "tainted=$t"; [ "$t" = 0 ]'
vm_check "first touch by a thread pinned to a CPU of node N lands on node N, every N" \
	vmnuma firsttouch
vm_check "numactl --membind=1 --cpunodebind=0 places pages on node 1, runs on node 0" \
	numactl --membind=1 --cpunodebind=0 vmnuma place node 1 --cpunode 0
vm_check "numactl --interleave=all spreads pages evenly over the $((VM_NODES + VM_MEM_NODES)) nodes" \
	numactl --interleave=all vmnuma place interleave

# --- unprivileged perf_event_open at Debian's default paranoid level ---
echo 3 > /proc/sys/kernel/perf_event_paranoid
vm_check "perf_event_paranoid=3: an unprivileged user gets EACCES" vmrunas 1000 1000 vmsample eacces
vm_check "perf_event_paranoid=3: root can still open a sampling event" vmsample open
echo -1 > /proc/sys/kernel/perf_event_paranoid

# Without single-stepping every sample lands on a translation block's first instruction;
# shown for comparison, not judged.
vm_note "sampling without single-stepping: $(vmsample spread 200 2>&1)"

# --- phase 2: single-stepping on, sampling ---
t0=$(cut -d' ' -f1 /proc/uptime)
if vm_singlestep on; then
	vm_result ok "host switched single-stepping on (requested at ${t0} s uptime)"
else
	vm_result fail "host switched single-stepping on"
fi
vm_check "task-clock sampling as root with REGS_USER: samples spread over the gather loop" \
	vmsample spread 500

vm_singlestep off

# Tests of memphis itself: each script NAME.guest.sh runs at full speed in its own
# /out/NAME, which the host gets back (NAME.host.sh then checks it there); a script that
# samples calls vm_singlestep on (and off) around that part. See tests/vm/README.md.
for t in /vm/guest-tests/*.guest.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .guest.sh)
	vm_only "$name" || continue
	before=$(wc -l < "$VM_RESULTS")
	# Stop a script early enough that the results and the final marker still get out
	# before QEMU's limit (30 s kept for that).
	left=$((VM_LIMIT - $(cut -d. -f1 /proc/uptime) - 30))
	limit=${VM_TEST_TIMEOUT:-180}
	# a script that needs longer says so in a line "# vm-limit: SECONDS"
	own=$(sed -n 's/^# vm-limit: *\([0-9][0-9]*\).*/\1/p' "$t" | head -n 1)
	[ -n "$own" ] && [ "$own" -gt "$limit" ] && limit=$own
	[ "$left" -lt "$limit" ] && limit=$left
	if [ "$limit" -lt 5 ]; then
		vm_result fail "$name.guest.sh not started: ${VM_LIMIT} s QEMU limit nearly reached (VM_TIMEOUT)"
		continue
	fi
	mkdir -p "/out/$name"
	t0=$(cut -d' ' -f1 /proc/uptime)
	# Past 90 s, every 30 s, what runs: a guest that stops answering then shows on the
	# console where it stood. A note that cannot be written in 10 s (the console's tty
	# stopped) goes to the kernel log instead, whose console output does not wait on it.
	(sleep 90; while :; do
		msg="$name.guest.sh still running at $(cut -d' ' -f1 /proc/uptime) s:\
 $(ps -o pid,stat,args | grep -v ' \[' | tr '\n' ';' | cut -c1-800)"
		timeout 10 sh -c 'echo "@@VM # $1"' sh "$msg" ||
			echo "<3>@@VM # console write blocked: $msg" > /dev/kmsg
		sleep 30
	done) &
	watch=$!
	(cd "/out/$name" && VM_TEST_NAME=$name VM_OUT=/out/$name timeout -k 5 "$limit" sh "$t")
	rc=$?
	kill "$watch"
	vm_note "$name.guest.sh: exit $rc, uptime $t0 -> $(cut -d' ' -f1 /proc/uptime) s"
	if [ "$rc" != 0 ] || [ "$(wc -l < "$VM_RESULTS")" = "$before" ]; then
		vm_result fail "$name.guest.sh ran and reported (exit status $rc, limit $limit s)"
	fi
	# A script stopped by its timeout leaves its workload running: end every process
	# but this one (PID 1) and the keeper before the next script (twice: a process
	# forked meanwhile).
	for _pass in 1 2; do
		for _p in /proc/[0-9]*; do
			_p=${_p#/proc/}
			case $_p in 1 | "$VM_KEEPER") ;; *) kill -KILL "$_p" 2>/dev/null ;; esac
		done
	done
	# A module the script loaded and did not remove (stopped before its rmmod): every later
	# insmod would fail with it. Its users were killed above; their files close as they go.
	if grep -q '^memphismod ' /proc/modules; then
		_i=0
		until rmmod memphismod 2>/dev/null || [ $_i -ge 10 ]; do sleep 1; _i=$((_i + 1)); done
		if grep -q '^memphismod ' /proc/modules; then
			vm_result fail "memphismod removed after $name.guest.sh"
		elif [ "$rc" = 0 ]; then
			vm_result fail "$name.guest.sh removes the module it loads"
		else
			vm_note "$name.guest.sh was stopped with memphismod loaded: removed"
		fi
	fi
	[ "$(cat /tmp/vm-singlestep)" = on ] && vm_singlestep off
done
vm_note "guest checks done at $(cut -d' ' -f1 /proc/uptime) s uptime"
