# kmod-hw.host.sh - on the host, after the guest: the runs kmod-hw.guest.sh made with
# MEMPHIS_KMOD_KIND=ibs|pebs on a guest without a PMU are cpu-clock runs of the kmod
# backend that memphis-report reads, with samples.
. "$VM_LIB"
R=${MEMPHIS_REPORT:-$MEMPHIS_BUILD/memphis-report}
for k in ibs pebs; do
	d=$VM_OUT/$k/run
	if [ ! -f "$d/meta.mph" ]; then
		vm_result skip "kmod-hw: the MEMPHIS_KMOD_KIND=$k run is read by memphis-report" "no run directory came back (module not built?)"
		continue
	fi
	if ! command -v python3 > /dev/null; then
		vm_result skip "kmod-hw: the MEMPHIS_KMOD_KIND=$k run is read by memphis-report" "python3 needed to read the JSON"
		continue
	fi
	out=$(timeout 120 "$R" "$d" --json 2> "$d.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
s = r["samples"]
print("backend %s, weight %s, samples %d, exact %d, no_address %d" % (r["run"]["backend"],
      r["run"].get("weight"), s["total"], s["exact"], s["no_address"]))
sys.exit(0 if r["run"]["backend"] == "kmod" and s["total"] > 0 else 1)')
	rc=$?
	vm_note "MEMPHIS_KMOD_KIND=$k: ${out:-$(tail -n 2 "$d.err")}"
	if [ "$rc" = 0 ]; then
		vm_result ok "kmod-hw: the MEMPHIS_KMOD_KIND=$k run (cpu clock fallback) has kmod samples in memphis-report"
	else
		vm_result fail "kmod-hw: the MEMPHIS_KMOD_KIND=$k run (cpu clock fallback) has kmod samples in memphis-report"
	fi
done
