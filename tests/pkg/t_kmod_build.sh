# The kernel module against every Debian kernel headers tree installed (issue 37): make
# built $B/kmod/<release>/memphismod.ko from each generic-flavour tree
# /usr/src/linux-headers-*-amd64 (Makefile, KMOD_KDIRS), with that release as vermagic and
# no warning and no error in its build.log (the compiler's and modpost's output). The
# headers of both Debian 12 kernels are part of make deps (DEB_PKGS): one not installed
# is a skip that names its package (a failure under MEMPHIS_STRICT_SKIPS=1). And the
# Makefile picks the host's tree (KMOD_KDIR) as documented: the running kernel's headers,
# else the newest tree by version, not by spelling (6.12 after 6.9), checked on fake trees.
. "$MEMPHIS_SRC/tests/tap.sh"

# make_var VAR [MAKE ARGS...]: the value the top Makefile gives VAR
make_var() {
	_v=$1
	shift
	make -s -C "$S" --no-print-directory B="$B" "$@" -f - print-var <<EOF2
include Makefile
print-var:
	@echo \$($_v)
EOF2
}
release() { sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$1/include/generated/utsrelease.h" 2>/dev/null; }

for p in $(make_var DEB_PKGS | tr ' ' '\n' | grep '^linux-headers-'); do
	if dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		ok "$p installed (make deps)"
	else
		skip "the module against $p's tree" "$p not installed (make deps installs linux-headers)"
	fi
done

n=0
for kdir in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -vE -- '-(cloud|rt)-amd64$' | sort -V); do
	n=$((n + 1))
	r=$(release "$kdir")
	d=$B/kmod/$r
	if [ -z "$r" ] || [ ! -f "$d/memphismod.ko" ]; then
		not_ok "kmod/ builds against $(basename "$kdir") (no $d/memphismod.ko; make's log: $d/build.log)"
		[ -f "$d/build.log" ] && tail -n 20 "$d/build.log" | sed 's/^/# /'
		continue
	fi
	check "kmod/ builds against $(basename "$kdir"): $d/memphismod.ko, vermagic $r" \
		sh -c "modinfo -F vermagic '$d/memphismod.ko' | grep -q '^$r '"
	bad=$(grep -ciE 'warning|error' "$d/build.log")
	check "... with 0 warnings and 0 errors ($bad lines of $d/build.log say otherwise)" test "$bad" = 0
	[ "$bad" = 0 ] || grep -iE 'warning|error' "$d/build.log" | head -n 20 | sed 's/^/# /'
done
[ "$n" = 0 ] && skip "kmod/ builds against every Debian kernel headers tree" \
	"no kernel headers (/usr/src/linux-headers-*-amd64; make deps installs linux-headers)"

# KMOD_KDIR on fake trees: a 6.9 and a 6.12 tree, then a running kernel's
fake=$PWD/fake
for r in 6.9.0-1-amd64 6.12.1+deb12-amd64 6.12.1+deb12-cloud-amd64; do
	mkdir -p "$fake/src/linux-headers-$r/include/generated"
	echo "#define UTS_RELEASE \"$r\"" > "$fake/src/linux-headers-$r/include/generated/utsrelease.h"
done
got=$(make_var KMOD_KDIR KMOD_SRCDIR="$fake/src" KMOD_RUNNING_KDIR="$fake/none")
check "KMOD_KDIR without the running kernel's headers: the newest tree by version (6.12 after 6.9, not cloud): $got" \
	test "$got" = "$fake/src/linux-headers-6.12.1+deb12-amd64"
got=$(make_var KMOD_KDIRS KMOD_SRCDIR="$fake/src" KMOD_RUNNING_KDIR="$fake/none")
check "KMOD_KDIRS: every generic tree, oldest first (not cloud, not rt): $got" \
	test "$got" = "$fake/src/linux-headers-6.9.0-1-amd64 $fake/src/linux-headers-6.12.1+deb12-amd64"
mkdir -p "$fake/running"
got=$(make_var KMOD_KDIR KMOD_SRCDIR="$fake/src" KMOD_RUNNING_KDIR="$fake/running")
check "KMOD_KDIR: the running kernel's headers first when they exist" test "$got" = "$fake/running"
got=$(make_var KMOD_KOS KMOD_SRCDIR="$fake/src" KMOD_RUNNING_KDIR="$fake/none")
check "a module per release: $got" \
	test "$got" = "$B/kmod/6.12.1+deb12-amd64/memphismod.ko $B/kmod/6.9.0-1-amd64/memphismod.ko"
done_testing
