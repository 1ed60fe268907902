#!/bin/sh
# tests/run.sh BUILD - run every unit test binary (BUILD/tests/unit_*, whose sources are
# tests/unit/) and every test script (tests/KIND/t_*.sh: lib, report, pkg, shape, fuzz, vm),
# each in its own process with a timeout (MEMPHIS_TEST_TIMEOUT, 600 s; t_vm.sh
# MEMPHIS_VM_TEST_TIMEOUT, 3600 s). MEMPHIS_TESTS=REGEX runs only the scripts whose path
# matches (e.g. 't_threads|t_heapvar', or 'report/' for a folder). Each prints TAP lines
# ("ok N - what", "not ok N - what", "... # SKIP why"); a file that exits 77 is skipped
# whole, one that exits non-zero without a "not ok" counts as one failure. Each runs in
# a fresh empty directory.
# Ends with the list of skipped tests with their reasons, the list of failed checks (last, so
# that a log's tail shows them), then the line "N passed, N failed, N skipped".
# MEMPHIS_STRICT_SKIPS=1 (set by .ci/run) counts as a failure each skip whose reason says a
# piece the build or `make deps` should have provided is missing (BUILD_SKIP below: module
# or program not built, no kernel headers, no clang/gfortran/python3); skips for the
# machine (no PMU, IBS/PEBS, the other guest topology, not root, no strace) stay skips.
B=${1:-build}
export MEMPHIS_BUILD="$(cd "$B" && pwd)"
export MEMPHIS_SRC="$(pwd)"
TIMEOUT=${MEMPHIS_TEST_TIMEOUT:-600}
# A launcher's variables (make check inside a Slurm job or under mpirun) would make every
# profiled test program a rank writing a job directory (lib/rank.h): the tests set their
# own where they test that.
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK \
	OMPI_COMM_WORLD_LOCAL_SIZE PMIX_RANK PMIX_NAMESPACE OMPI_MCA_ess_base_jobid PMI_RANK \
	PMI_SIZE MPI_LOCALRANKID MPI_LOCALNRANKS PMI_KVSNAME SLURM_PROCID SLURM_NTASKS \
	SLURM_LOCALID SLURM_JOB_ID SLURM_STEP_ID
pass=0; fail=0; skip=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# the report's copy of the kernel's symbols (post/report/report_kernel.c) kept with the
# tests', not in the user's cache
export MEMPHIS_REPORT_CACHE="$out/cache"
: > "$out/skips"; : > "$out/fails"
BUILD_SKIP='not built|check-deps|mpirun|mpicc|mpif90|no kernel headers|linux-headers|clang|libFuzzer|no Fortran compiler|gfortran|memphis\.mod|no C compiler|C\+\+ compiler|is needed|no objects built'

# skipped NAME WHY: lists the skip; under MEMPHIS_STRICT_SKIPS=1 one for a missing build
# piece is also a failure.
skipped() {
	echo "$1 # $2" >> "$out/skips"
	if [ "${MEMPHIS_STRICT_SKIPS:-0}" = 1 ] && echo "$2" | grep -qiE "$BUILD_SKIP"; then
		echo "    not ok - $1: skipped for a missing build piece, and MEMPHIS_STRICT_SKIPS=1: $2"
		echo "$1: skipped for a missing build piece: $2" >> "$out/fails"
		fail=$((fail + 1))
	fi
}

run_one() {
	name=$1; shift
	log="$out/log"
	work="$out/$name.d"
	mkdir -p "$work"
	# The NUMA guests (t_vm.sh): three boots of up to 1500 s each (tests/vm/boot.sh), and a
	# guest that fell silent is booted again; together 1321 s in the slowest full run yet.
	limit=$TIMEOUT
	[ "$name" = t_vm.sh ] && limit=${MEMPHIS_VM_TEST_TIMEOUT:-3600}
	(cd "$work" && timeout -k 10 "$limit" "$@") >"$log" 2>"$out/err"
	rc=$?
	rm -rf "$work" 
	echo "# --- $name"
	sed 's/^/    /' "$log"
	p=$(grep -c '^ok ' "$log" | tr -d ' ')
	s=$(grep -c '^ok .*# *SKIP' "$log" | tr -d ' ')
	f=$(grep -c '^not ok ' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" = 77 ]; then
		why=$(tail -n 1 "$out/err")
		skip=$((skip + 1)); echo "    # SKIP $name: $why"; skipped "$name" "$why"; return
	fi
	grep '^ok .*# *SKIP' "$log" | sed 's/^ok [0-9]* - //; s/ *# *SKIP */\t/' > "$out/sk"
	while IFS='	' read -r what why; do
		skipped "$name: $what" "$why"
	done < "$out/sk"
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1; echo "    not ok - $name exited with status $rc"
		echo "$name: exited with status $rc" >> "$out/fails"
		tail -n 20 "$out/err" | sed 's/^/    # /'
	elif [ "$f" != 0 ]; then
		# each failed check, and the first 6 comment lines after it (its diagnosis: a
		# log's tail is often all a CI runner shows)
		awk -v n="$name" 'sub(/^not ok [0-9]* - /, "") { print n ": " $0; c = 6; next }
			/^# / && c > 0 { print "    " $0; c--; next } { c = 0 }' "$log" >> "$out/fails"
		tail -n 20 "$out/err" | sed 's/^/    # /'
	fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
}

# suites: every test script, as KIND/t_NAME.sh (no spaces), in the order of the file names
# whatever the folder (the names are unique across tests/*/; the order they ran in when all
# were in tests/). Their paths are "$MEMPHIS_SRC/tests/" and these.
suites() {
	for t in "$MEMPHIS_SRC"/tests/*/t_*.sh; do
		[ -f "$t" ] || continue
		t=${t#"$MEMPHIS_SRC/tests/"}
		echo "${t##*/} $t"
	done | LC_ALL=C sort | cut -d' ' -f2
}

