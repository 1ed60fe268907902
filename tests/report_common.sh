# tests/report_common.sh - sourced by most of tests/report/t_*.sh: the report's paths and helpers
# on top of tests/tap.sh (ok, not_ok, check, check_if, done_testing).
# Runs in the temp dir tests/run.sh gives; $MEMPHIS_BUILD and $MEMPHIS_SRC are set by it.
. "$MEMPHIS_SRC/tests/tap.sh"
R=$REPORT
GEN="$B/tests/tool_gen"

# has FILE TEXT - FILE contains the fixed string TEXT.
has() { grep -qF -- "$2" "$1"; }

# run_rc OUT ERR CMD... - run CMD with stdout/stderr in files, echo its exit status.
run_rc() {
	o=$1; e=$2; shift 2
	"$@" >"$o" 2>"$e"
	echo $?
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
