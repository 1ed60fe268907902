#!/bin/sh
# bench/bench_scale.sh [BUILD] - memphis-report at scale (BENCH_SCALE=1 make bench; issue
# 45 item 5): the report's CPU time per unit and peak RSS as a ratio to the smaller case of
# each pair, measured in this one run (1.00: time linear in the units, memory flat; RSS
# that grows with the run is the index of its records): synthetic runs of 10^7 and 10^8 samples; prog_scale with 64 and
# 512 threads, 100 regions each; prog_scale with 10^5 and 10^6 live objects of 64 bytes,
# from one call site and from as many distinct call chains (MEMPHIS_CALLSITE_DEPTH=6: the
# chains differ in their five outer frames). BENCH_SCALE_SAMPLES, BENCH_SCALE_THREADS and
# BENCH_SCALE_OBJECTS override the pairs (defaults "10000000 100000000": 6.4 GB of run files
# at the largest; "64 512"; "100000 1000000").
B=${1:-build}
B=$(cd "$B" && pwd) || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd) || exit 1
R="$B/memphis-report"
GEN="$B/tests/tool_gen"
SCALE=$B/tests/prog_scale
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memphis-scale.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM
cd "$tmp" || exit 1
. "$SRC/bench/bench_lib.sh"
# pair WHAT UNIT: the two rows of scale.t (units wall cpu rss, small then big), their ratios
pair() {
	printf "%-34s %12s %10s %10s %10s %12s\n" "$1" "$2" wall_s cpu_s "RSS_KiB" "cpu_us/$2"
	while read -r u w c r; do
		printf "%-34s %12s %10s %10s %10s %12s\n" "" "$u" "$w" "$c" "$r" \
			"$(awk "BEGIN { printf \"%.4f\", $c * 1e6 / $u }")"
	done < scale.t
	awk 'NR == 1 { u = $1; c = $3; r = $4 } NR == 2 {
		printf "%-34s ratio big/small: cpu per unit %.2f, peak RSS %.2f (units x%.0f)\n", "",
		       ($3 / $1) / (c / u), $4 / r, $1 / u }' scale.t
}
echo
echo "== scale (BENCH_SCALE=1): time per unit and peak RSS, big case / small case"
: > scale.t
for n in ${BENCH_SCALE_SAMPLES:-10000000 100000000}; do
	"$GEN" "s$n" -n "$n" --allocs 100000 >/dev/null || exit 1
	"$R" "s$n" > /dev/null 2>&1 # the page cache and the symbol files warm
	measure "$R" "s$n"
	echo "$n $wall $cpu $rss" >> scale.t
	rm -rf "s$n"
done
pair "synthetic run" sample
: > scale.t
for t in ${BENCH_SCALE_THREADS:-64 512}; do
	MEMPHIS_PERIOD=1ms MEMPHIS_OUTPUT="t$t" "$SCALE" threads "$t" 100 > /dev/null 2>&1
	n=$("$R" "t$t" --json 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["samples"]["total"])')
	measure "$R" "t$t"
	echo "$n $wall $cpu $rss" >> scale.t
	echo "  $t threads x 100 regions: $n samples, $("$R" "t$t" --json 2>/dev/null | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["regions"]))') regions in the run"
	rm -rf "t$t"
done
pair "threads x 100 regions" sample
for how in one distinct; do
	: > scale.t
	for n in ${BENCH_SCALE_OBJECTS:-100000 1000000}; do
		MEMPHIS_CALLSITE_DEPTH=6 MEMPHIS_OUTPUT="o$n" "$SCALE" objects "$n" "$how" > /dev/null 2>&1
		measure "$R" "o$n"
		echo "$n $wall $cpu $rss" >> scale.t
		rm -rf "o$n"
	done
	pair "live 64-byte objects, $how site" object
done
