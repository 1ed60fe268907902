# Samples lost in a ring that nobody read are reported, though the kernel's LOST record
# never came: prog_stall ptrace-stops the library's threads while its main thread works
# 400 ms of CPU time at 1 ms (a ring holds ~100 ms: the kernel drops the rest), then ends
# the region; a LOST record would come only with a later sample of that ring. Before the
# events were opened with read_format PERF_FORMAT_LOST the report said "lost 0" with 107
# of ~400 samples. Per thread and per CPU (where allowed).
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
	if [ $scope = thread ]; then
		tid=$(sed -n 's/^#   region 1 tid \([0-9]*\): .* samples, \([0-9,]*\) lost.*/\1 \2/p' \
			$scope.meta | tr -d , | sort -k2 -n | tail -n 1)
		check_if "scope thread: the thread's LOSS record has them (tid and lost: ${tid:-none})" \
			'[ "${tid##* }" -ge 100 ]'
	fi
done
done_testing
