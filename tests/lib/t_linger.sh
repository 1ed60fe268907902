# Sampling lingers between regions (drain.c, LINGER_NS): a print leaves the events on and
# the samples taken until the next mark are dropped; after 100 ms without a region the
# drain thread switches them off. tests/programs/prog_gaps.c: 20 regions of 20 ms of the main
# thread's CPU time, 10 ms busy gaps, then 300 ms busy outside any region and a region
# "late"; two threads spin throughout. Per thread and, where the kernel allows it, per CPU.
# "Every region has samples": a region holds at least the main thread's samples,
# Binomial(its CPU time / period, its user share) each; with mu of them a region on
# average, P(some region of 21 has fewer than 5) <= 21 P(Poisson(mu) < 5) <= 1e-4 needs
# mu >= stats.py pneed 5 4.7e-6 (21.6): the regions are made longer until mu is (the
# regions were 20 ms of wall time: 0-4 samples beside two busy processes).
# A gap that the machine stretched past 100 ms may end the linger: two more switches. A
# per-CPU run may turn to events per thread (lib/backend/soft.c): both kinds' switches.
. "$MEMPHIS_SRC/tests/tap.sh"

scopes=thread
if scope_cpu_allowed; then
	scopes="thread cpu"
else
	skip "per CPU" "events of a CPU are not allowed here (CAP_PERFMON or perf_event_paranoid <= 0)"
fi
need=$(stats pneed 5 4.7e-6)
for scope in $scopes; do
busy=20
while :; do
	rm -rf memphis-prog_gaps-*/
	MEMPHIS_SCOPE=$scope MEMPHIS_PERIOD=1ms LD_PRELOAD="$B/tests/shim_calls.so" \
		"$B/tests/prog_gaps" 20 $busy 10 300 > $scope.out 2> $scope.err || not_ok "$scope: prog_gaps runs"
	d=$(rundir prog_gaps)
	"$REPORT" dump --meta "$d" > $scope.meta
	"$REPORT" dump --samples "$d" > $scope.samples
	python3 - $scope.meta $scope.samples $(sed -n 's/^main //p' $scope.out) > $scope.res <<'PY'
import re, sys
main = int(sys.argv[3])
mains = 0
regions = []
for l in open(sys.argv[1]):
    m = re.match(r'#   region (\d+) "([^"]*)" ([0-9.]+)-([0-9.]+) s: ([0-9,]+) samples', l)
    if m:
        regions.append((float(m.group(3)), float(m.group(4)), int(m.group(5).replace(",", "")), m.group(2)))
inside = [0] * len(regions)
outside = 0
for l in open(sys.argv[2]):
    if l.startswith("#"):
        continue
    w = l.split()
    t = float(w[0])
    for i, (a, b, n, name) in enumerate(regions):
        if a <= t <= b:
            inside[i] += 1
            mains += int(w[2]) == main
            break
    else:
        outside += 1
fewest = min(n for a, b, n, name in regions) if regions else 0
late = [n for a, b, n, name in regions if name == "late"]
agree = all(inside[i] == regions[i][2] for i in range(len(regions)))
print(len(regions), outside, fewest, late[0] if late else 0, int(agree),
      "%.1f" % (mains / len(regions) if regions else 0))
PY
	read nreg outside fewest late agree mu < $scope.res
	echo "# $scope: regions of $busy ms: the main thread's samples $mu a region on average (want $need)"
	# the CPU time a region needs for the mean asked, half as much again; 0: enough
	more=$(awk -v b=$busy -v m="$mu" -v n="$need" 'BEGIN { if (m >= n) print 0; else if (m < 1) print b * 16; else print int(b * n / m * 1.5) + 1 }')
	[ "$more" = 0 ] || [ $busy -ge 400 ] && break
	busy=$((more > 400 ? 400 : more))
done
	switches=$(sed -n 's/^perf_switch //p' $scope.err)
	long=$(sed -n 's/^long_gaps //p' $scope.out)
	if [ $scope = cpu ]; then units=$(getconf _NPROCESSORS_ONLN); else units=2; fi
	# a per-CPU run that turned to events per thread (a note in the run: the drain fell
	# behind, or crowded CPUs) switched the CPUs' events and then the threads' (2 each time)
	turned=
	if [ $scope = cpu ] && grep -q "events per thread from here on" $scope.meta; then
		turned=", turned to per thread"
		units=$((units + 2))
	fi
	echo "# $scope: $nreg regions, $outside samples outside them, fewest $fewest, late $late;" \
		"$switches perf events switched on or off ($units per switch$turned), ${long:-?} gaps over 100 ms"
	check "$scope: 21 regions" test "$nreg" = 21
	check "$scope: no sample taken between regions is kept ($outside)" test "$outside" = 0
	check "$scope: every region has samples (fewest $fewest, 5 wanted; the main thread's $mu a region on average, $need wanted)" \
		awk -v f="$fewest" -v m="$mu" -v n="$need" 'BEGIN { exit !(f >= 5 && m >= n) }'
	check "$scope: the region after 300 ms without one samples again ($late)" test "$late" -ge 5
	check "$scope: each region's sample count is its samples in the files" test "$agree" = 1
	# per region (the library before): 2 x 21 switches; lingering: on, off after the
	# 300 ms, on for "late", and off and on again for each gap that the machine stretched
	check "$scope: sampling lingers between regions ($switches switches, not one per mark and print)" \
		test -n "$switches" -a "${switches:-999}" -le $(((4 + 2 * ${long:-0}) * units))
done
