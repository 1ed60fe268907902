# The report's memory per allocation record (issue 38): a synthetic run of 1,000,000
# allocations ($B/tests/tool_gen --allocs, 96 MB of ALLOCS records) may take at most 100
# bytes of peak RSS per record more than the same run without any. The index keeps a
# 40-byte entry per object; before issue 38 the report took 258 bytes a record (the
# records copied out of meta.mph, whose mapped pages stayed resident too, sorted through
# index arrays as large, a tree of 16 to 32 bytes per object): 1.36 GB for 5 M records.
#
# Why the bound cannot flap: the peak is memory the report touches, not time. Both runs
# are the same but for the records; what differs is the index's array (40 MB, each entry
# written once), its block map (16 k blocks) and at most one ALLOCS block of the mapping
# resident at a time (the others' pages are dropped as they are read), about 41 bytes a
# record here and under 60 with a sanitizer's shadow and redzones. The page cache holds
# the files however it likes: that is not this process's RSS.
. "$MEMPHIS_SRC/tests/tap.sh"
[ -x /usr/bin/time ] || { echo "/usr/bin/time is missing (Debian package 'time')" >&2; exit 77; }
N=1000000

"$B/tests/tool_gen" none -n 20000 --allocs 0 > /dev/null &&
	"$B/tests/tool_gen" many -n 20000 --allocs "$N" > /dev/null
check "tool_gen writes the runs" [ -f none/meta.mph ] && [ -f many/meta.mph ]

# peak RSS (KiB) of the report of run directory $1 (its output into $1.txt)
peak() {
	/usr/bin/time -f %M -o "$1.rss" "$REPORT" "$1" > "$1.txt" 2> "$1.err"
	tail -n 1 "$1.rss"
}
r0=$(peak none)
r1=$(peak many)
check "both reports exit 0" grep -q "samples:" many.txt
check "the records' objects are named (malloc at tool_gen.c in site_small)" \
	grep -q "site_small" many.txt
per=$(awk -v a="$r0" -v b="$r1" -v n="$N" 'BEGIN { printf "%d", (b - a) * 1024 / n }')
check "peak RSS: $r0 KiB without records, $r1 KiB with $N: $per bytes a record (at most 100)" \
	[ "$per" -le 100 ]
done_testing
