# kmod.guest.sh - the kernel module /dev/memphismod (kmod/) in the guest: load with
# parameter checks, device mode and group, access as unprivileged users in and out of the
# group, isolation (own pids only, no kernel address, a forked child refused), per-CPU
# sessions a user asks for (MEMPHISMOD_CONFIG_PER_CPU: own pids only, two at once, the
# excluded thread, a first-version caller still per thread) and the library's scope with
# them, unload refused while sampling and clean after, per-thread loss records, the
# page-fault stream, an ioctl fuzzer, examples/cg with 16 KiB module buffers (kmod.host.sh
# checks its per-thread LOSS records), and (2x2) the figures of barrier passive at 1 ms:
# off, kmod per thread, kmod per CPU. The kmod/soft comparison on examples/cg is
# kmod-cg.guest.sh. Runs in $VM_OUT = /out/kmod. The module comes from $MEMPHIS_BUILD/kmod
# (see Makefile).
# vm-limit: 480
. "$VM_LIB"
vm_require_memphis
ko=$MEMPHIS_BUILD/kmod/memphismod.ko
tool=$MEMPHIS_BUILD/tests/tool_kmod
if [ ! -f "$ko" ] || [ ! -x "$tool" ]; then
	vm_result skip "kmod: memphismod.ko loads in the guest" "module or tool_kmod not built (no kernel headers?)"
	exit 0
fi
GID=2000 # the group granted the device (the initramfs has no name for it)

# dmesg_bad: lines that must never appear (oops, WARN, BUG, lockdep, KASAN...)
dmesg_bad() {
	dmesg | grep -E 'Oops|WARNING:|BUG:|Call Trace|general protection|RIP:|list_del corruption|refcount_t|KASAN|UBSAN' || true
}
dmesg -c > /dev/null 2>&1
# Debian's default: unprivileged perf_event_open refused; the module is the way in.
echo 3 > /proc/sys/kernel/perf_event_paranoid

hello=$MEMPHIS_BUILD/examples/hello/hello
out=$(MEMPHIS_BACKEND=kmod MEMPHIS_OUTPUT=/tmp/kmod-missing vmrunas 1000 $GID "$hello" 2>&1 >/dev/null)
vm_note "hello, MEMPHIS_BACKEND=kmod, no module: $out"
case $out in
*"/dev/memphismod not present"*"modprobe memphismod"*) vm_result ok "kmod backend: one clear line when the device is missing" ;;
*) vm_result fail "kmod backend: one clear line when the device is missing" ;;
esac

# --- load ---
if insmod "$ko" buf_kb_max=8 2> "$VM_OUT/insmod-bad.err"; then
	vm_result fail "kmod: out-of-range module parameter (buf_kb_max=8) refused at load"
	rmmod memphismod
else
	vm_note "$(dmesg | grep memphismod | tail -n 1)"
	vm_result ok "kmod: out-of-range module parameter (buf_kb_max=8) refused at load"
fi
t0=$(cut -d' ' -f1 /proc/uptime)
if ! insmod "$ko" group=$GID; then
	vm_result fail "kmod: insmod memphismod.ko group=$GID"
	exit 0
fi
vm_result ok "kmod: insmod memphismod.ko group=$GID ($(dmesg | grep 'memphismod:' | tail -n 1 | sed 's/^\[[^]]*\] //'))"
modes=$(stat -c '%a %u %g %F' /dev/memphismod 2>&1)
vm_note "/dev/memphismod: $modes"
case $modes in
"660 0 $GID character special file") vm_result ok "kmod: /dev/memphismod is a character device, mode 0660, root:$GID" ;;
*) vm_result fail "kmod: /dev/memphismod is a character device, mode 0660, root:$GID" ;;
esac
vm_check "kmod: GET_VERSION as root" "$tool" info

