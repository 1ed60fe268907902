# memphis_mark from a signal handler (SIGALRM every 300 us while the program marks and
# prints in a loop): a handler that interrupted its thread inside memphis gets -EDEADLK,
# never a hang (caught by timeout); the program's output is unchanged.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

MEMPHIS_DISABLE=1 timeout 120 "$P" sigmark > plain.out 2> plain.err
timeout 120 "$P" sigmark > prof.out 2> prof.err
rc=$?
check "memphis_mark in a signal handler: no hang, exit status 0" test "$rc" = 0
check "memphis_mark in a signal handler: output as without memphis" cmp -s plain.out prof.out
"$REPORT" dump --meta "$(rundir prog_hostile)" > meta.txt 2>&1
check "the run is readable and closed cleanly" sh -c '! grep -q "warning" meta.txt && grep -q "region" meta.txt'
