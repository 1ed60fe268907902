#!/bin/sh
# bench/bench_report.sh [BUILD] - throughput and memory of memphis-report, and a side by
# side with `perf report` on the same program. Prints figures, asserts nothing.
#   1. synthetic runs of 1 M and 10 M samples (tests/programs/tool_gen.c): samples/s (wall and CPU)
#      and peak RSS, which must stay flat in the number of samples; then the same runs'
#      HTML page (--html, issue 18): time and size, which must stay within 10 MB;
#   1b. synthetic runs of many allocations (BENCH_ALLOC_SIZES, default "1000000 5000000"):
#      the report's peak RSS per allocation record, which must stay flat (issue 38);
#   2. report scaling: a synthetic run read with 1 and with N workers (memphis-report -j N,
#      when its --help offers -j), as tool_gen writes it (SAMPLES layout 2) and rewritten
#      in format 3 (tests/programs/tool_format): samples/s and whether the JSON output is
#      the same;
#   2b. an MPI job (issue 19): synthetic jobs of 8 and 64 ranks x BENCH_JOB_N samples
#      (default 200 k; tool_gen --rank) merged with 1 and with JOBS workers: wall, CPU and
#      peak RSS (of the child, /usr/bin/time), which must not grow with the ranks;
#   3. memphis-report compare of two synthetic runs of BENCH_COMPARE_N samples (default
#      10 M), run directory against run directory and saved report against run directory;
#   4. tests/callers/callers.c (samples in libc's memcpy) with and without STACKS entries:
#      the report's samples/s when every sample's line is its caller's (unwound);
#   5. examples/cg/cg profiled by memphis and by `perf record -e task-clock` with the same
#      period and the same user registers, a short and a long run; memphis-report vs
#      `perf report --stdio`, the four timed in turn for BENCH_CG_ROUNDS rounds (default
#      15; medians of CPU time), as samples/s and their ratio, and per sample with the
#      fixed cost taken out (long minus short run, in each round: medians and quartiles).
# With BENCH_SCALE=1, bench/bench_scale.sh follows (bench.sh).
# Environment: BENCH_SIZES (default "1000000 10000000"), BENCH_PERIOD_NS (default 100000,
# libmemphis's shortest period: a shorter MEMPHIS_PERIOD is refused and 1 ms used),
# BENCH_COMPARE_N (default 10000000), BENCH_SCALE_N (default 10000000),
# BENCH_REPORT_JOBS (N, default the number of CPUs, at least 2), BENCH_JOB_N (200000),
# BENCH_CG_ARGS (default "-i 150", with OMP_WAIT_POLICY=passive: about 70k samples of
# examples/cg at 100 us) and BENCH_CG_LONG_ARGS (default "-i 900", about 400k samples).
B=${1:-build}
B=$(cd "$B" && pwd) || exit 1
SRC=$(cd "$(dirname "$0")/.." && pwd) || exit 1
R="$B/memphis-report"
GEN="$B/tests/tool_gen"
# --html finds the page's files in this tree wherever the build is (post/html/html.c)
export MEMPHIS_SRC="$SRC"
SIZES=${BENCH_SIZES:-"1000000 10000000"}
PERIOD=${BENCH_PERIOD_NS:-100000}
CG_ARGS=${BENCH_CG_ARGS:--i 150}
CG_LONG_ARGS=${BENCH_CG_LONG_ARGS:--i 900}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/memphis-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM
cd "$tmp" || exit 1

. "$SRC/bench/bench_lib.sh"
rate() { awk "BEGIN { if ($2 > 0) printf \"%.1f\", $1 / $2 / 1e6; else print \"inf\" }"; }

echo "== memphis-report on synthetic runs (tests/programs/tool_gen, 2 nodes, 4 CPUs, 100k heap objects)"
printf "%12s %10s %10s %14s %14s %10s\n" samples wall_s cpu_s "Msamples/s" "Msamples/s" peak_RSS
printf "%12s %10s %10s %14s %14s %10s\n" "" "" "" "(wall)" "(cpu)" "(KiB)"
first_rss=""
for n in $SIZES; do
	"$GEN" "run$n" -n "$n" --allocs 100000 >/dev/null || exit 1
	"$R" "run$n" >/dev/null 2>&1 # warm the page cache and the symbol files
	measure "$R" "run$n"
	printf "%12s %10s %10s %14s %14s %10s\n" "$n" "$wall" "$cpu" "$(rate "$n" "$wall")" \
		"$(rate "$n" "$cpu")" "$rss"
	[ -z "$first_rss" ] && first_rss=$rss first_n=$n
	last_rss=$rss last_n=$n
	measure "$R" "run$n" --html page.html
	"$R" "run$n" --json --advice > report.json 2>/dev/null # what the page embeds
	echo "$n $wall $cpu $rss $(wc -c < page.html) $(wc -c < report.json)" >> html.t
	rm -rf "run$n" page.html report.json
