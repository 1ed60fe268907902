# `memphis run` where LD_PRELOAD cannot work (issue 11 item 15): a statically linked program
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
echo "1..$TAP_N"