# --- access ---
out=$(vmrunas 1000 1000 "$tool" open 2>&1)
rc=$?
vm_note "uid 1000 outside group $GID: $out"
if [ "$rc" = 3 ]; then vm_result ok "kmod: a user outside the group cannot open the device (EACCES)"
else vm_result fail "kmod: a user outside the group cannot open the device (exit $rc)"; fi
out=$(MEMPHIS_BACKEND=kmod MEMPHIS_OUTPUT=/tmp/kmod-denied vmrunas 1000 1000 "$hello" 2>&1 >/dev/null)
vm_note "hello as uid 1000 outside the group, MEMPHIS_BACKEND=kmod: $out"
case $out in
*"no access to /dev/memphismod (mode 660, group $GID)"*) vm_result ok "kmod backend: one clear line when the caller lacks access" ;;
*) vm_result fail "kmod backend: one clear line when the caller lacks access" ;;
esac
MEMPHIS_OUTPUT=/tmp/kmod-auto vmrunas 1000 $GID "$hello" > /dev/null 2> "$VM_OUT/hello-auto.err"
rc=$?
sel=$(grep -a -o 'backend=[a-z]*' /tmp/kmod-auto/meta.mph 2>/dev/null | head -n 1)
vm_note "hello as uid 1000 in the group, MEMPHIS_BACKEND unset, paranoid 3: exit $rc, $sel $(head -c 300 "$VM_OUT/hello-auto.err")"
# auto tries ibs, pebs, kmod, soft in that order: kmod wins before soft is probed
if [ "$rc" = 0 ] && [ "$sel" = backend=kmod ] && grep -a -q 'backend_skip=pebs: ' /tmp/kmod-auto/meta.mph; then
	vm_result ok "auto backend: kmod when there is no PMU and the device is granted"
else
	vm_result fail "auto backend: kmod when there is no PMU and the device is granted"
fi
vm_check "kmod: a user in the group samples its own threads (present and future), only its pids, no kernel address" \
	vmrunas 1000 $GID "$tool" sample 2 3
vm_check "kmod: a forked child may not START, STOP or READ the parent's session (EPERM)" \
	vmrunas 1000 $GID "$tool" fork-eperm
# 1 s fills the 16 KiB buffer many times over, unless the host starves the guest (one run
# under a loaded make check took 17 samples): then longer (exit 2: nothing dropped yet)
vm_check "kmod: a full buffer's drops are told per thread (LOST records); START's exclude_tid thread is never sampled" \
	sh -c 'for s in 1 4 16; do vmrunas 1000 "$1" "$2" lost $s; rc=$?; [ "$rc" = 2 ] || exit "$rc"; done; exit 2' \
	sh "$GID" "$tool"
vm_check "kmod: FAULTS gives every page a thread born later touches, none of the excluded thread's (no perf_event_open at paranoid 3)" \
	vmrunas 1000 $GID "$tool" faults

# --- two users at once ---
vmrunas 1000 $GID "$tool" sample 3 2 > "$VM_OUT/user1000.txt" 2>&1 &
p1=$!
vmrunas 1001 $GID "$tool" sample 3 2 > "$VM_OUT/user1001.txt" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
vm_note "uid 1000: $(tail -n 1 "$VM_OUT/user1000.txt")"
vm_note "uid 1001: $(tail -n 1 "$VM_OUT/user1001.txt")"
if [ "$r1" = 0 ] && [ "$r2" = 0 ]; then
	vm_result ok "kmod: two users sampling at the same time each get only their own pids, never a kernel address"
else
	vm_result fail "kmod: two users sampling at the same time each get only their own pids (exit $r1, $r2)"
fi

# --- per-CPU sessions asked for by the caller (MEMPHISMOD_CONFIG_PER_CPU): each session
# has its own cpu-clock event on every CPU, which sees every process, so the handler's
# filter alone keeps a session to its own process ---
vm_check "kmod per-CPU session (CONFIGURE flag): a user in the group samples its own threads (present and future), only its pids, no kernel address" \
	vmrunas 1000 $GID "$tool" sample-cpu 2 3
vmrunas 1000 $GID "$tool" sample-cpu 3 2 > "$VM_OUT/user1000-flag.txt" 2>&1 &
p1=$!
vmrunas 1001 $GID "$tool" sample-cpu 3 2 > "$VM_OUT/user1001-flag.txt" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
vm_note "per-CPU flag, uid 1000: $(tail -n 1 "$VM_OUT/user1000-flag.txt")"
vm_note "per-CPU flag, uid 1001: $(tail -n 1 "$VM_OUT/user1001-flag.txt")"
if [ "$r1" = 0 ] && [ "$r2" = 0 ]; then
	vm_result ok "kmod per-CPU sessions of two processes at once: each gets only its own pids, never a kernel address"
