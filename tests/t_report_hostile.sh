#!/bin/sh
# memphis-report on run directories made by an unlucky or hostile hand (issue 11): every
# file read on its own, nothing but regular files read, no file's bytes in a message.
. "$MEMPHIS_SRC/tests/report_common.sh"
R=${MEMPHIS_REPORT:-$R}
need_built

"$GEN" good -n 20000 >/dev/null
"$R" good >good.txt 2>good.err
cp -r good minus0 && rm minus0/cpu000.mph
"$R" minus0 >minus0.txt 2>/dev/null
want=$(sed -n 's/^samples: \([0-9,]*\) total.*/\1/p' minus0.txt)

# --- an empty, then a very short, first cpu file: the other files are still read
for n in 0 5 30; do
	rm -rf short && cp -r good short && truncate -s $n short/cpu000.mph
	rc=$(run_rc o e "$R" short)
	ok $([ "$rc" = 2 ] && echo 0) "first cpu file of $n bytes: exits 2 (got $rc)"
	check "first cpu file of $n bytes: the file is named as damaged" has e "cpu000.mph: "
	check "first cpu file of $n bytes: no read error on the other files" \
		sh -c '! grep -q "read error" e'
	s=$(sed -n 's/^samples: \([0-9,]*\) total.*/\1/p' o)
	ok $([ -n "$s" ] && [ "$s" = "$want" ] && echo 0) \
		"first cpu file of $n bytes: every other file's samples counted ($s, want $want)"
done
done_testing
