# The software sampler against ground truth built into the programs (DESIGN §3.1):
# loads of equal cost give shares equal to access counts; every thread's exact samples
# of a statically partitioned array fall in its own slice.
. "$MEMPHIS_SRC/tests/tap.sh"

# A:B = 3:1 random loads of equal cost -> 75/25 (+-7) among exact samples. Which
# instruction a timer interrupt lands on depends on the CPU: on an AMD EPYC host A's share
# was 71.3-73.0 % alone (7 runs) and 69.1 % beside another test load.
"$B/tests/prog_ratio" 3 > ratio.out || not_ok "prog_ratio runs"
d=$(rundir prog_ratio)
"$REPORT" dump --samples "$d" > ratio.dump
# the region's sampled pages are asked their home node at its end (PAGES blocks of the
# region, posted to the I/O thread), beside those of the first touches
pg=$("$REPORT" dump --meta "$d" | tr -d , |
	sed -n 's/^# page homes: \([0-9]*\) in .* (\([0-9]*\) from first touches)$/\1 \2/p')
check_if "the region's sampled pages have their home nodes in the run (all, of first touches: ${pg:-none})" \
	'[ -n "$pg" ] && [ "${pg% *}" -gt "${pg#* }" ]'
python3 - ratio.out ratio.dump > ratio.res <<'PY'
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
read share na nb < ratio.res
echo "# A share of exact A+B samples: $share % (A $na, B $nb); expected 75 +- 7"
check "A:B exact-sample shares are 75/25 within 7 points ($share %, $((na + nb)) samples)" \
	python3 -c "import sys; s=float('$share'); sys.exit(0 if $na + $nb >= 500 and 68 <= s <= 82 else 1)"

# Statically partitioned OpenMP loop: >= 99 % of each thread's exact samples of the array
# lie in its own slice.
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
