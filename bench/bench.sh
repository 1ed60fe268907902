#!/bin/sh
# bench/bench.sh [BUILD] - make bench: what users run, as figures; asserts nothing.
#  0. The run directory's size (issue 45): bytes per sample of the cpu files, format 3 and
#     MEMPHIS_FORMAT=2, cg at 1 ms and 100 us, interleaved (BENCH_FORMAT_ONLY=1: only this).
#  1. Collection overhead on three kernels, with as many threads as cores:
#     examples/cg (OpenMP, a region per iteration) and tests/programs/prog_barrier.c (OpenMP, many
#     short loops, a barrier every few microseconds), each with libgomp's default waiting
#     (spin, then sleep) and with OMP_WAIT_POLICY=passive; tests/programs/prog_partition.c (random
#     reads of a 128 MiB array, memory-bound) with the default. Per period, the same binary
#     unprofiled (MEMPHIS_DISABLE=1), profiled by libmemphis, and unprofiled under
#     `perf record` with the software sampler's event and registers (lib/backend/soft.c:
#     task-clock, user only, sample_regs_user 0xff01ff), and under perf record sampling
#     once in 10 s; under perf the program is timed from inside (docs/bench.md). All settings of a kernel are run
#     in turn, BENCH_RUNS times (interleaved); medians. docs/bench.md says what each column
#     of the table means. Then barrier passive at 1 ms through /dev/memphismod (the kmod
#     backend per thread and per CPU), where this user may open it; else one line says why.
#  2. Allocation-heavy (tests/programs/prog_allocheavy.c: 20 M small malloc/free; off,
#     MEMPHIS_BACKEND=none, profiled per thread and per CPU: wall and CPU ratios), many
#     small objects (tests/programs/prog_manyobj.c: 1 M live rows; collection
#     overhead with every allocation recorded and sampled, report time and memory) and
#     thread-churn programs: off, MEMPHIS_BACKEND=none, profiled; the
#     cost of counters per region (issue 15): profiled with and without two PAPI software
#     events and MEMPHIS_NUMA_COUNTERS=1, on prog_partition and prog_churn; what `memphis
#     apply` costs (bench/prog_placesite.c: a placed site allocating 1 M times).
#  3. The capture of registers and user stack (STACKS, issue 16): cg at 1 ms and 250 us
#     with the default MEMPHIS_STACK_BYTES and with 0, interleaved.
#  4. Where the cost goes (issue 14; with BENCH_QUICK only when BENCH_SPLIT=1): cg and
#     barrier spinning at 1 ms, the collector's parts switched on in turn (start and
#     regions, first touches, samples, their stacks).
#     Then what one sample costs a thread that nothing amplifies (bench/prog_spin.c: no
#     barrier, no data; timed inside its loop): under perf record, the kernel's clock
#     interrupt and sample alone, and under libmemphis.
#  5. memphis-report throughput, scaling and memory (bench/bench_report.sh); with
#     BENCH_SCALE=1 at 10^8 samples, 512 threads and 10^6 objects (bench/bench_scale.sh).
# Environment: BENCH_RUNS (default 5; 3 with BENCH_QUICK), BENCH_PERIODS (default
# "4ms 1ms 250us"; "1ms" with BENCH_QUICK), BENCH_QUICK=1 (a ~2 minute subset: fewer runs,
# one period, no allocation/churn part, a small report part).
B=${1:-build}
B=$(cd "$B" && pwd) || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd) || exit 1
QUICK=${BENCH_QUICK:-0}
[ "$QUICK" = 0 ] || QUICK=1
if [ "$QUICK" = 1 ]; then
	RUNS=${BENCH_RUNS:-3}
	PERIODS=${BENCH_PERIODS:-1ms}
else
	RUNS=${BENCH_RUNS:-5}
	PERIODS=${BENCH_PERIODS:-"4ms 1ms 250us"}
fi
NCPU=$(nproc)
export OMP_NUM_THREADS="$NCPU"
# the soft sampler's sample_regs_user (MEMPHIS__REGS_MASK 0xff01ff) in perf's names
REGS=ax,bx,cx,dx,si,di,bp,sp,ip,r8,r9,r10,r11,r12,r13,r14,r15
# the kernels and their arguments: one run is about 1-2 s on an idle 2-core machine, and
# as long on more cores (their work grows with the cores: a 16-core run of the 2-core
# sizes took 0.08-0.3 s, where the start and the first touches were most of any cost)
SCALE=$(((NCPU + 1) / 2))
CG="$B/examples/cg/cg -i $((30 * SCALE))"
BARRIER="$B/tests/prog_barrier $((20000 * SCALE)) 500"
PARTITION="$B/tests/prog_partition $((6 * SCALE))"
work=$(mktemp -d "${TMPDIR:-/tmp}/memphis-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' HUP INT TERM
cd "$work" || exit 1
start=$(date +%s)

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# ns PERIOD: PERIOD (as MEMPHIS_PERIOD takes it: 4ms, 250us, 100000ns) in nanoseconds
ns() {
	echo "$1" | awk '{ v = $1 + 0; u = $1; sub(/^[0-9.]+/, "", u)
		m = (u == "s") ? 1e9 : (u == "ms") ? 1e6 : (u == "us") ? 1e3 : 1; printf "%.0f\n", v * m }'
}

echo "== make bench on $(uname -m), $NCPU CPUs; load before: $(uptime | sed 's/.*load average/load average/')"
[ -x /usr/bin/time ] || echo "# /usr/bin/time is missing (Debian package 'time'): CPU times not measured"

# perf record with the soft sampler's attr: skip its columns when it is missing or refused
PERF=1
if ! command -v perf >/dev/null 2>&1; then
	echo "# perf is not installed (Debian package linux-perf): perf columns skipped"
	PERF=0
elif ! perf record -q -e task-clock:u -c 1000000 --user-regs=$REGS -o probe.data -- true \
	>/dev/null 2>probe.err; then
	echo "# perf record refused ($(tail -n 1 probe.err)): perf columns skipped"
	echo "# (perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null); as root: sysctl kernel.perf_event_paranoid=-1)"
	PERF=0
