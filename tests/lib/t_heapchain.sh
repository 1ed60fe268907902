# Allocation call-site chains (issue 38): the interposer unwinds a site's chain once and
# then reads it back from the stack while it still holds (lib/heap.c, chain_cached). Every
# recorded chain must be the one the unwinder gives: tests/programs/prog_heapchain.c notes, before
# each allocation, its own backtrace (the same CFI unwinder), through a site called from
# alternating callers, recursion of varying depth, frames of varying size (alloca in the
# site's function and in its caller) and two threads at once; each allocation's record in
# meta.mph must carry exactly those callers after its site.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read meta.mph" >&2; exit 77; }

for scope in thread cpu; do
	rm -rf memphis-*/
	MEMPHIS_SCOPE=$scope MEMPHIS_CALLSITE_DEPTH=8 "$B/tests/prog_heapchain" expect.$scope \
		> out.$scope 2>&1
	d=$(rundir prog_heapchain)
	check "$scope: the program ran ($(cat out.$scope))" grep -q '^3000 allocations$' out.$scope
	check "$scope: every allocation's callers are the unwinder's" \
		python3 - "$d/meta.mph" expect.$scope <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
rec = {}
off = 0
while off + 16 <= len(data):
    magic, typ, ver, length, crc = struct.unpack_from("<IHHII", data, off)
    off += 16
    if typ == 6:  # MPH_BLK_ALLOCS: struct memphis_rec_alloc[]
        for p in range(off, off + length, 96):
            t, addr, size, tid, kind, nf = struct.unpack_from("<QQQIHH", data, p)
            frames = struct.unpack_from("<8Q", data, p + 32)[:nf]
            rec[size] = frames
    off += length
bad = n = 0
for line in open(sys.argv[2]):
    f = line.split()
    size, want = int(f[0]), [int(x, 16) for x in f[1:]]
    n += 1
    got = rec.get(size)
    if got is None or list(got[1:]) != want:
        bad += 1
        if bad <= 5:
            print("# size %d: recorded %s, unwinder %s" % (size, got and [hex(x) for x in got[1:]],
                  [hex(x) for x in want]))
print("# %d allocations compared, %d differ" % (n, bad))
sys.exit(bad != 0 or n != 3000)
PY
done
done_testing
