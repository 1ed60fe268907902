# The Debian packages (issue 17 item 4): `dpkg-buildpackage -us -uc -b` in a clean export of
# the tree builds memphis, libmemphis0, libmemphis-dev and memphis-dkms; lintian reports no
# error (its warnings are printed); then in a fresh `debootstrap --variant=minbase` chroot of
# this machine's Debian release, `apt-get install ./*.deb` (everything else from Debian's
# mirror, nothing from the tree), examples/cg built there with only
# `pkg-config --cflags --libs memphis`, run under the installed launcher, and the installed
# memphis-report names `cg.c:a` and `cg.c:colidx`. memphis-dkms is installed there too:
# DKMS adds the module (building needs the running kernel's headers, which the chroot
# lacks: printed), the group memphis is created, and when Debian's kernel headers are
# installed afterwards (as a new kernel would be) DKMS builds memphismod.ko for that
# kernel by itself.
# The chroot (tests/pkg/chroot.sh) is bootstrapped once and kept with its downloads in
# MEMPHIS_DEB_CACHE. Not root: the chroot's checks skip. A mirror that cannot be reached
# skips them "... is needed", which MEMPHIS_STRICT_SKIPS=1 (CI) counts as failures
# (tests/run.sh). Cold (no cache) about 200 s,
# warm about 50 s on 2 busy CPUs.
. "$MEMPHIS_SRC/tests/tap.sh"
. "$S/tests/pkg/chroot.sh"

# the packaging tools are part of `make check-deps`: missing ones fail when installable
for t in dpkg-buildpackage:dpkg-dev dh:debhelper dh_dkms:dh-dkms lintian:lintian \
	debootstrap:debootstrap; do
	command -v "${t%%:*}" > /dev/null && continue
	if apt-cache policy "${t#*:}" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
		not_ok "${t#*:} installed (installable: make check-deps)"
		done_testing; exit
	fi
	echo "${t#*:} is needed and not installable here (not Debian?)" >&2
	exit 77
done
ver=$(cat "$S/VERSION")

export_tree src
check "debian/changelog's version is VERSION ($ver)" \
	test "$(cd src && dpkg-parsechangelog -S Version)" = "$ver"
start=$(date +%s)
(cd src && dpkg-buildpackage -us -uc -b) > build.log 2>&1
rc=$?
echo "# dpkg-buildpackage: exit $rc in $(($(date +%s) - start)) s"
[ "$rc" = 0 ] || tail -n 30 build.log | sed 's/^/# /'
debs="memphis_${ver}_amd64.deb libmemphis0_${ver}_amd64.deb libmemphis-dev_${ver}_amd64.deb"
debs="$debs memphis-dkms_${ver}_all.deb"
check "dpkg-buildpackage -us -uc -b builds the four packages" \
	sh -c "[ $rc = 0 ] && for d in $debs; do [ -f \"\$d\" ] || exit 1; done"

# what each package holds
has() { dpkg-deb -c "$1" 2>/dev/null | awk '{print $6}' | grep -qx "$2"; }
lib=./usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
check_if "memphis: the launcher, memphis-report, their man pages and the HTML page's template" \
	'for f in ./usr/bin/memphis ./usr/bin/memphis-report ./usr/share/man/man1/memphis.1.gz \
		./usr/share/man/man1/memphis-report.1.gz ./usr/share/memphis/html/page.html \
		./usr/share/memphis/html/memphis.js ./usr/share/memphis/html/memphis.css; do
		has memphis_${ver}_amd64.deb $f || { echo "# missing $f"; exit 1; }; done'
check_if "libmemphis0: libmemphis.so.0 only, and that is its soname" \
	'has libmemphis0_${ver}_amd64.deb $lib/libmemphis.so.0 && ! has libmemphis0_${ver}_amd64.deb $lib/libmemphis.so &&
	dpkg-deb -x libmemphis0_${ver}_amd64.deb x0 && objdump -p x0/$lib/libmemphis.so.$ver | grep -q "SONAME *libmemphis.so.0$"'
check_if "libmemphis-dev: header, .so link, static library, .pc, Fortran module, memphis(3)" \
	'for f in ./usr/include/memphis.h $lib/libmemphis.so $lib/libmemphis.a $lib/libmemphis_f.a \
		$lib/pkgconfig/memphis.pc ./usr/include/memphis/fortran/memphis.mod ./usr/share/man/man3/memphis.3.gz; do
		has libmemphis-dev_${ver}_amd64.deb $f || { echo "# missing $f"; exit 1; }; done'
check_if "memphis-dkms: source and dkms.conf, udev rule, modprobe.d; postinst runs DKMS, creates the group" \
	'd=memphis-dkms_${ver}_all.deb; has $d ./usr/src/memphismod-$ver/dkms.conf &&
	has $d ./usr/src/memphismod-$ver/memphismod.c && has $d ./usr/lib/udev/rules.d/70-memphismod.rules &&
	has $d ./etc/modprobe.d/memphismod.conf && dpkg-deb -e $d ctl && grep -q common.postinst ctl/postinst &&
	grep -q "addgroup --system" ctl/postinst && grep -q "dkms remove" ctl/prerm'

lintian --no-cfg --fail-on error memphis_${ver}_amd64.changes > lintian.out 2>&1
rc=$?
grep -E '^[WE]: ' lintian.out | sed 's/^/# lintian: /'
check "lintian: no errors (exit $rc)" test "$rc" = 0 -a -f memphis_${ver}_amd64.changes

