# What the API returns when memphis cannot run: the real errno of an output failure (not
# -ENOTSUP), texts from memphis_strerror that never point to a message that was not
# printed, and a program whose name is as long as a file name may be (its run directory
# name is cut to NAME_MAX).
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

touch notadir
MEMPHIS_OUTPUT=notadir/run "$P" mark > out.out 2> out.err
check "unwritable output: memphis_mark returns the real errno (-ENOTDIR)" grep -q "^mark: -20 " out.out
check "unwritable output: one line naming the path" \
	sh -c '[ "$(grep -c "^memphis" out.err)" = 1 ] && grep -q "notadir/run" out.err'
for env in MEMPHIS_DISABLE=1 MEMPHIS_BACKEND=none; do
	env $env "$P" mark > off.out 2> off.err
	check "$env: -ENOTSUP, silent, and its text points to no message" \
		sh -c '[ ! -s off.err ] && grep -q "^mark: -95 " off.out && ! grep -q "message\|stderr" off.out'
	rm -rf memphis-*/
done

long=$(printf 'p%.0s' $(seq 250))
cp "$P" "./$long"
LD_LIBRARY_PATH="$B" "./$long" mark > long.out 2> long.err
d=$(ls -d memphis-p*/ 2>/dev/null | head -n 1)
check "a 250-byte program name: profiled (mark 0, silent)" \
	sh -c '[ ! -s long.err ] && grep -q "^mark: 0 " long.out'
check "its run directory name fits NAME_MAX and starts with the program's name" \
	sh -c "[ -n '$d' ] && [ \$(printf %s '${d%/}' | wc -c) -le 255 ] && case '$d' in memphis-ppppp*) true;; *) false;; esac"
rm -rf memphis-*/ "./$long"
