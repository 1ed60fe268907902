#!/bin/sh
# memphis-report compare across rebuilds of a real program (issue 13, "Matching"; issue
# 38, declarations): examples/cg is copied three times into the test directory, each copy
# keeping the file name cg.c and built with the Makefile's example flags: the original,
# one with 3 blank lines inserted above its static arrays (their declarations, vector()'s
# malloc and every line below move down by 3), and one with the static `colidx` renamed
# `colind`. Each is run under libmemphis. Compare of original vs shifted: the heap site is
# matched across the shift (named with both lines, line_shift 3, neither gone nor new) and
# the statics (cg.c:a, cg.c:colidx) by name, kind and declaration, 3 lines down; original
# vs renamed: cg.c:colidx is gone and cg.c:colind is new. This host has one node, so every
# verdict is "unchanged" and exit 0: what is checked here is the matching (the verdicts
# are checked with real remote accesses in the 2-node guest, tests/vm numa-cg.host.sh).
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
if ! have_python; then
	echo "python3 is needed to read the JSON" >&2
	exit 77
fi
CC=${CC:-cc}
CFLAGS_EX="-std=gnu11 -g -O2 -fopenmp -pthread -I$S/include -Wall -Wextra -Werror -Wno-unused-parameter"
export OMP_NUM_THREADS=2 MEMPHIS_PERIOD=100us

mkdir orig shift rename
cp "$S/examples/cg/cg.c" orig/cg.c
awk '/^static long rowstr/ && !d { print ""; print ""; print ""; d = 1 } { print }' \
	orig/cg.c > shift/cg.c
sed 's/\<colidx\>/colind/g' orig/cg.c > rename/cg.c
# the allocation line before and after the shift, from the sources themselves
la=$(grep -n 'malloc(' orig/cg.c | head -n 1 | cut -d: -f1)
lb=$(grep -n 'malloc(' shift/cg.c | head -n 1 | cut -d: -f1)
check_if "the copy moved vector()'s malloc down by 3 lines (cg.c:$la -> cg.c:$lb)" \
	'[ -n "$la" ] && [ "$lb" = $((la + 3)) ]'
da=$(grep -n '^static int colidx' orig/cg.c | cut -d: -f1)
db=$(grep -n '^static int colidx' shift/cg.c | cut -d: -f1)
check_if "... and the declaration of colidx (cg.c:$da -> cg.c:$db)" '[ -n "$da" ] && [ "$db" = $((da + 3)) ]'
check_if "the renamed copy has colind and no colidx" \
	'grep -q colind rename/cg.c && ! grep -q colidx rename/cg.c'

built=0
for v in orig shift rename; do
	# Built inside its directory so that the DWARF file name is cg.c in all three.
	if (cd $v && $CC $CFLAGS_EX cg.c -o cg -L"$B" -Wl,-rpath,"$B" -lmemphis -lm) 2> $v.cc.err &&
		(cd $v && MEMPHIS_OUTPUT=run ./cg -n 150000 -i 6) > $v.out 2> $v.err &&
		[ -f $v/run/meta.mph ]; then
		built=$((built + 1))
	else
		sed "s/^/# $v: /" $v.cc.err $v.err | tail -n 5
	fi
done
check_if "the three copies of cg build and run under libmemphis ($built of 3)" '[ $built = 3 ]'

# verdicts.py COMPARE.json: one line per variable "KIND|VERDICT|LINE_SHIFT|A-NAME|B-NAME"
# (- for a side without it), then "summary NEW GONE EXIT".
cat > vars.py <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for v in r["variables"]:
    side = lambda s: v[s]["name"] if v[s] else "-"
    print("|".join([v["kind"], v["verdict"], str(v["line_shift"]), side("in_a"), side("in_b")]))
s = r["summary"]
print("summary", s["new"], s["gone"], s["exit"])
PY

