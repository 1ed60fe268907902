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
	ok $([ "$rc" = 2 ] && echo 0 || echo 1) "first cpu file of $n bytes: exits 2 (got $rc)"
	check "first cpu file of $n bytes: the file is named as damaged" has e "cpu000.mph: "
	check "first cpu file of $n bytes: no read error on the other files" \
		sh -c '! grep -q "read error" e'
	s=$(sed -n 's/^samples: \([0-9,]*\) total.*/\1/p' o)
	ok $([ -n "$s" ] && [ "$s" = "$want" ] && echo 0 || echo 1) \
		"first cpu file of $n bytes: every other file's samples counted ($s, want $want)"
done

# --- a FIFO in the run directory: never waited on (timeout 20 s tells a hang)
rm -rf fifo && cp -r good fifo && rm fifo/cpu001.mph && mkfifo fifo/cpu001.mph
rc=$(run_rc o e timeout 20 "$R" fifo)
ok $([ "$rc" = 2 ] && echo 0 || echo 1) "FIFO as a cpu file: no hang, exits 2 (got $rc)"
check "FIFO as a cpu file: named, not a regular file" has e "cpu001.mph: cannot open: not a regular file"
rm -rf fifometa && cp -r good fifometa && rm fifometa/meta.mph && mkfifo fifometa/meta.mph
rc=$(run_rc o e timeout 20 "$R" fifometa)
ok $([ "$rc" = 2 ] && echo 0 || echo 1) "FIFO as meta.mph: no hang, exits 2 (got $rc)"
check "FIFO as meta.mph: not a regular file" has e "meta.mph: not a regular file"

# --- symbolic links out of the run directory are not followed, a file's bytes never shown
printf 'SECRETPASSWORD-0123456789-SECRETPASSWORD-0123456789\n' >secret
rm -rf link && cp -r good link && rm link/cpu002.mph && ln -s "$PWD/secret" link/cpu002.mph
rc=$(run_rc o e "$R" link)
ok $([ "$rc" = 2 ] && echo 0 || echo 1) "symlink as a cpu file: exits 2 (got $rc)"
check "symlink as a cpu file: not followed" has e "cpu002.mph: cannot open: a symbolic link"
rm -rf linkmeta && cp -r good linkmeta && rm linkmeta/meta.mph && ln -s "$PWD/secret" linkmeta/meta.mph
rc=$(run_rc o e "$R" linkmeta)
ok $([ "$rc" = 2 ] && echo 0 || echo 1) "symlink as meta.mph: exits 2 (got $rc)"
check "symlink as meta.mph: not followed" has e "meta.mph: a symbolic link"
# a regular file of foreign bytes: damage named, its bytes (or their hex) not echoed
rm -rf foreign && cp -r good foreign && cp secret foreign/cpu003.mph && cp secret foreign/meta.mph
rc=$(run_rc o e "$R" foreign)
cat o >>e
ok $([ "$rc" = 2 ] && echo 0 || echo 1) "foreign bytes as meta.mph: exits 2 (got $rc)"
check "foreign bytes: bad magic named" has e "bad block magic"
check "foreign bytes: neither the bytes nor their hex in any message" \
	sh -c '! grep -qiE "SECR|52434553|53454352" e'
rm foreign/meta.mph && cp good/meta.mph foreign/
rc=$(run_rc o e "$R" foreign)
cat o >>e
check "foreign bytes as a cpu file: bad magic named" has e "cpu003.mph: offset 0: bad block magic"
check "foreign bytes as a cpu file: nothing of them echoed" sh -c '! grep -qiE "SECR|52434553|53454352" e'


# --- an executable without -g, or stripped: said once, naming it
cp "$GEN" nog && strip -g nog && cp "$GEN" stripped && strip --strip-all stripped
"$R" good --exe nog >o 2>e
check "built without -g: one warning naming it" \
	sh -c '[ $(grep -c "executable nog has no debug information" e) -eq 1 ]'
"$R" good --exe stripped >o 2>e
check "stripped: one warning naming it" \
	sh -c '[ $(grep -c "executable stripped is stripped" e) -eq 1 ]'
check "with -g: no such warning" sh -c '! grep -qE "no debug information|is stripped" good.err'
"$R" good --exe nog >both 2>&1
check "stdout and stderr one file (a terminal, 2>&1): the warning once, in the report's body" \
	sh -c '[ $(grep -c "executable nog has no debug information" both) -eq 1 ] && grep -q "^warning: executable nog" both'

# a newline in the executable's path (issue 11 item 15): the RUN block escapes it, the
# kernel's maps write it as \012; the report finds the binary all the same
nl=$(printf 'he\nllo')
cp "$B/examples/hello/hello" "./$nl"
LD_LIBRARY_PATH="$B" "./$nl" > /dev/null
nld=$(ls -td memphis-he_llo-*/ | head -n 1)
"$R" "$nld" > nl.out 2> nl.err
check "newline in the executable's path: the report reads the binary (no 'cannot read')" \
	sh -c '! grep -q "cannot read" nl.err && grep -q "malloc at hello.c" nl.out'
"$R" --json "$nld" > nl.json 2>/dev/null
check "newline in the executable's path: --json gives it exactly" \
	python3 -c 'import json,sys; sys.exit(not json.load(open("nl.json"))["run"]["exe"].endswith("/he\nllo"))'

done_testing