fi
rm -f probe.data probe.err

# block_bytes RUNDIR: the bytes of its cpu files' SAMPLES and STACKS blocks, headers included
block_bytes() {
	"$B/memphis-report" dump --blocks "$1" 2>/dev/null | awk '$1 ~ /^cpu/ {
		if ($3 == "SAMPLES") s += 16 + $5; else if ($3 == "STACKS") k += 16 + $5 }
		END { print s + 0, k + 0 }'
}

# one KERNEL WAIT CFG CMD...: runs CMD once as CFG (off, lib:PERIOD, thr:PERIOD (libmemphis
# with MEMPHIS_SCOPE=thread) or perf:PERIOD) with
# libgomp's default waiting (WAIT spin) or OMP_WAIT_POLICY=WAIT, and appends
# "kernel wait cfg wall_s cpu_s samples lost bytes drain_ns touch_stack_bytes
# touch_lost drain_passes samples_bytes stacks_bytes bytes2 samples_bytes2 stacks_bytes2"
# to results (meta.mph's STACKS bytes, page-fault records lost, the drain thread's
# wake-ups, the cpu files' SAMPLES and STACKS blocks with their headers; for kernel
# cg-fmt, the cpu files' bytes and those blocks' of the same run rewritten as format 2 by
# tests/programs/tool_format.c, which writes what MEMPHIS_FORMAT=2 would: t_format3.sh).
one() {
	k=$1 w=$2 cfg=$3
	shift 3
	rm -rf memphis-*/ perf.data
	if [ "$w" = spin ]; then
		wenv="-u OMP_WAIT_POLICY"
	else
		wenv="OMP_WAIT_POLICY=$w"
	fi
	case $cfg in
	off) set -- env $wenv MEMPHIS_DISABLE=1 "$@" ;;
	lib:*) set -- env $wenv MEMPHIS_PERIOD="${cfg#lib:}" "$@" ;;
	thr:*) set -- env $wenv MEMPHIS_SCOPE=thread MEMPHIS_PERIOD="${cfg#thr:}" "$@" ;;
	# through /dev/memphismod (the kmod backend), per thread and per CPU
	kthr:*) set -- env $wenv MEMPHIS_BACKEND=kmod MEMPHIS_SCOPE=thread MEMPHIS_PERIOD="${cfg#kthr:}" "$@" ;;
	kcpu:*) set -- env $wenv MEMPHIS_BACKEND=kmod MEMPHIS_SCOPE=cpu MEMPHIS_PERIOD="${cfg#kcpu:}" "$@" ;;
	nostk:*) set -- env $wenv MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD="${cfg#nostk:}" "$@" ;;
	f2:*) set -- env $wenv MEMPHIS_FORMAT=2 MEMPHIS_PERIOD="${cfg#f2:}" "$@" ;;
	# sampling once in 10 s: regions, heap and first touches, no samples; and without
	# first touches either
	nosmp) set -- env $wenv MEMPHIS_PERIOD=10s "$@" ;;
	bare) set -- env $wenv MEMPHIS_PERIOD=10s MEMPHIS_FIRST_TOUCH=0 "$@" ;;
	perf:*) # timed inside perf record: its own wall time ends on whole seconds here
		# (`perf record sleep 0.1` and `sleep 0.9` both take 1.09 s), which hid any cost
		set -- env $wenv MEMPHIS_DISABLE=1 perf record -q -e task-clock:u \
			-c "$(ns "${cfg#perf:}")" --user-regs=$REGS -o perf.data -- \
			sh -c 'date +%s.%N > in.t0; if [ -x /usr/bin/time ]; then
				/usr/bin/time -f "%U %S" -o cpu_in.out "$@"; else "$@"; fi
				r=$?; date +%s.%N > in.t1; exit $r' sh "$@" ;;
	esac
	rm -f in.t0 in.t1 cpu_in.out
	echo "0 0" > cpu.out
	t0=$(now)
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f "%U %S" -o cpu.out "$@" >/dev/null 2>run.err
	else
		"$@" >/dev/null 2>run.err
	fi
	rc=$?
	t1=$(now)
	[ $rc = 0 ] || echo "# $k $w $cfg exited $rc: $(tail -n 1 run.err)" >> failures
	cpu=$(tail -n 1 cpu.out | awk '{ print $1 + $2 }')
	if [ -s in.t0 ] && [ -s in.t1 ]; then # perf record: the program's own time
		t0=$(cat in.t0) t1=$(cat in.t1)
		[ ! -s cpu_in.out ] || cpu=$(tail -n 1 cpu_in.out | awk '{ print $1 + $2 }')
	fi
	samples=0 lost=0 bytes=0 drain=0 tstk=0 tlost=0 passes=0 sbytes=0 kbytes=0 bytes2=0 sbytes2=0 kbytes2=0
	d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
	if [ -n "$d" ]; then
		"$B/memphis-report" dump --meta "$d" > meta.txt 2>/dev/null
		# region lines: 'region N "name" T0-T1 s: S samples, L lost, T throttled, D dropped'
		set -- $(awk '/^#   region [0-9]+ "/ { for (i = 2; i <= NF; i++) {
				v = $(i - 1); gsub(",", "", v)
				if ($i ~ /^samples/) s += v; else if ($i ~ /^(lost|throttled|dropped)/) l += v } }
			END { print s + 0, l + 0 }' meta.txt)
		samples=$1 lost=$2
		bytes=$(cat "$d"/cpu*.mph 2>/dev/null | wc -c)
		drain=$(sed -n 's/.*drain thread cpu_ns=\([0-9]*\).*/\1/p' meta.txt | head -n 1)
		passes=$(sed -n 's/.*drain thread .* passes=\([0-9]*\).*/\1/p' meta.txt | head -n 1)
		tstk=$(awk '/^# stacks of first touches:/ { v = $(NF - 1); gsub(",", "", v); print v }' meta.txt)
		tlost=$(awk '/first touch: [0-9]+ page-fault records lost/ {
				for (i = 1; i < NF; i++) if ($i == "touch:") s += $(i + 1) } END { print s + 0 }' meta.txt)
		case $cfg in
		lib:*) sed -n 's/^#   scope=//p' meta.txt | head -n 1 > lib_scope ;;
		kcpu:*) sed -n 's/^#   scope=//p' meta.txt | head -n 1 > kcpu_scope ;;
		esac
		set -- $(block_bytes "$d")
		sbytes=$1 kbytes=$2
		if [ "$k" = cg-fmt ] && rm -rf f2copy && "$B/tests/tool_format" 2 "$d" f2copy > /dev/null 2>&1; then
			bytes2=$(cat f2copy/cpu*.mph 2>/dev/null | wc -c)
			set -- $(block_bytes f2copy)
			sbytes2=$1 kbytes2=$2
		fi
	fi
	echo "$k $w $cfg $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $cpu $samples $lost $bytes ${drain:-0} ${tstk:-0} ${tlost:-0} ${passes:-0} $sbytes $kbytes $bytes2 $sbytes2 $kbytes2" >> results
}

