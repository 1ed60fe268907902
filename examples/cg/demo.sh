#!/bin/sh
# make demo: profile examples/cg (master-initialised matrix) and print the per-node report.
B=${1:-build}
dir=$(mktemp -d "${TMPDIR:-/tmp}/memphis-demo.XXXXXX") || exit 1
echo "== running $B/examples/cg/cg under memphis (run directory in $dir)"
(cd "$dir" && "$OLDPWD/$B/examples/cg/cg") || exit 1
run=$(ls -d "$dir"/memphis-cg-*/ | head -n 1)
echo "== memphis-report $run"
"$B/memphis-report" "$run"
