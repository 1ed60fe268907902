# kmod-hw.guest.sh - the module's hardware kinds (IBS op, PEBS load latency) on a CPU that
# has neither (QEMU TCG, no PMU): the module's load line says why, GET_VERSION's caps leave
# both out, CONFIGURE refuses them with EOPNOTSUPP, and the kmod backend asked for them
# (MEMPHIS_KMOD_KIND=ibs|pebs) says so in one line and samples with the cpu clock as an
# unprivileged user at perf_event_paranoid=3; kmod-hw.host.sh reads those runs with
# memphis-report. Runs in $VM_OUT = /out/kmod-hw. The hardware paths themselves are
# untested on hardware (no machine of the project has IBS or PEBS).
. "$VM_LIB"
vm_require_memphis
ko=$MEMPHIS_BUILD/kmod/memphismod.ko
tool=$MEMPHIS_BUILD/tests/tool_kmod
hello=$MEMPHIS_BUILD/examples/hello/hello
if [ ! -f "$ko" ] || [ ! -x "$tool" ]; then
	vm_result skip "kmod hardware kinds refused without a PMU" "module or tool_kmod not built (no kernel headers?)"
	exit 0
fi
GID=2000
t0=$(cut -d' ' -f1 /proc/uptime)
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
echo 3 > /proc/sys/kernel/perf_event_paranoid
dmesg -c > /dev/null 2>&1
if ! insmod "$ko" group=$GID; then
	vm_result fail "kmod-hw: insmod memphismod.ko group=$GID"
	exit 0
fi
line=$(dmesg | grep 'memphismod: hardware sampling' | tail -n 1 | sed 's/^\[[^]]*\] //')
vm_note "load line: ${line:-none}"
case $line in
*"IBS op no ("*"); PEBS load latency no ("*")") vm_result ok "kmod: the load line says IBS op and PEBS load latency are not offered, and why" ;;
*) vm_result fail "kmod: the load line says IBS op and PEBS load latency are not offered, and why" ;;
esac
vm_check "kmod: caps leave out IBS op and PEBS, CONFIGURE refuses them with EOPNOTSUPP, ldlat only for PEBS, 40-byte CONFIGURE still works" \
	vmrunas 1000 $GID "$tool" hwkinds

# The library asked for a hardware kind: one line, then the cpu clock, and samples.
for k in ibs pebs; do
	case $k in ibs) name="IBS op" ;; *) name="PEBS load latency" ;; esac
	mkdir -p "$VM_OUT/$k"
	chown 1000:$GID "$VM_OUT/$k"
	MEMPHIS_BACKEND=kmod MEMPHIS_KMOD_KIND=$k MEMPHIS_OUTPUT=$VM_OUT/$k/run \
		timeout 100 vmrunas 1000 $GID "$hello" > "$VM_OUT/$k/stdout" 2> "$VM_OUT/$k/stderr"
	rc=$?
	lines=$(wc -l < "$VM_OUT/$k/stderr")
	sel=$(grep -a -o 'backend=[a-z]*' "$VM_OUT/$k/run/meta.mph" 2>/dev/null | head -n 1)
	bytes=$(cat "$VM_OUT/$k/run"/cpu*.mph 2>/dev/null | wc -c)
	vm_note "hello, MEMPHIS_BACKEND=kmod MEMPHIS_KMOD_KIND=$k, uid 1000: exit $rc, $sel, $bytes bytes of cpu*.mph, stderr ($lines lines): $(head -c 400 "$VM_OUT/$k/stderr")"
	if [ "$rc" = 0 ] && [ "$lines" = 1 ] &&
	   grep -q "MEMPHIS_KMOD_KIND=$k: /dev/memphismod does not offer $name sampling on this machine.*sampling with the cpu clock" "$VM_OUT/$k/stderr"; then
		vm_result ok "kmod backend, MEMPHIS_KMOD_KIND=$k without $name: one clear line, then the cpu clock"
	else
		vm_result fail "kmod backend, MEMPHIS_KMOD_KIND=$k without $name: one clear line, then the cpu clock"
	fi
	# a sample record is 56 bytes: 2 KiB of samples files is dozens of samples
	if [ "$rc" = 0 ] && [ "$sel" = backend=kmod ] && [ "$bytes" -gt 2048 ]; then
		vm_result ok "kmod backend, MEMPHIS_KMOD_KIND=$k fallen back to the cpu clock: still samples ($bytes bytes of samples files)"
	else
		vm_result fail "kmod backend, MEMPHIS_KMOD_KIND=$k fallen back to the cpu clock: still samples"
	fi
done
# auto (the default) takes the clock silently where no hardware kind is offered
mkdir -p "$VM_OUT/auto"
chown 1000:$GID "$VM_OUT/auto"
MEMPHIS_BACKEND=kmod MEMPHIS_OUTPUT=$VM_OUT/auto/run timeout 100 vmrunas 1000 $GID "$hello" \
	> /dev/null 2> "$VM_OUT/auto/stderr"
rc=$?
sel=$(grep -a -o 'backend=[a-z]*' "$VM_OUT/auto/run/meta.mph" 2>/dev/null | head -n 1)
vm_note "hello, MEMPHIS_BACKEND=kmod, MEMPHIS_KMOD_KIND unset: exit $rc, $sel, stderr: $(head -c 300 "$VM_OUT/auto/stderr")"
if [ "$rc" = 0 ] && [ "$sel" = backend=kmod ] && [ ! -s "$VM_OUT/auto/stderr" ]; then
	vm_result ok "kmod backend, MEMPHIS_KMOD_KIND=auto without a hardware kind: the cpu clock, nothing said"
else
	vm_result fail "kmod backend, MEMPHIS_KMOD_KIND=auto without a hardware kind: the cpu clock, nothing said"
fi
rmmod memphismod || vm_result fail "kmod-hw: rmmod at the end"
echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid
vm_note "kmod-hw tests took $(echo "$t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{printf "%.1f", $2 - $1}') s in the guest"
