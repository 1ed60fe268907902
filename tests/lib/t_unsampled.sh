# Threads the library could not sample: the program runs as without memphis, and the report
# says that its figures leave those threads out, and why. Two ways a hostile user gets there:
# - ulimit -n: past memphis's share of descriptors (a quarter of the limit), a new thread's
#   streams are not opened (per thread: a stream per thread);
# - locked memory: an unprivileged user's perf rings count against
#   kernel.perf_event_mlock_kb per CPU, then ulimit -l; past it mmap fails with EPERM. As
#   root the program runs as nobody with ulimit -l 0 and more threads alive at once than
#   that budget holds rings for; elsewhere that part is skipped.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

# warned RUNDIR PATTERN: the report's text and JSON carry a "not sampled" warning matching
# PATTERN (extended regular expression)
warned() {
	"$REPORT" "$1" > rep.out 2> rep.err &&
		grep -Eq "^warning: not sampled: $2.*; the figures cover the other threads only$" rep.out &&
		"$REPORT" "$1" --json 2> /dev/null | grep -Eq "^    \"not sampled: $2"
}

MEMPHIS_SCOPE=thread timeout 120 "$P" many 8 0 > /dev/null 2>&1
d=$(rundir prog_hostile)
check "every thread sampled: no 'not sampled' warning" sh -c "\"$REPORT\" \"$d\" 2>&1 | grep -q 'total' && ! \"$REPORT\" \"$d\" 2>&1 | grep -q 'not sampled'"
rm -rf memphis-*/

MEMPHIS_SCOPE=thread sh -c "ulimit -n 64; exec timeout 120 \"$P\" many 40 20" > /dev/null 2>&1
d=$(rundir prog_hostile)
check "ulimit -n 64, 40 threads: the report says how many threads had no sample stream and why" \
	warned "$d" "[0-9]+ threads had no sample stream \\(the first, tid [0-9]+: Too many open files\\): memphis held its share of descriptors; raise ulimit -n"
rm -rf memphis-*/ f*.txt

if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null 2>&1; then
	skip "ulimit -l 0 as nobody: past the locked-memory budget" "not root (or no setpriv): cannot run as another user"
else
	kb=$(cat /proc/sys/kernel/perf_event_mlock_kb)
	ncpu=$(getconf _NPROCESSORS_ONLN)
	# the budget is kb per CPU; a thread's first rings take 260 KiB and more: 1 thread per
	# 64 KiB of it is far past it, as the later rings shrink down to 2 pages
	n=$((kb * ncpu / 64 + 16))
	[ "$n" -le 1000 ] || n=1000
	mkdir nb && chmod 777 nb
	# per thread, as an unprivileged user gets where kernel.perf_event_paranoid > 0
	as_nobody() {
		(cd nb && ulimit -n "$(ulimit -Hn)" &&
			MEMPHIS_SCOPE=thread setpriv --reuid=65534 --regid=65534 --clear-groups \
				sh -c "ulimit -l 0; exec timeout 120 \"$P\" many $n 0")
	}
	MEMPHIS_DISABLE=1 as_nobody > plain.out 2> /dev/null
	as_nobody > prof.out 2> prof.err
	rc=$?
	check "nobody, ulimit -l 0, $n threads: exit status 0 (got $rc)" test "$rc" = 0
	check "nobody, ulimit -l 0, $n threads: output as without memphis" cmp -s plain.out prof.out
	d=$(cd nb && rundir prog_hostile)
	if [ -z "$d" ]; then
		not_ok "nobody, ulimit -l 0: a run directory"
	else
		check "nobody, ulimit -l 0, $n threads: the report says threads had no sample stream, for locked memory" \
			warned "nb/$d" "[0-9]+ threads had no sample stream \\(the first, tid [0-9]+: Operation not permitted\\): the kernel's locked memory for perf buffers is used up"
	fi
fi
done_testing
