#!/bin/sh
# tests/vm/setup.sh [CACHE] - prepare everything the NUMA guests need, into CACHE
# (default tests/vm/cache/, git-ignored): host packages (installed when root; otherwise the
# exact apt-get line is printed and we exit 77) and, for each kernel the guests boot, the
# Debian kernel image matching the installed linux-headers (downloaded with `apt-get
# download`, never installed), the PVH `vmlinux` decompressed from it (QEMU boots it
# directly: ~3 s instead of ~8 s) and its virtio block modules.
# The kernels: $VM_KERNELS (releases, e.g. "6.1.0-57-amd64"), else the newest generic
# headers tree (/usr/src/linux-headers-*-amd64) of each kernel series by version (sort -V):
# after make deps, Debian 12's 6.1 and 6.12. A module built against those headers has the
# vermagic of that kernel (the Makefile builds build/kmod/<release>/memphismod.ko).
# Idempotent: a second run with everything cached takes well under a second.
# Exit 77 (reason on stderr, last line) when packages are missing and we are not root, or
# a kernel image cannot be downloaded; 1 on other errors.
# Prints the kernel releases on stdout, one a line, oldest first.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$here/cache}
mkdir -p "$cache"

# zstd: 6.12's bzImage holds a zstd stream (6.1's an xz one)
PKGS="qemu-system-x86 linux-headers-amd64 linux-headers-6.12-amd64 busybox-static numactl libnuma-dev cpio xz-utils zstd gcc libc6-dev"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "vm: missing packages; run:  sudo apt-get install -y --no-install-recommends$missing" >&2
		exit 77
	fi
	echo "vm: installing$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	timeout 120 apt-get update -qq >&2
	timeout 600 apt-get install -y -qq --no-install-recommends $missing > "$cache/apt.log" 2>&1 || {
		tail -n 20 "$cache/apt.log" >&2
		exit 1
	}
fi

# The kernels follow the installed headers (a module built against them must match the
# booted kernel's vermagic): the newest release of each series (6.1, 6.12, ...).
if [ -n "${VM_KERNELS:-}" ]; then
	kvers=$(printf '%s\n' $VM_KERNELS | sort -V)
else
	kvers=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | grep -vE -- '-(cloud|rt)-amd64$' |
		sed 's|.*/linux-headers-||' | sort -V |
		awk -F. '{ s = $1 "." $2; if (s != last && last != "") print kv; last = s; kv = $0 }
			END { if (kv != "") print kv }')
fi
[ -n "$kvers" ] || { echo "vm: no /usr/src/linux-headers-*-amd64" >&2; exit 1; }

# vmlinux_from BZIMAGE OUT: the kernel inside a bzImage, uncompressed. The setup header
# says where the payload is (payload_offset at 0x248 from the protected-mode code, which
# starts after setup_sects + 1 sectors; payload_length at 0x24c, its last 4 bytes the
# uncompressed size) and its first bytes which compressor made it.
vmlinux_from() {
	_sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$1" | tr -d ' ')
	[ "$_sects" != 0 ] || _sects=4
	_off=$(($((_sects + 1)) * 512 + $(od -An -tu4 -j $((0x248)) -N4 "$1" | tr -d ' ')))
	_len=$(od -An -tu4 -j $((0x24c)) -N4 "$1" | tr -d ' ')
	case $(tail -c +$((_off + 1)) "$1" | head -c 6 | od -An -tx1 | tr -d ' \n') in
	fd377a585a00) _unpack="xz -dc --single-stream" ;;
	28b52ffd*) _unpack="zstd -dcq" ;;
	1f8b*) _unpack="gzip -dc" ;;
	*) echo "vm: $1: payload neither xz, zstd nor gzip" >&2; return 1 ;;
	esac
	tail -c +$((_off + 1)) "$1" | head -c $((_len - 4)) | timeout 120 $_unpack > "$2.tmp" &&
		mv "$2.tmp" "$2"
}

