# Thread churn inside a region (tests/programs/prog_churn.c): output unchanged, the short threads'
# first touches still recorded, and each of them maps a small page-fault ring, not the
# 512 KiB one of threads born outside regions (its allocation and release were most of a
# short thread's cost; the ratio is printed by `make bench`, not asserted here).
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_churn"
N=200

MEMPHIS_DISABLE=1 "$P" $N > plain.out 2>&1
"$P" $N > prof.out 2>&1
check "output unchanged" cmp -s plain.out prof.out
d=$(rundir prog_churn)
# (glibc reuses the stacks of joined threads: only the first few threads fault)
tids=$("$REPORT" dump --touches "$d" | awk '{ print $3 }' | sort -u | wc -l)
check "first touches of threads born in the region are recorded ($tids threads with records)" \
	test "$tids" -ge 2
rm -rf memphis-*/
if ! command -v strace > /dev/null 2>&1 || ! strace -o /dev/null true 2> /dev/null; then
	skip "threads born in a region map a small fault ring" "strace missing or not permitted"
else
	strace -f -e trace=mmap -o mmap.txt "$P" $N > /dev/null 2>&1
	big=$(grep -c 'mmap(NULL, 528384, PROT_READ|PROT_WRITE, MAP_SHARED' mmap.txt)
	check "threads born in a region map a small fault ring ($big rings of 512 KiB for $N threads)" \
		test "$big" -le 2
fi
rm -rf memphis-*/
