# tests/tap.sh - sourced by tests/t_*.sh: TAP helpers and paths.
# check DESC CMD...   runs CMD; "ok N - DESC" if it succeeds, else "not ok N - DESC".
# skip DESC WHY       "ok N - DESC # SKIP WHY".
B=${MEMPHIS_BUILD:?run through tests/run.sh}
S=${MEMPHIS_SRC:?run through tests/run.sh}
REPORT=${MEMPHIS_REPORT:-$B/memphis-report}
TAP_N=0
ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }
not_ok() { TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $1"; }
check() {
	desc=$1; shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }
# The run directory a program left in the current directory (newest first).
rundir() { ls -td memphis-"$1"-*/ 2>/dev/null | head -n 1; }
