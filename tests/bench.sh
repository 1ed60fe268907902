#!/bin/sh
# make bench: figures, no assertions.
#  1. libmemphis overhead: a memory-bound OpenMP kernel (tests/prog_partition, random reads
#     of a 128 MiB array, 2 threads), unprofiled (MEMPHIS_DISABLE=1, same binary) and
#     profiled at 1 ms, 250 us and 100 us, runs interleaved; median wall-time ratio,
#     samples per second, bytes per sample on disk, drain-thread CPU share.
#  2. memphis-report throughput and memory (tests/bench_report.sh), if present.
#  3. counters per region (issue 15): profiled runs with and without MEMPHIS_PAPI_EVENTS
#     (two software events) and MEMPHIS_NUMA_COUNTERS=1, interleaved, on prog_partition
#     (2 threads, one region) and prog_churn (a PAPI set per thread made).
B=${1:-build}
B=$(cd "$B" && pwd)
RUNS=${BENCH_RUNS:-5}
REPS=${BENCH_REPS:-12}
work=$(mktemp -d "${TMPDIR:-/tmp}/memphis-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export OMP_NUM_THREADS=2

now() { date +%s.%N; }
run() { # run CONFIG: appends "config wall samples bytes drain_cpu_ns" to results
	cfg=$1
	rm -rf memphis-*/
	t0=$(now)
	case $cfg in
	off) MEMPHIS_DISABLE=1 "$B/tests/prog_partition" "$REPS" > /dev/null ;;
	*) MEMPHIS_PERIOD=$cfg "$B/tests/prog_partition" "$REPS" > /dev/null ;;
	esac
	t1=$(now)
	samples=0 bytes=0 drain=0
	d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
	if [ -n "$d" ]; then
		"$B/memphis-report" dump --meta "$d" > meta.txt 2>/dev/null
		samples=$(awk '/^#   region [0-9]+ "/ { for (i = 1; i <= NF; i++) if ($i == "samples,") { v = $(i - 1); gsub(",", "", v); s += v } } END { print s + 0 }' meta.txt)
		bytes=$(cat "$d"/cpu*.mph 2>/dev/null | wc -c)
		drain=$(sed -n 's/.*drain thread cpu_ns=\([0-9]*\).*/\1/p' meta.txt | head -n 1)
	fi
	echo "$cfg $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $samples $bytes ${drain:-0}" >> results
}

echo "== libmemphis overhead: prog_partition $REPS reps, $OMP_NUM_THREADS threads, $RUNS interleaved runs per setting"
for i in $(seq "$RUNS"); do
	for cfg in off 1ms 250us 100us; do run "$cfg"; done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
base=$(awk '$1 == "off" { print $2 }' results | median)
printf '%-8s %10s %10s %12s %12s %14s\n' period "wall (s)" ratio samples/s bytes/sample "drain CPU %"
printf '%-8s %10.3f %10s %12s %12s %14s\n' none "$base" 1.000 - - -
for cfg in 1ms 250us 100us; do
	w=$(awk -v c=$cfg '$1 == c { print $2 }' results | median)
	awk -v c=$cfg -v w="$w" -v base="$base" '$1 == c { s += $3; b += $4; d += $5; t += $2 }
	END { printf "%-8s %10.3f %10.3f %12.0f %12.1f %14.2f\n", c, w, w / base, s / t, (s ? b / s : 0), 100 * d / 1e9 / t }' results
done
echo "(ratio: median profiled wall time / median unprofiled wall time; target <= 1.03 at 1 ms)"

# ratio PROG ARGS...: the program off (MEMPHIS_DISABLE=1), with MEMPHIS_BACKEND=none and
# profiled, interleaved; median wall times and ratios; keeps the last profiled run.
ratio() {
	rm -f rt
	for i in $(seq "$RUNS"); do
		for cfg in off none lib; do
			rm -rf memphis-*/
			t0=$(now)
			case $cfg in
			off) MEMPHIS_DISABLE=1 "$@" > /dev/null 2>&1 ;;
			none) MEMPHIS_BACKEND=none "$@" > /dev/null 2>&1 ;;
			lib) "$@" > /dev/null 2>&1 ;;
			esac
			echo "$cfg $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')" >> rt
		done
	done
	off=$(awk '$1 == "off" { print $2 }' rt | median)
	none=$(awk '$1 == "none" { print $2 }' rt | median)
	lib=$(awk '$1 == "lib" { print $2 }' rt | median)
	awk -v o="$off" -v n="$none" -v l="$lib" 'BEGIN { printf "off %.3f s, backend=none %.3f s (%.2fx), profiled %.3f s (%.2fx)\n", o, n, n / o, l, l / o }'
}
echo
echo "== allocation-heavy: prog_allocheavy 20,000,000 small malloc/free, $RUNS interleaved runs"
ratio "$B/tests/prog_allocheavy" 20000000
d=$(ls -d memphis-*/ 2>/dev/null | head -n 1)
if [ -n "$d" ]; then
	echo "run directory $(du -sk "$d" | cut -f1) KiB; report peak RSS $(/usr/bin/time -f %M "$B/memphis-report" "$d" 2>&1 > /dev/null | tail -n 1) KiB"
fi
if [ -x "$B/tests/prog_churn" ]; then
	echo
	echo "== thread churn: prog_churn, $RUNS interleaved runs"
	ratio "$B/tests/prog_churn"
	MEMPHIS_FIRST_TOUCH=0 ratio "$B/tests/prog_churn" | sed 's/^/first touch off: /'
fi
# counters PROG ARGS...: profiled, with PAPI events, with the NUMA counters, interleaved
counters() {
	rm -f ct
	for i in $(seq "$RUNS"); do
		for cfg in lib papi numa; do
			rm -rf memphis-*/
			t0=$(now)
			case $cfg in
			lib) "$@" > /dev/null 2>&1 ;;
			papi) MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS "$@" > /dev/null 2>&1 ;;
			numa) MEMPHIS_NUMA_COUNTERS=1 "$@" > /dev/null 2>&1 ;;
			esac
			echo "$cfg $(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')" >> ct
		done
	done
	lib=$(awk '$1 == "lib" { print $2 }' ct | median)
	papi=$(awk '$1 == "papi" { print $2 }' ct | median)
	numa=$(awk '$1 == "numa" { print $2 }' ct | median)
	awk -v l="$lib" -v p="$papi" -v n="$numa" 'BEGIN { printf "profiled %.3f s, + PAPI events %.3f s (%.3fx), + NUMA counters %.3f s (%.3fx)\n", l, p, p / l, n, n / l }'
}
echo
echo "== counters per region: $RUNS interleaved runs each"
counters "$B/tests/prog_partition" "$REPS" | sed 's/^/prog_partition: /'
if [ -x "$B/tests/prog_churn" ]; then
	counters "$B/tests/prog_churn" | sed 's/^/prog_churn (2000 threads): /'
fi
if [ -f "$OLDPWD/tests/bench_report.sh" ]; then
	echo
	sh "$OLDPWD/tests/bench_report.sh" "$B"
fi
