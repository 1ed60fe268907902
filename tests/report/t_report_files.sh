#!/bin/sh
# Every file memphis-report opens by a name it was given (issue 38): a regular file of
# bounded size, or refused with one line; a FIFO never waited on, /dev/zero never read
# (compare's inputs, html's saved report, MEMPHIS_HTML_D3, --exe). A program's sources are
# shown only when the run's owner could read them: a program built with
# `#line 2 "SECRET"` (a file only root can read) run by nobody and reported by root does not
# put SECRET in the page, while its readable sources are still there.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
CC=${CC:-cc}
export MEMPHIS_SRC="$S"

# one_line RC WANT ERRFILE: exit status WANT and exactly one line on stderr
one_line() { [ "$1" = "$2" ] && [ "$(wc -l < "$3")" = 1 ]; }

"$GEN" g -n 3000 > /dev/null
"$R" --json g > g.json
mkfifo fifo

# --- compare, html and the charting library: a FIFO and /dev/zero (timeout tells a hang)
for bad in fifo /dev/zero; do
	rc=$(run_rc o e timeout 20 "$R" compare g.json "$bad")
	check_if "compare g.json $bad: refused in one line, exit 2 (got $rc: $(cat e))" \
		'one_line "$rc" 2 e && has e "$bad: not a regular file"'
	rc=$(run_rc o e timeout 20 "$R" compare "$bad" g.json)
	check_if "compare $bad g.json: refused in one line, exit 2 (got $rc)" \
		'one_line "$rc" 2 e && has e "$bad: not a regular file"'
	rc=$(run_rc o e env MEMPHIS_HTML_D3="$bad" timeout 20 "$R" html -o p.html g.json)
	check_if "MEMPHIS_HTML_D3=$bad: refused in one line, exit 2 (got $rc: $(cat e))" \
		'one_line "$rc" 2 e && has e "$bad: not a regular file"'
	rc=$(run_rc o e timeout 20 "$R" g --exe "$bad")
	check_if "--exe $bad: refused in one line, exit 2 (got $rc: $(cat e))" \
		'one_line "$rc" 2 e && has e "not a regular file"'
done
# a sparse file over the bound of a saved report (256 MiB): refused unread
truncate -s 300M huge.json
rc=$(run_rc o e timeout 20 "$R" compare g.json huge.json)
check_if "compare of a 300 MB file: refused by its size in one line (got $rc: $(cat e))" \
	'one_line "$rc" 2 e && has e "huge.json: larger than the 256 MiB"'
rc=$(run_rc o e timeout 20 "$R" html -o p.html huge.json)
check_if "html of a 300 MB file: refused by its size in one line (got $rc: $(cat e))" \
	'one_line "$rc" 2 e && has e "huge.json: larger than the 256 MiB"'