# kernel KERNEL WAIT CMD...: RUNS rounds of off, then per period profiled and under perf
kernel() {
	t=$(date +%s)
	for i in $(seq "$RUNS"); do
		one "$1" "$2" off $3
		# perf record sampling once in 10 s: the program under perf, without samples
		[ $PERF = 0 ] || one "$1" "$2" perf:10s $3
		for p in $PERIODS; do
			one "$1" "$2" "lib:$p" $3
			one "$1" "$2" "thr:$p" $3
			[ $PERF = 0 ] || one "$1" "$2" "perf:$p" $3
		done
	done
	echo "# $1 $2: $RUNS rounds in $(($(date +%s) - t)) s"
}

# column EXPR KERNEL WAIT CFG: the median of the awk expression EXPR (of the fields of
# results) over the runs of one setting
column() { awk -v k="$2" -v w="$3" -v g="$4" '$1 == k && $2 == w && $3 == g && $4 > 0 { print '"$1"' }' results | median; }

# rows KERNEL WAIT: one table row per period
rows() {
	off=$(column '$4' "$1" "$2" off)
	coff=$(column '$5' "$1" "$2" off)
	perf0=$(column '$4' "$1" "$2" perf:10s)
	# the spread of the unprofiled wall times: (max - min) / median, in percent
	spread=$(awk -v k="$1" -v w="$2" -v m="$off" '$1 == k && $2 == w && $3 == "off" {
		if (n++ == 0 || $4 < lo) lo = $4; if ($4 > hi) hi = $4 } END { printf "%.0f", (m > 0 ? 100 * (hi - lo) / m : 0) }' results)
	for p in $PERIODS; do
		lib=$(column '$4' "$1" "$2" "lib:$p")
		clib=$(column '$5' "$1" "$2" "lib:$p")
		thr=$(column '$4' "$1" "$2" "thr:$p")
		perf=$(column '$4' "$1" "$2" "perf:$p")
		# per run, so that one run slowed by other programs does not weigh in more
		rate=$(column '$6 / $4' "$1" "$2" "lib:$p")
		drain=$(column '100 * $9 / 1e9 / $4' "$1" "$2" "lib:$p")
		wakes=$(column '$12 / $4' "$1" "$2" "lib:$p")
		awk -v k="$1" -v w="$2" -v p="$p" -v off="$off" -v coff="$coff" -v lib="$lib" \
			-v clib="$clib" -v perf="$perf" -v has_perf="$PERF" -v spread="$spread" \
			-v rate="$rate" -v drain="$drain" -v perf0="$perf0" -v thr="$thr" -v wakes="$wakes" \
			'$1 == k && $2 == w && $3 == "lib:" p { s += $6; l += $7; b += $8 }
			END {
				printf "%-9s %-7s %-6s %6.3f %5s%% %6.3f %8.3f %8.3f", k, w, p, off, spread, coff, lib / off, thr / off
				if (coff > 0)
					printf " %8.3f", clib / coff
				else
					printf " %8s", "-"
				if (has_perf && perf > 0 && perf0 > 0)
					printf " %8.3f %8.3f %8.3f", lib / perf, perf / off, perf / perf0
				else
					printf " %8s %8s %8s", "-", "-", "-"
				printf " %9.0f %7.1f %6d %7.2f %7.1f\n", rate, s ? b / s : 0, l, drain, wakes
			}' results
	done
}

# the run directory's size (issue 45): cg (spin) at 1 ms and 100 us as format 3 (the
# default), each run also rewritten as format 2, so that both hold the same samples and
# stacks; and runs of MEMPHIS_FORMAT=2, interleaved; BENCH_FORMAT_ONLY=1 measures only this
t=$(date +%s)
for i in $(seq "$RUNS"); do
	for p in 1ms 100us; do
		one cg-fmt spin "lib:$p" $CG
		one cg-fmt spin "f2:$p" $CG
	done
done
echo
echo "== Run directory size (issue 45): cg spin, format 3 and the same run rewritten as format 2, medians of $RUNS runs ($(($(date +%s) - t)) s)"
printf "%-6s %8s %8s %8s %7s %7s %7s %7s %7s %7s\n" period samples B/smpl2 B/smpl3 3/2 \
	rec2 rec3 stk2 stk3 f2run