done
if [ -n "$TIME" ] && [ "$first_n" != "$last_n" ]; then
	echo "peak RSS ratio ${last_n}/${first_n} samples: $(awk "BEGIN { printf \"%.2f\", $last_rss / $first_rss }") (flat = 1.00; samples ratio $(awk "BEGIN { print $last_n / $first_n }"))"
fi
echo
echo "== memphis-report --html on the same runs: the page's time and size (bound: 10 MB)"
printf "%12s %10s %10s %10s %12s %12s %8s\n" samples wall_s cpu_s peak_RSS page_bytes json_bytes "<=10MB"
printf "%12s %10s %10s %10s %12s %12s %8s\n" "" "" "" "(KiB)" "" "(--advice)" ""
while read -r n w c r pb jb; do
	printf "%12s %10s %10s %10s %12s %12s %8s\n" "$n" "$w" "$c" "$r" "$pb" "$jb" \
		"$([ "$pb" -le 10000000 ] && echo yes || echo NO)"
done < html.t

# Heap records (issue 38): synthetic runs of 100 k samples and 0, then BENCH_ALLOC_SIZES
# allocations, each its own object never freed (tool_gen --allocs): the report's wall, CPU
# and peak RSS, and its RSS per allocation record beyond the run without any, which must
# stay flat (about 40 bytes: the index's entry; 258 before 2026-12, the records copied
# twice and sorted through index arrays as large).
echo
ALLOC_SIZES=${BENCH_ALLOC_SIZES:-"1000000 5000000"}
echo "== memphis-report on synthetic runs of 100 k samples and many allocations (--allocs)"
printf "%12s %10s %10s %10s %14s\n" allocations wall_s cpu_s peak_RSS "RSS/record"
printf "%12s %10s %10s %10s %14s\n" "" "" "" "(KiB)" "(bytes)"
rss0=""
for n in 0 $ALLOC_SIZES; do
	"$GEN" "heap$n" -n 100000 --allocs "$n" >/dev/null || exit 1
	"$R" "heap$n" >/dev/null 2>&1 # warm the page cache and the symbol files
	measure "$R" "heap$n"
	[ -n "$rss0" ] || rss0=$rss
	printf "%12s %10s %10s %10s %14s\n" "$n" "$wall" "$cpu" "$rss" \
		"$(awk -v n="$n" -v r="$rss" -v r0="$rss0" 'BEGIN { if (n > 0) printf "%.1f", (r - r0) * 1024 / n; else print "-" }')"
	rm -rf "heap$n"
done

# Report scaling: a synthetic run with one sample file per CPU, read with 1 and with
# JOBS workers (memphis-report -j), when memphis-report --help offers -j.
SCALE_N=${BENCH_SCALE_N:-10000000}
JOBS=${BENCH_REPORT_JOBS:-$(nproc)}
[ "$JOBS" -ge 2 ] 2>/dev/null || JOBS=2
echo
echo "== memphis-report scaling: a synthetic run of $SCALE_N samples, 1 and $JOBS workers (-j)"
if ! { "$R" --help; "$R" report --help; } 2>&1 | grep -Eq -- '(^|[[:space:][,])-j([[:space:]]|$|,|N|])'; then
	echo "# memphis-report --help does not mention -j: workers are not supported by this build, not measured"
