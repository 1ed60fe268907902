# tests/pkg/chroot.sh - sourced by the suites that need a fresh Debian system (t_deb.sh,
# t_readme.sh): a `debootstrap --variant=minbase` chroot of this machine's Debian release
# with gcc and pkg-config, kept as a tarball in MEMPHIS_DEB_CACHE (~/.cache/memphis/deb)
# with the packages downloaded into it beside it, so the next run neither bootstraps nor
# downloads them again. The chroot runs in a private mount namespace (unshare -m): its
# /proc and /sys go away with it, whatever happens.
#
# chroot_setup: $root (./root) ready, or chroot_skip REASON (defined by the suite: skips
# its chroot checks and exits) when not root, without unshare, without a mirror or when
# the mirror fails ("... is needed": MEMPHIS_STRICT_SKIPS=1 counts it as a failure).
# in_root CMD: CMD by sh in the chroot, as root, with a bare environment.
# chroot_seed: the cached downloads into the chroot's apt cache; chroot_keep: the chroot's
# downloads (not our own packages) back into the cache.
# export_tree DIR: the files git tracks and the new ones it does not ignore (no build trees).

apt_in_root="apt-get -qq -o Dpkg::Use-Pty=0 -o APT::Keep-Downloaded-Packages=true"
root=$PWD/root

in_root() {
	unshare -m sh -c 'mount -t proc proc "$0/proc" && mount -t sysfs sysfs "$0/sys" &&
	exec chroot "$0" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
	DEBIAN_FRONTEND=noninteractive sh -c "$1"' "$root" "$1"
}

export_tree() {
	mkdir -p "$1"
	if git -C "$S" rev-parse --git-dir > /dev/null 2>&1; then
		(cd "$S" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) |
			tar -x -C "$1"
	else
		(cd "$S" && tar -c --exclude='./build*' .) | tar -x -C "$1"
	fi
}

chroot_setup() {
	[ "$(id -u)" = 0 ] || chroot_skip "not root (debootstrap and chroot)"
	command -v unshare > /dev/null || chroot_skip "unshare (util-linux) is needed"
	command -v debootstrap > /dev/null || chroot_skip "debootstrap is needed (make check-deps)"
	. /etc/os-release
	suite=${VERSION_CODENAME:?}
	# Debian's mirrors as apt uses them here: "deb URL SUITE main" for SUITE, -updates, -security
	apt-cache policy | sed -n "s|^ *[0-9]* \(https\{0,1\}://[^ ]*\) \($suite[-a-z]*\)/main $(dpkg --print-architecture) Packages\$|deb \1 \2 main|p" \
		> sources.list
	mirror=$(awk -v s="$suite" '$3 == s { print $2; exit }' sources.list)
	[ -n "$mirror" ] || chroot_skip "a Debian mirror for $suite is needed in apt's sources"
	cache=${MEMPHIS_DEB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memphis/deb}
	mkdir -p "$cache/archives" || chroot_skip "cannot create the cache $cache (is needed)"
	base=$cache/$suite-minbase-gcc.tar
	start=$(date +%s)
	if [ ! -s "$base" ]; then
		rm -rf "$root"
		debootstrap --variant=minbase "$suite" "$root" "$mirror" > debootstrap.log 2>&1 ||
			{ tail -n 5 debootstrap.log | sed 's/^/# /'
			  chroot_skip "debootstrap $suite from $mirror failed: the mirror is needed (debootstrap.log)"; }
		cp sources.list "$root/etc/apt/sources.list"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
		in_root "$apt_in_root update && $apt_in_root install --no-install-recommends gcc libc6-dev pkg-config" \
			> gcc.log 2>&1 || { tail -n 5 gcc.log | sed 's/^/# /'; chroot_skip "gcc from $mirror into the chroot failed: the mirror is needed (gcc.log)"; }
		rm -f "$root"/var/cache/apt/archives/*.deb
		tar -C "$root" -cf "$base.tmp" . && mv "$base.tmp" "$base"
	else
		mkdir -p "$root" && tar -C "$root" -xf "$base"
		cp /etc/resolv.conf "$root/etc/resolv.conf"
	fi
	echo "# chroot ready in $(($(date +%s) - start)) s"
}

chroot_seed() { cp "$cache"/archives/*.deb "$root/var/cache/apt/archives/" 2> /dev/null; }

chroot_keep() {
	for d in "$root"/var/cache/apt/archives/*.deb; do
		case ${d##*/} in memphis*|libmemphis*) ;; *) [ -f "$d" ] && cp -n "$d" "$cache/archives/" ;; esac
	done
}
