# The run directory's size (issue 38): it grew about 30 MB/s on an allocation-heavy region
# without bound, and on a 4 MiB tmpfs the program's own 256 KiB results file got 0 bytes
# and its exit status changed to 1. Now the run stops at its cap (MEMPHIS_MAX_BYTES; by
# default a quarter of the free space, at most 4 GiB) or before the file system's free
# space falls under the reserve it leaves the program (a quarter of what was free, at most
# 1 GiB), says so in one line, counts what it did not write (a NOTE the report shows), and
# the program's output, files and exit status are those of a run without memphis.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_fill"
T=$PWD

MEMPHIS_DISABLE=1 "$P" plain.txt 1 > plain.out 2> plain.err
plain_rc=$?

# as_plain NAME DESC [DIR]: the run's NAME.out, NAME.rc and DIR/NAME.txt (its results
# file) are the program's own
as_plain() {
	check "$2: exit status as without memphis ($(cat "$1.rc"))" test "$(cat "$1.rc")" = "$plain_rc"
	check "$2: output and results file as without memphis" \
		sh -c "cmp -s '$T/plain.out' '$T/$1.out' && cmp -s '$T/plain.txt' '${3:-.}/$1.txt'"
}
# said NAME DESC PATTERN: one line of memphis on stderr, matching PATTERN
said() {
	check "$2: one line, saying sampling stopped" \
		sh -c "[ \"\$(grep -c . '$T/$1.err')\" = 1 ] && grep -q '$3.*; sampling stopped, the program continues' '$T/$1.err'"
}
# reported DIR DESC PATTERN: the report says why the run stopped and what it dropped
reported() {
	"$REPORT" "$1" > "$T/rep.txt" 2> "$T/rep.err"
	check "$2: the report says the run stopped there and what was dropped" \
		sh -c "grep -q '^run cut short: write error: $3' '$T/rep.txt' &&
			grep -Eq '^warning: dropped: samples=[0-9]+ allocs=[1-9][0-9]* frees=[0-9]+ first_touches=[0-9]+ other_blocks=[0-9]+ bytes=[0-9]+' '$T/rep.txt'"
}
run() { # NAME ENV...: prog_fill NAME.txt 1 with ENV, in the working directory
	name=$1
	shift
	env "$@" "$P" "$name.txt" 1 > "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
}

# MEMPHIS_MAX_BYTES, here
run capped MEMPHIS_MAX_BYTES=2M
d=$(rundir prog_fill)
size=$(du -sb "$d" | cut -f1)
check_if "MEMPHIS_MAX_BYTES=2M: the run holds at most 2 MiB ($size bytes)" '[ "$size" -le 2097152 ]'
as_plain capped "MEMPHIS_MAX_BYTES=2M"
said capped "MEMPHIS_MAX_BYTES=2M" "reached its size cap of 2097152 bytes (MEMPHIS_MAX_BYTES)"
reported "$d" "MEMPHIS_MAX_BYTES=2M" "the run reached its size cap of 2097152 bytes"
# the samples the NOTE counts (from the refused blocks' payloads: layout 3 says its count)
# are those the regions dropped
"$REPORT" dump --meta "$d" > capped.dump 2>&1
noted=$(sed -n 's/.*note .*dropped: samples=\([0-9]*\) .*/\1/p' capped.dump | head -n 1)
regions=$(awk '/^#   region [0-9]+ .* dropped$/ { n += $(NF - 1) } END { print n + 0 }' capped.dump)
check_if "MEMPHIS_MAX_BYTES=2M: the NOTE's dropped samples ($noted) are the regions' ($regions)" \
	'[ -n "$noted" ] && [ "$noted" = "$regions" ]'
rm -rf memphis-*/ capped.txt
run nocap MEMPHIS_MAX_BYTES=0
d=$(rundir prog_fill)
size=$(du -sb "$d" | cut -f1)
check_if "MEMPHIS_MAX_BYTES=0: no cap ($size bytes), nothing said" '[ "$size" -gt 4194304 ] && [ ! -s nocap.err ]'
rm -rf memphis-*/ nocap.txt
run bad MEMPHIS_MAX_BYTES=12x
check "MEMPHIS_MAX_BYTES=12x: one line naming it, the default used" \
	sh -c "grep -q '^memphis: MEMPHIS_MAX_BYTES=12x is not 0 or a size from 1M.*: using the default cap' bad.err &&
		! grep -q 'size cap' bad.err"
rm -rf memphis-*/ bad.txt

# a 4 MiB file system holding the run and the program's results
if [ "$(id -u)" != 0 ] || ! mkdir fs || ! mount -t tmpfs -o size=4m tmpfs fs 2> /dev/null; then
	for t in "the default cap" "the reserve"; do
		skip "4 MiB tmpfs: $t" "needs root and a tmpfs mount"
	done
else
	(cd fs && run small)
	d=fs/$(cd fs && rundir prog_fill)
	size=$(du -sb "$d" | cut -f1)
	check_if "4 MiB tmpfs: the run holds at most a quarter of it ($size bytes)" '[ "$size" -le 1048576 ]'
	as_plain small "4 MiB tmpfs" fs
	said small "4 MiB tmpfs" "reached its size cap of 1048576 bytes (MEMPHIS_MAX_BYTES; by default a quarter"
	reported "$d" "4 MiB tmpfs" "the run reached its size cap"
	rm -rf fs/*
	# no cap: the free space the library leaves the program is what stops it
	(cd fs && run reserve MEMPHIS_MAX_BYTES=0)
	free=$(df -B1 --output=avail fs | tail -n 1 | tr -d ' ')
	as_plain reserve "4 MiB tmpfs, no cap" fs
	said reserve "4 MiB tmpfs, no cap" "the file system holding the run has less than [0-9]* bytes free, which memphis leaves to the program"
	check_if "4 MiB tmpfs, no cap: the file system kept room ($free bytes free)" '[ "$free" -ge 524288 ]'
	umount fs
fi
done_testing