else
	"$GEN" scale -n "$SCALE_N" --allocs 100000 >/dev/null || exit 1
	# tool_gen writes SAMPLES layout 2; the library writes 3 (format 3): the same samples
	# rewritten in it, read side by side
	"$B/tests/tool_format" 3 scale scale3 || exit 1
	"$R" scale >/dev/null 2>&1 # warm the page cache and the symbol files
	"$R" scale3 >/dev/null 2>&1
	if ! "$R" scale -j "$JOBS" >/dev/null 2>scale.err; then
		echo "# memphis-report scale -j $JOBS failed: $(tail -n 1 scale.err)"
	fi
	rm -f scale.t
	for i in 1 2 3 4 5; do
		for f in 2 3; do
			for j in 1 "$JOBS"; do
				[ $f = 2 ] && d=scale || d=scale3
				measure "$R" "$d" -j "$j"
				echo "$f $j $wall $cpu $rss" >> scale.t
			done
		done
	done
	med() { awk -v f="$1" -v j="$2" -v c="$3" '$1 == f && $2 == j { print $c }' scale.t | sort -n | sed -n 3p; }
	printf "%6s %8s %10s %10s %14s %14s %10s %10s\n" format workers wall_s cpu_s "Msamples/s" "Msamples/s" peak_RSS MB
	printf "%6s %8s %10s %10s %14s %14s %10s %10s\n" "" "" "" "" "(wall)" "(cpu)" "(KiB)" "(files)"
	for f in 2 3; do
		[ $f = 2 ] && d=scale || d=scale3
		mb=$(du -sm "$d" | cut -f1)
		for j in 1 "$JOBS"; do
			w=$(med "$f" "$j" 3) c=$(med "$f" "$j" 4)
			printf "%6s %8s %10s %10s %14s %14s %10s %10s\n" "$f" "$j" "$w" "$c" "$(rate "$SCALE_N" "$w")" \
				"$(rate "$SCALE_N" "$c")" "$(med "$f" "$j" 5)" "$mb"
		done
	done
	"$R" scale -j 1 --json > j1.json 2>/dev/null
	"$R" scale -j "$JOBS" --json > jn.json 2>/dev/null
	"$R" scale3 -j "$JOBS" --json 2>/dev/null | sed 's/scale3/scale/g' > j3.json
	if cmp -s j1.json jn.json; then same=identical; else same=DIFFERENT; fi
	if cmp -s j1.json j3.json; then same3=identical; else same3=DIFFERENT; fi
	echo "(medians of 5 interleaved runs; speed-up with $JOBS workers (wall)" \
		"$(awk -v a="$(med 2 1 3)" -v b="$(med 2 "$JOBS" 3)" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }') format 2," \
		"$(awk -v a="$(med 3 1 3)" -v b="$(med 3 "$JOBS" 3)" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }') format 3;" \
		"--json output with 1 and $JOBS workers: $same; format 3 against 2: $same3)"
	rm -rf scale3 j3.json
	rm -rf scale scale.t scale.err j1.json jn.json
fi

# An MPI job: each rank reported alone and added into the sums (job.c), ranks by several
# workers; memory holds one rank per worker and the sums, so peak RSS must stay flat from
# 8 to 64 ranks at one worker. Medians of 3 interleaved runs.
JOB_N=${BENCH_JOB_N:-200000}
echo
echo "== memphis-report on MPI jobs: 8 and 64 ranks x $JOB_N samples, 1 and $JOBS workers (-j)"
printf "%6s %8s %10s %10s %14s %10s\n" ranks workers wall_s cpu_s "Msamples/s" peak_RSS
printf "%6s %8s %10s %10s %14s %10s\n" "" "" "" "" "(wall)" "(KiB)"
for nr in 8 64; do
	r=0
	while [ $r -lt "$nr" ]; do
		"$GEN" "job$nr" --rank $r --size "$nr" --host "h$((r / 8))" -n "$JOB_N" --seed $r \
			>/dev/null || exit 1
		r=$((r + 1))
	done
	"$R" "job$nr" >/dev/null 2>&1 # warm the page cache and the symbol files
	rm -f job.t
	for i in 1 2 3; do
		for j in 1 "$JOBS"; do
			measure "$R" "job$nr" -j "$j"
			echo "$j $wall $cpu $rss" >> job.t
		done
	done
	jmed() { awk -v j="$1" -v c="$2" '$1 == j { print $c }' job.t | sort -n | sed -n 2p; }
	for j in 1 "$JOBS"; do
		printf "%6s %8s %10s %10s %14s %10s\n" "$nr" "$j" "$(jmed "$j" 2)" "$(jmed "$j" 3)" \
			"$(rate $((nr * JOB_N)) "$(jmed "$j" 2)")" "$(jmed "$j" 4)"
	done
	eval "rss1_$nr=\$(jmed 1 4)"
	rm -rf "job$nr" job.t
done
echo "(peak RSS at 1 worker, 64 ranks / 8 ranks: $(awk "BEGIN { if ($rss1_8 > 0) printf \"%.2f\", $rss1_64 / $rss1_8; else print \"n/a\" }"); flat = 1.00, ranks ratio 8)"

