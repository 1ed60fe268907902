# Where a run is written (issue 38; the rule in docs/format.md, "Where a run is written"):
# MEMPHIS_OUTPUT naming an existing directory that holds other files ("." and "/"
# included) is refused in one line, nothing written into it and nothing sampled, the
# program as without memphis; an empty one of the user's is used; one holding a run of
# memphis gets DIR.1. A symbolic link on the way that another user owns is not followed:
# a/x with a -> a root directory (/etc for a root run in a user's directory) makes nothing
# there; the user's and root's own links are followed.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

T=$PWD
MEMPHIS_DISABLE=1 "$P" work 0.05 > plain.out 2> /dev/null
# refused OUTPUT DESC: the run is refused in one line naming OUTPUT; nothing sampled
refused() {
	MEMPHIS_OUTPUT=$1 "$P" mark > "$T/r.out" 2> "$T/r.err"
	rc=$?
	check "$2: exit status 0 ($rc), one line naming it" \
		sh -c "[ $rc = 0 ] && [ \"\$(grep -c . '$T/r.err')\" = 1 ] && grep -q \"^memphis: cannot write the run to $1: \" '$T/r.err'"
	check "$2: the API says nothing is sampled" grep -q "^mark: -39 " "$T/r.out"
}
# run files in / (a tree before the fix dropped them there): listed, and removed when this
# test made them
in_root() { ls / | grep -E '^(meta|cpu[0-9]+)\.mph$'; }
root_had=$(in_root)

mkdir work && cd work && echo data > mine.txt
before=$(ls -A | sort | tr '\n' ' ')
refused . "MEMPHIS_OUTPUT=. (holds a file)"
check "MEMPHIS_OUTPUT=.: nothing written into it" test "$(ls -A | sort | tr '\n' ' ')" = "$before"
cd ..
refused / "MEMPHIS_OUTPUT=/"
root_has=$(in_root)
check "MEMPHIS_OUTPUT=/: no meta.mph or cpu file in /" test "$root_has" = "$root_had"
[ -z "$root_had" ] && for f in $root_has; do rm -f "/$f"; done
refused work "MEMPHIS_OUTPUT=work (another directory that holds a file)"
check "MEMPHIS_OUTPUT=work: nothing written into it" test "$(ls -A work)" = mine.txt

mkdir empty
MEMPHIS_OUTPUT=empty "$P" mark > /dev/null 2>&1
check "an empty directory of the user's is used" test -f empty/meta.mph
MEMPHIS_OUTPUT=empty "$P" mark > again.out 2> again.err
check "a directory holding a run gets DIR.1, silently" \
	sh -c 'test -f empty.1/meta.mph && [ ! -s again.err ] && grep -q "^mark: 0 " again.out'

# links on the way
if [ "$(id -u)" != 0 ] || ! id nobody > /dev/null 2>&1; then
	skip "another user's link on the way" "needs root and the user nobody"
	skip "another user's link on the way: nothing made there" "needs root and the user nobody"
	skip "another user's link to /etc" "needs root and the user nobody"
else
	mkdir sys && chmod 755 sys # a directory of root's, as /etc is
	ln -s "$PWD/sys" a && chown -h nobody a
	MEMPHIS_OUTPUT=a/x "$P" work 0.05 > l.out 2> l.err
	check "another user's link on the way: refused in one line, output as without memphis" \
		sh -c '[ "$(grep -c . l.err)" = 1 ] && grep -q "symbolic link a on its way belongs to another user" l.err &&
			cmp -s plain.out l.out'
	check "another user's link on the way: nothing made where it points" test -z "$(ls -A sys)"
	leaf=memphis-t-outdir-$$
	ln -s /etc etc && chown -h nobody etc
	MEMPHIS_OUTPUT=etc/$leaf "$P" mark > /dev/null 2>&1
	check "another user's link to /etc: no /etc/$leaf" test ! -e "/etc/$leaf"
	rm -rf "/etc/$leaf"
fi
ln -s empty mylink
MEMPHIS_OUTPUT=mylink/sub "$P" mark > /dev/null 2>&1
check "the user's own link on the way is followed" test -f empty/sub/meta.mph
MEMPHIS_OUTPUT=mylink "$P" mark > ml.out 2> ml.err
check "a link as the run directory itself is not followed" \
	sh -c 'grep -q "mylink: it is a symbolic link" ml.err && grep -q "^mark: -40 " ml.out'
done_testing
