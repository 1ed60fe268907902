# make install / uninstall (issue 11 item 15, issue 17 item 1): with a PREFIX that holds a
# space every file lands under it (the HTML page's files too, found by the installed
# memphis-report) and uninstall removes them all; the installed memphis.pc
# names the PREFIX of that install (not the build's), so a program built with nothing but
# `pkg-config --cflags --libs memphis` links, runs and writes a run directory, and the
# Fortran variables point into the prefix; a DESTDIR-staged install names PREFIX, not the
# staging directory. Uses the already built tree ($B).
. "$MEMPHIS_SRC/tests/tap.sh"

command -v make >/dev/null 2>&1 || { echo "no make" >&2; exit 77; }
command -v pkg-config >/dev/null 2>&1 || { echo "no pkg-config" >&2; exit 77; }
p="$PWD/x y/usr"
make -s -C "$S" B="$B" PREFIX="$p" install >inst.out 2>&1
check "make install PREFIX with a space succeeds" test $? = 0
check "library installed under it" test -f "$p/lib/libmemphis.so"
check "programs installed under it" test -x "$p/bin/memphis-report" -a -x "$p/bin/memphis"
check "header installed under it" test -f "$p/include/memphis.h"
check "nothing installed beside it (at the space)" test ! -e "$PWD/x"/lib -a ! -e "$PWD/x"/bin
# the HTML page's own files (issue 18): the installed memphis-report finds them beside
# itself (BINDIR/../share/memphis/html), with no source tree
check "the HTML page's files installed under it" test -f "$p/share/memphis/html/page.html" -a \
	-f "$p/share/memphis/html/memphis.js" -a -f "$p/share/memphis/html/memphis.css"
if [ -r /usr/share/javascript/d3/d3.min.js ]; then
	MEMPHIS_SRC= "$p/bin/memphis-report" html -o inst.html "$S/tests/data/html-sample.json" > html.err 2>&1
	rc=$?
	check_if "the installed memphis-report writes a page from the installed files (exit $rc)" \
		'[ "$rc" = 0 ] && grep -q "id=\"memphis-page\"" inst.html'
else
	skip "the installed memphis-report writes a page from the installed files" "libjs-d3 is not installed (make deps)"
fi

# pkg-config after the install: the flags name the prefix, and a program built with them
# alone runs under the installed library (found through LD_LIBRARY_PATH, as pkg-config gives
# no rpath) and leaves a run directory
cat > app.c <<'C'
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
	double *v = malloc(1 << 20);
	for (int i = 0; i < (1 << 17); i++) v[i] = i;
	memphis_mark_named("work");
	printf("%s %g\n", memphis_version(), v[7]);
	free(v);
	return 0;
}
C
pc() { PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config "$@" memphis; }
e=$(printf '%s' "$p" | sed 's/ /\\ /g')   # the prefix as pkg-config prints it: spaces escaped
check_if "pkg-config --cflags names the installed include directory" \
	'[ "$(pc --cflags | sed "s/ *$//")" = "-I$e/include" ]'
check_if "pkg-config --variable=fflags names the installed module directory" \
	'[ -f "$p/include/memphis/fortran/memphis.mod" ] && [ "$(pc --variable=fflags)" = "-I$e/include/memphis/fortran" ]'
check_if "pkg-config --variable=fortran_libs names the installed library directory" \
	'[ "$(pc --variable=fortran_libs)" = "-L$e/lib -lmemphis_f -lmemphis" ]'
# the shell splits the escaped spaces back the way pkg-config printed them
eval "cc -O1 app.c -o app $(pc --cflags --libs)" > cc.out 2>&1
check "a program builds with only pkg-config --cflags --libs memphis" test -x app
LD_LIBRARY_PATH="$p/lib" ./app > app.out 2> app.err
check_if "it runs with the installed library and prints its version" \
	'grep -q "^$(pc --modversion) 7\$" app.out'
check "it wrote a run directory" test -n "$(rundir app)"
make -s -C "$S" B="$B" PREFIX="$p" uninstall >uninst.out 2>&1
check "make uninstall PREFIX with a space succeeds" test $? = 0
left=$(find "$p" -type f -o -type l | wc -l)
check "uninstall removes every file ($left left)" test "$left" = 0

# staged: the file names PREFIX, where the staged tree goes, never DESTDIR
make -s -C "$S" B="$B" DESTDIR="$PWD/stage" PREFIX=/opt/memphis install >stage.out 2>&1
check "make install DESTDIR=... PREFIX=/opt/memphis succeeds" test $? = 0
pcf=stage/opt/memphis/lib/pkgconfig/memphis.pc
check "the staged memphis.pc says prefix=/opt/memphis" grep -qx "prefix=/opt/memphis" "$pcf"
check_if "and nothing in it names the staging directory" '! grep -q stage "$pcf"'

# FORTRAN=0 (Spack's ~fortran): no Fortran binding installed, no Fortran variables in the .pc
make -s -C "$S" B="$B" DESTDIR="$PWD/nof" PREFIX=/opt/memphis FORTRAN=0 install >nof.out 2>&1
check "make install FORTRAN=0 succeeds" test $? = 0
check_if "... and installs neither memphis.mod nor libmemphis_f.a, and the .pc has no fflags" \
	'[ -f nof/opt/memphis/lib/libmemphis.so.0 ] && [ -z "$(find nof -name memphis.mod -o -name libmemphis_f.a)" ] &&
	! grep -q fflags nof/opt/memphis/lib/pkgconfig/memphis.pc'
echo "1..$TAP_N"
