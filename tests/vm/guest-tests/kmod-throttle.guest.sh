# kmod-throttle.guest.sh - throttling through the module (HW-REVIEW M9): perf throttles an
# event that takes more samples in a tick than kernel.perf_event_max_sample_rate allows,
# and says so with a THROTTLE record in the event's ring buffer, which the module's
# in-kernel counters do not have. At a rate of 1 (one sample a tick, HZ 250) and a 100 us
# period every task-clock event is throttled at each tick's first sample: tool_kmod
# throttle checks that the module tells each throttle (a sample's REC_THROTTLED or READ's
# throttled), then examples/hello runs under the kmod backend at 100 us and
# kmod-throttle.host.sh finds the throttles in its report. No single-stepping: only counts
# are checked. Runs in $VM_OUT = /out/kmod-throttle, as uid 1000 at perf_event_paranoid=3.
. "$VM_LIB"
vm_require_memphis
ko=$MEMPHIS_BUILD/kmod/memphismod.ko
tool=$MEMPHIS_BUILD/tests/tool_kmod
hello=$MEMPHIS_BUILD/examples/hello/hello
if [ ! -f "$ko" ] || [ ! -x "$tool" ]; then
	vm_result skip "kmod: throttles are told" "module or tool_kmod not built (no kernel headers?)"
	exit 0
fi
GID=2000
if ! insmod "$ko" group=$GID; then
	vm_result fail "kmod-throttle: insmod memphismod.ko group=$GID"
	exit 0
fi
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
echo 3 > /proc/sys/kernel/perf_event_paranoid
if ! echo 1 > /proc/sys/kernel/perf_event_max_sample_rate; then
	vm_result fail "kmod-throttle: perf_event_max_sample_rate set to 1 (was $rate)"
	echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid
	rmmod memphismod
	exit 0
fi
vm_note "perf_event_max_sample_rate $rate -> $(cat /proc/sys/kernel/perf_event_max_sample_rate) for this test"
vm_check "kmod: every throttle of the module's events is told, by its sample (REC_THROTTLED) or READ's throttled, for each sampled thread" \
	vmrunas 1000 $GID "$tool" throttle 2
mkdir -p "$VM_OUT/hello"
chown 1000:$GID "$VM_OUT/hello"
MEMPHIS_BACKEND=kmod MEMPHIS_PERIOD=100us MEMPHIS_OUTPUT=$VM_OUT/hello/run \
	timeout 100 vmrunas 1000 $GID "$hello" > "$VM_OUT/hello/stdout" 2> "$VM_OUT/hello/stderr"
rc=$?
vm_note "hello, MEMPHIS_BACKEND=kmod MEMPHIS_PERIOD=100us, uid 1000: exit $rc, stderr: $(head -c 300 "$VM_OUT/hello/stderr")"
if [ "$rc" = 0 ] && [ -f "$VM_OUT/hello/run/meta.mph" ]; then
	vm_result ok "kmod backend at perf_event_max_sample_rate=1: examples/hello runs and writes a run directory"
else
	vm_result fail "kmod backend at perf_event_max_sample_rate=1: examples/hello runs and writes a run directory (exit $rc)"
fi
echo "$rate" > /proc/sys/kernel/perf_event_max_sample_rate
echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid
rmmod memphismod || vm_result fail "kmod-throttle: rmmod at the end"
