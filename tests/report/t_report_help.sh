#!/bin/sh
# Every subcommand and every option that memphis-report's --help texts name appears in the
# man page docs/memphis-report.1, and the other way round for options; --help exits 0.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
MAN="$S/docs/memphis-report.1"

if [ ! -f "$MAN" ]; then
	echo "not ok 1 - $MAN is missing"
	exit 1
fi
# the man page as plain words: roff's \- is -, drop font escapes
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(em/-/g' "$MAN" > man.txt

"$R" --help > top.txt; rc=$?
check "memphis-report --help exits 0 (got $rc)" [ "$rc" = 0 ]
cmds=$(sed -n '/^Commands:/,/^$/p' top.txt | awk 'NR > 1 && NF { print $1 }')
check "--help lists the commands: $(echo $cmds)" [ -n "$cmds" ]
for c in $cmds; do
	check "command '$c' is in the man page" grep -q "^\.B $c\$\|^\.B $c \|memphis-report $c" "$MAN"
	"$R" "$c" --help > "help-$c.txt"; rc=$?
	check "memphis-report $c --help exits 0 (got $rc)" [ "$rc" = 0 ]
	for o in $(grep -o -- '--[a-z][a-z-]*' "help-$c.txt" | sort -u); do
		check "$c option $o is in the man page" grep -q -- "$o" man.txt
	done
done
# options the man page documents must exist in some --help
for o in $(grep -o -- '--[a-z][a-z-]*' man.txt | sort -u); do
	check "man page option $o is in a --help" sh -c "cat top.txt help-*.txt | grep -q -- '$o'"
done
"$R" help report > hr.txt; rc=$?
check_if "'memphis-report help report' = 'report --help'" '[ "$rc" = 0 ] && cmp -s hr.txt help-report.txt'
done_testing
