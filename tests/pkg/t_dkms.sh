# make install-dkms (issue 17 item 3): staged in DESTDIR it gives /usr/src/memphismod-VERSION
# with dkms.conf, the udev rule and the modprobe.d file; Debian's dkms builds memphismod.ko
# from that tree against every installed Debian headers tree (generic flavour: both Debian
# 12 kernels, 6.1 and 6.12, after make deps; -k their version, which need not be the
# running kernel's), and each module's vermagic is that version. dkms works in this
# directory only (--sourcetree, --dkmstree, its signing key and certificate): the host's
# /var/lib/dkms and /lib/modules are left as they were, which is checked.
. "$MEMPHIS_SRC/tests/tap.sh"

kdirs=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -vE -- '-(cloud|rt)-amd64$' | sort -V)
if [ -z "$kdirs" ]; then
	# headers are part of `make deps`: only a machine that cannot install them may skip
	if apt-cache policy linux-headers-amd64 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		not_ok "Debian's kernel headers installed (linux-headers-amd64 is installable: make deps)"
		done_testing; exit
	fi
	echo "no Debian kernel headers installed and none installable (linux-headers-amd64)" >&2
	exit 77
fi
ver=$(make -s -C "$S" --no-print-directory -f - print-version <<'EOF'
include Makefile
print-version:
	@echo $(VERSION)
EOF
)
root=$PWD/root
src=$root/usr/src/memphismod-$ver

make -s -C "$S" DESTDIR="$root" install-dkms > inst.out 2>&1
check "make install-dkms DESTDIR= succeeds" test $? = 0
check "... source, Kbuild and the module's headers in /usr/src/memphismod-$ver" \
	test -f "$src/memphismod.c" -a -f "$src/Kbuild" -a -f "$src/include/memphis/memphismod.h" \
	-a -f "$src/include/memphis/memphismod_rec.h" -a -f "$src/include/memphis/hwdecode.h"
check "... dkms.conf names memphismod $ver, built for future kernels too (AUTOINSTALL)" \
	sh -c "grep -qx 'PACKAGE_NAME=\"memphismod\"' '$src/dkms.conf' &&
		grep -qx 'PACKAGE_VERSION=\"$ver\"' '$src/dkms.conf' &&
		grep -qx 'BUILT_MODULE_NAME\[0\]=\"memphismod\"' '$src/dkms.conf' &&
		grep -qx 'AUTOINSTALL=\"yes\"' '$src/dkms.conf'"
check "... staged: dkms is not run, the command is printed" \
	grep -q "dkms install -m memphismod -v $ver" inst.out

rules=$root/usr/lib/udev/rules.d/70-memphismod.rules
# a rule line: comma-separated KEY[{attr}] OP "value" pairs (udev(7)); every line that is
# not a comment or empty must be one
pair='[A-Z_]+(\{[^}]*\})?(==|!=|=|\+=|-=|:=)"[^"]*"'
check "udev rule installed and every line parses as udev key-op-value pairs" \
	sh -c "test -f '$rules' && ! grep -vE '^(#|\$)' '$rules' | grep -vqE '^$pair(, *$pair)*\$' &&
		grep -vE '^(#|\$)' '$rules' | grep -q ."
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
	check "... udevadm verify accepts it" udevadm verify --no-summary "$rules"
fi
check "... /dev/memphismod gets mode 0660, owner root, group memphis" \
	sh -c "grep -E '^KERNEL==\"memphismod\"' '$rules' | grep 'MODE=\"0660\"' |
		grep 'GROUP=\"memphis\"' | grep -q 'OWNER=\"root\"'"
check "modprobe.d file for the group parameter (to fill in when staged)" \
	grep -qE '^#? *options memphismod group=' "$root/etc/modprobe.d/memphismod.conf"

check "dkms installed (make deps)" sh -c 'command -v dkms >/dev/null'
ls -A /var/lib/dkms > dkms-before 2>/dev/null
touch stamp
mkdir dkms
for kdir in $kdirs; do
	kver=${kdir#/usr/src/linux-headers-}
	# signing (Debian's kernels ask for it): a key made here, not /var/lib/dkms/mok.key
	mok_signing_key=$PWD/mok.key mok_certificate=$PWD/mok.pub \
		dkms build -m memphismod -v "$ver" -k "$kver" --kernelsourcedir "$kdir" \
		--sourcetree "$root/usr/src" --dkmstree "$PWD/dkms" > "build-$kver.out" 2>&1
	rc=$?
	ko=$(find dkms/memphismod/"$ver"/"$kver" -name 'memphismod.ko*' 2>/dev/null | head -n 1)
	check "dkms build memphismod/$ver -k $kver succeeds (exit $rc)" test "$rc" = 0 -a -n "$ko"
	[ "$rc" = 0 ] || sed 's/^/# /' "build-$kver.out" dkms/memphismod/"$ver"/build/make.log 2>/dev/null | tail -n 30
	check "... memphismod.ko's vermagic is $kver" \
		sh -c "[ -n '$ko' ] && modinfo -F vermagic '$ko' | grep -q '^$kver '"
done
check "... the host's /var/lib/dkms is untouched" \
	sh -c "ls -A /var/lib/dkms 2>/dev/null | cmp -s - dkms-before"
check "... nothing written under /lib/modules" \
	sh -c "[ -z \"\$(find /lib/modules -newer stamp 2>/dev/null | head -n 1)\" ]"
make -s -C "$S" DESTDIR="$root" uninstall-dkms > uninst.out 2>&1
left=$(find "$root" -type f | wc -l)
check "make uninstall-dkms DESTDIR= removes every file ($left left)" test "$left" = 0
done_testing