else
	vm_result fail "kmod per-CPU sessions of two processes at once: each gets only its own pids (exit $r1, $r2)"
fi
vm_check "kmod per-CPU session: START's exclude_tid thread is never sampled though it runs under the session's events; drops told per thread" \
	sh -c 'for s in 1 4 16; do vmrunas 1000 "$1" "$2" lost $s cpu; rc=$?; [ "$rc" = 2 ] || exit "$rc"; done; exit 2' \
	sh "$GID" "$tool"
# the scope seen from outside: a per-CPU session's timer runs on every CPU, a per-thread
# one's only where its threads run (all on CPU 0 here)
vm_check "kmod: a first-version CONFIGURE (40 bytes, no flags) still samples per thread, the flag per CPU (the other CPUs' local timer interrupts)" \
	vmrunas 1000 $GID "$tool" idle-timer 2
# samples a second per thread and per CPU, single-stepped (where per_cpu_events=1 once gave
# 2-5 times fewer): three spinning threads on four CPUs (one CPU left to the sleeping
# main thread), then four; and the other CPUs' timer interrupts. Notes only: TCG's times
if [ "$VM_TOPO" = 2x2 ] && vm_singlestep on; then
	for n in 3 4; do
		for m in sample sample-cpu sample sample-cpu; do
			vm_note "single-stepped, $n spinning threads, tool_kmod $m: $(vmrunas 1000 $GID "$tool" $m 1 $n 2>&1 | tail -n 1)"
		done
	done
	vm_note "single-stepped: $(vmrunas 1000 $GID "$tool" idle-timer 1 2>&1 | tail -n 1)"
	vm_singlestep off
fi

# --- the same with one cpu-clock event per CPU (per_cpu_events=1): every CPU's event sees
# every process, so the handler's filter alone keeps the two users apart ---
rmmod memphismod && insmod "$ko" group=$GID per_cpu_events=1 || vm_result fail "kmod: reload with per_cpu_events=1"
vmrunas 1000 $GID "$tool" sample 2 2 > "$VM_OUT/user1000-cpu.txt" 2>&1 &
p1=$!
vmrunas 1001 $GID "$tool" sample 2 2 > "$VM_OUT/user1001-cpu.txt" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
vm_note "per_cpu_events=1, uid 1000: $(tail -n 1 "$VM_OUT/user1000-cpu.txt")"
vm_note "per_cpu_events=1, uid 1001: $(tail -n 1 "$VM_OUT/user1001-cpu.txt")"
if [ "$r1" = 0 ] && [ "$r2" = 0 ]; then
	vm_result ok "kmod per_cpu_events=1: two users at once each get only their own pids, never a kernel address"
else
	vm_result fail "kmod per_cpu_events=1: two users at once each get only their own pids (exit $r1, $r2)"
fi
rmmod memphismod && insmod "$ko" group=$GID || vm_result fail "kmod: reload with the default (per-thread) events"

# --- unload while a process samples: refused (the open file holds the module), clean after ---
vmrunas 1000 $GID "$tool" hold 30 > /tmp/hold.txt 2>&1 &
hp=$!
i=0
while ! grep -q sampling /tmp/hold.txt && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
if rmmod memphismod 2> /tmp/rmmod.err; then
	vm_result fail "kmod: rmmod while a process samples is refused and sampling goes on"
	kill -9 $hp
	insmod "$ko" group=$GID
else
	sleep 0.3
	if kill -0 $hp 2>/dev/null && [ -c /dev/memphismod ]; then
		vm_result ok "kmod: rmmod while a process samples is refused ($(cat /tmp/rmmod.err)) and sampling goes on"
	else
		vm_result fail "kmod: rmmod while a process samples is refused and sampling goes on"
	fi
	kill -9 $hp # dies while sampling: the file's release stops and frees the session
	wait $hp 2>/dev/null
	if rmmod memphismod; then
		vm_result ok "kmod: rmmod succeeds once the sampling process was killed"
	else
		vm_result fail "kmod: rmmod succeeds once the sampling process was killed"
	fi
	insmod "$ko" group=$GID || vm_result fail "kmod: insmod again after rmmod"
fi

