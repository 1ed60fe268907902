# tests/report_common.sh - sourced by tests/t_report_*.sh: TAP helpers and paths.
# Runs in the temp dir tests/run.sh gives; $MEMPHIS_BUILD and $MEMPHIS_SRC are set by it.
B=${MEMPHIS_BUILD:-build}
S=${MEMPHIS_SRC:-.}
R="$B/memphis-report"
GEN="$B/tests/tool_gen"
tap_n=0
tap_fail=0

# ok STATUS DESCRIPTION - one TAP line; STATUS 0 passes.
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_fail=$((tap_fail + 1))
	fi
}

# check DESCRIPTION COMMAND... - passes when COMMAND succeeds.
check() {
	d=$1
	shift
	if "$@" >/dev/null 2>&1; then ok 0 "$d"; else ok 1 "$d"; fi
}

# has FILE TEXT - FILE contains the fixed string TEXT.
has() { grep -qF -- "$2" "$1"; }

# run_rc OUT ERR CMD... - run CMD with stdout/stderr in files, echo its exit status.
run_rc() {
	o=$1; e=$2; shift 2
	"$@" >"$o" 2>"$e"
	echo $?
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_fail" = 0 ]
}

need_built() {
	for f in "$R" "$GEN"; do
		if [ ! -x "$f" ]; then
			echo "not ok 1 - $f is not built"
			exit 1
		fi
	done
}

have_python() { command -v python3 >/dev/null 2>&1; }
