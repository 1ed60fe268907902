# Heap objects made by pvalloc, reallocarray, mmap and mremap (issue 11 item 15): each is
# named by its call site like a malloc, with the share of the samples its chases' CPU time
# has (tests/programs/prog_heapkinds.c: six arrays, chases of the same length, each timed: about
# 1/6 each, but up to 2x apart on a virtual machine; +-5 points); an array cut to an
# alignment out of a larger mapping keeps the name of its mmap (mmap64 there); a large
# malloc is one object, not also an mmap. An overflowing reallocarray gives NULL and ENOMEM
# as glibc's does; output and exit status are the same with and without
# the library (the same binary, unlinked, run plain and with LD_PRELOAD). Thread stacks,
# one of them mapped by the program with MAP_STACK, stay stacks, not mmap objects. An array
# from libnuma's numa_alloc_onnode is named by the program's line, not by libnuma's code.
# MEMPHIS_HEAPKINDS_STEPS (default 200000000) is the length of the chases: 0.4-0.5 s
# profiled on a 2.6 GHz Xeon KVM guest, 1,700-1,900 samples at 250 us, 3,171 here. An
# array's count of the N attributed samples is Binomial(N, its true share), which is its
# chases' share of the CPU time (measured by the program) within 2.5 points (0.3 seen
# here): the count must fall within stats.py share's range for [CPU - 2.5, CPU + 2.5] %
# (P <= 1e-4 of failing by chance; about +-5 points at 3,000 samples, as before).
. "$MEMPHIS_SRC/tests/tap.sh"
CC=${CC:-cc}
STEPS=${MEMPHIS_HEAPKINDS_STEPS:-200000000}
SRC=$S/tests/programs/prog_heapkinds.c

command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }

# the program without the library: the memphis API is referenced weakly
if "$CC" -g -O2 -I"$S/include" -pthread -o heapkinds "$SRC" 2>build.err; then
	ok "build prog_heapkinds.c without the library"
else
	not_ok "build prog_heapkinds.c without the library"
	sed 's/^/# /' build.err
fi
./heapkinds "$STEPS" >plain.out 2>plain.err
rc0=$?
LD_PRELOAD=$B/libmemphis.so MEMPHIS_PERIOD=250us ./heapkinds "$STEPS" >prof.out 2>prof.err
rc1=$?
check "exit status 0 with and without the library ($rc0, $rc1)" [ "$rc0" = 0 -a "$rc1" = 0 ]
check "output the same with and without the library" cmp -s plain.out prof.out
for f in plain prof; do
	check "$f: an overflowing reallocarray returns NULL with errno ENOMEM" \
		sh -c "[ \$(grep -c '^overflowing reallocarray.*: NULL, errno ENOMEM\$' $f.out) = 2 ]"
done
"$B/tests/prog_heapkinds" 1000 >linked.out 2>linked.err
./heapkinds 1000 >plain1000.out 2>plain1000.err
check "linked with -lmemphis: the same output" cmp -s plain1000.out linked.out

d=$(rundir heapkinds)
"$REPORT" "$d" --all --json --top 0 >kinds.json 2>report.err || sed 's/^/# /' report.err
line() { grep -n "SITE:$1 " "$SRC" | cut -d: -f1; }
# each expected name and the share of CPU time the program measured for its chases
cpu() { sed -n "s/^cpu $1 //p" prof.err; }
cat >expect <<EOF
$(cpu pvalloc) pvalloc at prog_heapkinds.c:$(line pvalloc) in kinds
$(cpu reallocarray) reallocarray at prog_heapkinds.c:$(line reallocarray) in kinds
$(cpu mmap) mmap at prog_heapkinds.c:$(line mmap) in kinds
$(cpu mmap_aligned) mmap at prog_heapkinds.c:$(line mmap_aligned) in kinds
$(cpu mremap) mremap at prog_heapkinds.c:$(line mremap) in kinds
$(cpu malloc) malloc at prog_heapkinds.c:$(line malloc) in kinds
EOF
# prints TAP lines from TAP_N + 1: each expected name found with its share, and nothing else
python3 - "$TAP_N" kinds.json expect "$S/tests" >checks 2>check.err <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[4])
import stats
n = int(sys.argv[1])
def check(good, what, detail=""):
    global n
    n += 1
    print("%s %d - %s%s" % ("ok" if good else "not ok", n, what, " (" + detail + ")" if detail else ""))
doc = json.load(open(sys.argv[2]))
want, cpu = [], {}
for l in open(sys.argv[3]):
    if l.strip():
        share, name = l.strip().split(" ", 1)
        want.append(name)
        cpu[name] = float(share)
