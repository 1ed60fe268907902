# Sampling lingers between regions (drain.c, LINGER_NS): a print leaves the events on and
# the samples taken until the next mark are dropped; after 100 ms without a region the
# drain thread switches them off. tests/prog_gaps: 20 regions of 20 ms, 10 ms busy gaps,
# then 300 ms busy outside any region and a region "late"; two threads spin throughout.
# Per thread and, where the kernel allows it, per CPU.
. "$MEMPHIS_SRC/tests/tap.sh"

scopes=thread
if scope_cpu_allowed; then
	scopes="thread cpu"
else
	skip "per CPU" "events of a CPU are not allowed here (CAP_PERFMON or perf_event_paranoid <= 0)"
fi
for scope in $scopes; do
	rm -rf memphis-prog_gaps-*/
	MEMPHIS_SCOPE=$scope MEMPHIS_PERIOD=1ms LD_PRELOAD="$B/tests/shim_calls.so" \
		"$B/tests/prog_gaps" > $scope.out 2> $scope.err || not_ok "$scope: prog_gaps runs"
	d=$(rundir prog_gaps)
	"$REPORT" dump --meta "$d" > $scope.meta
	"$REPORT" dump --samples "$d" > $scope.samples
	python3 - $scope.meta $scope.samples > $scope.res <<'PY'
import re, sys
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
    t = float(l.split()[0])
    for i, (a, b, n, name) in enumerate(regions):
        if a <= t <= b:
            inside[i] += 1
            break
    else:
        outside += 1
fewest = min(n for a, b, n, name in regions) if regions else 0
late = [n for a, b, n, name in regions if name == "late"]
agree = all(inside[i] == regions[i][2] for i in range(len(regions)))
print(len(regions), outside, fewest, late[0] if late else 0, int(agree))
PY
	read nreg outside fewest late agree < $scope.res
	switches=$(sed -n 's/^perf_switch //p' $scope.err)
	if [ $scope = cpu ]; then units=$(getconf _NPROCESSORS_ONLN); else units=2; fi
	echo "# $scope: $nreg regions, $outside samples outside them, fewest $fewest, late $late;" \
		"$switches perf events switched on or off ($units per switch)"
	check "$scope: 21 regions" test "$nreg" = 21
	check "$scope: no sample taken between regions is kept ($outside)" test "$outside" = 0
	check "$scope: every region has samples (fewest $fewest)" test "$fewest" -ge 5
	check "$scope: the region after 300 ms without one samples again ($late)" test "$late" -ge 5
	check "$scope: each region's sample count is its samples in the files" test "$agree" = 1
	# per region (the library before): 2 x 21 switches; lingering: on, off after the
	# 300 ms, on for "late"
	check "$scope: sampling lingers between regions ($switches switches, not one per mark and print)" \
		test -n "$switches" -a "${switches:-999}" -le $((4 * units))
done