# --- the ioctl fuzzer (unprivileged, in the group), then the module must still work ---
ts=$(cut -d' ' -f1 /proc/uptime)
vm_check "kmod: ioctl fuzzer, 100000 random calls as uid 1000 (commands, sizes, pointers, sequences)" \
	vmrunas 1000 $GID "$tool" fuzz 100000 "$(date +%s)"
vm_note "fuzzer took $(echo "$ts $(cut -d' ' -f1 /proc/uptime)" | awk '{printf "%.1f", $2 - $1}') s"
bad=$(dmesg_bad)
if [ -z "$bad" ]; then
	vm_result ok "kmod: no oops, WARN or BUG in dmesg after the fuzzer"
else
	printf '%s\n' "$bad" | head -n 20 | while IFS= read -r l; do vm_note "dmesg: $l"; done
	vm_result fail "kmod: no oops, WARN or BUG in dmesg after the fuzzer"
fi
vm_check "kmod: the module still samples after the fuzzer" vmrunas 1001 $GID "$tool" sample 1 2

# --- the soft backend at paranoid 3, unprivileged: its own clear message (2x2 only; the
# kmod/soft pair of examples/cg runs is kmod-cg.guest.sh's) ---
if [ "$VM_TOPO" = 2x2 ]; then
	cg=$MEMPHIS_BUILD/examples/cg/cg
	out=$(MEMPHIS_BACKEND=soft MEMPHIS_OUTPUT=/tmp/cg-soft-denied vmrunas 1000 $GID $cg -n 1000 -i 1 2>&1 >/dev/null)
	vm_note "cg as uid 1000, MEMPHIS_BACKEND=soft, paranoid 3: $out"
	case $out in
	*"perf_event_paranoid=3"*) vm_result ok "soft backend at paranoid 3, unprivileged: refuses with its clear message" ;;
	*) vm_result fail "soft backend at paranoid 3, unprivileged: refuses with its clear message" ;;
	esac
fi

# --- lost samples per thread: a module whose buffers hold 64 records (16 KiB), cg at
# 100 us (1,000 samples a CPU between two drains), not single-stepped; kmod.host.sh checks
# the LOSS records ---
if rmmod memphismod && insmod "$ko" group=$GID buf_kb_default=16 buf_kb_max=16; then
	mkdir -p "$VM_OUT/small"
	chown 1000:$GID "$VM_OUT/small"
	(export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}" OMP_PROC_BIND=true
	 MEMPHIS_PERIOD=100us MEMPHIS_BACKEND=kmod MEMPHIS_OUTPUT=$VM_OUT/small/run \
		timeout 60 vmrunas 1000 $GID "$MEMPHIS_BUILD/examples/cg/cg" -n 4000 -i 8 \
		> "$VM_OUT/small/cg.stdout" 2> "$VM_OUT/small/cg.stderr")
	rc=$?
	if [ "$rc" = 0 ] && [ -f "$VM_OUT/small/run/meta.mph" ]; then
		vm_result ok "kmod backend with 16 KiB module buffers: examples/cg runs and writes a run directory"
	else
		vm_result fail "kmod backend with 16 KiB module buffers: examples/cg runs and writes a run directory (exit $rc)"
	fi
	rmmod memphismod
	insmod "$ko" group=$GID || vm_result fail "kmod: insmod again with the default buffers"
else
	vm_result fail "kmod: reload with buf_kb_default=16 buf_kb_max=16"
fi

