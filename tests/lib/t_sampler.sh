# The software sampler against ground truth built into the programs (DESIGN §3.1):
# loads of equal cost give shares equal to access counts; every thread's exact samples
# of a statically partitioned array fall in its own slice.
. "$MEMPHIS_SRC/tests/tap.sh"

# A:B = 3:1 random loads of equal cost -> 75/25 among exact samples. Which instruction a
# timer interrupt lands on depends on the CPU: on an AMD EPYC host A's share was
# 71.3-73.0 % alone (7 runs) and 69.1 % beside another test load, here 69.4-73.3 beside
# two busy processes. So A's true share is taken to lie in [0.66, 0.78], and A's count of
# the n exact A+B samples must fall within stats.py share's range (P <= 1e-4 of failing by
# chance), with n >= stats.py apart 0.66 0.78 0.5 (553: an attribution that mixed A and B
# evenly then fails with P >= 1 - 1e-4); prog_ratio runs longer until n reaches that
# (3 s gave 1,400-1,600 here).
# ratio: "A-share na nb" of the exact samples in ratio.dump
ratio() {
	python3 - ratio.out ratio.dump <<'PY'
import sys
rng = {}
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] in ("A", "B"):
        rng[w[0]] = (int(w[1], 16), int(w[2], 16))
n = {"A": 0, "B": 0}
for l in open(sys.argv[2]):
    w = l.split()
    if l.startswith("#") or len(w) < 7 or "exact" not in w[6].split(","):
        continue
    a = int(w[5], 16)
    for k, (lo, hi) in rng.items():
        if lo <= a < hi:
            n[k] += 1
tot = n["A"] + n["B"]
share = 100.0 * n["A"] / tot if tot else 0
print("%.1f %d %d" % (share, n["A"], n["B"]))
PY
}
secs=3
while :; do
	rm -rf memphis-prog_ratio-*/
	"$B/tests/prog_ratio" $secs > ratio.out || not_ok "prog_ratio runs"
	d=$(rundir prog_ratio)
	"$REPORT" dump --samples "$d" > ratio.dump
	ratio > ratio.res
	read share na nb < ratio.res
	[ $((na + nb)) -ge 553 ] || [ $secs -ge 24 ] && break
	secs=$((secs * 2))
done
# the region's sampled pages are asked their home node at its end (PAGES blocks of the
# region, posted to the I/O thread), beside those of the first touches
pg=$("$REPORT" dump --meta "$d" | tr -d , |
	sed -n 's/^# page homes: \([0-9]*\) in .* (\([0-9]*\) from first touches)$/\1 \2/p')
check_if "the region's sampled pages have their home nodes in the run (all, of first touches: ${pg:-none})" \
	'[ -n "$pg" ] && [ "${pg% *}" -gt "${pg#* }" ]'
range=$(stats share "$na" $((na + nb)) 0.66 0.78 0.5)
echo "# A share of exact A+B samples: $share % (A $na, B $nb); least, most, samples needed: $range"
check "A:B exact-sample shares are 75/25, 66-78 % but for chance ($share %: $na of $((na + nb)) samples; least, most, needed: $range)" \
	share_ok "$na" $((na + nb)) 0.66 0.78 0.5

# Statically partitioned OpenMP loop: >= 99 % of each thread's exact samples of the array
# lie in its own slice (all of them, 1,061-1,304 a thread, in every run seen: an exact
# address is the address read, and a thread reads only its slice; 1 % leaves room for a
# rare sample whose registers changed between the load and the interrupt). At least 200
# each, that one in the wrong slice would show; 10 rounds of 128 MiB give five times that.
OMP_NUM_THREADS=2 "$B/tests/prog_partition" 10 > part.out || not_ok "prog_partition runs"
d=$(rundir prog_partition)
"$REPORT" dump --samples "$d" > part.dump
python3 - part.out part.dump > part.res <<'PY'
import sys
sl = {}
for l in open(sys.argv[1]):
    w = l.split()
    if w[0] == "slice":
        sl[int(w[1])] = (int(w[2], 16), int(w[3], 16))
lo = min(a for a, b in sl.values()); hi = max(b for a, b in sl.values())
own = {t: 0 for t in sl}; tot = {t: 0 for t in sl}
for l in open(sys.argv[2]):
    w = l.split()
    if l.startswith("#") or len(w) < 7 or "exact" not in w[6].split(","):
        continue
    tid, a = int(w[2]), int(w[5], 16)
    if tid in sl and lo <= a < hi:
        tot[tid] += 1
        own[tid] += sl[tid][0] <= a < sl[tid][1]
for t in sl:
    print(t, own[t], tot[t])
PY
while read tid own tot; do
	echo "# thread $tid: $own of $tot exact samples of the array in its own slice"
	check "thread $tid: >= 99 % of its exact samples in its own slice ($own/$tot)" \
		test "$tot" -ge 200 -a $((own * 100)) -ge $((tot * 99))
done < part.res
check "two threads reported slices" test "$(wc -l < part.res)" -eq 2
