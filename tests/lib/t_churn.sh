# Descriptors under `ulimit -n`: a thread's streams are closed when it exits (drained
# first), even inside a region, and the library keeps to a share of the limit, so the
# program's own open() never fails because of memphis: 300 short threads one after the
# other, then 40 threads alive at once, each followed by the program opening its files.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

# Per thread (MEMPHIS_SCOPE=thread) each thread holds its streams' descriptors; per CPU
# (where allowed) none: the same runs, and no line about the share then, unless the run
# turned to events per thread (crowded CPUs).
scopes=thread
scope_cpu_allowed && scopes="thread cpu"
for scope in $scopes; do
	for mode in "churn 300 30" "many 40 20"; do
		set -- $mode
		MEMPHIS_DISABLE=1 sh -c "ulimit -n 64; exec timeout 120 \"$P\" $mode" > plain.out 2> plain.err
		MEMPHIS_SCOPE=$scope sh -c "ulimit -n 64; exec timeout 120 \"$P\" $mode" > prof.out 2> prof.err
		rc=$?
		check "$scope: $1 under ulimit -n 64: exit status 0 (got $rc)" test "$rc" = 0
		check "$scope: $1 under ulimit -n 64: output as without memphis" cmp -s plain.out prof.out
		# per CPU turns to per thread on crowded CPUs (lib/backend/soft.c): a note in the run
		turned=
		[ $scope = cpu ] && "$REPORT" dump --meta "$(rundir prog_hostile)" 2> /dev/null |
			grep -q "events per thread from here on" && turned=1
		rm -rf memphis-*/ f*.txt
	done
	if [ $scope = thread ]; then
		check "thread: threads alive at once past the share: one line saying so" \
			sh -c '[ "$(grep -c "^memphis" prof.err)" = 1 ] && grep -q "share of descriptors" prof.err'
	elif [ -n "$turned" ]; then
		# its threads' descriptors came when it turned, past the share or not
		check "cpu, turned to per thread: at most one line, the share's" \
			sh -c '[ "$(grep "^memphis" prof.err | grep -vc "share of descriptors")" = 0 ] && [ "$(grep -c "^memphis" prof.err)" -le 1 ]'
	else
		check "cpu: no descriptor per thread: no line" sh -c '! grep -q "^memphis" prof.err'
	fi
done
done_testing