# --- the library's scope through the module, and the figures (2x2): barrier passive at
# 1 ms (OMP_WAIT_POLICY=passive: threads sleep and wake at every barrier), uid 1000 in the
# group at paranoid 3, off / kmod per thread / kmod per CPU interleaved; medians. TCG: the
# times are the emulator's, not hardware's (nothing is asserted of them) ---
# run_barrier CFG N: one run as CFG (off, thread, cpu, auto: uid 1000 through the module;
# soft, soft-user: root, the soft backend per CPU with kernel samples and without) into
# /tmp/kbar-CFG-N; appends "CFG wall_s samples scope" to bench.txt (samples and scope from
# its RUN block)
run_barrier() {
	d=/tmp/kbar-$1-$2
	rm -rf "$d"
	who="1000 $GID" be=kmod k=MEMPHIS_KERNEL=1
	case $1 in
	off) e=MEMPHIS_DISABLE=1 ;;
	soft) who="0 0" be=soft e=MEMPHIS_SCOPE=cpu ;;
	soft-user) who="0 0" be=soft e=MEMPHIS_SCOPE=cpu k=MEMPHIS_KERNEL=0 ;;
	*) e=MEMPHIS_SCOPE=$1 ;;
	esac
	b0=$(cut -d' ' -f1 /proc/uptime)
	env OMP_NUM_THREADS="$(nproc)" OMP_WAIT_POLICY=passive MEMPHIS_BACKEND=$be \
		MEMPHIS_PERIOD=1ms MEMPHIS_OUTPUT="$d" "$e" "$k" \
		vmrunas $who "$MEMPHIS_BUILD/tests/prog_barrier" "$loops" "$((loops / 2))" \
		> /dev/null 2> "$VM_OUT/barrier-$1.err"
	b1=$(cut -d' ' -f1 /proc/uptime)
	smp=0 sc=-
	if [ "$1" != off ]; then
		"$MEMPHIS_BUILD/memphis-report" dump --meta "$d" > /tmp/kbar.meta 2>/dev/null
		smp=$(awk '/^#   region [0-9]+ "/ { for (i = 2; i <= NF; i++) if ($i ~ /^samples/) {
			v = $(i - 1); gsub(",", "", v); s += v } } END { print s + 0 }' /tmp/kbar.meta)
		sc=$(sed -n 's/^#   scope=//p' /tmp/kbar.meta | head -n 1)
	fi
	echo "$1 $(awk -v a="$b0" -v b="$b1" 'BEGIN { print b - a }') $smp ${sc:--}" >> "$VM_OUT/bench.txt"
}
if [ "$VM_TOPO" = 2x2 ] && [ -c /dev/memphismod ]; then
	# loops for about 2 s unprofiled: the guest's speed varies with the host's load
	loops=200
	: > "$VM_OUT/bench.txt"
	run_barrier off 0
	cal=$(awk '{ print $2 }' "$VM_OUT/bench.txt")
	loops=$(awk -v t="$cal" 'BEGIN { n = t > 0 ? 200 * 2 / t : 2000; n = int(n / 100) * 100
		print (n < 200 ? 200 : (n > 8000 ? 8000 : n)) }')
	: > "$VM_OUT/bench.txt"
	la=$(cut -d' ' -f1 /proc/loadavg)
	run_barrier auto 0
	for i in 1 2 3 4 5; do
		for c in off thread cpu; do run_barrier $c $i; done
	done
	# the soft backend's samples a second beside the module's (once each)
	run_barrier soft 0
	run_barrier soft-user 0
	vm_note "barrier runs (cfg wall_s samples scope): $(tr '\n' ';' < "$VM_OUT/bench.txt")"
	bad=$(awk '$1 == "thread" && ($4 != "thread" || $3 == 0) { n++ }
		$1 == "cpu" && ($4 != "cpu" || $3 == 0) { n++ } END { print n + 0 }' "$VM_OUT/bench.txt")
	if [ "$bad" = 0 ]; then
		vm_result ok "kmod backend as uid 1000: MEMPHIS_SCOPE=cpu runs of a threaded program write scope=cpu and sample, MEMPHIS_SCOPE=thread ones scope=thread"
	else
		vm_result fail "kmod backend as uid 1000: MEMPHIS_SCOPE=cpu runs write scope=cpu and sample, thread ones scope=thread ($bad runs not)"
	fi
	auto=$(awk '$1 == "auto" { print $4 }' "$VM_OUT/bench.txt")
	# auto: per CPU unless the load average says the CPUs are crowded (over two a CPU)
	if [ "$auto" = cpu ] || { [ "$auto" = thread ] && awk -v l="$la" -v n="$(nproc)" 'BEGIN { exit !(l > 2 * n) }'; }; then
		vm_result ok "kmod backend as uid 1000, MEMPHIS_SCOPE=auto: scope=$auto (load average $la, $(nproc) CPUs)"
	else
		vm_result fail "kmod backend as uid 1000, MEMPHIS_SCOPE=auto: scope=$auto (load average $la, $(nproc) CPUs)"
	fi
	# auto on crowded CPUs: more than two threads of the process a CPU by the first region
	# (the OpenMP team starts in the first-touch loop before it): per thread from there on,
	# said in the run; samples still come
	rm -rf /tmp/kbar-crowded
	OMP_NUM_THREADS=$((2 * $(nproc) + 2)) OMP_WAIT_POLICY=passive MEMPHIS_BACKEND=kmod \
		MEMPHIS_PERIOD=1ms MEMPHIS_OUTPUT=/tmp/kbar-crowded \
		vmrunas 1000 $GID "$MEMPHIS_BUILD/tests/prog_barrier" 200 100 > /dev/null 2> "$VM_OUT/barrier-crowded.err"
	"$MEMPHIS_BUILD/memphis-report" dump --meta /tmp/kbar-crowded > "$VM_OUT/crowded.meta" 2>&1
	smp=$(awk '/^#   region [0-9]+ "/ { for (i = 2; i <= NF; i++) if ($i ~ /^samples/) {
		v = $(i - 1); gsub(",", "", v); s += v } } END { print s + 0 }' "$VM_OUT/crowded.meta")
	vm_note "$((2 * $(nproc) + 2)) threads, MEMPHIS_SCOPE=auto: $(grep -m1 -o 'scope=[a-z]*' "$VM_OUT/crowded.meta"), $smp samples, $(grep -m1 -o 'kmod: events per thread from here on[^;]*' "$VM_OUT/crowded.meta" | cut -c1-160)"
	if grep -q 'scope=cpu' "$VM_OUT/crowded.meta" && grep -q 'kmod: events per thread from here on' "$VM_OUT/crowded.meta" &&
		[ "$smp" -gt 0 ]; then
		vm_result ok "kmod backend, MEMPHIS_SCOPE=auto, over two threads a CPU: per CPU at start, per thread from the first region on (a note in the run), samples"
	else
		vm_result fail "kmod backend, MEMPHIS_SCOPE=auto, over two threads a CPU: per CPU at start, per thread from the first region on (a note in the run), samples"
	fi
	med() { awk -v c="$1" -v f="$2" '$1 == c { print $f }' "$VM_OUT/bench.txt" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }'; }
	rate() { awk -v c="$1" '$1 == c && $2 > 0 { print $3 / $2 }' "$VM_OUT/bench.txt" | sort -n |
		awk '{ v[NR] = $1 } END { print NR ? (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) : 0 }'; }
	off=$(med off 2) thr=$(med thread 2) cpu=$(med cpu 2)
	vm_note "$(awk -v o="$off" -v t="$thr" -v c="$cpu" -v rt="$(rate thread)" -v rc="$(rate cpu)" \
		-v rs="$(rate soft)" -v ru="$(rate soft-user)" \
		-v l="$loops" -v n="$(nproc)" 'BEGIN { printf "figures (TCG guest, emulated: not hardware timings): barrier passive at 1 ms, prog_barrier %d, %d threads, uid 1000 through /dev/memphismod, medians of 5 interleaved runs: off %.2f s, kmod per thread %.3f x off, kmod per CPU %.3f x off; samples/s: kmod per thread %.0f, kmod per CPU %.0f, soft per CPU as root %.0f with kernel samples, %.0f user only (MEMPHIS_KERNEL=0, as the module)", l, n, o, (o > 0 ? t / o : 0), (o > 0 ? c / o : 0), rt, rc, rs, ru }')"
fi

# --- unload ---
if rmmod memphismod && [ ! -e /dev/memphismod ]; then
	vm_result ok "kmod: rmmod at the end, /dev/memphismod gone"
else
	vm_result fail "kmod: rmmod at the end, /dev/memphismod gone"
fi
bad=$(dmesg_bad)
if [ -z "$bad" ]; then
	vm_result ok "kmod: dmesg clean of oops/WARN/BUG after all kmod tests"
else
	vm_result fail "kmod: dmesg clean of oops/WARN/BUG after all kmod tests"
fi
dmesg > "$VM_OUT/dmesg.txt"
perf=$(grep -E 'perf:|memphismod' "$VM_OUT/dmesg.txt" | tail -n 3 | tr '\n' ';')
vm_note "dmesg (perf, memphismod): ${perf:-nothing}; perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
echo -1 > /proc/sys/kernel/perf_event_paranoid
vm_note "kmod tests took $(echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{printf "%.1f", $2 - $1}') s in the guest"
