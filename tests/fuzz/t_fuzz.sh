#!/bin/sh
# tests/fuzz/t_fuzz.sh - every libFuzzer target (fuzz_*.c beside it, built by `make fuzz`
# into BUILD-fuzz/) for a bounded time each, seeded with real inputs made here: a run directory
# (fuzz_rundir), its SAMPLES layout 3 payloads (fuzz_samples3), this shell's /proc/PID/maps (fuzz_maps), module records (fuzz_kmod_record),
# small ELF objects with DWARF 4 compiled from tests/fixtures (fuzz_debuginfo), saved
# --json reports of a synthetic run, by variable and by line (fuzz_compare_json), the
# machine code of prog_heapvar (fuzz_heapvar, fuzz_pollloop with a poll loop), the HTML page's sample and a synthetic
# run's report (fuzz_html_source), those reports and a lenient text (fuzz_json_strict).
# MEMPHIS_FUZZ_SECONDS (default 10) per target; MEMPHIS_FUZZ_RUNS=N runs N executions
# instead. MEMPHIS_FUZZ_CORPUS=DIR keeps the corpora in DIR/NAME (`make fuzz FUZZ_SECONDS=N`
# does). MEMPHIS_FUZZ_ONLY=REGEX runs only the targets whose name matches. Skips (77) when clang or libFuzzer is not installed (Debian: clang,
# libclang-rt-14-dev). A crash's input is kept and named.
. "$MEMPHIS_SRC/tests/tap.sh"
SECS=${MEMPHIS_FUZZ_SECONDS:-10}
RUNS=${MEMPHIS_FUZZ_RUNS:-}
FB=$B-fuzz
if ! command -v clang > /dev/null; then
	echo "t_fuzz: clang is not installed (Debian: apt-get install clang libclang-rt-14-dev)" >&2
	exit 77
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' > probe.c
if ! clang -fsanitize=fuzzer,address,undefined probe.c -o probe 2> probe.err; then
	echo "t_fuzz: clang cannot link libFuzzer (Debian: apt-get install libclang-rt-14-dev)" >&2
	exit 77
fi
# Empty FUZZ_* on the command line: make must not run this script again.
if ! make --no-print-directory -s -C "$S" B="$B" FUZZ_SECONDS= FUZZ_RUNS= FUZZ_ONLY= fuzz > build.log 2>&1; then
	not_ok "make fuzz builds every target"
	sed 's/^/# /' build.log | tail -n 30
	exit 1
fi
ok "make fuzz builds every target into $FB"

# ---- seeds, one directory per target ----
mkdir -p seed/rundir seed/maps seed/kmod_record seed/debuginfo seed/compare_json seed/heapvar \
	seed/html_source seed/json_strict seed/pollloop seed/samples3
"$B/tests/tool_gen" gen -n 3000 --allocs 20 > /dev/null 2>&1 &&
	"$B/memphis-report" --json gen > seed/compare_json/var.json 2> /dev/null
