# `memphis run` where LD_PRELOAD cannot work or reaches too far (issue 11 item 15): the
# processes a shell starts are not profiled unless --children (then each has its own run
# directory, DIR.PID with -o DIR); a statically linked program
# gets one clear line and still runs with its own exit status; a library path with a space
# or ':' (LD_PRELOAD splits there) gets one clear line and exit status 127.
. "$MEMPHIS_SRC/tests/tap.sh"

printf 'int main(void) { return 5; }\n' > st.c
if cc -static -o st st.c 2>/dev/null; then
	"$B/memphis" run -- ./st > out 2> err
	rc=$?
	check "static program: runs, its exit status kept (5, got $rc)" test $rc -eq 5
	check "static program: one line says it is statically linked" \
		sh -c 'grep -q "statically linked" err && [ $(wc -l < err) -eq 1 ]'
else
	skip "static program" "no static libc (cc -static failed)"
	skip "static program: message" "no static libc"
fi
"$B/memphis" run -- sh -c 'exit 0' > out 2> err
check "dynamic program: no word about static linking" sh -c '! grep -q "statically" err'

for dir in "a b" "c:d"; do
	mkdir -p "$dir"
	cp "$B/memphis" "$B/libmemphis.so" "$dir/"
	"./$dir/memphis" run -- sh -c 'exit 0' > out 2> err
	rc=$?
	check "library under '$dir': exit status 127 (got $rc)" test $rc -eq 127
	check "library under '$dir': one clear line" \
		sh -c 'grep -q "space or '"'"':'"'"'" err && [ $(wc -l < err) -eq 1 ]'
done

H="$B/examples/hello/hello"
MEMPHIS_DISABLE=1 "$H" > hello.plain
"$B/memphis" run -o only -- sh -c "$H > h1; $H > h2; true" > out 2> err
check "children not asked for: only the launched shell has a run directory" \
	sh -c '[ "$(ls -d only* 2>/dev/null)" = only ] && ! ls -d memphis-hello-* > /dev/null 2>&1'
check "children not asked for: no 'File exists', nothing on stderr" test ! -s err
check "children not asked for: their output unchanged" sh -c 'cmp -s hello.plain h1 && cmp -s hello.plain h2'
"$B/memphis" run --children -o all -- sh -c "$H > h1; $H > h2; true" > out 2> err
check "--children -o all: the shell in all, each child in all.PID (3 directories)" \
	sh -c '[ -d all ] && [ "$(ls -d all.* | grep -c "^all\.[0-9][0-9]*$")" = 2 ]'
check "--children -o all: each child's run names hello" \
	sh -c 'for d in all.*; do "$0" dump --meta "$d" | grep -q "exe=.*hello" || exit 1; done' "$REPORT"
check "--children: nothing on stderr, outputs unchanged" \
	sh -c '! [ -s err ] && cmp -s hello.plain h1 && cmp -s hello.plain h2'
"$B/memphis" run --help > help
check "--help documents --children" grep -q -- "--children" help
echo "1..$TAP_N"