# a template directory (MEMPHIS_SRC) whose script is a FIFO
mkdir -p fake/share/memphis/html && cp "$S"/share/memphis/html/* fake/share/memphis/html/ &&
	rm fake/share/memphis/html/memphis.js && mkfifo fake/share/memphis/html/memphis.js
rc=$(run_rc o e env MEMPHIS_SRC="$PWD/fake" timeout 20 "$R" html -o p.html g.json)
check_if "the page's script a FIFO: refused in one line, exit 2 (got $rc)" \
	'one_line "$rc" 2 e && has e "memphis.js: not a regular file"'
rm -rf fake

# --- the sources of a program run by nobody, reported by root
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1; then
	skip "sources named by a run of another user" "not root, or no setpriv or user nobody"
	done_testing
	exit
fi
if ! command -v "$CC" > /dev/null; then
	skip "sources named by a run of another user" "no C compiler ($CC)"
	done_testing
	exit
fi
# a directory nobody can reach (the test's own may sit in one only root may search)
W=$(mktemp -d /tmp/memphis-files.XXXXXX) && chmod 755 "$W" || exit 1
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
if ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$B/libmemphis.so"; then
	skip "sources named by a run of another user" "nobody cannot read $B/libmemphis.so"
	done_testing
	exit
fi
mkdir -m 700 vault
# the secret: root's alone (0600, in a directory only root may search); its lines long
# enough to be lines 1 .. 20 of "a source"
for i in $(seq 1 20); do echo "ROOTSECRET-$i-do-not-show"; done > vault/secret.c
chmod 600 vault/secret.c
# the same text in a file anyone may read: what the page must still show
mkdir -m 755 pub && sed 's/ROOTSECRET/PUBLICTEXT/' vault/secret.c > pub/public.c && chmod 644 pub/public.c
cat > prog.c <<EOF
#include <memphis.h>
#include <stdlib.h>
#define N (4 << 20)
static double a[N], b[N];
static double sum_a(long n)
{
	double s = 0;
#line 5 "$PWD/vault/secret.c"
	for (long i = 0; i < n; i++) s += a[(i * 4099) % N];
	return s;
}
static double sum_b(long n)
{
	double s = 0;
#line 5 "$PWD/pub/public.c"
	for (long i = 0; i < n; i++) s += b[(i * 4099) % N];
	return s;
}
int main(int argc, char **argv)
{
	double s = 0;
	long n = argc > 1 ? atol(argv[1]) : 30000000;
	for (long i = 0; i < N; i++) a[i] = b[i] = (double)i;
	memphis_mark_named("work");
	for (int r = 0; r < 3; r++) s += sum_a(n) + sum_b(n);
	memphis_print();
	return s == 0;
}
EOF
if ! "$CC" -std=gnu11 -g -O1 -I"$S/include" prog.c -o prog -L"$B" -Wl,-rpath,"$B" -lmemphis 2> cc.err; then
	not_ok "the test program builds: $(head -n 3 cc.err)"
	done_testing
	exit
fi
mkdir -m 777 runs
chmod 755 prog
if ! setpriv --reuid=nobody --regid=nogroup --clear-groups env MEMPHIS_OUTPUT="$PWD/runs/nb" \
	MEMPHIS_PERIOD=200us ./prog > prog.out 2>&1; then
	not_ok "the test program runs as nobody: $(tail -n 2 prog.out)"
	done_testing
	exit
fi
owner=$(stat -c %U runs/nb)
check_if "the run belongs to nobody (got $owner)" '[ "$owner" = nobody ]'
"$R" runs/nb > nb.txt 2> nb.err
"$R" runs/nb --html nb.html > /dev/null 2>&1
check_if "the report names both sources' lines (secret.c and public.c among its lines)" \
	'grep -q "secret.c:[0-9]" nb.txt && grep -q "public.c:[0-9]" nb.txt'
check_if "root's report of nobody's run: the page holds no line of the root-only source" \
	'[ -s nb.html ] && ! grep -q ROOTSECRET nb.html'
check_if "root's report of nobody's run: the page still shows the source nobody can read" \
	'grep -q PUBLICTEXT nb.html'
# the same run as root's own (the owner may read everything): both shown
cp -r runs/nb mine && chown -R root mine
"$R" mine --html mine.html > /dev/null 2>&1
check_if "root's report of its own run: the root-only source is shown (the rule is the owner's)" \
	'grep -q ROOTSECRET mine.html && grep -q PUBLICTEXT mine.html'
# a saved report of nobody's: its owner decides too
"$R" runs/nb --json --advice > nb.json 2> /dev/null
chown nobody nb.json
"$R" html -o nbj.html nb.json > /dev/null 2>&1
check_if "html of a report saved by nobody: no root-only source, the readable one shown" \
	'[ -s nbj.html ] && ! grep -q ROOTSECRET nbj.html && grep -q PUBLICTEXT nbj.html'
# the secret readable by all, but in a directory nobody may not search: still refused
chmod 644 vault/secret.c
"$R" runs/nb --html nb2.html > /dev/null 2>&1
check_if "a readable file in a directory the owner may not search: not shown" \
	'[ -s nb2.html ] && ! grep -q ROOTSECRET nb2.html'
# a FIFO named as a source (the owner's own, readable): never waited on
rm -f pub/public.c && mkfifo -m 666 pub/public.c
rc=$(run_rc o e timeout 60 "$R" runs/nb --html nb3.html)
check_if "a FIFO as a source file: no hang, the page written (exit $rc)" \
	'[ "$rc" = 0 ] && [ -s nb3.html ]'

done_testing