CMP_N=${BENCH_COMPARE_N:-10000000}
echo
echo "== memphis-report compare of two synthetic runs of $CMP_N samples each (a 5-point shift)"
"$GEN" cmpa -n "$CMP_N" --allocs 100000 --remote-pct 50 --seed 1 >/dev/null || exit 1
"$GEN" cmpb -n "$CMP_N" --allocs 100000 --remote-pct 55 --seed 2 >/dev/null || exit 1
"$R" cmpa >/dev/null 2>&1 # warm the page cache and the symbol files
printf "%-34s %10s %10s %10s %6s\n" "compare" wall_s cpu_s peak_RSS exit
measure "$R" compare cmpa cmpb
crc=$(cd "$tmp" && "$R" compare cmpa cmpb >/dev/null 2>&1; echo $?)
printf "%-34s %10s %10s %10s %6s\n" "run directory vs run directory" "$wall" "$cpu" "$rss" "$crc"
"$R" --json cmpa > cmpa.json 2>/dev/null
measure "$R" compare cmpa.json cmpb
printf "%-34s %10s %10s %10s %6s\n" "saved report vs run directory" "$wall" "$cpu" "$rss" "$crc"
echo "(exit 1: the shift is found; a compare costs about two reports, the JSON step is small)"
rm -rf cmpa cmpb cmpa.json

# Callers of runtime code: tests/callers/callers.c spends its region in libc's memcpy, so
# nearly every sample keeps a STACKS entry and gets its line by unwinding (attrib_caller.c,
# cached by instruction and return address). Its report against a run of the same program
# without entries (MEMPHIS_STACK_BYTES=0), medians of 3 interleaved runs.
echo
echo "== memphis-report with caller lines: tests/callers/callers.c (samples in memcpy), period ${PERIOD} ns"
if cc -g -O2 -I"$SRC/include" -o callers "$SRC/tests/callers/callers.c" -L"$B" -Wl,-rpath,"$B" \
	-lmemphis 2>callers.err; then
	mkdir with without
	(cd with && MEMPHIS_PERIOD="${PERIOD}ns" ../callers 3 >/dev/null 2>&1)
	(cd without && MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD="${PERIOD}ns" ../callers 3 >/dev/null 2>&1)
	rm -f callers.t
	for i in 1 2 3; do
		for k in with without; do
			run=$(ls -d $k/memphis-callers-*/ 2>/dev/null | head -n 1)
			[ -n "$run" ] || continue
			"$R" "$run" >/dev/null 2>&1
			measure "$R" "$run"
			echo "$k $wall $cpu $rss" >> callers.t
		done
	done
	printf "%-26s %9s %8s %8s %12s %9s\n" "STACKS entries" samples wall_s cpu_s "ksamples/s" "RSS_KiB"
	printf "%-26s %9s %8s %8s %12s %9s\n" "" "" "" "" "(cpu)" ""
	for k in with without; do
		run=$(ls -d $k/memphis-callers-*/ 2>/dev/null | head -n 1)
		[ -n "$run" ] || { echo "# $k: no run directory"; continue; }
		n=$("$R" "$run" --json 2>/dev/null | sed -n 's/^    "total": \([0-9]*\),$/\1/p' | head -n 1)
		st=$("$R" dump "$run" --stacks 2>/dev/null | grep -c '^sample')
		w=$(awk -v k="$k" '$1 == k { print $2 }' callers.t | sort -n | sed -n 2p)
		c=$(awk -v k="$k" '$1 == k { print $3 }' callers.t | sort -n | sed -n 2p)
		r=$(awk -v k="$k" '$1 == k { print $4 }' callers.t | sort -n | sed -n 2p)
		printf "%-26s %9s %8s %8s %12s %9s\n" "$k ($st samples with one)" "$n" "$w" "$c" \
			"$(awk "BEGIN { if ($c > 0) printf \"%.1f\", $n / $c / 1e3; else print \"inf\" }")" "$r"
	done
	rm -rf with without callers callers.t
else
	echo "# cannot build tests/callers/callers.c: $(tail -n 1 callers.err)"
fi

echo
echo "== the same program under memphis and under perf record (period ${PERIOD} ns)"
CG="$B/examples/cg/cg"
if [ ! -x "$CG" ]; then
	echo "# $CG is not built: skipped"
	exit 0
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "# perf is not installed (Debian package linux-perf): skipped"
	exit 0
