# pthread_cancel right after pthread_create: the new thread may be cancelled inside the
# library's registration; it must never die holding a lock (the next pthread_create, or
# the program's exit, then hangs). A hang is caught by timeout.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

MEMPHIS_DISABLE=1 timeout 120 "$P" cancel 300 > plain.out 2> plain.err
timeout 120 "$P" cancel 300 > prof.out 2> prof.err
rc=$?
check "300 threads cancelled at birth: no hang, exit status 0" test "$rc" = 0
check "300 threads cancelled at birth: output as without memphis" cmp -s plain.out prof.out
