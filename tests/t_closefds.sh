# A daemon closes every inherited descriptor (close_range(3, ~0U)) inside a region and
# puts its own file on every number the library had: the library must never write to,
# ioctl or close a descriptor it did not open. Its own file keeps exactly what it wrote,
# none of its descriptors is closed by memphis, and the run stays complete (its files are
# opened again).
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

MEMPHIS_DISABLE=1 timeout 120 "$P" closefds > plain.out 2> plain.err
rm -f own.txt
timeout 120 "$P" closefds > prof.out 2> prof.err
rc=$?
check "close_range then own files: exit status 0" test "$rc" = 0
check "the program's file holds only its own lines, no descriptor of it closed" \
	cmp -s plain.out prof.out
"$REPORT" dump --meta "$(rundir prog_hostile)" > meta.txt 2>&1
check "the run is complete: both regions, closed cleanly" \
	sh -c '! grep -q "warning" meta.txt && grep -q "region 1 \"daemon\"" meta.txt && grep -q "region 2 \"after\"" meta.txt'
check "no line from memphis" sh -c '! grep -q "^memphis" prof.err'
