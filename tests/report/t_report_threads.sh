#!/bin/sh
# Threads shorter than one sampling period (issue 38): sampled per thread, a thread is
# sampled only once it ran a whole period of CPU time, so prog_churn's 2,000 threads of
# about 0.1-0.3 ms each get (nearly) no sample. The run records the process's CPU time per
# region and that of each thread that started in it (THREAD_CPU); the report shows it
# beside the threads' samples (JSON thread_time, dump --meta, the text's "threads:" line)
# and warns when the short threads took 5 % or more of the process's CPU time. Long
# threads (examples/hello) get no warning, and their samples stay within what their CPU
# time allows: one per period of CPU time at most.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
have_python || { echo "python3 is needed to read the JSON" >&2; exit 77; }
C="$B/tests/prog_churn"
H="$B/examples/hello/hello"

MEMPHIS_SCOPE=thread MEMPHIS_OUTPUT=churn "$C" 2000 > /dev/null 2>&1
"$R" churn > t.out 2> t.err; rc=$?
"$R" churn --json > t.json 2> /dev/null
"$R" dump churn --meta > d.out 2> /dev/null
cat > churn.py <<'EOF'
import json, sys
r = json.load(open('t.json'))
t = r.get('thread_time')
if not t:
    print('no thread_time member'); sys.exit(1)
th = t['threads']
churn = [x for x in th if x['index'] not in (0, None)]
bad = [x for x in churn if not x['cpu_ns'] or x['cpu_ns'] <= 0]
main = [x for x in th if x['index'] == 0]
print('%d threads, %d churn threads, %d without a CPU time, short %d threads %.1f %% of the process\'s %.1f ms, warned %s'
      % (len(th), len(churn), len(bad), t['short_threads'], 100.0 * t['short_cpu_ns'] / t['cpu_ns'],
         t['cpu_ns'] / 1e6, t['warned']))
ok = (len(churn) == 2000 and not bad and t['per_thread'] and t['period_ns'] == 1000000
      and t['started_threads'] == 2000 and t['short_threads'] >= 1000 and t['warned']
      and sum(x['cpu_ns'] for x in churn) == t['started_cpu_ns'] <= t['cpu_ns']
      # the main thread started before the region: its samples, no CPU time of its own
      and len(main) == 1 and main[0]['cpu_ns'] is None and main[0]['samples'] > 0
      and any('less than one sampling period' in w for w in r['warnings']))
sys.exit(0 if ok else 1)
EOF
check "churn, per thread: JSON lists the 2,000 threads with their CPU time, and warns: $(python3 churn.py)" \
	python3 churn.py
check_if "churn: exit 0 (a warning, not damage; got $rc)" '[ "$rc" = 0 ]'
check_if "churn: the text's threads line and the warning on stderr" \
	'grep -q "^threads: the process ran .* ms of CPU time in the regions, 2,000 threads that started there .* ms of it; [0-9,]* ran less than one period (1 ms)" t.out &&
	 grep -q "warning: [0-9,]* threads ran less than one sampling period (1 ms)" t.err'
check_if "churn: dump --meta lists each thread's CPU time and samples ($(grep -c 'in region 1: cpu [0-9.]* ms, [0-9,]* samples' d.out) lines)" \
	'[ "$(grep -c "^#   tid [0-9]* in region 1: cpu [0-9.]* ms, [0-9,]* samples$" d.out)" = 2000 ] &&
	 grep -q "^#   process in region 1: cpu [0-9.]* ms$" d.out'

# long threads: no warning, and no thread has more samples than periods of CPU time
MEMPHIS_SCOPE=thread MEMPHIS_OUTPUT=long "$H" > /dev/null 2>&1
"$R" long > l.out 2> l.err
"$R" long --json > l.json 2> /dev/null
cat > long.py <<'EOF'
import json, sys
t = json.load(open('l.json'))['thread_time']
p = t['period_ns']
over = [x for x in t['threads'] if x['cpu_ns'] is not None and x['samples'] > x['cpu_ns'] // p + 1]
busy = [x for x in t['threads'] if x['cpu_ns'] and x['cpu_ns'] >= 20 * p]
# a busy thread's samples: at most one per period of its CPU time (above), and most of them
low = [x for x in busy if x['samples'] < 0.5 * x['cpu_ns'] / p]
print('%d threads (%d busy), %s; over %d, low %d, warned %s'
      % (len(t['threads']), len(busy), ', '.join('%.1f ms: %d' % (x['cpu_ns'] / 1e6, x['samples'])
                                                 for x in busy), len(over), len(low), t['warned']))
sys.exit(0 if busy and not over and not low and not t['warned'] else 1)
EOF
check "hello, per thread: no warning, each thread's samples within its periods of CPU time: $(python3 long.py)" \
	python3 long.py
check_if "hello: the threads line without short threads, no warning" \
	'grep -q "^threads: the process ran" l.out && ! grep -q "less than one sampling period" l.err'

# per CPU (where allowed): short threads are sampled by the CPUs' events, no warning
if scope_cpu_allowed; then
	MEMPHIS_SCOPE=cpu MEMPHIS_OUTPUT=churncpu "$C" 2000 > /dev/null 2>&1
	"$R" churncpu --json > c.json 2> c.err
	check_if "churn, per CPU: the CPU time listed, no warning" \
		'python3 -c "import json,sys; t=json.load(open(\"c.json\"))[\"thread_time\"]; sys.exit(0 if not t[\"per_thread\"] and not t[\"warned\"] and t[\"started_threads\"] == 2000 else 1)"'
else
	skip "churn, per CPU: no warning" "events per CPU are not allowed here"
fi
done_testing