counts = {}
for table in doc.get("tables", []):
    for e in table["entries"]:
        counts[e["name"]] = counts.get(e["name"], 0) + e["count"]
total = sum(counts.values())
check(total >= 1000, "at least 1000 attributed samples", "%d" % total)
for name in want:
    c = counts.get(name, 0)
    share = 100.0 * c / total if total else 0
    lo, hi = max(cpu[name] - 2.5, 0) / 100, min(cpu[name] + 2.5, 100) / 100
    good, least, most, _ = stats.share_check(c, total, lo, hi) if total else (False, 0, 0, 0)
    check(good,
          "%s: %.1f %% of the samples (expect its CPU time's %.1f +- 2.5 and chance: %d-%d of %d)"
          % (name, share, cpu[name], least, most, total),
          "not in the report" if name not in counts else "")
others = sorted(((c, k) for k, c in counts.items() if k not in want), reverse=True)
covered = 100.0 * sum(counts.get(k, 0) for k in want) / total if total else 0
check(covered >= 95, "at least 95 %% of the samples on the six arrays (%.1f %%)" % covered,
      ", ".join("%s %d" % (k, c) for c, k in others[:4]))
EOF
cat checks
TAP_N=$((TAP_N + $(grep -c '^\(not \)\{0,1\}ok ' checks)))
[ -s check.err ] && { not_ok "the share checks ran"; sed 's/^/# /' check.err; }
rm -rf memphis-*/

# thread stacks: glibc's are mapped inside libc (never seen), the program's own has MAP_STACK
./heapkinds threads $((STEPS / 4)) >tplain.out 2>&1
rc0=$?
LD_PRELOAD=$B/libmemphis.so MEMPHIS_PERIOD=250us ./heapkinds threads $((STEPS / 4)) >tprof.out 2>tprof.err
rc1=$?
check "threads: exit status 0 and the same output with and without the library" \
	sh -c "[ $rc0 = 0 ] && [ $rc1 = 0 ] && cmp -s tplain.out tprof.out"
d=$(rundir heapkinds)
"$REPORT" "$d" --all --top 0 >threads.txt 2>report.err || sed 's/^/# /' report.err
check "threads: no stack named as an mmap object" sh -c '! grep -Eq "^\([0-9]+\) mm?re?map at" threads.txt'
# with registers and stack (STACKS entries) the samples name the frame's local array
att=$(sed -n 's/^attributed: \([0-9,]*\) samples.*/\1/p' threads.txt | tr -d ,)
loc=$(sed -n 's/^([0-9]*) on_stack::local \([0-9]*\)$/\1/p' threads.txt)
check "threads: the stacks' samples named as on_stack's local array (${loc:-0} of ${att:-0})" \
	[ "${att:-0}" -gt 0 -a "$((${loc:-0} * 100))" -ge "$((${att:-0} * 95))" ]
rm -rf memphis-*/
# without them (MEMPHIS_STACK_BYTES=0) each thread's stack is found as that thread's stack,
# the one the program mapped itself (MAP_STACK) included
MEMPHIS_STACK_BYTES=0 LD_PRELOAD=$B/libmemphis.so MEMPHIS_PERIOD=250us ./heapkinds threads $((STEPS / 4)) >/dev/null 2>&1
"$REPORT" "$(rundir heapkinds)" --all --top 0 >threads0.txt 2>report.err || sed 's/^/# /' report.err
stacks=$(grep -c '^([0-9]*) <stack of thread [1-8]> ' threads0.txt)
check "threads, no STACKS entries: the 8 threads' stacks found as stacks ($stacks)" [ "$stacks" = 8 ]
rm -rf memphis-*/

# libnuma maps its arrays itself: the report skips its frames like libc's
MEMPHIS_PERIOD=250us "$B/tests/prog_numaalloc" $((STEPS / 4)) >numa.out 2>numa.err
d=$(rundir prog_numaalloc)
"$REPORT" "$d" --all --top 3 >numa.txt 2>report.err || sed 's/^/# /' report.err
# (stored in main's local a: named by it, issue 16)
want="main::a (mmap at prog_numaalloc.c:$(grep -n 'SITE:numa' "$S/tests/programs/prog_numaalloc.c" | cut -d: -f1))"
check "numa_alloc_onnode: the hottest variable is '$want'" sh -c "grep -m1 '^(1) ' numa.txt | grep -qF '$want'" ||
	sed 's/^/# /' numa.txt | head -n 30
echo "1..$TAP_N"