"$R" compare orig/run shift/run --json > shift.json 2> shift.err
rc=$?
python3 vars.py shift.json > shift.vars 2>> shift.err
sed 's/^/# shifted: /' shift.vars
check_if "original vs shifted: compare exits 0 (one node: unchanged)" '[ "$rc" = 0 ]'
# vector()'s objects are named by the variables receiving them (issue 16): each is paired
# with its own across the shift (x is read once per iteration: it may go unsampled; so are
# the globals holding the vectors' pointers, cg.c:z and the like, which are not heap objects)
for v in z p q r; do
	l=$(grep -n "^	$v = vector();" orig/cg.c | cut -d: -f1)
	check_if "the heap site matches across the shift: cg.c:$v (malloc at cg.c:$la via vector, from cg.c:$l) -> cg.c:$lb, line_shift 3" \
		"grep -qxF 'heap|unchanged|3|cg.c:$v (malloc at cg.c:$la via vector, from cg.c:$l)|cg.c:$v (malloc at cg.c:$lb via vector, from cg.c:$((l + 3)))' shift.vars"
done
check_if "no heap object of cg.c but x is gone or new after the shift (x: maybe unsampled)" \
	'! grep "^heap|.*cg\.c" shift.vars | grep -v "|cg.c:x (malloc" | grep -q "|-"'
# a and colidx are read at every nonzero (thousands of samples); rowstr once per row, and at
# 100 us a run can hold none of it: it is then "gone", which is right, so it is not checked.
for g in a colidx; do
	check_if "static cg.c:$g matches by name, kind and declaration across the shift" \
		"grep -qx 'static|unchanged|0|cg.c:$g|cg.c:$g' shift.vars"
done
"$R" --json shift/run > shift.report.json
check "... its declaration 3 lines down in the shifted report: cg.c:$db" python3 -c '
import json, sys
v = [v for v in json.load(open("shift.report.json"))["variables"] if v["name"] == "cg.c:colidx"]
assert v and v[0]["decl"] == "cg.c:" + sys.argv[1], v' "$db"
# (a variable with a sample or two, a stack, may be seen in one run only: new or gone)
check_if "no variable regressed or improved on this one-node host" \
	'! grep -v "^summary" shift.vars | cut -d"|" -f2 | grep -qxE "regressed|improved"'

"$R" compare orig/run rename/run --json > rename.json 2> rename.err
rc=$?
python3 vars.py rename.json > rename.vars 2>> rename.err
sed 's/^/# renamed: /' rename.vars
check_if "original vs renamed: compare exits 0 (new and gone are not regressions)" '[ "$rc" = 0 ]'
check_if "the renamed static shows as gone: cg.c:colidx" "grep -qx 'static|gone|0|cg.c:colidx|-' rename.vars"
check_if "the renamed static shows as new: cg.c:colind" "grep -qx 'static|new|0|-|cg.c:colind' rename.vars"
l=$(grep -n "^	p = vector();" orig/cg.c | cut -d: -f1)
check_if "the unshifted heap site matches by name: cg.c:p (malloc at cg.c:$la via vector, from cg.c:$l)" \
	"grep -qxF 'heap|unchanged|0|cg.c:p (malloc at cg.c:$la via vector, from cg.c:$l)|cg.c:p (malloc at cg.c:$la via vector, from cg.c:$l)' rename.vars"
nnew=$(grep "^summary" rename.vars | cut -d" " -f2)
ngone=$(grep "^summary" rename.vars | cut -d" " -f3)
check_if "the summary counts them: $nnew new, $ngone gone (a variable seen once in one run is new/gone too)" \
	'[ "${nnew:-0}" -ge 1 ] && [ "${ngone:-0}" -ge 1 ]'
# --local: every access is local here, so the two variables have shares to show
"$R" compare --local orig/run rename/run > rename.txt 2>&1
check_if "the text (--local) names both: cg.c:colidx gone, cg.c:colind new" \
	'grep -q "^  cg.c:colidx .* gone\$" rename.txt && grep -q "^  cg.c:colind .* new\$" rename.txt'
done_testing