for p in 1ms 100us; do
	n=$(column '$6' cg-fmt spin "lib:$p")
	b2=$(column '($6 ? $15 / $6 : 0)' cg-fmt spin "lib:$p") b3=$(column '($6 ? $8 / $6 : 0)' cg-fmt spin "lib:$p")
	q=$(column '($15 ? $8 / $15 : 0)' cg-fmt spin "lib:$p")
	r2=$(column '($6 ? $16 / $6 : 0)' cg-fmt spin "lib:$p") r3=$(column '($6 ? $13 / $6 : 0)' cg-fmt spin "lib:$p")
	k2=$(column '($6 ? $17 / $6 : 0)' cg-fmt spin "lib:$p") k3=$(column '($6 ? $14 / $6 : 0)' cg-fmt spin "lib:$p")
	f2=$(column '($6 ? $8 / $6 : 0)' cg-fmt spin "f2:$p")
	awk -v p="$p" -v n="$n" -v b2="$b2" -v b3="$b3" -v q="$q" -v r2="$r2" -v r3="$r3" \
		-v k2="$k2" -v k3="$k3" -v f2="$f2" 'BEGIN {
		printf "%-6s %8d %8.1f %7.1f %7.3f %7.1f %7.1f %7.1f %7.1f %7.1f\n", p, n, b2, b3, q,
			r2, r3, k2, k3, f2 }'
done
echo "(samples: median samples of a run; B/smpl: bytes of the cpu files per sample, format 2"
echo " (the run rewritten) and 3 (as written); 3/2: their ratio, median of the runs; rec, stk:"
echo " of those, the SAMPLES and the STACKS blocks' bytes per sample, headers included;"
echo " f2run: bytes per sample of the runs written with MEMPHIS_FORMAT=2, other runs: how"
echo " many samples kept a stack varies with the machine's load)"
[ "${BENCH_FORMAT_ONLY:-0}" = 0 ] || exit 0

kernel cg spin "$CG"
kernel cg passive "$CG"
kernel barrier spin "$BARRIER"
kernel barrier passive "$BARRIER"
kernel partition spin "$PARTITION"

echo
echo "== collection overhead: $OMP_NUM_THREADS threads (OMP_NUM_THREADS = CPUs), medians of $RUNS interleaved runs"
echo "  cg        ${CG#$B/} (a region per iteration)"
echo "  barrier   ${BARRIER#$B/} (a region per 500 loops)"
echo "  partition ${PARTITION#$B/} (one region)"
echo "  spin = libgomp's default waiting, passive = OMP_WAIT_POLICY=passive"
echo "  libmemphis sampled with scope=$(cat lib_scope 2>/dev/null) (MEMPHIS_SCOPE=auto); thr/off: with MEMPHIS_SCOPE=thread"
printf "%-9s %-7s %-6s %6s %6s %6s %8s %8s %8s %8s %8s %8s %9s %7s %6s %7s %7s\n" kernel wait period \
	off_s spread cpu_s mem/off thr/off cpu/off mem/perf perf/off perf/p0 samples/s B/smpl lost drain% wakes/s
for kw in "cg spin" "cg passive" "barrier spin" "barrier passive" "partition spin"; do
	rows $kw
done
[ ! -f failures ] || cat failures
echo "(mem/off: median wall profiled / unprofiled; thr/off: the same, events per thread; cpu/off:"
echo " the same as mem/off for user+sys CPU time;"
echo " mem/perf: profiled / the program under perf record at the same period, timed inside"
echo " perf; perf/off: that / unprofiled; perf/p0: that / under perf record sampling once in"
echo " 10 s; wakes/s: the drain thread's passes a second; docs/bench.md says more)"

# The same barrier passive at 1 ms through /dev/memphismod, as its users sample (issue 45):
# off, the kmod backend per thread and per CPU (MEMPHISMOD_CONFIG_PER_CPU), interleaved.
# Only where this user may open the device read-write (kmod/README.md).
echo
if [ ! -c /dev/memphismod ]; then
	echo "== kmod rows skipped: /dev/memphismod is not present (the memphismod module is not loaded; kmod/README.md)"
elif ! (: <> /dev/memphismod) 2>/dev/null; then
	echo "== kmod rows skipped: no read-write access to /dev/memphismod (not in its group)"
else
	t=$(date +%s)
	for i in $(seq "$RUNS"); do
		one kbarrier passive off $BARRIER
		one kbarrier passive kthr:1ms $BARRIER
		one kbarrier passive kcpu:1ms $BARRIER
	done
	echo "== barrier passive at 1 ms through /dev/memphismod (kmod backend), medians of $RUNS interleaved runs ($(($(date +%s) - t)) s)"
	printf "%-9s %-7s %6s %8s %8s %9s %9s %6s\n" kernel wait off_s kthr/off kcpu/off thr_smp/s cpu_smp/s lost
	off=$(column '$4' kbarrier passive off)
	awk -v off="$off" -v kt="$(column '$4' kbarrier passive kthr:1ms)" \
		-v kc="$(column '$4' kbarrier passive kcpu:1ms)" \
		-v rt="$(column '$6 / $4' kbarrier passive kthr:1ms)" \
		-v rc="$(column '$6 / $4' kbarrier passive kcpu:1ms)" \
		'$1 == "kbarrier" && $3 ~ /^k/ { l += $7 }
		END { printf "%-9s %-7s %6.3f %8.3f %8.3f %9.0f %9.0f %6d\n", "barrier", "passive", off,
			(off > 0 ? kt / off : 0), (off > 0 ? kc / off : 0), rt, rc, l }' results
	echo "(kthr/off, kcpu/off: median wall through the module per thread, per CPU (MEMPHIS_SCOPE=cpu,"
	echo " which sampled with scope=$(cat kcpu_scope 2>/dev/null): a module without per-CPU events"
	echo " samples per thread) / unprofiled; *_smp/s: samples a second; lost: of both, all runs)"
fi

