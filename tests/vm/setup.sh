#!/bin/sh
# tests/vm/setup.sh [CACHE] - prepare everything the NUMA guests need, into CACHE
# (default tests/vm/cache/, git-ignored): host packages (installed when root; otherwise the
# exact apt-get line is printed and we exit 77), the Debian kernel image matching the
# installed linux-headers (downloaded with `apt-get download`, never installed), and the
# PVH `vmlinux` decompressed from it (QEMU boots it directly: ~3 s instead of ~8 s).
# Idempotent: a second run with everything cached takes well under a second.
# Exit 77 (reason on stderr, last line) when packages are missing and we are not root, or
# the kernel image cannot be downloaded; 1 on other errors.
# Prints the kernel version on stdout as its last line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$here/cache}
mkdir -p "$cache"

PKGS="qemu-system-x86 linux-headers-amd64 busybox-static numactl libnuma-dev cpio xz-utils gcc libc6-dev"
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
	timeout 300 apt-get install -y -qq --no-install-recommends $missing > "$cache/apt.log" 2>&1 || {
		tail -n 20 "$cache/apt.log" >&2
		exit 1
	}
fi

# The kernel version follows the installed headers (a module built against them must
# match the booted kernel's vermagic).
KVER=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
[ -n "$KVER" ] || { echo "vm: no /usr/src/linux-headers-*-amd64" >&2; exit 1; }

if [ ! -s "$cache/vmlinux-$KVER" ]; then
	if [ ! -s "$cache/vmlinuz-$KVER" ]; then
		deb=$(ls "$cache"/linux-image-"$KVER"_*.deb 2>/dev/null | head -n 1 || true)
		if [ -z "$deb" ]; then
			echo "vm: downloading linux-image-$KVER" >&2
			# apt-get download writes to the working directory; as root, _apt must be
			# able to write there, so fetch into a private temp dir owned by _apt.
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
	# PVH vmlinux: the xz stream inside the bzImage, decompressed.
	off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$cache/vmlinuz-$KVER" | head -n 1 | cut -d: -f1)
	[ -n "$off" ] || { echo "vm: no xz stream in vmlinuz-$KVER" >&2; exit 1; }
	tail -c +$((off + 1)) "$cache/vmlinuz-$KVER" |
		timeout 120 xz -dc --single-stream > "$cache/vmlinux-$KVER.tmp"
	mv "$cache/vmlinux-$KVER.tmp" "$cache/vmlinux-$KVER"
fi
ln -sf "vmlinux-$KVER" "$cache/vmlinux"

# The virtio block stack (modules in Debian's kernel): the guest loads it to write its
# results to a raw disk image, ~150x faster than base64 over an emulated 16550.
mods="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk"
if [ ! -s "$cache/modules-$KVER/virtio_blk.ko" ]; then
	deb=$(ls "$cache"/linux-image-"$KVER"_*.deb 2>/dev/null | head -n 1 || true)
	[ -n "$deb" ] || { echo "vm: $cache/linux-image-${KVER}_*.deb is gone; remove $cache/vmlinux-$KVER and rerun" >&2; exit 1; }
	tmp=$(mktemp -d "$cache/mods.XXXXXX")
	timeout 120 dpkg-deb --fsys-tarfile "$deb" | (cd "$tmp" && tar -x --wildcards \
		"./lib/modules/$KVER/kernel/drivers/virtio/*.ko" "./lib/modules/$KVER/kernel/drivers/block/virtio_blk.ko")
	mkdir -p "$cache/modules-$KVER"
	for m in $mods; do
		f=$(find "$tmp" -name "$m.ko" | head -n 1)
		[ -n "$f" ] || { echo "vm: $m.ko not in the kernel package" >&2; rm -rf "$tmp"; exit 1; }
		cp "$f" "$cache/modules-$KVER/"
	done
	echo "$mods" > "$cache/modules-$KVER/load-order"
	rm -rf "$tmp"
fi
ln -sfn "modules-$KVER" "$cache/modules"
echo "$KVER"
