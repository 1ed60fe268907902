# tests/pkg/t_readme.sh - README.md's "Using it from C", run as written in a fresh
# `debootstrap --variant=minbase` chroot (tests/pkg/chroot.sh) holding what `make deps`
# installs to build the library and memphis-report (not all of make deps: its kernel
# headers, clang, MPI and chromium take minutes and a gigabyte, and the section needs none;
# gfortran it has, as make install builds the Fortran module).
# The section's first code blocks, in order: [0] the install as root, [1] app.c, [2] build, run,
# report, [3] the install into a prefix of one's own. Each shell block runs verbatim under
# `sh -e`, so a step the README leaves out (ldconfig, -o app, PKG_CONFIG_PATH, ...) fails
# it: first as a user without root, [3] then [2] in one shell; then as root, [0] in the
# same tree, then [2]. The report must name app.c:a. About 3 minutes (the build), plus the
# downloads on the first run.
. "$MEMPHIS_SRC/tests/tap.sh"
. "$S/tests/pkg/chroot.sh"

chroot_skip() {
	for what in "the build packages into the chroot" "a user's private prefix: [3] then [2]" \
		"its report names app.c:a" "as root: [0] then [2]" "its report names app.c:a" \
		"make install ran ldconfig"; do
		skip "$what" "$1"
	done
	done_testing; exit
}

# the section's blocks into block0 .. block3
awk '/^## Using it from C$/ { on = 1; next } on && /^## / { exit }
	on && /^```/ { if (inb) { inb = 0; n++ } else { inb = 1; printf "" > ("block" n + 0) } next }
	on && inb { print > ("block" n + 0) }' "$S/README.md"
if [ ! -s block0 ] || [ ! -s block1 ] || [ ! -s block2 ] || [ ! -s block3 ] ; then
	not_ok "README's 'Using it from C' has its four code blocks (install, app.c, build and run, private prefix)"
	done_testing; exit
fi

chroot_setup
chroot_seed
# what make deps installs that the library and memphis-report build with (the Makefile's
# BUILD_DEB_PKGS, asked of make), and passwd for the user
pkgs="$(make -s -C "$S" --no-print-directory --eval 'print-build-pkgs: ; @echo $(BUILD_DEB_PKGS)' \
	print-build-pkgs) libc6-dev passwd"
in_root "$apt_in_root update && $apt_in_root install --no-install-recommends $pkgs" > deps.log 2>&1
rc=$?
chroot_keep
check "the build packages into the chroot (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || { tail -n 10 deps.log | sed 's/^/# /'; done_testing; exit; }

in_root "useradd -m u" > /dev/null 2>&1
export_tree "$root/home/u/src/memphis" # a clone where people keep theirs
mkdir -p "$root/home/u/app"
cp block1 "$root/home/u/app/app.c"
cp block0 block2 block3 "$root/home/u/"
in_root "chown -R u:u /home/u"

# a user: the private prefix, then build and run in the same shell
start=$(date +%s)
in_root "su - u -c 'set -e; cd ~/src/memphis; . ~/block3; cd ~/app; . ~/block2'" > user.out 2>&1
rc=$?
echo "# as a user: exit $rc in $(($(date +%s) - start)) s"
check "a user's private prefix: [3] then [2] (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -n 15 user.out | sed 's/^/# /'
check "its report names app.c:a" grep -Eq "^(\([0-9]+\) )?app\.c:a [0-9]" user.out

# root (a login shell, as a user's: PATH with /usr/local/bin): the install into /usr/local
# (the tree is built), then the same in a fresh directory
rm -rf "$root/home/u/app"/memphis-app-* "$root/home/u/app/app"
in_root "su - -c 'set -e; cd /home/u/src/memphis; . /home/u/block0; cd /home/u/app; . /home/u/block2'" > root.out 2>&1
rc=$?
check "as root: [0] then [2] (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || tail -n 15 root.out | sed 's/^/# /'
check "its report names app.c:a" grep -Eq "^(\([0-9]+\) )?app\.c:a [0-9]" root.out
check "make install ran ldconfig: the loader's cache knows libmemphis.so.0" \
	grep -aq libmemphis.so.0 "$root/etc/ld.so.cache"
done_testing
