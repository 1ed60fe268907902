# Samples lost in a ring that nobody read are reported, though the kernel's LOST record
# never came: prog_stall ptrace-stops the library's threads while its main thread works
# 400 ms of CPU time at 1 ms (a ring holds ~100 ms: the kernel drops the rest), then ends
# the region; a LOST record would come only with a later sample of that ring. Before the
# events were opened with read_format PERF_FORMAT_LOST the report said "lost 0" with 107
# of ~400 samples. Per thread and per CPU (where allowed); then the same stall between two
# regions, whose losses neither may take.
. "$MEMPHIS_SRC/tests/tap.sh"

kernel=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
for scope in thread cpu; do
	if [ "$kernel" -lt 6000 ]; then
		skip "scope $scope: lost samples told without their LOST record" \
			"kernel $(uname -r): PERF_FORMAT_LOST needs 6.0"
		continue
	fi
	if [ $scope = cpu ] && ! scope_cpu_allowed; then
		skip "scope cpu: lost samples told without their LOST record" "events of a CPU not allowed here"
		continue
	fi
	MEMPHIS_SCOPE=$scope MEMPHIS_PERIOD=1ms MEMPHIS_OUTPUT=run-$scope \
		"$B/tests/prog_stall" 400 > $scope.out 2> $scope.err
	rc=$?
	if [ $rc = 77 ]; then
		skip "scope $scope: lost samples told without their LOST record" "$(tail -n 1 $scope.err)"
		continue
	fi
	check_if "scope $scope: prog_stall ran (exit $rc)" '[ $rc = 0 ]'
	"$REPORT" run-$scope > $scope.report 2> $scope.report.err
	"$REPORT" dump --meta run-$scope > $scope.meta 2>> $scope.report.err
	cpu=$(awk '$1 == "cpu_ms" { print $2 }' $scope.out)
	line=$(grep '^samples:' $scope.report | tr -d ,)
	samples=$(echo "$line" | awk '{ print $2 }')
	lost=$(echo "$line" | sed -n 's/.* lost \([0-9]*\).*/\1/p')
	echo "# scope $scope: ${cpu:-?} ms of CPU at 1 ms: ${samples:-?} samples, ${lost:-?} lost"
	check_if "scope $scope: the region's lost samples are told (${lost:-none} lost)" \
		'[ "${lost:-0}" -ge 100 ]'
	check_if "scope $scope: samples and lost account for the CPU time (${samples:-?} + ${lost:-?} of ~${cpu:-?})" \
		'[ $(( ${samples:-0} + ${lost:-0} )) -ge $(( ${cpu:-1000} * 8 / 10 )) ]'
	# a CPU's buffer holds every process's samples there, and loses theirs too
	if [ $scope = cpu ]; then
		check_if "scope cpu: the report says the CPUs' buffers lose every process's samples" \
			'grep -q "which hold every process.s samples: this program lost at most as many" cpu.report'
	fi
	if [ $scope = thread ]; then
		tid=$(sed -n 's/^#   region 1 tid \([0-9]*\): .* samples, \([0-9,]*\) lost.*/\1 \2/p' \
			$scope.meta | tr -d , | sort -k2 -n | tail -n 1)
		check_if "scope thread: the thread's LOSS record has them (tid and lost: ${tid:-none})" \
			'[ "${tid##* }" -ge 100 ]'
	fi

	# Samples lost between two regions are neither's: sampling lingers after a region ends
	# (lib/drain.c, LINGER_NS) and the same stall between regions "before" and "after" loses
	# as many (the drain that would switch sampling off is stopped too); the drain reads those
	# losses in the 300 ms before "after" begins. They were told as "after"'s: 294 lost of its
	# 51 samples, per thread. "after" works 50 ms at 1 ms with the drain running, a ring holds
	# about 100 ms: a loss of its own needs the drain held off for most of it, so "lost" below
	# 25 passes and the 200 or more of the stall's fail.
	MEMPHIS_SCOPE=$scope MEMPHIS_PERIOD=1ms MEMPHIS_OUTPUT=gap-$scope \
		"$B/tests/prog_stall" 400 gap > gap-$scope.out 2> gap-$scope.err
	rc=$?
	check_if "scope $scope: prog_stall 400 gap ran (exit $rc)" '[ $rc = 0 ]'
	"$REPORT" dump --meta gap-$scope > gap-$scope.meta 2> gap-$scope.report.err
	before=$(sed -n 's/^#   region 1 "before" .* samples, \([0-9,]*\) lost.*/\1/p' gap-$scope.meta | tr -d ,)
	after=$(sed -n 's/^#   region 2 "after" .*: \([0-9,]*\) samples, \([0-9,]*\) lost.*/\1 \2/p' \
		gap-$scope.meta | tr -d ,)
	echo "# scope $scope: $(cat gap-$scope.out); before: ${before:-?} lost; after: ${after:-?} (samples lost)"
	check_if "scope $scope: losses between regions are not the next region's (before: ${before:-none} lost, after: ${after##* } of ${after%% *} samples)" \
		'[ -n "$before" ] && [ "$before" -lt 25 ] && [ -n "$after" ] && [ "${after##* }" -lt 25 ]'
done
done_testing
