#!/bin/sh
# tests/report/t_callers.sh - the line of runtime code told by its caller (issue 16 item 1):
# tests/callers/callers.c built with cc -g -O2 and -O3, where gcc turns its copy loop into
# a memcpy call and its fill loop into a memset call (checked with objdump: without the
# calls the test is void and fails), profiled at MEMPHIS_PERIOD=250us. In the JSON report
# of region "copy": the copied arrays' line is the copy loop's, "callers.c:L (in F)" with
# "via": F, also as --by line's first entry; a second copy loop's arrays at their own loop
# (the same memcpy code from two lines); the filled array's first touch is at the fill
# loop, in memset; the program's own loop keeps its plain line. With MEMPHIS_STACK_BYTES=0
# (no STACKS entries) no line names a caller.
# MEMPHIS_CALLERS_SECONDS (default 1) is the length of the region.
. "$MEMPHIS_SRC/tests/tap.sh"
SRC=$S/tests/callers/callers.c
SEC=${MEMPHIS_CALLERS_SECONDS:-1}
CC=${CC:-cc}

command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }
command -v objdump >/dev/null || { echo "objdump is needed to see the memcpy/memset calls" >&2; exit 77; }

# check.py SRC JSON BYLINE_JSON: one line "ok|not ok - what" per check
cat >check.py <<'PYEOF'
import json, re, sys
src, var_json, line_json = sys.argv[1:4]
tag = {}
for n, text in enumerate(open(src), 1):
    for m in re.finditer(r'(LINE|SITE):(\w+)', text):
        tag[m.group(1) + ':' + m.group(2)] = n
rep = json.load(open(var_json))
byline = json.load(open(line_json))
def check(cond, what):
    print(('ok' if cond else 'not ok') + ' - ' + what)
def var(site):
    # named by the variable that receives it (issue 16), 'main::src (malloc at callers.c:32)'
    return next((v for v in rep['variables'] if at_site(v['name'], site)), None)
def at_site(name, site):
    s = 'malloc at callers.c:%d' % tag['SITE:' + site]
    return name == s + ' in main' or '(' + s + ')' in name
def caller(name, loop):
    return name.startswith('callers.c:%d (in ' % tag['LINE:' + loop])
items = [i for t in rep['tables'] for e in t['entries'] for i in e['items']
         if at_site(e['name'], 'src')]
top = max(items, key=lambda i: i['count']) if items else {'name': '', 'count': 0}
check(caller(top['name'], 'copy') and top.get('via') and top['name'].endswith('(in %s)' % top['via']),
      'the copied array\'s hottest line is the copy loop in its memcpy: %s (via %s)'
      % (top['name'], top.get('via')))
def top_line(site):
    v = var(site)
    its = [i for t in rep['tables'] for e in t['entries'] if v and e['name'] == v['name']
           for i in e['items']]
    return max(its, key=lambda i: i['count'])['name'] if its else ''
check(caller(top_line('src'), 'copy'), 'src (read by the first loop only) at the first loop: ' + top_line('src'))
check(caller(top_line('back'), 'copy2'), 'back (written by the second loop only) at the second loop: ' + top_line('back'))
e = byline['tables'][0]['entries'][0] if byline['tables'] and byline['tables'][0]['entries'] else {'name': ''}
# the two copy loops do the same work: either may have the most samples
check((caller(e['name'], 'copy') or caller(e['name'], 'copy2')) and e.get('via'),
      '--by line: first entry is a copy loop, in memcpy: ' + e['name'])
lines = [l['name'] for l in byline.get('lines', [])]
check(any(caller(l, 'copy') for l in lines), '--by line "lines": the copy loop is there')
f = var('filled')
ft = (f or {}).get('first_touch') or {}
check(caller(ft.get('line', ''), 'fill') and ft.get('via'),
      'the filled array is first touched at the fill loop, in memset: %s' % ft.get('line'))
read = [i for t in rep['tables'] for e in t['entries'] if f and e['name'] == f['name'] for i in e['items']]
check(read and read[0]['name'] == 'callers.c:%d' % tag['LINE:read'] and 'via' not in read[0],
      'the program\'s own loop keeps its line: %s' % (read[0]['name'] if read else None))
PYEOF

