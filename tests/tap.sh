# tests/tap.sh - the TAP printer of the shell tests: sourced by tests/*/t_*.sh (the report's
# tests through tests/report_common.sh), which tests/run.sh runs in an empty directory with
# MEMPHIS_BUILD and MEMPHIS_SRC set. One TAP line per check, numbered here:
#   ok DESC              "ok N - DESC"
#   not_ok DESC          "not ok N - DESC" (counted as a failure)
#   check DESC CMD...    runs CMD; ok when it exits 0, else not ok
#   check_if DESC COND   the same for a shell condition, evaluated here ('[ "$rc" = 0 ] && ...')
#   skip DESC WHY        "ok N - DESC # SKIP WHY"
#   done_testing         prints the plan "1..N"; returns 1 when a check failed
# The guest tests (tests/vm/guest-lib.sh) print "@@VM ok - ..." instead: they share a
# serial console with the kernel, and the host numbers their lines (tests/vm/run.sh).
B=${MEMPHIS_BUILD:?run through tests/run.sh}
S=${MEMPHIS_SRC:?run through tests/run.sh}
REPORT=${MEMPHIS_REPORT:-$B/memphis-report}
TAP_N=0
TAP_FAILED=0
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }
not_ok() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); echo "not ok $TAP_N - $1"; }
check() {
	desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
check_if() {
	if eval "$2"; then ok "$1"; else not_ok "$1"; fi
}
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }
# tap_lines PREFIX FILE RC: the "ok DESC" and "not ok DESC" lines a helper (a browser
# driver) wrote to FILE as checks of this test, each DESC after "PREFIX: ", its other
# lines as comments; a failure of its own when it exited RC != 0 with no "not ok" line.
tap_lines() {
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$1: ${line#ok }" ;;
		"not ok "*) not_ok "$1: ${line#not ok }" ;;
		*) echo "# $line" ;;
		esac
	done < "$2"
	[ "$3" = 0 ] || grep -q '^not ok' "$2" || not_ok "$1: the browser run failed ($3)"
}
done_testing() {
	echo "1..$TAP_N"
	[ "$TAP_FAILED" = 0 ]
}
# The run directory a program left in the current directory (newest first).
rundir() { ls -td memphis-"$1"-*/ 2>/dev/null | head -n 1; }
# under_memphis PREFIX NAME OKLINE CMD...: program NAME (linked with libmemphis) run by CMD
# here, its output in run.out and run.err; "PREFIX: run it under memphis" is ok when it
# exits 0, leaves its run directory (into $d) and, unless OKLINE is empty, prints a line
# starting with OKLINE.
under_memphis() {
	_p=$1 _n=$2 _l=$3
	shift 3
	"$@" >run.out 2>run.err
	_rc=$?
	d=$(rundir "$_n")
	if [ $_rc = 0 ] && [ -n "$d" ] && { [ -z "$_l" ] || grep -q "^$_l" run.out; }; then
		ok "${_p:+$_p: }run it under memphis"
	else
		not_ok "${_p:+$_p: }run it under memphis (exit $_rc, run directory ${d:-missing})"
		sed 's/^/# /' run.err
	fi
}
# The value of RUN key KEY of run directory DIR (its first, when it repeats).
run_key() { "$REPORT" dump --meta "$1" 2>/dev/null | sed -n "s/^#   $2=//p" | head -n 1; }
# 0 when the library samples per CPU here (MEMPHIS_SCOPE=cpu is allowed: root, CAP_PERFMON
# or kernel.perf_event_paranoid <= 0); asked of a short run, once per test.
scope_cpu_allowed() {
	if [ -z "$TAP_SCOPE_CPU" ]; then
		rm -rf .scope-probe
		MEMPHIS_SCOPE=cpu MEMPHIS_OUTPUT=.scope-probe "$B/tests/prog_hostile" mark >/dev/null 2>&1
		if [ "$(run_key .scope-probe scope)" = cpu ]; then
			TAP_SCOPE_CPU=yes
		else
			TAP_SCOPE_CPU=no
		fi
		rm -rf .scope-probe
	fi
	[ "$TAP_SCOPE_CPU" = yes ]
}
# stats CMD ARGS...: the bounds of checks on counts and shares (tests/stats.py; the rule is
# in tests/README.md), e.g. `m=$(stats min "$n" 0.25)`.
stats() { python3 "$S/tests/stats.py" "$@"; }
# share_ok K N LO HI [WRONG]: stats.py share, silent: its exit status only
share_ok() { python3 "$S/tests/stats.py" share "$@" > /dev/null; }
