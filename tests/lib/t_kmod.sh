# The kmod backend on a host without the module (the module itself is tested in the NUMA
# guest: tests/vm/guest-tests/kmod.guest.sh): MEMPHIS_BACKEND=kmod prints its one line and
# the program runs unprofiled with the reason in the run; auto never picks kmod when the
# device is missing; the module builds against the host's kernel headers.
. "$MEMPHIS_SRC/tests/tap.sh"
hello=$B/examples/hello/hello

if [ -e /dev/memphismod ]; then
	skip "MEMPHIS_BACKEND=kmod without the device: one clear line" "/dev/memphismod exists here"
else
	MEMPHIS_BACKEND=kmod MEMPHIS_OUTPUT=run-kmod "$hello" > out 2> err
	rc=$?
	check "MEMPHIS_BACKEND=kmod without the device: the program still runs (exit $rc)" test "$rc" = 0
	check "... and one line says the module is not loaded and how to load it" \
		sh -c '[ "$(grep -c "^memphis: " err)" = 1 ] &&
			grep -q "cannot sample memory accesses: /dev/memphismod not present: the memphismod kernel module is not loaded (as root: modprobe memphismod" err'
	"$REPORT" dump --meta run-kmod > meta 2>&1
	check "... and the run records backend none with the kmod reason" \
		sh -c 'grep -q "backend=none" meta && grep -q "backend_skip=kmod: /dev/memphismod not present" meta'
	MEMPHIS_OUTPUT=run-auto "$hello" > /dev/null 2> err-auto
	"$REPORT" dump --meta run-auto > meta-auto 2>&1
	if grep -q "backend=soft" meta-auto; then
		ok "auto: soft where perf_event_open works (kmod not needed)"
	else
		check "auto without perf and without the device: the first (soft) reason is printed" \
			grep -q "perf_event_open" err-auto
	fi
fi

# The host's copy, $B/kmod/memphismod.ko: built against KMOD_KDIR (the running kernel's
# headers, else the newest Debian tree by version; every tree's build is t_kmod_build.sh's)
kver=$(make -s -C "$S" --no-print-directory B="$B" -f - print-kver <<'EOF'
include Makefile
print-kver:
	@echo $(KMOD_KVER)
EOF
)
if [ -z "$kver" ]; then
	skip "kmod/ builds against the host's kernel headers" "no kernel headers (/usr/src/linux-headers-*-amd64, make deps)"
elif [ ! -f "$B/kmod/memphismod.ko" ]; then
	not_ok "kmod/ builds against $kver's headers (make built no $B/kmod/memphismod.ko; see $B/kmod/$kver/build.log)"
else
	check "kmod/ builds against the host's headers: $B/kmod/memphismod.ko with vermagic $kver" \
		sh -c "modinfo -F vermagic '$B/kmod/memphismod.ko' 2>/dev/null | grep -q '^$kver ' ||
			strings '$B/kmod/memphismod.ko' | grep -q 'vermagic=$kver '"
	check "... GPL licence (the in-kernel perf API is GPL-only) and the documented parameters" \
		sh -c "strings '$B/kmod/memphismod.ko' | grep -q '^license=GPL\$' &&
			for p in group buf_kb_default buf_kb_max mem_max_mb max_sessions; do
				strings '$B/kmod/memphismod.ko' | grep -q \"^parm=\$p:\" || exit 1; done"
fi
done_testing
