#!/bin/sh
# examples/ci/numa-gate.sh - a CI gate on remote memory accesses (issue 13): build memphis
# and the examples, profile PROGRAM under memphis, compare the run with a baseline and exit
# with memphis-report compare's status: 0 no regression, 1 a regression, 2 cannot compare
# (and 2 when the gate itself cannot run: build, program or usage). README.md here says how
# to record a baseline on your own NUMA runner.
#
#   numa-gate.sh [OPTIONS] BASELINE PROGRAM [ARGS...]     profile PROGRAM, compare
#   numa-gate.sh [OPTIONS] --run DIR BASELINE             compare a run made elsewhere
#   numa-gate.sh [OPTIONS] --record BASELINE PROGRAM [ARGS...]   write a new baseline
#
# Options:
#   -o DIR           where the outputs go (default numa-gate/): run/ (the run directory),
#                    report.json (its report: the next baseline, if you keep it),
#                    compare.txt, compare.md (for a PR comment or job summary), junit.xml
#   -B DIR           the memphis build directory (default: $MEMPHIS_BUILD, else build/ of
#                    this checkout)
#   --no-build       do not run `make all` first (memphis and the program are built)
#   --max-regress N  compare's threshold in percentage points (default: compare's, 2)
#   --strict         refuse runs that differ in backend, period, weighting or threads
#   --run DIR        compare this run directory instead of running PROGRAM (a run made by
#                    another job step, e.g. under mpirun or a batch system)
#   --record         profile PROGRAM and save its report as BASELINE; no comparison
# BASELINE is a report saved with `memphis-report --json` (or a run directory).
# The environment passes through to PROGRAM: OMP_NUM_THREADS, OMP_PLACES, MEMPHIS_PERIOD...
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
	sed -n '8,10p' "$0" | sed 's/^#   /usage: /' >&2
	echo "numa-gate: $*" >&2
	exit 2
}

out=numa-gate build=${MEMPHIS_BUILD:-$repo/build} make=yes run='' record=no copts=''
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage "-o needs a directory"; out=$2; shift 2 ;;
	-B) [ $# -ge 2 ] || usage "-B needs a directory"; build=$2; shift 2 ;;
	--no-build) make=no; shift ;;
	--max-regress) [ $# -ge 2 ] || usage "--max-regress needs a value"
		copts="$copts --max-regress $2"; shift 2 ;;
	--strict) copts="$copts --strict"; shift ;;
	--run) [ $# -ge 2 ] || usage "--run needs a run directory"; run=$2; shift 2 ;;
	--record) record=yes; shift ;;
	-h | --help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	-*) usage "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage "no BASELINE"
baseline=$1
shift
[ -n "$run" ] && [ $# -gt 0 ] && usage "--run DIR takes no PROGRAM"
[ -n "$run" ] && [ $record = yes ] && usage "--run and --record do not go together"
[ -z "$run" ] && [ $# = 0 ] && usage "no PROGRAM"

if [ $make = yes ]; then
	echo "numa-gate: make all in $repo" >&2
	make -C "$repo" --no-print-directory -j"$(nproc 2> /dev/null || echo 2)" B="$build" all >&2 ||
		{ echo "numa-gate: the build failed" >&2; exit 2; }
fi
R=$build/memphis-report
[ -x "$R" ] || { echo "numa-gate: $R is not built" >&2; exit 2; }
mkdir -p "$out" || exit 2

if [ -z "$run" ]; then
	run=$out/run
	rm -rf "$run"
	echo "numa-gate: profiling $* (run directory $run)" >&2
	"$build/memphis" run -o "$run" -- "$@" > "$out/program.out" ||
		{ echo "numa-gate: $1 failed (exit $?; its output: $out/program.out)" >&2; exit 2; }
fi
"$R" --json "$run" > "$out/report.json" ||
	{ echo "numa-gate: memphis-report could not read $run" >&2; exit 2; }
if [ $record = yes ]; then
	cp "$out/report.json" "$baseline" || exit 2
	echo "numa-gate: baseline written to $baseline; check it in" >&2
	exit 0
fi

# One comparison makes the verdict, the markdown and the JUnit file; the text is for the log.
# $copts is split on purpose: it holds whole options.
# shellcheck disable=SC2086
"$R" compare $copts "$baseline" "$out/report.json" --markdown --junit "$out/junit.xml" \
	> "$out/compare.md"
rc=$?
if [ $rc != 2 ]; then # (compare said why it could not on stderr already)
	# shellcheck disable=SC2086
	"$R" compare $copts "$baseline" "$out/report.json" > "$out/compare.txt" 2>&1
	cat "$out/compare.txt"
fi
echo "numa-gate: compare exit $rc (0 no regression, 1 regression, 2 cannot compare)" >&2
exit $rc
