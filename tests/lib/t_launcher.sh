# `memphis run -- PROG` profiles an unmodified program as one region, keeps its exit
# status, and install/uninstall put every file in place and take it away again.
. "$MEMPHIS_SRC/tests/tap.sh"

cat > plain.c <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	long n = 1 << 22;
	double *x = malloc(n * sizeof(*x)), s = 0;
	for (long r = 0; r < 40; r++)
		for (long i = 0; i < n; i++)
			s += (x[i] = (double)(i ^ r));
	printf("%.0f\n", s);
	return argc > 1 ? atoi(argv[1]) : 0;
}
C
cc -g -O1 -o plain plain.c || not_ok "compile a plain program"
"$B/memphis" run -- ./plain 3 > out 2> err
rc=$?
check "exit status of the program is kept (3)" test $rc -eq 3
d=$(rundir plain)
check "a run directory was written for the unmodified program" test -n "$d"
"$REPORT" dump --meta "$d" > meta 2>&1
check "the whole run is one region named \"run\" with samples" \
	grep -Eq '^#   region 1 "run" .* [1-9][0-9,]* samples' meta
"$B/memphis" run --region whole --period 250us --no-first-touch -o custom -- ./plain > /dev/null 2>&1
"$REPORT" dump --meta custom > meta2 2>&1
check "--output, --region, --period and --no-first-touch reach the library" \
	sh -c 'grep -q "region 1 \"whole\"" meta2 && grep -q "period_ns=250000" meta2 && grep -q "first_touch=0" meta2'
"$B/memphis" run -- ./no-such-program 2> nf.err
check "a missing program: exit 127 and a clear message" \
	sh -c "[ $? -eq 127 ] && grep -q 'cannot run ./no-such-program' nf.err"

# install / uninstall into a staging directory
make -s -C "$S" B="$B" DESTDIR="$PWD/stage" PREFIX=/usr/local install > inst.log 2>&1
check "install puts library, headers, tools, pkg-config file and man pages in place" \
	sh -c 'for f in lib/libmemphis.so lib/libmemphis.a lib/pkgconfig/memphis.pc include/memphis.h \
		include/memphis/format.h bin/memphis bin/memphis-report; do
		[ -e "stage/usr/local/$f" ] || { echo "# missing $f"; exit 1; }; done'
PKG_CONFIG_PATH=$PWD/stage/usr/local/lib/pkgconfig pkg-config --libs memphis > pc.out 2>&1
check "pkg-config --libs memphis gives -lmemphis" grep -q -- "-lmemphis" pc.out
# a runtime package's layout (debian/libmemphis0): only the soname, no libmemphis.so link
mkdir -p rt/bin rt/lib
cp "$B/memphis" rt/bin/ && cp "$B/libmemphis.so" rt/lib/libmemphis.so.0
rt/bin/memphis run -o rtrun -- ./plain > rt.out 2> rt.err
check "the launcher preloads the soname when the .so link is not installed" \
	sh -c '[ -d rtrun ] && [ ! -s rt.err ]'
make -s -C "$S" B="$B" DESTDIR="$PWD/stage" PREFIX=/usr/local uninstall > uninst.log 2>&1
check "uninstall leaves no file behind" test -z "$(find stage -type f)"
