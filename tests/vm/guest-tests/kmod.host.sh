# kmod.host.sh - on the host, after the guest: examples/cg run by the kmod backend with
# 16 KiB module buffers (kmod.guest.sh) lost samples, and its LOSS records give them to
# threads as the soft backend's do (the header's total also counts drops the module could
# name no thread for).
. "$VM_LIB"
R=${MEMPHIS_REPORT:-$MEMPHIS_BUILD/memphis-report}
small=$VM_OUT/small/run
if [ ! -f "$small/meta.mph" ]; then
	vm_result skip "kmod backend: lost samples are told per thread" "no run directory came back (module not built?)"
	exit 0
fi
"$R" dump "$small" > "$small.dump" 2>&1
"$R" "$small" > "$small.txt" 2>&1
total=$(sed -n 's/^samples: .*lost \([0-9,]*\), throttled.*/\1/p' "$small.txt" | tr -d , | head -n 1)
per=$(grep -E '^#   region [0-9]+ tid [0-9]+:' "$small.dump" | sed 's/.* samples, \([0-9,]*\) lost.*/\1/' | tr -d , |
	awk '{s += $1; if ($1 > 0) n++} END {printf "%d %d", s, n}')
vm_note "16 KiB buffers: $(grep -m1 '^samples:' "$small.txt"); per thread: lost ${per% *} in ${per#* } LOSS records"
if [ "${total:-0}" = 0 ] && [ "${per% *}" = 0 ]; then
	# the drain kept up even with 16 KiB buffers (it is no longer sampled itself): nothing
	# to tell; the module's LOST records are checked on their own by tool_kmod lost
	vm_result skip "kmod backend: lost samples are told per thread" "no sample was lost in this run"
elif [ "${total:-0}" -gt 0 ] && [ "${per#* }" -ge 1 ] && [ "${per% *}" -le "$total" ] &&
	[ $((${per% *} * 10)) -ge $((total * 9)) ]; then
	vm_result ok "kmod backend: lost samples are told per thread (LOSS records hold >= 90 % of the run's lost)"
else
	vm_result fail "kmod backend: lost samples are told per thread (LOSS records hold >= 90 % of the run's lost)"
fi