# interleaved NAME=SETTING... -- PROG ARGS...: PROG under each setting in turn (SETTING is
# VAR=VALUE, or - for none), RUNS times; prints "NAME median-wall-seconds" per setting. The
# run directory of the last setting's last run is kept.
interleaved() {
	cfgs=""
	while [ "$1" != -- ]; do cfgs="$cfgs $1"; shift; done
	shift
	rm -f it
	for i in $(seq "$RUNS"); do
		for c in $cfgs; do
			rm -rf memphis-*/
			t0=$(now)
			if [ "${c#*=}" = - ]; then "$@"; else env "${c#*=}" "$@"; fi > /dev/null 2>&1
			echo "${c%%=*} $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')" >> it
		done
	done
	for c in $cfgs; do
		echo "${c%%=*} $(awk -v n="${c%%=*}" '$1 == n { print $2 }' it | median)"
	done
}
# ratio PROG ARGS...: the program off (MEMPHIS_DISABLE=1), with MEMPHIS_BACKEND=none and
# profiled; keeps the last profiled run.
ratio() {
	interleaved off=MEMPHIS_DISABLE=1 none=MEMPHIS_BACKEND=none lib=- -- "$@" |
		awk '{ t[$1] = $2 } END { printf "off %.3f s, backend=none %.3f s (%.2fx), profiled %.3f s (%.2fx)\n",
			t["off"], t["none"], t["none"] / t["off"], t["lib"], t["lib"] / t["off"] }'
}
# allocheavy: prog_allocheavy 20,000,000 (issue 38's target: at most 2x the unprofiled run
# in both scopes) off (MEMPHIS_DISABLE=1), with MEMPHIS_BACKEND=none (the hooks and the
# heap records, no sampling) and profiled per thread and per CPU, interleaved: median wall
# and CPU (user+sys, the drain thread's included) times and their ratios to off. The last
# per-CPU run directory is kept. Where events per CPU are refused, MEMPHIS_SCOPE=cpu
# samples per thread (its run says scope=thread: printed).
allocheavy() {
	rm -f ah
	for i in $(seq "$RUNS"); do
		for c in off:MEMPHIS_DISABLE=1 none:MEMPHIS_BACKEND=none thread:MEMPHIS_SCOPE=thread \
			cpu:MEMPHIS_SCOPE=cpu nomap:MEMPHIS_SCOPE=thread,MEMPHIS_HEAP_MAP=0; do
			rm -rf memphis-*/
			echo "0 0" > cpu.out
			t0=$(now)
			# shellcheck disable=SC2046 # the setting's assignments, one word each
			if [ -x /usr/bin/time ]; then
				env $(echo "${c#*:}" | tr , ' ') /usr/bin/time -f "%U %S" -o cpu.out \
					"$B/tests/prog_allocheavy" 20000000 > /dev/null 2>&1
			else
				env $(echo "${c#*:}" | tr , ' ') "$B/tests/prog_allocheavy" 20000000 \
					> /dev/null 2>&1
			fi
			echo "${c%%:*} $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }') $(tail -n 1 cpu.out | awk '{ print $1 + $2 }')" >> ah
		done
	done
	scope=$(d=$(ls -d memphis-*/ 2>/dev/null | head -n 1); [ -n "$d" ] && run_scope "$d")
	off=$(awk '$1 == "off" { print $2 }' ah | median)
	coff=$(awk '$1 == "off" { print $3 }' ah | median)
	printf "%-8s %8s %8s %8s %8s\n" setting wall_s ratio cpu_s ratio
	for c in off none thread cpu nomap; do
		w=$(awk -v c=$c '$1 == c { print $2 }' ah | median)
		u=$(awk -v c=$c '$1 == c { print $3 }' ah | median)
		awk -v c=$c -v w="$w" -v u="$u" -v o="$off" -v co="$coff" 'BEGIN {
			printf "%-8s %8.3f %8.2f %8.3f %8s\n", c, w, (o > 0 ? w / o : 0), u,
				(co > 0 ? sprintf("%.2f", u / co) : "-") }'
	done
	echo "(ratios to off; cpu: MEMPHIS_SCOPE=cpu, which sampled with scope=${scope:-?}; nomap:"
	echo " per thread without the site map, MEMPHIS_HEAP_MAP=0; the target is 2x or less in both"
	echo " scopes, the site map on)"
}
# apply_cost NAME PROG ARGS...: what `memphis apply` costs (issue 42's target: at most 1.3x
# the plain preload on a malloc-heavy program). Unprofiled, interleaved: off
# (MEMPHIS_DISABLE=1), preload (the library loaded with an empty plan, MEMPHIS_PROFILE=0:
# its hooks alone) and apply (the plan of `memphis-report plan` moves the program's most
# sampled heap site to node 0: every allocation of a page or more looks up its chain, and
# the site's own get an mbind each, up to lib/place.c's 16,384 calls). Median wall times and
# their ratios; the plan is made once, from a profiled run's advice with that placement.
apply_cost() {
	name=$1
	shift
	rm -rf apply.run
	MEMPHIS_PERIOD=1ms "$B/memphis" run -o apply.run -- "$@" > /dev/null 2>&1
	"$B/memphis-report" --json --advice --all --top 0 apply.run 2> /dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
heap = [v for v in d["variables"] if v["kind"] == "heap" and v.get("advice")]
heap[0]["advice"]["placement"] = {"policy": "move", "nodes": [0]}
json.dump(d, sys.stdout)' > apply.json 2> /dev/null &&
		"$B/memphis-report" plan --exe "$1" apply.json > apply.plan 2> /dev/null
	if ! grep -q '^site ' apply.plan 2> /dev/null; then
		echo "$name: no plan with a heap site could be made"
		return
	fi
	printf 'memphis-plan 1\n' > empty.plan
	rm -f ap
	for i in $(seq "$RUNS"); do
		for c in off preload apply; do
			t0=$(now)
			case $c in
			off) MEMPHIS_DISABLE=1 "$@" ;;
			preload) MEMPHIS_PROFILE=0 MEMPHIS_PLACE="$(cat empty.plan)" "$@" ;;
			apply) MEMPHIS_PROFILE=0 MEMPHIS_PLACE="$(cat apply.plan)" "$@" ;;
			esac > /dev/null 2>&1
			echo "$c $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')" >> ap
		done
	done
	for c in off preload apply; do
		eval "t_$c=$(awk -v c=$c '$1 == c { print $2 }' ap | median)"
	done
	awk -v n="$name" -v o="$t_off" -v p="$t_preload" -v a="$t_apply" 'BEGIN {
		printf "%s: off %.3f s, preload %.3f s (%.2fx off), apply %.3f s (%.2fx the preload)\n",
			n, o, p, p / o, a, a / p }'
}
# run_scope DIR: the scope a run directory was sampled with (its RUN key scope)
run_scope() { "$B/memphis-report" dump --meta "$1" 2>/dev/null | sed -n 's/^#   scope=//p' | head -n 1; }
# counters PROG ARGS...: profiled, with PAPI events (two software events), with the kernel's
# NUMA counters (MEMPHIS_NUMA_COUNTERS=1)
counters() {
	interleaved lib=- papi=MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS \
		numa=MEMPHIS_NUMA_COUNTERS=1 -- "$@" |
		awk '{ t[$1] = $2 } END { printf "profiled %.3f s, + PAPI events %.3f s (%.3fx), + NUMA counters %.3f s (%.3fx)\n",
			t["lib"], t["papi"], t["papi"] / t["lib"], t["numa"], t["numa"] / t["lib"] }'
}
# manyobj: prog_manyobj (1 M live rows of 64..1,856 bytes, issue 16 item 6) off, profiled
# with every allocation recorded (MEMPHIS_HEAP_SAMPLE=1), with the default sampling and
# site map, and with the sampling alone (MEMPHIS_HEAP_MAP=0), interleaved; then
# memphis-report's wall time, CPU time and peak RSS on the last run directory of each
# profiled setting.
manyobj() {
	echo "== many small objects: prog_manyobj, 1,000,000 live rows, $RUNS interleaved runs"
	if [ ! -x /usr/bin/time ]; then
		echo "# /usr/bin/time is missing: skipped"
		return
	fi
	rm -f mo
	for i in $(seq "$RUNS"); do
		for c in off:MEMPHIS_DISABLE=1 all:MEMPHIS_HEAP_SAMPLE=1 sampled:MEMPHIS_HEAP_SAMPLE=64 \
			nomap:MEMPHIS_HEAP_MAP=0; do
			rm -rf memphis-*/
			echo "0 0" > cpu.out
			t0=$(now)
			env "${c#*:}" /usr/bin/time -f "%U %S" -o cpu.out "$B/tests/prog_manyobj" \
				> /dev/null 2>&1
			echo "${c%%:*} $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }') $(tail -n 1 cpu.out | awk '{ print $1 + $2 }')" >> mo
			d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
			[ -z "$d" ] || { rm -rf "mo-${c%%:*}"; mv "$d" "mo-${c%%:*}"; }
		done
	done
	off=$(awk '$1 == "off" { print $2 }' mo | median)
	coff=$(awk '$1 == "off" { print $3 }' mo | median)
	echo "off $(printf %.3f "$off") s wall, $(printf %.3f "$coff") s CPU"
	for c in all sampled nomap; do
		w=$(awk -v c=$c '$1 == c { print $2 }' mo | median)
		cpu=$(awk -v c=$c '$1 == c { print $3 }' mo | median)
		[ -d "mo-$c" ] || continue
		allocs=$("$B/memphis-report" dump --meta "mo-$c" 2>/dev/null |
			sed -n 's/^# allocs: \([0-9,]*\),.*/\1/p')
		/usr/bin/time -f "%e %U %S %M" -o rep.out "$B/memphis-report" "mo-$c" > /dev/null 2>&1
		awk -v c=$c -v w="$w" -v off="$off" -v cpu="$cpu" -v coff="$coff" -v n="$allocs" '
			{ printf "%-7s profiled %.3f s (%.2fx wall, %.2fx CPU), %s allocations recorded; report %.2f s wall, %.2f s CPU, peak RSS %d KiB\n",
				c, w, w / off, (coff > 0 ? cpu / coff : 0), n, $1, $2 + $3, $4 }' rep.out
	done
	rm -rf mo-all mo-sampled mo-nomap
}
# the STACKS capture: cg (spin) at 1 ms and 250 us, default MEMPHIS_STACK_BYTES and 0
t=$(date +%s)
for i in $(seq "$RUNS"); do
	for p in 1ms 250us; do
		one cg-stk spin "lib:$p" $CG
		one cg-stk spin "nostk:$p" $CG
	done
