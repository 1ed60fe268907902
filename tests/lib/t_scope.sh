#!/bin/sh
# tests/lib/t_scope.sh - MEMPHIS_SCOPE (issue 14): the soft sampler's and the page-fault
# stream's events per thread or per CPU. A CPU's events see every process on it: with a
# busy shell loop and a loop of short programs (page faults) beside the program, every kept sample and first touch is of one of the
# program's threads, and the program's hot variable, its line and who first touched it
# come out as per thread. A fork child holds none of the CPUs' descriptors (their events
# would sample on as long as it lives). A kernel that refuses a CPU's events
# ($B/tests/shim_nocpu.so) gives per-thread sampling: one warning when cpu was asked for,
# none for auto. auto samples per thread where other profiled processes may share the CPUs
# (ranks of one host, children of `memphis run --children`). t_churn, t_closefds and the "scope=thread" pass of tests/run.sh cover
# the rest of the collector in both scopes.
. "$MEMPHIS_SRC/tests/tap.sh"
export OMP_NUM_THREADS=2 OMP_PROC_BIND=false

if ! scope_cpu_allowed; then
	skip "per-CPU events" "this user may not open events of a CPU (perf_event_paranoid >= 1 without CAP_PERFMON)"
	done_testing
	exit
fi

sh -c 'while :; do :; done' &
spin1=$!
sh -c 'while :; do /bin/true; done' &
spin2=$!
for scope in thread cpu; do
	MEMPHIS_SCOPE=$scope MEMPHIS_OUTPUT=$scope "$B/tests/prog_gather" 32 20 > $scope.out 2> $scope.err
	check "$scope: the program runs, no line from memphis" \
		sh -c "[ $? = 0 ] && ! grep -q '^memphis' $scope.err"
	check_if "$scope: RUN scope=$scope" '[ "$(run_key $scope scope)" = $scope ]'
	"$REPORT" dump --meta $scope | sed -n 's/^#  .* tid \([0-9]*\) start .*/\1/p' | sort -u > $scope.tids
	"$REPORT" dump --samples $scope | awk '!/^#/ { print $3 }' | sort -u > $scope.stids
	"$REPORT" dump --touches $scope | awk '!/^#/ { print $3 }' | sort -u > $scope.ttids
	n=$("$REPORT" dump --samples $scope | grep -vc '^#')
	check_if "$scope: samples taken ($n)" '[ "$n" -ge 50 ]'
	check_if "$scope: every sample is of a thread of the program ($(wc -l < $scope.stids) tids)" \
		'[ -s $scope.stids ] && [ -z "$(comm -23 $scope.stids $scope.tids)" ]'
	check_if "$scope: every first touch is of a thread of the program ($(wc -l < $scope.ttids) tids)" \
		'[ -s $scope.ttids ] && [ -z "$(comm -23 $scope.ttids $scope.tids)" ]'
	"$REPORT" --json $scope > $scope.json
	python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["variables"][0]; ft=v["first_touch"]
print(v["name"], "|", v["samples"] > 0, "|", ft["line"], ft["thread"], ft["pages"])' $scope.json > $scope.top
	echo "# $scope: $(cat $scope.top)"
done
kill $spin1 $spin2
check "the same hot variable, first-touch line, thread and pages per thread and per CPU" \
	cmp -s thread.top cpu.top
check_if "report: 'events per CPU' in the text header of a cpu run only" \
	'"$REPORT" cpu | grep -q "^backend: soft (events per CPU)" && ! "$REPORT" thread | grep -q "per CPU"'
check_if "report: --json run.scope" \
	'python3 -c "import json,sys; sys.exit(json.load(open(\"cpu.json\"))[\"run\"][\"scope\"] != \"cpu\")"'

