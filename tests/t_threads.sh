# Threads made before the region, inside it, and exiting in the middle of it are all
# sampled (at 250 us: each thread burns 40 ms of CPU time, but in this kind of VM most of
# it is kernel time the sampler cannot see, leaving ~3 samples per thread at 1 ms, so that
# one of 65 threads had none in a third of the runs), and nothing is lost at the default
# period.
. "$MEMPHIS_SRC/tests/tap.sh"

"$B/tests/prog_threads" > default.out || not_ok "prog_threads runs at the default period"
dflt=$(rundir prog_threads)
mv "$dflt" default.run
MEMPHIS_PERIOD=250us "$B/tests/prog_threads" > threads.out || not_ok "prog_threads runs"
d=$(rundir prog_threads)
"$REPORT" dump --meta "$d" > threads.meta
ran=$(awk '$1 == "ran" { print $2 }' threads.out | sort -u)
nran=$(echo "$ran" | wc -l)
check "65 threads ran in the region (32 before mark, 32 inside, main)" test "$nran" -eq 65
missing=0
for t in $ran; do
	n=$(awk -v t="$t" '/region 1 tid/ { gsub(":", "", $5); gsub(",", "", $6); if ($5 == t) print $6 }' threads.meta)
	[ -n "$n" ] && [ "$n" -gt 0 ] || { missing=$((missing + 1)); echo "# thread $t: no samples"; }
done
check "every thread that ran in the region has samples ($missing without)" test "$missing" -eq 0
"$REPORT" dump --meta default.run > default.meta
lost=$(awk '/region 1 "threads"/ { for (i = 1; i <= NF; i++) if ($i == "lost,") print $(i - 1) }' default.meta)
check "lost count of the region is 0 (got '$lost')" test "$lost" = 0
