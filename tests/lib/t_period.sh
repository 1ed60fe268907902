# The documented shortest sampling period is usable: the man page, the README, the
# launcher's --help and the library's check agree on it, a program runs at it without
# hanging (a generous timeout; the old 10us made a 1 s program take minutes), and a
# shorter period is refused with one line.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

man=$(sed -n 's/^Sampling period with a unit (1ms, 250us; \([0-9]*us\) to 10s).*/\1/p' "$S/docs/memphis.3")
readme=$(sed -n 's/.*`MEMPHIS_PERIOD`.*; \([0-9]*\) µs – 10 s.*/\1us/p' "$S/README.md")
help=$("$B/memphis" --help 2>&1 | sed -n 's/.*--period TIME.* \([0-9]*us\) to 10s.*/\1/p')
check "man page, README and --help give the same shortest period ($man, $readme, $help)" \
	sh -c "[ -n '$man' ] && [ '$man' = '$readme' ] && [ '$man' = '$help' ]"
MEMPHIS_PERIOD=$man "$P" mark > min.out 2> min.err
check "MEMPHIS_PERIOD=$man is accepted (no line from memphis)" sh -c '[ ! -s min.err ]'
rm -rf memphis-*/
below=$(( ${man%us} - 1 ))us
MEMPHIS_PERIOD=$below "$P" mark > below.out 2> below.err
check "MEMPHIS_PERIOD=$below is refused with one line naming it" \
	sh -c "[ \"\$(grep -c '^memphis' below.err)\" = 1 ] && grep -q 'MEMPHIS_PERIOD=$below.*$man' below.err"
rm -rf memphis-*/
MEMPHIS_DISABLE=1 "$P" work 10 > plain.out
MEMPHIS_PERIOD=$man timeout 60 "$P" work 10 > prof.out 2> prof.err
rc=$?
check "a program runs at the shortest period: no hang (exit $rc), same output" \
	sh -c "[ $rc = 0 ] && cmp -s plain.out prof.out"
rm -rf memphis-*/
