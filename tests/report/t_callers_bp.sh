#!/bin/sh
# tests/report/t_callers_bp.sh - a runtime frame's caller's line where BP tells it: the report's
# memo of caller lines (post/attrib/attrib_caller.c) takes an entry for an earlier one's
# answer only when every register and stack word the answer depends on is equal, BP among
# them when a frame's CFA comes from it. tests/callers/fpframe.S (a library without source
# lines, BP frames) is called from two lines of tests/callers/fpframe.c at the same SP, the
# second call's frame holding the first's return address where the first had it; only BP
# (the register, and in the nested case the word its inner frame saved) tells them apart.
# Each buffer's line in region "bp" must be the line that called the reading of it.
. "$MEMPHIS_SRC/tests/tap.sh"
SRC=$S/tests/callers/fpframe.c
CC=${CC:-cc}

command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }
[ "$(uname -m)" = x86_64 ] || { echo "tests/callers/fpframe.S is x86-64 code" >&2; exit 77; }

# no -g: the library's code has no source line, so its samples take their callers' lines
if "$CC" -shared -fPIC -o libfpframe.so "$S/tests/callers/fpframe.S" 2>build.err &&
	"$CC" -g -O2 -I"$S/include" -o fpframe "$SRC" -L. -lfpframe -Wl,-rpath,'$ORIGIN' \
		-L"$B" -Wl,-rpath,"$B" -lmemphis 2>>build.err; then
	ok "build tests/callers/fpframe.S and fpframe.c"
else
	not_ok "build tests/callers/fpframe.S and fpframe.c"
	sed 's/^/# /' build.err
fi
under_memphis "" fpframe "fpframe ok" env MEMPHIS_PERIOD=250us ./fpframe
# the layout the test needs: the same SP, BPs apart, the second BP's return address within
# the 1 KiB of stack an entry keeps (MEMPHIS_STACK_BYTES's default)
for kind in flat nested; do
	read -r sa sb ba bb <<EOF
$(sed -n "s/^fpframe $kind sp \([^ ]*\) \([^ ]*\) bp \([^ ]*\) \([^ ]*\)$/\1 \2 \3 \4/p" run.out)
EOF
	check_if "$kind: both calls read at one SP, their BPs apart: ${sa:-?} ${sb:-?}, ${ba:-?} ${bb:-?}" \
		'[ -n "$bb" ] && [ $((sa)) = $((sb)) ] && [ $((bb)) -gt $((ba)) ] && [ $((bb - sb)) -lt 960 ]'
done
"$REPORT" "$d" --all --json --top 0 --region bp >var.json 2>report.err || sed 's/^/# /' report.err
cat >check.py <<'PYEOF'
import json, re, sys
src, var_json = sys.argv[1:3]
tag = {}
for n, text in enumerate(open(src), 1):
    for m in re.finditer(r'(LINE|SITE):(\w+)', text):
        tag[m.group(1) + ':' + m.group(2)] = n
rep = json.load(open(var_json))
def top_line(site):
    s = 'malloc at fpframe.c:%d' % tag['SITE:' + site]
    its = [i for t in rep['tables'] for e in t['entries']
           if e['name'] == s + ' in main' or '(' + s + ')' in e['name'] for i in e['items']]
    return max(its, key=lambda i: i['count']) if its else {'name': '', 'count': 0}
for site, loop in (('a_flat', 'deep'), ('b_flat', 'shallow'), ('a_nested', 'deep'),
                   ('b_nested', 'shallow')):
    top = top_line(site)
    want = 'fpframe.c:%d (in ' % tag['LINE:' + loop]
    print(('ok' if top['name'].startswith(want) else 'not ok') +
          ' %s is read at its caller %s: %s (%d samples)' % (site, loop, top['name'], top['count']))
PYEOF
python3 check.py "$SRC" var.json >checks 2>check.err || sed 's/^/# /' check.err
tap_lines "region bp" checks 0
[ -s checks ] || not_ok "check.py gave no result"
done_testing
