# A daemon closes every inherited descriptor (close_range(3, ~0U)) inside a region and
# puts its own file on every number the library had: the library must never write to,
# ioctl or close a descriptor it did not open. Its own file keeps exactly what it wrote,
# none of its descriptors is closed by memphis, and the run stays complete (its files are
# opened again) and sampled after the close (its perf events opened again: per thread, or
# per CPU; 100 us, and region 2 is 20 ms of CPU time: 200 clock ticks, none of them in
# user mode with P < 1e-4 even where 5 % of a busy loop's time counts as user time).
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

MEMPHIS_DISABLE=1 timeout 120 "$P" closefds > plain.out 2> plain.err
rm -f own.txt
MEMPHIS_PERIOD=100us timeout 120 "$P" closefds > prof.out 2> prof.err
rc=$?
check "close_range then own files: exit status 0" test "$rc" = 0
check "the program's file holds only its own lines, no descriptor of it closed" \
	cmp -s plain.out prof.out
"$REPORT" dump --meta "$(rundir prog_hostile)" > meta.txt 2>&1
check "the run is complete: both regions, closed cleanly" \
	sh -c '! grep -q "warning" meta.txt && grep -q "region 1 \"daemon\"" meta.txt && grep -q "region 2 \"after\"" meta.txt'
n2=$(sed -n 's/^#   region 2 "after" .*: \([0-9,]*\) samples.*/\1/p' meta.txt | tr -d ,)
check_if "region 2, after the close: sampled (${n2:-no} samples)" '[ "${n2:-0}" -gt 0 ]'
check "no line from memphis" sh -c '! grep -q "^memphis" prof.err'

# A shell's redirection (dash: close(1), then dup2(file, 1)) again and again in a region
# while new pages are touched: for a moment 1 is the lowest free number. A descriptor the
# library opened in the program's table then (the pagemap, /proc/self/task, its cpu files)
# took it, and the program's dup2 failed (EBUSY while the open ran) or replaced ours
# (t_launcher_hostile lost a child's output so). The library's files are its I/O thread's
# (lib/io.h): none is in the program's table.
timeout 120 "$P" redirect 3000 > redirect.out 2>&1
rc=$?
check "shell redirections while the library reads /proc: exit 0, each byte in its file ($(tr -d '\n' < redirect.out))" \
	sh -c '[ '"$rc"' = 0 ] && grep -q "bytes that missed their file 0," redirect.out'
check "the library's files (run, pagemap, maps, task) are not in the program's descriptor table" \
	grep -q "library files in the program's table 0$" redirect.out
