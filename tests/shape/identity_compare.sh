#!/bin/sh
# tests/shape/identity_compare.sh - is the report's output unchanged? Runs the old report
# (OLD, default /work/ref/build/memphis-report) and a new one (NEW, default
# build/memphis-report) over every run directory under RUNS (default /work/ref/runs: run
# directories made with the old build's programs, so build-ids match) with a list of
# options, plus damaged copies (a truncated cpu file, a flipped byte), and compares stdout,
# stderr and exit status byte for byte. Prints one line per difference and a summary;
# exits 1 when anything differs.
#   sh tests/shape/identity_compare.sh [NEW [OLD [RUNS]]]
NEW=${1:-build/memphis-report}
OLD=${2:-/work/ref/build/memphis-report}
RUNS=${3:-/work/ref/runs}
W=$(mktemp -d "${TMPDIR:-/tmp}/identity.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
same=0 diff=0

# one comparison: label, then the report's arguments
cmp_one() {
	label=$1
	shift
	"$OLD" "$@" >"$W/old.out" 2>"$W/old.err"
	echo "rc=$?" >>"$W/old.err"
	"$NEW" "$@" >"$W/new.out" 2>"$W/new.err"
	echo "rc=$?" >>"$W/new.err"
	sed -i "s#$NEW#REPORT#g; s#$OLD#REPORT#g" "$W/old.err" "$W/new.err"
	if cmp -s "$W/old.out" "$W/new.out" && cmp -s "$W/old.err" "$W/new.err"; then
		same=$((same + 1))
	else
		diff=$((diff + 1))
		echo "DIFF: $label: $*"
		diff "$W/old.out" "$W/new.out" | head -n 5
		diff "$W/old.err" "$W/new.err" | head -n 5
	fi
}

runs=$(find "$RUNS" -maxdepth 2 -type d -name 'memphis-*-*' | sort)
[ -n "$runs" ] || { echo "no run directories under $RUNS" >&2; exit 2; }
for d in $runs; do
	n=${d##*/}
	for opts in "" "--json" "--all --json" "--all" "--by line" "--by line --json" "--matrix" \
		"--matrix --json" "--local" "--local --json" "--top 3" "--top 3 --json" "--all --by line" \
		"--top 0 --all --json" "--approx --all --json" "--region main --json" "--bogus"; do
		# shellcheck disable=SC2086
		cmp_one "$n" "$d" $opts
	done
	cmp_one "$n" dump "$d"
	for opts in --meta --samples --touches "--meta --samples --touches"; do
		# shellcheck disable=SC2086
		cmp_one "$n" dump "$d" $opts
	done

	# damaged copies: a truncated cpu file, then one flipped byte in the middle of one
	cp -r "$d" "$W/trunc" && cp -r "$d" "$W/flip"
	f=$(ls "$W/trunc"/cpu* 2>/dev/null | head -n 1)
	if [ -n "$f" ]; then
		sz=$(stat -c %s "$f")
		truncate -s $((sz * 2 / 3)) "$f"
		g="$W/flip/${f##*/}"
		printf '\377' | dd of="$g" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
	fi
	for opts in "" "--json" "dump" "report"; do
		# shellcheck disable=SC2086
		cmp_one "$n (truncated cpu file)" $opts "$W/trunc"
		# shellcheck disable=SC2086
		cmp_one "$n (flipped byte)" $opts "$W/flip"
		# shellcheck disable=SC2086
		cmp_one "$n (flipped byte)" "$W/flip" --all --json
	done
	rm -rf "$W/trunc" "$W/flip"
done
cmp_one "no such directory" "$W/none"
cmp_one "help" --help
echo "identity: $same same, $diff different"
[ "$diff" = 0 ]