for KVER in $kvers; do
	if [ ! -s "$cache/vmlinux-$KVER" ]; then
		if [ ! -s "$cache/vmlinuz-$KVER" ]; then
			deb=$(ls "$cache"/linux-image-"$KVER"_*.deb 2>/dev/null | head -n 1 || true)
			if [ -z "$deb" ]; then
				echo "vm: downloading linux-image-$KVER" >&2
				# apt-get download writes to the working directory; as root, _apt must
				# be able to write there, so fetch into a private temp dir owned by _apt.
				tmp=$(mktemp -d "$cache/dl.XXXXXX")
				chmod 0777 "$tmp"
				(cd "$tmp" && timeout 300 apt-get download -qq "linux-image-$KVER") >&2 || {
					rm -rf "$tmp"
					echo "vm: cannot download linux-image-$KVER (network? apt-get update?)" >&2
					exit 77
				}
				mv "$tmp"/linux-image-"$KVER"_*.deb "$cache"/
				rm -rf "$tmp"
				deb=$(ls "$cache"/linux-image-"$KVER"_*.deb | head -n 1)
			fi
			timeout 120 dpkg-deb --fsys-tarfile "$deb" |
				tar -xO "./boot/vmlinuz-$KVER" > "$cache/vmlinuz-$KVER.tmp"
			mv "$cache/vmlinuz-$KVER.tmp" "$cache/vmlinuz-$KVER"
		fi
		vmlinux_from "$cache/vmlinuz-$KVER" "$cache/vmlinux-$KVER" ||
			{ echo "vm: cannot unpack vmlinuz-$KVER" >&2; exit 1; }
	fi

	# The virtio block stack: the guest loads it to write its results to a raw disk
	# image, ~150x faster than base64 over an emulated 16550. 6.1 has all six as modules,
	# 6.12 only virtio_blk (the rest is built in: modules.builtin) and compresses its
	# modules (.ko.xz; busybox insmod takes plain .ko): load-order lists what to insmod.
	mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk"
	if [ ! -s "$cache/modules-$KVER/load-order" ]; then
		deb=$(ls "$cache"/linux-image-"$KVER"_*.deb 2>/dev/null | head -n 1 || true)
		[ -n "$deb" ] || { echo "vm: $cache/linux-image-${KVER}_*.deb is gone; remove $cache/vmlinux-$KVER and rerun" >&2; exit 1; }
		tmp=$(mktemp -d "$cache/mods.XXXXXX")
		timeout 120 dpkg-deb --fsys-tarfile "$deb" | (cd "$tmp" && tar -x --wildcards \
			"./lib/modules/$KVER/modules.builtin" "./lib/modules/$KVER/kernel/drivers/virtio/*" \
			"./lib/modules/$KVER/kernel/drivers/block/virtio_blk.ko*")
		rm -rf "$cache/modules-$KVER"
		mkdir -p "$cache/modules-$KVER"
		order=""
		for m in $mods; do
			if grep -q "/$m\.ko$" "$tmp/lib/modules/$KVER/modules.builtin"; then
				continue
			fi
			f=$(find "$tmp" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" -o -name "$m.ko.gz" | head -n 1)
			[ -n "$f" ] || { echo "vm: $m.ko neither in the kernel package nor built in" >&2; rm -rf "$tmp"; exit 1; }
			case $f in
			*.xz) xz -dc "$f" > "$cache/modules-$KVER/$m.ko" ;;
			*.zst) zstd -dcq "$f" > "$cache/modules-$KVER/$m.ko" ;;
			*.gz) gzip -dc "$f" > "$cache/modules-$KVER/$m.ko" ;;
			*) cp "$f" "$cache/modules-$KVER/" ;;
			esac
			order="$order $m"
		done
		echo $order > "$cache/modules-$KVER/load-order"
		rm -rf "$tmp"
	fi
done
# the newest kernel's, for a boot.sh or mkinitramfs.sh run by hand without --kernel
newest=$(printf '%s\n' $kvers | tail -n 1)
ln -sf "vmlinux-$newest" "$cache/vmlinux"
ln -sfn "modules-$newest" "$cache/modules"
printf '%s\n' $kvers