done
echo
echo "== STACKS capture (registers + user stack, issue 16): cg spin, MEMPHIS_STACK_BYTES=$(
	awk '/MEMPHIS__STACK_BYTES_DEFAULT/ { print $3 + 0 }' "$SRC/lib/config.h") vs 0, medians of $RUNS interleaved runs ($(($(date +%s) - t)) s)"
printf "%-6s %7s %7s %7s %7s %7s %8s %6s %6s %9s %7s %7s\n" period stk0_s stk_s wall/0 cpu/0 \
	B/smpl0 B/smpl lost0 lost touchB touchL0 touchL
for p in 1ms 250us; do
	w0=$(column '$4' cg-stk spin "nostk:$p") w1=$(column '$4' cg-stk spin "lib:$p")
	c0=$(column '$5' cg-stk spin "nostk:$p") c1=$(column '$5' cg-stk spin "lib:$p")
	b0=$(column '($6 ? $8 / $6 : 0)' cg-stk spin "nostk:$p") b1=$(column '($6 ? $8 / $6 : 0)' cg-stk spin "lib:$p")
	l0=$(column '$7' cg-stk spin "nostk:$p") l1=$(column '$7' cg-stk spin "lib:$p")
	tb=$(column '$10' cg-stk spin "lib:$p")
	t0=$(column '$11' cg-stk spin "nostk:$p") t1=$(column '$11' cg-stk spin "lib:$p")
	awk -v p="$p" -v w0="$w0" -v w1="$w1" -v c0="$c0" -v c1="$c1" -v b0="$b0" -v b1="$b1" \
		-v l0="$l0" -v l1="$l1" -v tb="$tb" -v t0="$t0" -v t1="$t1" 'BEGIN {
		printf "%-6s %7.3f %7.3f %7.3f %7.3f %7.1f %8.1f %6d %6d %9d %7d %7d\n", p, w0, w1,
			(w0 > 0 ? w1 / w0 : 0), (c0 > 0 ? c1 / c0 : 0), b0, b1, l0, l1, tb, t0, t1 }'
