# The profiled program never changes behaviour because of memphis: fork, exec, heavy
# realloc, SIGKILL mid-region, perf_event_open refused by seccomp, unwritable or full
# output, a planted symlink. Damage is detected and the valid prefix is read.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_robust"

MEMPHIS_DISABLE=1 "$P" > plain.out 2> plain.err
"$P" > prof.out 2> prof.err
check "fork + exec + realloc: output identical with and without memphis" cmp -s plain.out prof.out
check "print without mark returns -EINVAL and nothing breaks" grep -q "print without mark: -22" prof.err
d=$(rundir prog_robust)
"$REPORT" dump --meta "$d" > prof.meta 2>&1
check "one run directory: the fork child and the exec'd program wrote none" \
	test "$(ls -d memphis-*/ | wc -l)" -eq 1
check "clean run: every file closed (no warning from dump)" sh -c '! grep -q "warning" prof.meta'
check "allocations were recorded" grep -Eq "allocs: [1-9][0-9,]*, frees: [1-9]" prof.meta
rm -rf memphis-*/

# SIGKILL in the middle of a region.
"$P" wait > kill.out 2> kill.err &
pid=$!
i=0
while ! grep -q waiting kill.out 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 1.5
kill -9 $pid
wait $pid 2>/dev/null
d=$(rundir prog_robust)
"$REPORT" dump "$d" > kill.dump 2> kill.err2
rc=$?
check "killed run: dump exits 0 (all blocks complete) and reads samples" \
	sh -c "[ $rc -eq 0 ] && grep -Eq '^[0-9.]+ [0-9]+ $pid ' kill.dump"
check "killed run: dump says the run did not finish cleanly" grep -q "did not finish cleanly" kill.dump kill.err2

# A cut in the middle of a block, and a flipped byte: file and offset named, exit 2,
# what came before still reported.
cp -r "$d" cut
f=$(ls cut/cpu*.mph | head -n 1)
truncate -s -10 "$f"
"$REPORT" dump --samples cut > cut.dump 2> cut.err
rc=$?
check "truncated block: exit status 2" test $rc -eq 2
check "truncated block: message names the file and offset" \
	grep -Eq "$(basename "$f"): offset [0-9]+: truncated" cut.err
cp -r "$d" flip
printf '\125' | dd of=flip/meta.mph bs=1 seek=3000 conv=notrunc 2>/dev/null
"$REPORT" dump --meta flip > flip.dump 2> flip.err
rc=$?
check "flipped byte: checksum mismatch reported with offset, exit 2" \
	sh -c "[ $rc -eq 2 ] && grep -Eq 'meta.mph: offset [0-9]+: checksum mismatch' flip.err"
check "flipped byte: blocks before the damage still printed" grep -q "backend=soft" flip.dump
rm -rf memphis-*/ cut flip

# perf_event_open refused as container runtimes do: same output, one clear line.
"$B/tests/tool_noperf" "$P" > seccomp.out 2> seccomp.err
check "seccomp refusal: program output unchanged" cmp -s plain.out seccomp.out
check "seccomp refusal: exactly one line from memphis, naming seccomp" \
	sh -c '[ "$(grep -c "^memphis" seccomp.err)" = 1 ] && grep -q "seccomp" seccomp.err'
rm -rf memphis-*/

# Output that cannot be written: a path under a file, a planted symlink, a full disk.
touch notadir
MEMPHIS_OUTPUT=notadir/run "$P" > bad.out 2> bad.err
check "unwritable output: program output unchanged" cmp -s plain.out bad.out
check "unwritable output: one warning naming the path" \
	sh -c '[ "$(grep -c "^memphis" bad.err)" = 1 ] && grep -q "notadir/run" bad.err'
mkdir elsewhere
ln -s elsewhere planted
MEMPHIS_OUTPUT=planted "$P" > link.out 2> link.err
check "planted symlink: not followed (target stays empty), output unchanged" \
	sh -c '[ -z "$(ls -A elsewhere)" ] && cmp -s plain.out link.out && grep -q "^memphis" link.err'
if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
	MEMPHIS_OUTPUT=full/run MEMPHIS_PERIOD=100us "$P" > full.out 2> full.err
	check "disk full: program output unchanged" cmp -s plain.out full.out
	check "disk full: one warning saying sampling stopped" \
		sh -c '[ "$(grep -c "^memphis" full.err)" = 1 ] && grep -q "No space left on device; sampling stopped" full.err'
	"$REPORT" dump --meta full/run > full.dump 2>&1
	check "disk full: what was written is still readable" grep -q "backend=soft" full.dump
	umount full
else
	skip "disk full" "needs root and a tmpfs mount"
	skip "disk full: warning" "needs root and a tmpfs mount"
	skip "disk full: readable" "needs root and a tmpfs mount"
fi