# unit tests whose source is there (a renamed test leaves its old binary in BUILD)
for t in "$MEMPHIS_BUILD"/tests/unit_*; do
	[ -x "$t" ] && [ -f "$MEMPHIS_SRC/tests/unit/${t##*/}.c" ] || continue
	# unit tests link the library: they must not profile themselves
	run_one "$(basename "$t")" env MEMPHIS_DISABLE=1 "$t"
done
for s in $(suites); do
	t=$MEMPHIS_SRC/tests/$s
	[ -n "$MEMPHIS_TESTS" ] && ! echo "$t" | grep -qE "$MEMPHIS_TESTS" && continue
	run_one "$(basename "$t")" sh "$t"
done
# The collector's own suites once more with the events per thread (MEMPHIS_SCOPE=thread):
# where the kernel allows events of a CPU (root, as in CI) the runs above sampled per CPU.
SCOPE_TESTS=${MEMPHIS_SCOPE_TESTS:-t_sampler|t_threads|t_robust|t_touch|t_closefds|t_churn_rings|t_stacks|t_cancel|t_sigmark|t_dlopen|t_exitpath|t_period}
if [ -z "$MEMPHIS_NO_SCOPE_PASS" ]; then
	for s in $(suites); do
		t=$MEMPHIS_SRC/tests/$s
		echo "$t" | grep -qE "$SCOPE_TESTS" || continue
		[ -n "$MEMPHIS_TESTS" ] && ! echo "$t" | grep -qE "$MEMPHIS_TESTS" && continue
		run_one "scope=thread: $(basename "$t")" env MEMPHIS_SCOPE=thread sh "$t"
	done
fi
# The same suites under sanitizers, when `make check` built them: the library, its unit
# tests and the programs under UBSan; memphis-report under ASan+UBSan (and TSan below).
SAN_TESTS=${MEMPHIS_SAN_TESTS:-t_sampler|t_threads|t_robust|t_touch|t_fortran|t_counters|t_stacks}
if [ -d "$MEMPHIS_BUILD-ubsan" ] && [ -z "$MEMPHIS_NO_SAN" ]; then
	for t in "$MEMPHIS_BUILD-ubsan"/tests/unit_*; do
		[ -x "$t" ] && [ -f "$MEMPHIS_SRC/tests/unit/${t##*/}.c" ] || continue
		run_one "ubsan: $(basename "$t")" env MEMPHIS_DISABLE=1 "$t"
	done
	for s in $(suites); do
		t=$MEMPHIS_SRC/tests/$s
		# whole names: "t_robust" is not t_report_robust (the report's tests are ASan's, below)
		echo "${t##*/}" | grep -qE "^($SAN_TESTS)\.sh$" || continue
		run_one "ubsan: $(basename "$t")" env MEMPHIS_BUILD="$MEMPHIS_BUILD-ubsan" \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 sh "$t"
	done
fi
if [ -x "$MEMPHIS_BUILD-asan/memphis-report" ] && [ -z "$MEMPHIS_NO_SAN" ]; then
	for s in $(suites); do
		t=$MEMPHIS_SRC/tests/$s
		echo "$t" | grep -qE "t_report|t_compare|t_robust|t_sampler|t_fortran|t_counters|t_heapvar|t_advice|t_html|t_callers_bp" || continue
		run_one "asan: $(basename "$t")" env MEMPHIS_REPORT="$MEMPHIS_BUILD-asan/memphis-report" \
			ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 sh "$t"
	done
fi
# memphis-report's threads under TSan: a race makes the report differ or TSan print to
# stderr, which t_report_jobs compares between thread counts (halt_on_error: exit 66)
if [ -x "$MEMPHIS_BUILD-tsan/memphis-report" ] && [ -z "$MEMPHIS_NO_SAN" ]; then
	run_one "tsan: t_report_jobs.sh" env MEMPHIS_REPORT="$MEMPHIS_BUILD-tsan/memphis-report" \
		TSAN_OPTIONS=halt_on_error=1 sh "$MEMPHIS_SRC/tests/report/t_report_jobs.sh"
	# the ranks of an MPI job reported by several workers at once (job.c)
	run_one "tsan: t_report_mpijob.sh" env MEMPHIS_REPORT="$MEMPHIS_BUILD-tsan/memphis-report" \
		TSAN_OPTIONS=halt_on_error=1 MEMPHIS_JOB_SAMPLES=20000 \
		sh "$MEMPHIS_SRC/tests/report/t_report_mpijob.sh"
fi
if [ -s "$out/skips" ]; then
	echo "# skipped (test # reason):"
	sed 's/^/#   /' "$out/skips"
fi
if [ -s "$out/fails" ]; then
	echo "# failed (test: check):"
	sed 's/^/#   /' "$out/fails"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
