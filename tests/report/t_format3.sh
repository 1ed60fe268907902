#!/bin/sh
# Format 3 (issue 45 item 1): SAMPLES layout 3 (compact, delta-encoded records) and STACKS
# layout 2 (entries sharing an earlier entry's bytes). examples/cg runs under the soft
# sampler twice, as format 3 (the default) and with MEMPHIS_FORMAT=2; tool_format rewrites
# each into the other format, and the report (text, --json, --by line) must be byte for
# byte the same of a run and of its rewrite, both ways. A damaged layout 3 block (its
# record count lowered: bytes after the last record; its last varint cut short), with a
# correct checksum, is damage naming the file, the record and the byte offset, and only
# that block's samples are lost.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
P="$B/examples/cg/cg"
T="$B/tests/tool_format"
for f in "$P" "$T"; do
	[ -x "$f" ] || { echo "not ok 1 - $f is not built"; exit 1; }
done
have_python || { echo "1..0 # SKIP python3 is needed"; exit 77; }

MEMPHIS_BACKEND=soft MEMPHIS_OUTPUT=f3 "$P" > /dev/null 2>&1
MEMPHIS_BACKEND=soft MEMPHIS_FORMAT=2 MEMPHIS_OUTPUT=f2 "$P" > /dev/null 2>&1
"$R" dump f3 --blocks > b3 2>&1
"$R" dump f2 --blocks > b2 2>&1
check_if "the default writes SAMPLES layout 3 and STACKS layout 2, FILE format 3" \
	'grep -q "^cpu[0-9]*\.mph [0-9]* SAMPLES 3 " b3 && ! grep -q " SAMPLES [12] " b3 &&
	 ! grep -q " STACKS 1 " b3 && "$R" dump f3 --meta | grep -q "(format version 3,"'
check_if "MEMPHIS_FORMAT=2 writes SAMPLES layout 2 and STACKS layout 1, FILE format 2" \
	'grep -q "^cpu[0-9]*\.mph [0-9]* SAMPLES 2 " b2 && ! grep -q " SAMPLES [13] " b2 &&
	 ! grep -q " STACKS 2 " b2 && "$R" dump f2 --meta | grep -q "(format version 2,"'

# same_reports A B WHAT: the reports of run directories A and B, each read as "run"
same_reports() {
	for opt in "" "--json" "--by line"; do
		rm -rf x y && mkdir x y && cp -r "$1" x/run && cp -r "$2" y/run
		(cd x && "$R" run $opt > ../ra 2>&1; echo "exit $?" >> ../ra)
		(cd y && "$R" run $opt > ../rb 2>&1; echo "exit $?" >> ../rb)
		check_if "$3: the report${opt:+ $opt} is the same" 'cmp -s ra rb && grep -q "^exit 0" ra' ||
			diff ra rb | head -5 | sed 's/^/# /'
	done
}

"$T" 2 f3 f3to2 > t.err 2>&1
check_if "tool_format 2 rewrites the format 3 run" '[ -s f3to2/meta.mph ]'
"$R" dump f3to2 --blocks > b32 2>&1
check_if "the rewrite holds SAMPLES layout 2 only" \
	'grep -q " SAMPLES 2 " b32 && ! grep -q " SAMPLES 3 " b32 && ! grep -q " STACKS 2 " b32'
same_reports f3 f3to2 "format 3 and its rewrite to 2"
"$T" 3 f3to2 f3back > t.err 2>&1
same_cpu_files() {
	for f in "$1"/cpu*.mph; do cmp -s "$f" "$2/${f#"$1"/}" || return 1; done
}
check_if "format 3 rewritten to 2 and back: the cpu files are the library's, byte for byte" \
	'same_cpu_files f3 f3back'

"$T" 3 f2 f2to3 > t.err 2>&1
"$R" dump f2to3 --blocks > b23 2>&1
check_if "tool_format 3 rewrites the format 2 run into layouts 3 and 2" \
	'grep -q " SAMPLES 3 " b23 && ! grep -q " SAMPLES 2 " b23 && ! grep -q " STACKS 1 " b23'
same_reports f2 f2to3 "format 2 and its rewrite to 3"
"$R" dump f2 --samples 2>&1 | grep -v "^# cpu" > d2
"$R" dump f2to3 --samples 2>&1 | grep -v "^# cpu" > d3
check_if "the dump of the samples is the same of format 2 and its rewrite" 'cmp -s d2 d3'
check_if "... and of its stacks" \
	'"$R" dump f2 --stacks | grep -v "^# cpu" > s2; "$R" dump f2to3 --stacks | grep -v "^# cpu" > s3;
	 cmp -s s2 s3'

# damage: a layout 3 block of the largest cpu file, rewritten with a correct checksum
cpu=$(ls -S f3 | grep '^cpu' | head -1)
total=$("$R" dump f3 --samples 2>/dev/null | sed -n "s/^# $cpu: \([0-9,]*\) samples.*/\1/p" | tr -d ,)
# damage.py FILE MODE TESTS (the folder of tests/mphblocks.py): the second SAMPLES block of
# layout 3 (the first when only one),
# MODE count: its record count lowered by one; cut: its last byte removed. Prints the
# block's offset and its record count.
cat > damage.py <<'EOF'
import struct, sys
path, mode = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from mphblocks import block
d = bytearray(open(path, 'rb').read())

def uleb(b, o):
    v = s = 0
    while True:
        v |= (b[o] & 0x7f) << s
        s += 7
        o += 1
        if not b[o - 1] & 0x80:
            return v, o

blocks, off = [], 0
while off + 16 <= len(d):
    magic, typ, ver, ln, crc = struct.unpack_from('<IHHII', d, off)
    if typ == 13 and ver == 3:
        blocks.append(off)
    off += 16 + ln
off = blocks[1] if len(blocks) > 1 else blocks[0]
magic, typ, ver, ln, crc = struct.unpack_from('<IHHII', d, off)
p = bytearray(d[off + 16:off + 16 + ln])
n, o = uleb(p, 0)
if mode == 'count':
    if p[0] & 0x7f == 0:
        sys.exit('count ends in 0')
    p[0] -= 1
else:
    p = p[:-1]
d[off:off + 16 + ln] = block(typ, bytes(p), ver)
open(path, 'wb').write(d)
print(off, n)
EOF
for mode in count cut; do
	rm -rf dmg && cp -r f3 dmg
	set -- $(python3 damage.py "dmg/$cpu" $mode "$MEMPHIS_SRC/tests")
	boff=$1 bn=$2
	rc=$(run_rc o e "$R" dmg)
	case $mode in
	count) what="bytes after the last of its" ;;
	cut) what="the payload ends inside it" ;;
	esac
	check_if "$cpu, block at $boff, $mode: exit 2, the file, offset and fault named (exit $rc: $(grep damaged e | head -1))" \
		'[ "$rc" = 2 ] && grep -q "damaged input: $cpu: offset $boff: SAMPLES block of layout 3: .*$what.* at byte [0-9]* of the file" e'
	got=$("$R" dump dmg --samples 2>/dev/null | sed -n "s/^# $cpu: \([0-9,]*\) samples.*/\1/p" | tr -d ,)
	check_if "$cpu, $mode: the other blocks' samples are kept ($got of $total, the block held $bn)" \
		'[ "$got" = $((total - bn)) ]'
done

done_testing
