# Programs the library cannot be preloaded into, and names it must not pass on raw
# (issue 38): `memphis run` of a set-user-ID program (the dynamic loader ignores LD_PRELOAD
# for it) and of a 32-bit ELF (handed to /bin/sh by execvp when the kernel refuses it)
# says so in one line and runs it unprofiled, as without memphis; at `ulimit -n` under 64
# the library takes none of the program's descriptors (it had a floor of 8, all a program
# at ulimit -n 8 has); a program's name with control characters reaches neither a path
# nor the terminal raw.
. "$MEMPHIS_SRC/tests/tap.sh"

# --- set-user-ID to another user (root runs a program of nobody's)
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 4; }\n' > hello.c
cc -o hello hello.c || not_ok "compile a plain program"
if [ "$(id -u)" != 0 ] || ! id nobody > /dev/null 2>&1; then
	skip "set-user-ID program" "needs root and the user nobody"
elif findmnt -no OPTIONS --target . 2> /dev/null | grep -qw nosuid; then
	skip "set-user-ID program" "the test directory is on a nosuid mount"
else
	cp hello suid && chown nobody suid && chmod 4755 suid
	"$B/memphis" run -- ./suid > s.out 2> s.err
	rc=$?
	check "set-user-ID: one line saying it runs unprofiled, its output and status (rc $rc)" \
		sh -c "[ $rc = 4 ] && [ \"\$(cat s.out)\" = hello ] && [ \"\$(grep -c . s.err)\" = 1 ] &&
			grep -q '^memphis: ./suid is set-user-ID (it runs as uid [0-9]*): the dynamic loader ignores LD_PRELOAD for it, so it runs unprofiled$' s.err &&
			! ls -d memphis-* > /dev/null 2>&1"
fi
"$B/memphis" run -- ./hello > h.out 2> h.err
check "a plain program: no such line, profiled" \
	sh -c '[ "$(cat h.out)" = hello ] && [ ! -s h.err ] && ls -d memphis-hello-* > /dev/null'
rm -rf memphis-*/

# --- a 32-bit ELF: write(1, "hello32\n"), exit 3 (i386, static, made here)
python3 - << 'PY'
import struct
msg = b"hello32\n"
base, off = 0x08048000, 0x54
code = (b"\xb8\x04\x00\x00\x00\xbb\x01\x00\x00\x00\xb9" + struct.pack("<I", base + off + 0x30) +
        b"\xba" + struct.pack("<I", len(msg)) + b"\xcd\x80" +
        b"\xb8\x01\x00\x00\x00\xbb\x03\x00\x00\x00\xcd\x80").ljust(0x30, b"\x90") + msg
eh = b"\x7fELF\x01\x01\x01" + bytes(9) + struct.pack("<HHIIIIIHHHHHH", 2, 3, 1, base + off, 0x34,
                                                   0, 0, 0x34, 0x20, 1, 0, 0, 0)
ph = struct.pack("<8I", 1, 0, base, base, off + len(code), off + len(code), 5, 0x1000)
open("p32", "wb").write(eh + ph + code)
PY
chmod +x p32
"$B/memphis" run -- ./p32 > e.out 2> e.err
rc=$?
# the kernel runs it (IA-32 emulation): its output and status; it refuses it: the line of
# a shell (126, "Exec format error"), never /bin/sh reading it as a script
check "32-bit ELF: one line saying it runs unprofiled" \
	grep -q '^memphis: ./p32 is a 32-bit ELF executable: libmemphis cannot be loaded into it, so it runs unprofiled$' e.err
check "32-bit ELF: run as itself, not by /bin/sh (rc $rc)" \
	sh -c "{ [ $rc = 3 ] && [ \"\$(cat e.out)\" = hello32 ]; } ||
		{ [ $rc = 126 ] && [ ! -s e.out ] && [ \"\$(grep -c . e.err)\" = 2 ] &&
			grep -q '^memphis: cannot run ./p32: Exec format error$' e.err; }"

# --- ulimit -n 8: the program gets every descriptor it gets without memphis
P=$B/tests/prog_nofile
for n in 8 32; do
	MEMPHIS_DISABLE=1 sh -c "ulimit -n $n; exec \"$P\"" > n$n.plain 2> /dev/null
	sh -c "ulimit -n $n; exec \"$P\"" > n$n.out 2> n$n.err
	check "ulimit -n $n: the program opens as many files as without memphis ($(cat n$n.out))" \
		cmp -s n$n.plain n$n.out
	check "ulimit -n $n: one line saying the library takes none and does not profile" \
		sh -c "[ \"\$(grep -c . n$n.err)\" = 1 ] && grep -q '^memphis: the descriptor limit (ulimit -n $n) is under 64: memphis takes none of the program.s descriptors' n$n.err"
done
rm -rf memphis-*/
sh -c "ulimit -n 256; exec \"$P\"" > n256.out 2> n256.err
check "ulimit -n 256: profiled, silent, the program keeps three quarters or more ($(cat n256.out))" \
	sh -c "[ ! -s n256.err ] && ls -d memphis-prog_nofile-* > /dev/null &&
		[ \$(sed -n 's/^opened \([0-9]*\) files.*/\1/p' n256.out) -ge \$((256 * 3 / 4 - 3)) ]"
rm -rf memphis-*/

# --- control characters in the program's name
name=$(printf 'a\nsamples: 99\033[31m')
cp hello "./$name"
"$B/memphis" run -- "./$name" > c.out 2> c.err
d=$(ls -d memphis-a* 2> /dev/null)
check "a name with a newline and an escape: its run directory's name has neither ($d)" \
	sh -c "[ -n \"$d\" ] && [ \$(ls -d memphis-* | wc -l) = 1 ] && ls -d memphis-a_samples__99__31m-* > /dev/null"
"$B/memphis" run -- "./x$name" > c.out 2> c.err
check "the launcher's line about a program not found: one line, no control character" \
	sh -c "[ \"\$(wc -l < c.err)\" = 1 ] && ! grep -q \"\$(printf '\\033')\" c.err && grep -q '^memphis: cannot run ./xa?samples: 99?\[31m: No such file' c.err"
done_testing
