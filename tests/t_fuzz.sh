# libFuzzer over the run-directory reader for a bounded time, seeded with a real run
# directory. Skips when clang with libFuzzer is not installed (Debian: clang,
# libclang-rt-14-dev).
. "$MEMPHIS_SRC/tests/tap.sh"
SECS=${MEMPHIS_FUZZ_SECONDS:-20}
if ! command -v clang > /dev/null; then
	skip "fuzz the run-directory reader" "clang is not installed"
	exit 0
fi
if ! clang -fsanitize=fuzzer,address,undefined -std=c11 -D_GNU_SOURCE -I"$S/include" -I"$S/post" \
	-I"$S/common" -I/usr/include/libdwarf "$S/tests/fuzz_rundir.c" "$S"/post/rundir*.c \
	"$S/common/crc32c.c" -o fuzz_rundir 2> build.err; then
	if grep -q "fuzzer" build.err; then
		skip "fuzz the run-directory reader" "libFuzzer is not installed"
		exit 0
	fi
	cat build.err >&2
	not_ok "fuzz_rundir builds"
	exit 0
fi
ok "fuzz_rundir builds with -fsanitize=fuzzer,address,undefined"
# seed corpus: a real (small) run directory, as the fuzzer's input layout
"$B/examples/hello/hello" > /dev/null
d=$(rundir hello)
mkdir corpus
python3 - "$d" corpus/seed <<'PY'
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
./fuzz_rundir -max_total_time="$SECS" -max_len=70000 -rss_limit_mb=1024 corpus > fuzz.log 2>&1
rc=$?
grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units" fuzz.log | tail -n 1 | sed 's/^/# /'
check "libFuzzer found no crash, leak or UB in the reader in ${SECS} s (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -n 30 fuzz.log | sed 's/^/# /'
rm -rf /tmp/memphis-fuzz-*