done
echo "(stk0_s/stk_s: median wall without / with the capture; wall/0, cpu/0: their ratios, CPU"
echo " user+sys; B/smpl: bytes of the cpu files per sample; lost: samples lost (median);"
echo " touchB: meta.mph's STACKS bytes (first touches); touchL: page-fault records lost)"

# where the cost goes (issue 14): each part switched on in turn, 1 ms, spinning waits
if [ "${BENCH_SPLIT:-$((1 - QUICK))}" = 1 ]; then
	t=$(date +%s)
	for i in $(seq "$RUNS"); do
		for kn in cg barrier; do # not k: one() sets it
			[ $kn = cg ] && cmd=$CG || cmd=$BARRIER
			for c in off bare nosmp nostk:1ms lib:1ms; do one "$kn-part" spin "$c" $cmd; done
		done
	done
	echo
	echo "== where the cost goes: spin, 1 ms, $NCPU threads, medians of $RUNS interleaved runs ($(($(date +%s) - t)) s)"
	printf "%-8s %7s %7s %7s %7s %7s %8s %8s %8s %8s\n" kernel off_s bare nosmp nostk lib \
		start+reg touches samples stacks
	for k in cg barrier; do
		o=$(column '$4' "$k-part" spin off) b=$(column '$4' "$k-part" spin bare)
		n=$(column '$4' "$k-part" spin nosmp) s0=$(column '$4' "$k-part" spin nostk:1ms)
		l=$(column '$4' "$k-part" spin lib:1ms)
		awk -v k="$k" -v o="$o" -v b="$b" -v n="$n" -v s0="$s0" -v l="$l" 'BEGIN { if (o <= 0) exit
			printf "%-8s %7.3f %7.3f %7.3f %7.3f %7.3f %7.1f%% %7.1f%% %7.1f%% %7.1f%%\n", k, o, b / o, n / o,
				s0 / o, l / o, 100 * (b - o) / o, 100 * (n - b) / o, 100 * (s0 - n) / o, 100 * (l - s0) / o }'
	done
	echo "(bare: MEMPHIS_PERIOD=10s MEMPHIS_FIRST_TOUCH=0, the library's start, regions and heap"
	echo " records; nosmp: MEMPHIS_PERIOD=10s, first touches added; nostk: 1 ms samples without"
	echo " the user stack; lib: the default; each ratio to off. The last four columns split lib's"
	echo " cost, in % of off: start+reg = bare - off, touches = nosmp - bare, samples = nostk -"
	echo " nosmp, stacks = lib - nostk. Differences of medians: noisy where the runs spread)"
fi

# What one sample costs where nothing amplifies it (issue 14): bench/prog_spin.c, one thread
# computing in registers, timed inside its loop, unprofiled, under perf record and profiled.
# perf record's cost is the kernel's alone (its clock interrupt and sample): no profiler
# that samples on the clock costs less per sample on this machine. Issue 45: what of
# libmemphis's sample costs more than perf's, at 250 us, each setting against the same
# round's unprofiled run (rounds paired): perf with the user stack libmemphis asks for
# (perf-stk), libmemphis without the stack (lib-s0), without kernel-mode samples (lib-nk),
# per thread (lib-thr). Two measures: the loop's time, and the interruptions prog_spin saw
# one by one (its gaps), which the loop's run-to-run spread (a few % here, a sample being
# 0.4 % of it) does not blur.
spin_once() { # ROUND CFG: appends "ROUND CFG loop_s gap_med_us gap_s" to spin.t
	r=$1
	shift
	case $1 in
	off) set -- "$1" env MEMPHIS_DISABLE=1 "$B/tests/prog_spin" ;;
	perf:*) set -- "$1" env MEMPHIS_DISABLE=1 perf record -q -e task-clock:u \
		-c "$(ns "${1#perf:}")" --user-regs=$REGS -o perf.data -- "$B/tests/prog_spin" ;;
	perf-stk:*) set -- "$1" env MEMPHIS_DISABLE=1 perf record -q -e task-clock:u \
		-c "$(ns "${1#perf-stk:}")" --user-regs=$REGS --call-graph dwarf,1024 -o perf.data -- \
		"$B/tests/prog_spin" ;;
	lib:*) set -- "$1" env MEMPHIS_PERIOD="${1#lib:}" "$B/tests/prog_spin" ;;
	lib-s0:*) set -- "$1" env MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD="${1#lib-s0:}" "$B/tests/prog_spin" ;;
	lib-nk:*) set -- "$1" env MEMPHIS_KERNEL=0 MEMPHIS_PERIOD="${1#lib-nk:}" "$B/tests/prog_spin" ;;
	lib-thr:*) set -- "$1" env MEMPHIS_SCOPE=thread MEMPHIS_PERIOD="${1#lib-thr:}" "$B/tests/prog_spin" ;;
	esac
	c=$1
	shift
	"$@" 2>/dev/null | awk -v r="$r" -v c="$c" '$1 == "loop_s" { print r, c, $2, $8, $10 }' >> spin.t
	rm -rf memphis-*/ perf.data
}
rm -f spin.t
t=$(date +%s)
SPIN_RUNS=${BENCH_SPIN_RUNS:-$((QUICK ? RUNS : 21))}
spin_cfgs="off lib:1ms lib:250us lib-s0:250us lib-nk:250us lib-thr:250us"
[ $PERF = 0 ] || spin_cfgs="off perf:1ms perf:250us perf-stk:250us lib:1ms lib:250us lib-s0:250us lib-nk:250us lib-thr:250us"
for i in $(seq "$SPIN_RUNS"); do
	for c in $spin_cfgs; do spin_once "$i" "$c"; done
