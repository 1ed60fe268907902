# kmod-throttle.host.sh - on the host, after the guest: examples/hello sampled by the kmod
# backend at 100 us with the guest's perf_event_max_sample_rate at 1 (kmod-throttle.guest.sh)
# was throttled at nearly every sample; the library gives each throttle the module tells
# to its thread (r_throttled), so the report's throttled count is not 0 and comes close to
# its samples (at least half of them).
. "$VM_LIB"
R=${MEMPHIS_REPORT:-$MEMPHIS_BUILD/memphis-report}
d=$VM_OUT/hello/run
if [ ! -f "$d/meta.mph" ]; then
	vm_result skip "kmod backend: the module's throttles in the report" "no run directory came back (module not built?)"
	exit 0
fi
if ! command -v python3 > /dev/null; then
	vm_result skip "kmod backend: the module's throttles in the report" "python3 needed to read the JSON"
	exit 0
fi
out=$(timeout 120 "$R" "$d" --json 2> "$d.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
s = r["samples"]
print("backend %s: samples %d, lost %d, throttled %d" % (r["run"]["backend"], s["total"],
      s["lost"], s["throttled"]))
sys.exit(0 if r["run"]["backend"] == "kmod" and s["throttled"] > 0 and
         2 * s["throttled"] >= s["total"] else 1)')
rc=$?
vm_note "examples/hello at 100 us, perf_event_max_sample_rate 1: ${out:-$(tail -n 2 "$d.err")}"
if [ "$rc" = 0 ]; then
	vm_result ok "kmod backend: the module's throttles are the threads' throttled in the report (>= half the samples at one sample a tick)"
else
	vm_result fail "kmod backend: the module's throttles are the threads' throttled in the report (>= half the samples at one sample a tick)"
fi