"$B/memphis-report" --json --by line gen > seed/compare_json/line.json 2> /dev/null
# html_source: the hand-made page sample, and a report whose lines and executable exist
cp "$S/tests/data/html-sample.json" seed/html_source/sample.json
"$B/memphis-report" --json --advice gen > seed/html_source/gen.json 2> /dev/null
# json_strict: the same reports, and texts json-c reads that a browser does not
cp seed/compare_json/*.json seed/html_source/*.json seed/json_strict/
printf "{'a': [1, 2,], \"b\": NaN} // c" > seed/json_strict/lenient
"$B/examples/hello/hello" > /dev/null 2>&1
python3 - "$(rundir hello)" seed/rundir/hello <<'PY'
import sys, os
d, out = sys.argv[1], sys.argv[2]
meta = open(os.path.join(d, "meta.mph"), "rb").read()[:60000]
cpu = b""
for f in sorted(os.listdir(d)):
    if f.startswith("cpu"):
        cpu = open(os.path.join(d, f), "rb").read()[:4000]
        break
open(out, "wb").write(bytes([len(meta) >> 8, len(meta) & 255]) + meta + cpu)
PY
# the payloads of the run's SAMPLES blocks of layout 3, and a short one
python3 - "$(rundir hello)" seed/samples3 <<'PY'
import os, struct, sys
d, out = sys.argv[1], sys.argv[2]
k = 0
for f in sorted(os.listdir(d)):
    if not f.startswith("cpu"):
        continue
    b, off = open(os.path.join(d, f), "rb").read(), 0
    while off + 16 <= len(b):
        magic, typ, ver, ln, crc = struct.unpack_from("<IHHII", b, off)
        if typ == 13 and ver == 3 and k < 8:
            open(os.path.join(out, "blk%d" % k), "wb").write(b[off + 16:off + 16 + min(ln, 60000)])
            k += 1
        off += 16 + ln
PY
printf '\002\177\002\002\047\200\001\004\002\002\000' > seed/samples3/two
# STACKS blocks in both files: entries of a first touch and of two samples (one flagged
# without its entry), framed with CRC-32C as the library writes them
python3 - seed/rundir/stacks "$S/tests" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[2])
from mphblocks import block
def entry(kind, tid, time, stack):
    regs = [0] * 17
    regs[7], regs[8] = 0x7ffd1000, 0x7f0000001234
    pad = stack + bytes(-len(stack) % 8)
    return struct.pack("<QIHH17QII", time, tid, kind, 0, *regs, len(stack), 0) + pad
meta = block(1, struct.pack("<IIiIQ", 2, 0, -1, 1, 0)) + block(2, b"exe=/bin/true\npage_size=4096\n")
meta += block(17, entry(2, 7, 50, b"\x34\x12\x00\x00\x56\x55\x00\x00"))
meta += block(8, struct.pack("<QQQIHHII", 50, 0x1000, 0x7f0000001234, 7, 0, 2, 12, 0))
cpu = block(1, struct.pack("<IIiIQ", 2, 1, 0, 1, 0))
cpu += block(17, entry(1, 5, 100, b"abcdefghijkl") + entry(1, 5, 200, b""))
smp = lambda t: struct.pack("<QQQQQIIIHHHHI", t, 0x7f0000001234, 0x1000, 0x7f0000001235, 0, 5, 1, 1,
                            0, 1 << 11, 0, 0, 0)
cpu += block(13, smp(100) + smp(200) + smp(300), 2)
open(sys.argv[1], "wb").write(bytes([len(meta) >> 8, len(meta) & 255]) + meta + cpu)
PY
cat /proc/self/maps > seed/maps/self
printf '00400000-00401000 r-xp 00000000 08:01 42 /bin/x\n7f00-7f10 rw-p 0 00:00 0\n' > seed/maps/small
# records: size selector (0: 192 bytes), CPU count, then struct memphismod_record
# (time ip addr data_src weight pid tid cpu flags, include/memphis/memphismod.h)
python3 - seed/kmod_record <<'PY'
import struct, sys
for i, (addr, flags) in enumerate([(0, 0), (0x7f0000001000, 1), (0xffff800000000000, 1 | 2), (0, 8 | 16)]):
    rec = struct.pack("<QQQQQIII", 1000 + i, 0x401000, addr, 0x1000142, 30, 7, 7, 1) + struct.pack("<I", flags)
    open("%s/r%d" % (sys.argv[1], i), "wb").write(bytes([0, 4]) + rec + bytes(192 - len(rec)))
PY
fx=$S/tests/fixtures
if command -v cc > /dev/null; then
	cc -g -gdwarf-4 -O2 -shared -fPIC -I"$fx" "$fx/dbg_lib.c" -o seed/debuginfo/lib-O2.so &&
		cc -g -gdwarf-4 -O0 -shared -fPIC -I"$fx" "$fx/dbg_lib.c" -o seed/debuginfo/lib-O0.so &&
		cc -g -gdwarf-4 -O1 -c -I"$fx" "$fx/dbg_vars2.c" -o seed/debuginfo/vars2.o
fi
[ -n "$(ls seed/debuginfo)" ] || cp "$B/examples/hello/hello" seed/debuginfo/
# heapvar: a compiler's code after calls (offset 0, then prog_heapvar's .text)
objcopy -O binary --only-section=.text "$B/tests/prog_heapvar" text.bin 2> /dev/null &&
	{ printf '\000\000'; head -c 4096 text.bin; } > seed/heapvar/text
[ -s seed/heapvar/text ] || printf '\000\000\110\211\005\000\001\000\000\303' > seed/heapvar/store
# pollloop: the same code, and a poll on a flag with a fence (lock orq $0,(%rsp))
cp seed/heapvar/* seed/pollloop/
printf '\006\000\360\110\203\014\044\000\110\143\006\213\004\207\205\300\164\360\303' > seed/pollloop/flush

# ---- one run per target ----
# fuzz_rundir writes its run directory under TMPDIR: this test's own, so that no other run
# (or its cleanup) shares it
mkdir -p tmp && TMPDIR=$PWD/tmp && export TMPDIR
for bin in "$FB"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	[ -z "${MEMPHIS_FUZZ_ONLY:-}" ] || echo "$name" | grep -qE "$MEMPHIS_FUZZ_ONLY" || continue
	if [ -n "${MEMPHIS_FUZZ_CORPUS:-}" ]; then corpus=$MEMPHIS_FUZZ_CORPUS/$name; else corpus=corpus-$name; fi
	mkdir -p "$corpus" "art-$name"
	if [ -n "$RUNS" ]; then limit="-runs=$RUNS"; what="$RUNS executions"; else limit="-max_total_time=$SECS"; what="$SECS s"; fi
	t0=$(date +%s)
	"$bin" "$limit" -error_exitcode=1 -timeout=30 -rss_limit_mb=2048 -max_len=70000 -print_final_stats=1 \
		-artifact_prefix="art-$name/" "$corpus" "seed/$name" > "fuzz-$name.log" 2>&1
	rc=$?
	t1=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "fuzz-$name.log")
	echo "# fuzz_$name: ${execs:-?} executions in $((t1 - t0)) s, exit $rc"
	if [ "$rc" = 0 ]; then
		ok "fuzz_$name: no crash, leak or UB in $what"
	else
		not_ok "fuzz_$name: no crash, leak or UB in $what (exit $rc)"
		grep -E "ERROR|SUMMARY|^    #[0-9]" "fuzz-$name.log" | head -n 25 | sed 's/^/# /'
		for a in "art-$name"/*; do
			[ -f "$a" ] || continue
			mkdir -p "$FB/crashes" && cp "$a" "$FB/crashes/" && echo "# input kept: $FB/crashes/${a##*/}"
		done
	fi
done
done_testing