done
echo
echo "== a sample's cost without barriers: bench/prog_spin (one thread, timed inside its loop), $SPIN_RUNS rounds ($(($(date +%s) - t)) s)"
printf "%-15s %7s %6s %7s %18s %18s %18s %16s\n" setting loop_s ratio samples "us/sample (loop)" \
	"us/sample (gaps)" "- perf's (gaps)" "gap us (median)"
# quarts: "median (q1 - q3)" of the numbers on stdin
quarts() { sort -n | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f (%.1f-%.1f)", v[int((NR + 1) / 2)],
	v[int((NR + 3) / 4)], v[int((3 * NR + 1) / 4)] }'; }
for c in $spin_cfgs; do
	[ "$c" = off ] && p=0 || p=$(ns "${c#*:}")
	m=$(awk -v c="$c" '$2 == c { print $3 }' spin.t | median)
	o=$(awk '$2 == "off" { print $3 }' spin.t | median)
	# per round, against that round's off: (loop_s - off's) / samples, and the gaps' time
	# beyond off's (scaled to the loop's time) / samples
	awk -v c="$c" -v p="$p" '$2 == "off" { o[$1] = $3; og[$1] = $5 } $2 == c { v[$1] = $3; g[$1] = $5 }
		END { if (p > 0) for (r in v) if (o[r] > 0) {
			n = v[r] * 1e9 / p
			print (v[r] - o[r]) * 1e6 / n, (g[r] - og[r] * v[r] / o[r]) * 1e6 / n } }' spin.t > spin.d
	# the issue's measure: per round, the gaps' time a sample beyond perf record's at the
	# same period, paired
	pc=perf:${c#*:}
	dp=-
	case " $spin_cfgs " in *" $pc "*) [ "$c" = "$pc" ] || dp=$(awk -v c="$c" -v pc="$pc" -v p="$p" \
		'$2 == pc { q[$1] = $5 * 1e6 * p / ($3 * 1e9) } $2 == c { v[$1] = $5 * 1e6 * p / ($3 * 1e9) }
		END { for (r in v) if (r in q) print v[r] - q[r] }' spin.t | quarts) ;; esac
	awk -v c="$c" -v m="$m" -v o="$o" -v p="$p" -v dl="$(cut -d' ' -f1 spin.d | quarts)" \
		-v dg="$(cut -d' ' -f2 spin.d | quarts)" -v dp="$dp" \
		-v gm="$(awk -v c="$c" '$2 == c { print $4 }' spin.t | quarts)" \
		'BEGIN { if (o <= 0 || m <= 0) exit
		if (p > 0)
			printf "%-15s %7.3f %6.3f %7.0f %18s %18s %18s %16s\n", c, m, m / o, m * 1e9 / p, dl, dg, dp, gm
		else
			printf "%-15s %7.3f %6.3f %7s %18s %18s %18s %16s\n", c, m, 1, "-", "-", "-", "-", gm }'
done
echo "(samples: the loop's time / the period, the thread being busy throughout. Per round against"
echo " the same round's off, the median over rounds (quartiles): us/sample (loop): (loop_s - off's)"
echo " / samples; us/sample (gaps): the time prog_spin's clock reads found missing beyond off's,"
echo " / samples; - perf's (gaps): that, less perf record's at the same period in the same round;"
echo " gap us: one interruption's length, the median gap of a run. perf: the kernel's"
echo " clock interrupt and sample alone, user mode, registers; perf-stk: with 1 KiB of user stack"
echo " as libmemphis asks; lib: libmemphis (MEMPHIS_SCOPE=auto, kernel-mode samples where allowed,"
echo " the stack); lib-s0: MEMPHIS_STACK_BYTES=0; lib-nk: MEMPHIS_KERNEL=0; lib-thr: MEMPHIS_SCOPE=thread)"

if [ "$QUICK" = 0 ]; then
	echo
	echo "== allocation-heavy: prog_allocheavy 20,000,000 small malloc/free, $RUNS interleaved runs"
	allocheavy
	d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
	if [ -n "$d" ]; then
		echo "run directory $(du -sk "$d" | cut -f1) KiB; report peak RSS $(/usr/bin/time -f %M "$B/memphis-report" "$d" 2>&1 > /dev/null | tail -n 1) KiB"
	fi
	echo
	manyobj
	echo
	echo "== thread churn: prog_churn, $RUNS interleaved runs"
	ratio "$B/tests/prog_churn"
	MEMPHIS_FIRST_TOUCH=0 ratio "$B/tests/prog_churn" | sed 's/^/first touch off: /'
	echo
	echo "== memphis apply: $RUNS interleaved runs each, unprofiled (target: apply at most 1.3x the preload)"
	apply_cost "prog_allocheavy 20,000,000 (its 8 MiB array placed)" "$B/tests/prog_allocheavy" 20000000
	apply_cost "prog_placesite 1,000,000 16 KiB blocks from the placed site" "$B/tests/prog_placesite" 1000000
	echo
	echo "== counters per region: $RUNS interleaved runs each"
	counters $PARTITION | sed 's/^/prog_partition: /'
	counters "$B/tests/prog_churn" | sed 's/^/prog_churn (2000 threads): /'
fi

echo
if [ "$QUICK" = 1 ]; then
	BENCH_SIZES=${BENCH_SIZES:-1000000} BENCH_COMPARE_N=${BENCH_COMPARE_N:-1000000} \
		BENCH_JOB_N=${BENCH_JOB_N:-50000} \
		BENCH_CG_ARGS=${BENCH_CG_ARGS:--i 20} BENCH_CG_LONG_ARGS=${BENCH_CG_LONG_ARGS:--i 80} \
		sh "$SRC/bench/bench_report.sh" "$B"
else
	sh "$SRC/bench/bench_report.sh" "$B"
fi
[ "${BENCH_SCALE:-0}" = 1 ] && sh "$SRC/bench/bench_scale.sh" "$B"
echo
echo "== make bench took $(($(date +%s) - start)) s; load after: $(uptime | sed 's/.*load average/load average/')"
