#!/bin/sh
# packaging/deb-install.sh PACKAGE... - install the Debian packages among PACKAGE that are
# missing (make deps, make check-deps). As root: apt-get, saying first what it installs and
# how many packages that takes with their dependencies, then one line per package set up,
# "[N/TOTAL] name" (apt's own output is in the log file named on the first line, shown when
# it fails). Not root: prints the exact command and exits 1. Nothing missing: silent.
set -u
missing=""
for p; do
	dpkg-query -W -f='${Status}\n' "$p" 2> /dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
if [ "$(id -u)" != 0 ]; then
	echo "memphis: missing packages; run:  sudo apt-get install -y$missing"
	exit 1
fi

log=$(mktemp /tmp/memphis-apt.XXXXXX) || exit 1
export DEBIAN_FRONTEND=noninteractive
echo "memphis: installing$missing"
echo "memphis: apt-get update (log: $log)"
if ! apt-get update -q > "$log" 2>&1; then
	tail -n 20 "$log"
	echo "memphis: apt-get update failed (log: $log)"
	exit 1
fi
# shellcheck disable=SC2086 # the package list, split on purpose
total=$(apt-get -s install --no-install-recommends $missing 2> /dev/null | grep -c '^Inst ')
echo "memphis: $total packages to download and set up, with their dependencies"
rc=$(mktemp /tmp/memphis-apt-rc.XXXXXX) || exit 1
# apt-get's status through the pipe: a file, as sh has no pipefail. Dpkg::Use-Pty=0 and
# stdbuf: dpkg's "Setting up" lines reach the pipe as they happen, not when it exits.
{
	# shellcheck disable=SC2086
	stdbuf -oL apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends $missing 2>&1
	echo "$?" > "$rc"
} | tee -a "$log" | awk -v total="$total" '
	/^Get:[0-9]+ / { if (!got++) print "memphis: downloading ..."; fflush() }
	/^Setting up / { n++; printf "memphis: [%d/%d] %s\n", n, total, $3; fflush() }'
status=$(cat "$rc")
rm -f "$rc"
if [ "$status" != 0 ]; then
	tail -n 20 "$log"
	echo "memphis: apt-get install failed (exit $status; log: $log)"
	exit 1
fi
rm -f "$log"