fi
# passive waiting: the program's speed under load does not matter here, only its samples
export OMP_WAIT_POLICY=passive
regs=ax,bx,cx,dx,si,di,bp,sp,ip,r8,r9,r10,r11,r12,r13,r14,r15
# cputime CMD... - CMD's CPU and wall time by perf stat (ms resolution; /usr/bin/time has
# 10 ms), "CPU WALL" in seconds
cputime() {
	perf stat -x, -e task-clock -e duration_time -o ps.out "$@" >/dev/null 2>&1
	awk -F, '$3 ~ /^task-clock/ { c = $1 / 1e3 } $3 ~ /^duration_time/ { w = $1 / 1e9 }
		END { printf "%.4f %.4f\n", c, w }' ps.out
}
# side LABEL ARGS: cg ARGS recorded by libmemphis and by perf record into LABEL/; sets
# msamples and psamples (empty: that tool failed)
side() {
	mkdir -p "$1" && cd "$1" || exit 1
	msamples="" psamples=""
	MEMPHIS_PERIOD="${PERIOD}ns" "$CG" $2 >/dev/null 2>&1
	run=$(ls -d memphis-cg-*/ 2>/dev/null | head -n 1)
	if [ -n "$run" ]; then
		mv "$run" memphis.run
		"$R" memphis.run >/dev/null 2>&1
		msamples=$("$R" memphis.run --json 2>/dev/null |
			sed -n 's/^    "total": \([0-9]*\),$/\1/p' | head -n 1)
	else
		echo "# $1: the memphis run of $CG wrote no run directory"
	fi
	if MEMPHIS_DISABLE=1 perf record -q -e task-clock -c "$PERIOD" --user-regs=$regs \
		-o perf.data "$CG" $2 >/dev/null 2>perf.err; then
		psamples=$(perf report -i perf.data --stdio --header-only 2>/dev/null |
			sed -n 's/^# *sample *: *\([0-9]*\).*/\1/p;s/.*nr_samples\D*\([0-9]*\).*/\1/p' |
			head -n 1)
		[ -n "$psamples" ] || psamples=$(perf script -i perf.data -F ip 2>/dev/null | wc -l)
		perf report -i perf.data --stdio >/dev/null 2>&1
	else
		echo "# $1: perf record failed: $(tail -n 1 perf.err)"
	fi
	cd .. || exit 1
}

krate() { awk "BEGIN { if ($2 > 0) printf \"%.1f\", $1 / $2 / 1e3; else print \"inf\" }"; }
row() { # row TOOL RUN SAMPLES WALL CPU RSS
	printf "%-22s %-8s %9s %8s %8s %12s %12s %9s\n" "$1" "$2" "$3" "$4" "$5" \
		"$(krate "$3" "$4")" "$(krate "$3" "$5")" "$6"
}
side short "$CG_ARGS"
ms=$msamples ps=$psamples
side long "$CG_LONG_ARGS"
if [ -z "$ms" ] || [ -z "$ps" ] || [ -z "$msamples" ] || [ -z "$psamples" ]; then
	echo "# a run is missing: no side by side"
	exit 0
fi
# The four reports timed in turn, round after round (this VM's timings of one report move
# by 5 ms from one minute to the next, 13 ns a sample of the difference below): a round's
# per-sample figures and their ratio come from the same minute.
ROUNDS=${BENCH_CG_ROUNDS:-15}
for k in $(seq "$ROUNDS"); do
	echo "$(cputime "$R" short/memphis.run) $(cputime perf report -i short/perf.data --stdio)" \
		"$(cputime "$R" long/memphis.run) $(cputime perf report -i long/perf.data --stdio)"