# the fork child holds none of the library's descriptors: the CPUs' events, the threads'
# (per thread scope), PAPI's (opened at low numbers), the drain's pipe, and the run's files
# where there is no I/O thread (unshare refused: they are in the program's table)
MEMPHIS_DISABLE=1 "$B/tests/prog_hostile" forkfds > fork-off.out 2>&1
sleep 0.5
forkfds() {
	case $1 in
	no-io) "$B/tests/tool_deny" unshare "$B/tests/prog_hostile" forkfds ;;
	thread-papi) MEMPHIS_SCOPE=thread MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS \
		"$B/tests/prog_hostile" forkfds ;;
	*) MEMPHIS_SCOPE=$1 "$B/tests/prog_hostile" forkfds ;;
	esac
}
for how in cpu thread thread-papi no-io; do
	MEMPHIS_OUTPUT=fork-$how forkfds $how > fork-$how.out 2> fork-$how.err
	sleep 0.5
	check_if "fork child ($how): $(tr '\n' ' ' < fork-$how.out)" \
		'grep -q "^child perf descriptors: 0$" fork-$how.out && cmp -s fork-off.out fork-$how.out'
done
# forks while the library opens and closes threads' descriptors: no child gets one
MEMPHIS_DISABLE=1 "$B/tests/prog_hostile" forkchurn 100 > churn-off.out 2>&1
MEMPHIS_SCOPE=thread MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK MEMPHIS_OUTPUT=fork-churn \
	"$B/tests/prog_hostile" forkchurn 100 > churn.out 2> churn.err
check_if "fork children amid thread churn, as unprofiled: $(cat churn.out)" 'cmp -s churn-off.out churn.out'

# auto and other profiled processes beside this one: each would take every CPU's timer
ompi() { env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=0 "$@"; }
ompi OMPI_COMM_WORLD_LOCAL_SIZE=2 MEMPHIS_OUTPUT=r2 "$B/tests/prog_hostile" work 0.1 > /dev/null 2>&1
ompi OMPI_COMM_WORLD_LOCAL_SIZE=2 MEMPHIS_SCOPE=cpu MEMPHIS_OUTPUT=r2cpu "$B/tests/prog_hostile" work 0.1 > /dev/null 2>&1
ompi OMPI_COMM_WORLD_LOCAL_SIZE=1 MEMPHIS_OUTPUT=r1 "$B/tests/prog_hostile" work 0.1 > /dev/null 2>&1
PMIX_RANK=0 MEMPHIS_OUTPUT=rp "$B/tests/prog_hostile" work 0.1 > /dev/null 2>&1
check_if "auto, one of 2 ranks on this host: per thread" '[ "$(run_key r2/rank-0 scope)" = thread ]'
check_if "MEMPHIS_SCOPE=cpu, one of 2 ranks on this host: per CPU as asked" '[ "$(run_key r2cpu/rank-0 scope)" = cpu ]'
check_if "auto, the only rank on this host: per CPU" '[ "$(run_key r1/rank-0 scope)" = cpu ]'
check_if "auto, a PMIx rank (ranks on this host unknown): per thread" '[ "$(run_key rp/rank-0 scope)" = thread ]'
"$B/memphis" run --children -o ch sh -c "\"$B/tests/prog_hostile\" work 0.1; true" > /dev/null 2>&1
check_if "memphis run --children: the launched program per CPU, its child per thread" \
	'[ "$(run_key ch scope)" = cpu ] && [ "$(run_key "$(ls -d ch.* | head -n 1)" scope)" = thread ]'

# a kernel that refuses events of a CPU
for want in cpu auto; do
	LD_PRELOAD="$B/tests/shim_nocpu.so" MEMPHIS_SCOPE=$want MEMPHIS_OUTPUT=refused-$want \
		"$B/tests/prog_hostile" work 0.3 > refused-$want.out 2> refused-$want.err
	check_if "refused, MEMPHIS_SCOPE=$want: runs per thread" \
		'[ "$(run_key refused-$want scope)" = thread ] && [ "$("$REPORT" dump --samples refused-$want | grep -vc "^#")" -gt 0 ]'
done
check_if "refused, cpu asked for: one line naming MEMPHIS_SCOPE and the capability" \
	'[ "$(grep -c "^memphis" refused-cpu.err)" = 1 ] && grep -q "MEMPHIS_SCOPE=cpu.*CAP_PERFMON" refused-cpu.err'
check_if "refused, auto: no line" '! grep -q "^memphis" refused-auto.err'
done_testing
