# Threads made before the region, inside it, and exiting in the middle of it are all
# sampled, and nothing is lost at the default period, on CPUs that 65 busy threads
# oversubscribe.
# "Every thread has samples" is a check on a count: a thread that burns B ms of CPU time
# gets about B / period samples of its user time, fewer where the VM spends it in the
# kernel (~3 of 40 ms at 1 ms on one VM, ~16 on another). Per thread X ~ Poisson(mu) at
# worst, mu = the region's samples / 65, and P(some thread has none) <= 65 exp(-mu) <=
# 1e-4 needs mu >= 13.4 (stats.py pneed 1 1.5e-6). The test runs until it has that: at
# 250 us with 40 ms a thread, and again with each thread's time made long enough where the
# mean fell short (at most 2 s a thread).
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed for the sample bounds (tests/stats.py)" >&2; exit 77; }

"$B/tests/prog_threads" > default.out || not_ok "prog_threads runs at the default period"
dflt=$(rundir prog_threads)
mv "$dflt" default.run

# per_thread OUT META: the samples of every thread that printed "ran" (0 when none)
per_thread() {
	for t in $(awk '$1 == "ran" { print $2 }' "$1" | sort -u); do
		n=$(awk -v t="$t" '/region 1 tid/ { gsub(":", "", $5); gsub(",", "", $6); if ($5 == t) print $6 }' "$2")
		echo "$t ${n:-0}"
	done
}
need=$(stats pneed 1 1.5e-6)
burn=40
while :; do
	rm -rf memphis-prog_threads-*/
	MEMPHIS_PERIOD=250us "$B/tests/prog_threads" $burn > threads.out || not_ok "prog_threads runs"
	d=$(rundir prog_threads)
	"$REPORT" dump --meta "$d" > threads.meta
	per_thread threads.out threads.meta > threads.counts
	mean=$(awk '{ s += $2 } END { printf "%.1f", NR ? s / NR : 0 }' threads.counts)
	echo "# $burn ms a thread: $(wc -l < threads.counts) threads, $mean samples each on average (want $need)"
	# the time a thread needs for the mean asked, half as much again
	more=$(awk -v b=$burn -v m="$mean" -v n="$need" 'BEGIN { if (m >= n) print 0; else if (m < 1) print b * 16; else print int(b * n / m * 1.5) + 1 }')
	[ "$more" = 0 ] || [ "$burn" -ge 2000 ] && break
	burn=$((more > 2000 ? 2000 : more))
done
nran=$(wc -l < threads.counts)
check "65 threads ran in the region (32 before mark, 32 inside, main)" test "$nran" -eq 65
missing=$(awk '$2 == 0 { n++; print "# thread " $1 ": no samples" > "/dev/stderr" } END { print n + 0 }' threads.counts)
check_if "every thread that ran in the region has samples ($missing without; $mean a thread on average, $need wanted)" \
	'[ "$missing" -eq 0 ] && awk -v m="$mean" -v n="$need" "BEGIN { exit !(m >= n) }"'
"$REPORT" dump --meta default.run > default.meta
lost=$(awk '/region 1 "threads"/ { for (i = 1; i <= NF; i++) if ($i == "lost,") print $(i - 1) }' default.meta)
check "lost count of the region is 0 (got '$lost')" test "$lost" = 0
# auto's events per CPU fill at the machine's rate, faster than a drain thread gets a CPU
# among 65 busy threads: per thread from the region on (lib/backend/soft.c)
if [ -z "$MEMPHIS_SCOPE" ] && [ "$(run_key default.run scope)" = cpu ] && [ $((2 * $(nproc))) -lt 65 ]; then
	check "auto per CPU, 65 threads on $(nproc) CPUs: events per thread from the region on" \
		grep -q "soft: events per thread from here on" default.meta
fi
done_testing