done > rounds.out
# median COLUMN: the median of a column of rounds.out
median() { awk -v c="$1" '{ print $c }' rounds.out | sort -n | awk '{ v[NR] = $1 }
	END { print v[int((NR + 1) / 2)] }'; }
mc=$(median 1) mw=$(median 2) pc=$(median 3) pw=$(median 4)
mcl=$(median 5) mwl=$(median 6) pcl=$(median 7) pwl=$(median 8)
measure "$R" short/memphis.run; mr=$rss
measure perf report -i short/perf.data --stdio; pr=$rss
measure "$R" long/memphis.run; mrl=$rss
measure perf report -i long/perf.data --stdio; prl=$rss
echo "(CPU and wall: medians of $ROUNDS rounds, the four reports in turn in each)"
printf "%-22s %-8s %9s %8s %8s %12s %12s %9s\n" tool "cg" samples wall_s cpu_s "ksamples/s" "ksamples/s" "RSS_KiB"
printf "%-22s %-8s %9s %8s %8s %12s %12s %9s\n" "" "" "" "" "" "(wall)" "(cpu)" ""
row memphis-report "$CG_ARGS" "$ms" "$mw" "$mc" "$mr"
row "perf report --stdio" "$CG_ARGS" "$ps" "$pw" "$pc" "$pr"
row memphis-report "$CG_LONG_ARGS" "$msamples" "$mwl" "$mcl" "$mrl"
row "perf report --stdio" "$CG_LONG_ARGS" "$psamples" "$pwl" "$pcl" "$prl"
ratios() { # ratios ARGS MSAMPLES MCPU MRSS PSAMPLES PCPU PRSS
	awk -v a="$1" -v ms="$2" -v mc="$3" -v mr="$4" -v ps="$5" -v pc="$6" -v pr="$7" 'BEGIN {
	printf("ratios memphis-report / perf report (%s): cpu time %s, samples/s (cpu) %s, peak RSS %s\n", a,
	       (pc > 0 ? sprintf("%.2f", mc / pc) : "n/a"),
	       (pc > 0 && ps > 0 && mc > 0 ? sprintf("%.2f", (ms / mc) / (ps / pc)) : "n/a"),
	       (pr > 0 ? sprintf("%.2f", mr / pr) : "n/a"))
}'
}
ratios "$CG_ARGS" "$ms" "$mc" "$mr" "$ps" "$pc" "$pr"
ratios "$CG_LONG_ARGS" "$msamples" "$mcl" "$mrl" "$psamples" "$pcl" "$prl"
# Per sample, the fixed cost (reading the objects' symbols and DWARF) taken out: the
# difference between the long and the short run over the difference of their samples, in
# each round; the medians and quartiles of the rounds' figures and of their ratio.
awk -v ms="$ms" -v ml="$msamples" -v ps="$ps" -v pl="$psamples" '
function q(a, n, f) { return a[int(f * (n - 1) + 1.5)] }
function sorted(a, n,   i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
}
ml > ms && pl > ps {
	n++
	m[n] = ($5 - $1) / (ml - ms) * 1e9
	p[n] = ($7 - $3) / (pl - ps) * 1e9
	r[n] = m[n] > 0 ? p[n] / m[n] : 0
	fm[n] = $1 - ms * m[n] / 1e9
	fp[n] = $3 - ps * p[n] / 1e9
}
END {
	if (!n) { print "per sample, fixed cost out: n/a"; exit }
	sorted(m, n); sorted(p, n); sorted(r, n); sorted(fm, n); sorted(fp, n)
	printf("per sample, fixed cost out (long - short, each round): memphis-report %.0f ns " \
	       "(quartiles %.0f-%.0f), perf report %.0f ns (%.0f-%.0f), ratio (perf / memphis) " \
	       "%.2f (%.2f-%.2f)\n", q(m, n, .5), q(m, n, .25), q(m, n, .75), q(p, n, .5),
	       q(p, n, .25), q(p, n, .75), q(r, n, .5), q(r, n, .25), q(r, n, .75))
	printf("fixed cost (short run minus its samples at that rate): memphis-report %.3f s, " \
	       "perf report %.3f s\n", q(fm, n, .5), q(fp, n, .5))
}' rounds.out
rm -rf short long

# The fixed cost on its own: a run of a few hundred samples costs about what reading the
# DWARF of the objects the samples touch costs (libc's separate debug file, mostly).
mkdir small && cd small || exit 1
MEMPHIS_PERIOD=1ms "$CG" -i 2 >/dev/null 2>&1
run=$(ls -d memphis-cg-*/ 2>/dev/null | head -n 1)
if [ -n "$run" ]; then
	"$R" "$run" >/dev/null 2>&1
	n=$("$R" "$run" --json 2>/dev/null | sed -n 's/^    "total": \([0-9]*\),$/\1/p' | head -n 1)
	for k in 1 2 3 4 5; do cputime "$R" "$run"; done | sort -n | sed -n 3p > m5.out
	read -r cpu wall < m5.out
	echo "fixed cost: memphis-report on a run of $n samples (cg -i 2, period 1 ms, median of 5):" \
		"cpu $cpu s, wall $wall s"
fi

