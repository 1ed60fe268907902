#!/bin/sh
# tests/vm/mkinitramfs.sh OUT.cpio.gz [BUILD [KVER]] - pack the guest's root file system
# for kernel KVER (default: the newest setup.sh prepared, cache/modules).
# Contents: busybox-static and a symlink per applet, numactl, the static check programs
# (vmnuma, vmsample, vmrunas, vmkeep: built here into the cache), the virtio block modules that
# setup.sh took from KVER's package, /init (init.sh), the guest scripts and
# tests/vm/guest-tests/ (all but *.host.sh). When BUILD holds libmemphis.so, every
# executable and shared object under BUILD goes in too, at the SAME absolute path as on
# the host, so run directories that name them (exe, maps) can be read back on the host by
# memphis-report. Of BUILD/kmod/ only BUILD/kmod/KVER/memphismod.ko goes in, as
# BUILD/kmod/memphismod.ko, the path the guest tests load: the module built against KVER's
# headers, whatever kernel the host's own copy there is for.
# Dynamic programs get their ldd libraries and the loader. The layout is merged-/usr like
# Debian 12's, so a library found under /lib or /usr/lib on the host is found in the guest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$1
build=${2:-}
cache=${VM_CACHE:-$here/cache}
[ -n "$build" ] && [ -d "$build" ] && build=$(cd "$build" && pwd)
kver=${3:-$(basename "$(readlink "$cache/modules" 2>/dev/null)" | sed 's/^modules-//')}
[ -n "$kver" ] && [ -d "$cache/modules-$kver" ] ||
	{ echo "vm: no virtio modules for kernel '${kver}' in $cache (run tests/vm/setup.sh)" >&2; exit 1; }

# Static check programs, rebuilt when their source changed.
mkdir -p "$cache/bin"
for p in vmnuma vmsample vmrunas vmkeep; do
	if [ ! -x "$cache/bin/$p" ] || [ "$here/$p.c" -nt "$cache/bin/$p" ]; then
		timeout 120 gcc -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -static -pthread \
			"$here/$p.c" -o "$cache/bin/$p.tmp" -lnuma 2> "$cache/bin/$p.log" || {
			cat "$cache/bin/$p.log" >&2
			exit 1
		}
		mv "$cache/bin/$p.tmp" "$cache/bin/$p"
	fi
done

root=$(mktemp -d "${TMPDIR:-/tmp}/memphis-vm-root.XXXXXX")
trap 'rm -rf "$root"' EXIT
chmod 0755 "$root" # mktemp made it 0700: the unprivileged checks must reach /vm/bin
mkdir -p "$root/usr/bin" "$root/usr/lib" "$root/usr/lib64" "$root/vm/bin" "$root/etc" \
	"$root/proc" "$root/sys" "$root/dev" "$root/tmp" "$root/out"
ln -s usr/bin "$root/bin"
ln -s usr/bin "$root/sbin"
ln -s bin "$root/usr/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# copy_path FILE: put FILE into the root at the same path; symlinks are kept as symlinks
# and their targets copied too.
copy_path() {
	_src=$1
	_dst=$root$_src
	[ -e "$_dst" ] || [ -L "$_dst" ] && return 0
	mkdir -p "$(dirname "$_dst")"
	if [ -L "$_src" ]; then
		_t=$(readlink "$_src")
		ln -s "$_t" "$_dst"
		case $_t in
		/*) copy_path "$_t" ;;
		*) copy_path "$(dirname "$_src")/$_t" ;;
		esac
	else
		cp "$_src" "$_dst"
	fi
}

# copy_elf FILE [DEST]: copy FILE (to DEST, default the same path) and, when it is
# dynamic, every library ldd resolves plus the loader.
copy_elf() {
	_dst=${2:-$1}
	mkdir -p "$(dirname "$root$_dst")"
	cp "$1" "$root$_dst"
	timeout 30 ldd "$1" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
		while IFS= read -r lib; do
			copy_path "$lib"
		done
}

busybox=$(command -v busybox)
timeout 10 ldd "$busybox" > /dev/null 2>&1 && { echo "vm: $busybox is not static (install busybox-static)" >&2; exit 1; }
cp "$busybox" "$root/usr/bin/busybox"
for a in $("$busybox" --list); do
	[ -e "$root/usr/bin/$a" ] || ln -s busybox "$root/usr/bin/$a"
done
rm -f "$root/usr/bin/numactl"
copy_elf "$(command -v numactl)"
for p in vmnuma vmsample vmrunas vmkeep; do
	cp "$cache/bin/$p" "$root/vm/bin/$p"
done
mkdir -p "$root/vm/modules"
cp "$cache/modules-$kver/load-order" "$root/vm/modules/" ||
	{ echo "vm: no virtio modules in $cache/modules-$kver (run tests/vm/setup.sh)" >&2; exit 1; }
for m in $(cat "$cache/modules-$kver/load-order"); do
	cp "$cache/modules-$kver/$m.ko" "$root/vm/modules/"
done
cp "$here/init.sh" "$root/init"
chmod 0755 "$root/init"
cp "$here/guest-lib.sh" "$here/guest-run.sh" "$root/vm/"
mkdir -p "$root/vm/guest-tests"
# Everything there but the host halves: the scripts and whatever they share (e.g. *-lib.sh).
for t in "$here"/guest-tests/*; do
	case $t in
	*.host.sh) ;;
	*) if [ -f "$t" ]; then cp "$t" "$root/vm/guest-tests/"; fi ;;
	esac
done
printf 'root:x:0:0:root:/tmp:/bin/sh\nvmuser:x:1000:1000:vmuser:/tmp:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nvmuser:x:1000:\n' > "$root/etc/group"

# The memphis build, when there is one: executables and shared objects, same paths.
: > "$root/vm/env"
if [ -n "$build" ] && [ -f "$build/libmemphis.so" ]; then
	echo "MEMPHIS_BUILD=$build" >> "$root/vm/env"
	find "$build" -path "$build/kmod" -prune -o -type f \( -perm -u+x -o -name '*.so*' \) \
		! -name '*.o' ! -name '*.a' -print |
		while IFS= read -r f; do
			case $(head -c 4 "$f" | od -An -c | tr -d ' ') in
			177ELF) copy_elf "$f" ;;
			*) copy_path "$f" ;;
			esac
		done
	if [ -f "$build/kmod/$kver/memphismod.ko" ]; then
		mkdir -p "$root$build/kmod"
		cp "$build/kmod/$kver/memphismod.ko" "$root$build/kmod/memphismod.ko"
	fi
fi

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	timeout 120 cpio --null -o -H newc -R 0:0 --quiet) | timeout 120 gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