# the chroot: the rest needs root and Debian's mirror
chroot_skip() {
	for what in "apt-get install ./*.deb in a fresh chroot" "examples/cg built there with pkg-config" \
		"the installed memphis-report names cg.c:a and cg.c:colidx" "memphis-report --html there" \
		"memphis run without libmemphis-dev" \
		"memphis-dkms: DKMS knows the module" \
		"memphis-dkms: the group" "memphis-dkms: DKMS builds it for headers installed later"; do
		skip "$what" "$1"
	done
	done_testing; exit
}
chroot_setup

mkdir -p "$root/tmp/pkgs" "$root/tmp/cg"
cp $debs "$root/tmp/pkgs/"
chroot_seed
start=$(date +%s)
in_root "cd /tmp/pkgs && { $apt_in_root install --no-install-recommends ./*.deb ||
	{ $apt_in_root update && $apt_in_root install --no-install-recommends ./*.deb; }; }" > install.log 2>&1
rc=$?
echo "# apt-get install ./*.deb: exit $rc in $(($(date +%s) - start)) s"
[ "$rc" = 0 ] || tail -n 20 install.log | sed 's/^/# /'
chroot_keep # what was downloaded from the mirror, for the next run
check "apt-get install ./*.deb in a fresh chroot (dependencies from $mirror)" test "$rc" = 0
in_root 'find /usr /etc -name "*memphis*" ! -path "/usr/share/doc/*" | while read -r f; do
	dpkg -S "$f" > /dev/null 2>&1 || echo "$f"; done' > stray.out 2>&1
check "... every memphis file there belongs to an installed package" \
	sh -c "[ $rc = 0 ] && [ ! -s stray.out ]"
cp "$S/examples/cg/cg.c" "$root/tmp/cg/"
in_root 'cd /tmp/cg && gcc -g -O2 -fopenmp cg.c $(pkg-config --cflags --libs memphis) -lm -o cg' > cc.log 2>&1
check "examples/cg builds in the chroot with only pkg-config --cflags --libs memphis" test -x "$root/tmp/cg/cg"
[ -x "$root/tmp/cg/cg" ] || sed 's/^/# /' cc.log
in_root 'cd /tmp/cg && memphis run -o run -- ./cg && memphis-report run' > report.out 2> report.err
check_if "the installed launcher and memphis-report: the report names cg.c:a and cg.c:colidx" \
	'grep -Eq "^(\([0-9]+\) )?cg\.c:a( [0-9]|:)" report.out && grep -Eq "^(\([0-9]+\) )?cg\.c:colidx( [0-9]|:)" report.out'
grep -q colidx report.out || sed 's/^/# /' report.out report.err | tail -n 20
# the page: the installed template and Debian's d3 (libjs-d3, a dependency) inlined
in_root 'cd /tmp/cg && memphis-report run --html run.html' > html.out 2>&1
check_if "the installed memphis-report --html writes the page with d3 inlined from libjs-d3" \
	'[ -s "$root/tmp/cg/run.html" ] && grep -q "\"library\":{\"name\":\"d3\",\"version\":\"3\." "$root/tmp/cg/run.html"'
[ -s "$root/tmp/cg/run.html" ] || sed 's/^/# /' html.out | tail -n 5
# the tools need only the runtime library: without the -dev package (and its .so link)
in_root "$apt_in_root remove libmemphis-dev && cd /tmp/cg && memphis run -o run2 -- ./cg -n 20000 -i 2" \
	> nodev.out 2>&1
check "memphis run works with libmemphis-dev removed (libmemphis0's soname alone)" \
	sh -c "[ -d '$root/tmp/cg/run2' ] && [ ! -e '$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libmemphis.so' ]"
[ -d "$root/tmp/cg/run2" ] || tail -n 5 nodev.out | sed 's/^/# /'
in_root 'dkms status memphismod' > dkms.out 2>&1
sed 's/^/# dkms status: /' dkms.out
check "memphis-dkms: DKMS knows the module (memphismod/$ver added)" grep -q "memphismod/$ver" dkms.out
# what DKMS said when the package was configured (no build: no headers of this kernel here)
sed -n '/^Setting up memphis-dkms/,/^Processing/p' install.log | sed 's/^/# /'
check "memphis-dkms: its postinst created the group memphis" \
	in_root 'getent group memphis > /dev/null'
# a kernel installed later: its headers' postinst hook has DKMS build the module (AUTOINSTALL)
in_root "$apt_in_root install --no-install-recommends linux-headers-$(dpkg --print-architecture);
	for k in /usr/src/linux-headers-*; do [ -e \$k/Module.symvers ] && echo \${k#*/linux-headers-}; done;
	for ko in /var/lib/dkms/memphismod/$ver/*/*/module/memphismod.ko*; do modinfo -F vermagic \$ko; done" \
	> headers.log 2>&1
kver=$(grep -Ex '[0-9][^ ]*' headers.log | head -n 1)
check "headers installed after it (linux-headers-$kver): DKMS built memphismod for $kver" \
	sh -c "[ -n '$kver' ] && grep -q '^$kver ' headers.log"
[ -n "$kver" ] && grep -q "^$kver " headers.log || tail -n 20 headers.log | sed 's/^/# /'
for d in "$root"/var/cache/apt/archives/*.deb; do
	[ -f "$d" ] && cp -n "$d" "$cache/archives/"
done
done_testing
