# A file size limit (ulimit -f) reached by the library's files: the program never gets
# SIGXFSZ (which kills it) because of memphis's writes, in the constructor or later; the
# library gets EFBIG, says so in one line and stops sampling; the program's output and
# exit status are unchanged.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

MEMPHIS_DISABLE=1 "$P" work 0.3 > plain.out 2> plain.err
# 4 blocks of 512 bytes: the constructor's first blocks already pass it; 40: a region's
for f in 4 40; do
	sh -c "ulimit -f $f; exec \"$P\" work 0.3" > lim$f.out 2> lim$f.err
	rc=$?
	check "ulimit -f $f: no SIGXFSZ, exit status 0 (got $rc)" test "$rc" = 0
	check "ulimit -f $f: output as without memphis" cmp -s plain.out lim$f.out
	check "ulimit -f $f: one line naming the file size limit" \
		sh -c "[ \"\$(grep -c '^memphis' lim$f.err)\" = 1 ] && grep -q 'file size limit' lim$f.err"
	"$REPORT" memphis-*/ > lim$f.report 2> lim$f.rerr
	check "ulimit -f $f: the report says the library stopped writing at the size limit" \
		grep -q "^run cut short: write error: the file size limit" lim$f.report
	check "ulimit -f $f: the report does not guess the program was killed" \
		sh -c "grep -q 'the library stopped writing it' lim$f.rerr && ! grep -q killed lim$f.rerr"
	rm -rf memphis-*/
done
# Whichever file reaches the limit first (often meta.mph, with the samples still in their
# buffers), meta.mph keeps room for the write error's note: without it, at some limits the
# note did not fit (here at -f 16, 33 and 34) and the report guessed the program was killed.
bad=
for f in $(seq 4 40); do
	sh -c "ulimit -f $f; exec \"$P\" work 0.05" > /dev/null 2>&1
	"$REPORT" memphis-*/ 2> /dev/null | grep -q "^run cut short: write error: the file size limit" ||
		bad="$bad $f"
	rm -rf memphis-*/
done
check "ulimit -f 4 to 40 (2 to 20 KiB): every report says the library stopped at the limit (not:${bad:- none})" \
	test -z "$bad"
# stderr itself at the limit: the library's warning line must not raise the signal either
head -c 1024 /dev/zero > full.err
sh -c "ulimit -f 2; exec \"$P\" work 0.3" > stderr.out 2>> full.err
rc=$?
check "stderr at the size limit: no SIGXFSZ from memphis's warning (got $rc)" test "$rc" = 0
rm -rf memphis-*/