for opt in O2 O3; do
	rm -rf "$opt" && mkdir "$opt" && cd "$opt" || exit 1
	if "$CC" -g -"$opt" -I"$S/include" -o callers "$SRC" -L"$B" -Wl,-rpath,"$B" -lmemphis \
		2>build.err; then
		ok "$opt: build tests/callers/callers.c"
	else
		not_ok "$opt: build tests/callers/callers.c"
		sed 's/^/# /' build.err
	fi
	objdump -d --no-show-raw-insn callers | awk '/^[0-9a-f]+ <main>:/ { m = 1; next } /^$/ { m = 0 } m' >main.s
	# without the calls the test is void: it fails
	check_if "$opt: main calls memcpy and memset (gcc turned the loops into calls)" \
		"grep -q 'call.*<memcpy@plt>' main.s && grep -q 'call.*<memset@plt>' main.s"
	under_memphis "$opt" callers "callers ok" env MEMPHIS_PERIOD=250us ./callers "$SEC"
	"$REPORT" "$d" --all --json --top 0 --region copy >var.json 2>report.err &&
		"$REPORT" "$d" --all --json --top 0 --region copy --by line >line.json 2>>report.err ||
		sed 's/^/# /' report.err
	python3 ../check.py "$SRC" var.json line.json >checks 2>check.err ||
		sed 's/^/# /' check.err
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "$opt: ${l#ok - }" ;;
		*) not_ok "$opt: ${l#not ok - }" ;;
		esac
	done <checks
	[ -s checks ] || not_ok "$opt: check.py gave no result"
	cd ..
done

# no STACKS entries: nothing names a caller
rm -rf off && mkdir off && cd off || exit 1
MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD=250us ../O2/callers "$SEC" >run.out 2>run.err
d=$(rundir callers)
if [ -n "$d" ] && "$REPORT" "$d" --all --region copy >report.txt 2>report.err; then
	if grep -q ' (in ' report.txt; then
		not_ok "MEMPHIS_STACK_BYTES=0: no line names a caller"
		grep ' (in ' report.txt | sed 's/^/# /'
	else
		ok "MEMPHIS_STACK_BYTES=0: no line names a caller"
	fi
else
	not_ok "MEMPHIS_STACK_BYTES=0: run and report"
	sed 's/^/# /' run.err report.err
fi
cd ..

# A runtime's code is named by its ELF symbols (the first touch above: "in memset"), its
# DWARF not read: the report of the O2 run inflates no compressed section (libc6-dbg's
# .debug_* are; $B/tests/shim_uncompress.so counts libdwarf's uncompress calls). Void where
# libc has no compressed debug file installed.
d=$(cd O2 && rundir callers)
libc=$(ldd O2/callers | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
bid=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p' | head -n 1)
dbg=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
if [ -n "$d" ] && [ -n "$bid" ] && readelf -SW "$dbg" 2>/dev/null | grep -q '\.debug_info .* C '; then
	LD_PRELOAD="$B/tests/shim_uncompress.so" "$REPORT" "O2/$d" --all --region copy \
		>shim.txt 2>shim.err
	n=$(sed -n 's/^uncompress \([0-9]*\) .*/\1/p' shim.err | tail -n 1)
	check_if "no compressed DWARF inflated (libc's debug file $dbg): ${n:-?} uncompress calls" \
		'[ "$n" = 0 ]'
	if grep -q 'first touched .* (in .*memset' shim.txt; then
		ok "the report names the first touch's runtime function by its symbol"
	else
		not_ok "the report names the first touch's runtime function by its symbol"
		grep 'filled' shim.txt | sed 's/^/# /'
	fi
else
	skip "no compressed DWARF inflated" "no compressed debug file of libc ($dbg)"
fi

# memphis-report links libdwarf (DWARF) and libdw (unwinding): both export dwarf_attr,
# dwarf_child, dwarf_tag ... with other meanings, so no call may cross from one to the other
# (lazy binding shows every call's target the first time it is made)
d=$(cd O2 && rundir callers)
if [ -n "$d" ]; then
	LD_DEBUG=bindings LD_BIND_NOT=1 "$REPORT" "O2/$d" --all >/dev/null 2>bindings.txt
	if grep -E 'libdw\.so[^ ]* \[0\] to [^ ]*libdwarf|libdwarf\.so[^ ]* \[0\] to [^ ]*libdw\.so' \
		bindings.txt >crossed; [ -s crossed ]; then
		not_ok "no call crosses between libdw and libdwarf"
		head -n 5 crossed | sed 's/^/# /'
	else
		grep -q 'libdw\.so' bindings.txt && ok "no call crosses between libdw and libdwarf" ||
			not_ok "no call crosses between libdw and libdwarf (LD_DEBUG gave no libdw binding)"
	fi
fi
done_testing
