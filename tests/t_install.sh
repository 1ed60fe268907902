# make install / uninstall with a PREFIX that holds a space (issue 11 item 15): every file
# lands under it, uninstall removes them all. Uses the already built tree ($B); -o keeps its
# memphis.pc (made for the build's PREFIX) as it is.
. "$MEMPHIS_SRC/tests/tap.sh"

command -v make >/dev/null 2>&1 || { echo "no make" >&2; exit 77; }
p="$PWD/x y/usr"
make -s -C "$S" B="$B" -o "$B/memphis.pc" PREFIX="$p" install >inst.out 2>&1
check "make install PREFIX with a space succeeds" test $? = 0
check "library installed under it" test -f "$p/lib/libmemphis.so"
check "programs installed under it" test -x "$p/bin/memphis-report" -a -x "$p/bin/memphis"
check "header installed under it" test -f "$p/include/memphis.h"
check "nothing installed beside it (at the space)" test ! -e "$PWD/x"/lib -a ! -e "$PWD/x"/bin
make -s -C "$S" B="$B" PREFIX="$p" uninstall >uninst.out 2>&1
check "make uninstall PREFIX with a space succeeds" test $? = 0
left=$(find "$p" -type f -o -type l | wc -l)
check "uninstall removes every file ($left left)" test "$left" = 0
echo "1..$TAP_N"
