#!/bin/sh
# What a run or a saved report can hold that the report must not pass on (issue 38):
# control characters in a region name or the program's path never reach the terminal raw
# (a newline cannot forge a "samples:" line, an escape sequence is written \x1b); a count
# of 2^64-1 in a saved report is refused by compare in one line, never printed as a share
# over 100 % or a NaN interval; a saved report that is no JSON as a browser reads it
# (json-c reads single quotes, comments, trailing commas, NaN) is refused by html with the
# file and byte offset, and a report whose members have other types still gives a page
# (checked in Chromium when t_html's puppeteer is there).
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
CC=${CC:-cc}
export MEMPHIS_SRC="$S"
ESC=$(printf '\033')

one_line() { [ "$1" = "$2" ] && [ "$(wc -l < "$3")" = 1 ]; }

# --- control characters in a region name and in the program's path
if command -v "$CC" > /dev/null; then
	cat > ctl.c <<'EOF'
#include <memphis.h>
#include <stdlib.h>
#define N (4 << 20)
static double a[N];
int main(void)
{
	double s = 0;
	for (long i = 0; i < N; i++) a[i] = (double)i;
	memphis_mark_named("solve\nsamples: 999,999 total: forged\033[2J");
	for (long i = 0; i < 40000000; i++) s += a[(i * 4099) % N];
	memphis_print();
	return s == 0;
}
EOF
	if "$CC" -std=gnu11 -g -O1 -I"$S/include" ctl.c -o ctl -L"$B" -Wl,-rpath,"$B" -lmemphis 2> cc.err; then
		name=$(printf 'ctl\nsamples: 1 total: forged\033[31m')
		cp ctl "$name"
		MEMPHIS_OUTPUT=ctlrun MEMPHIS_PERIOD=200us "./$name" > /dev/null 2>&1
		"$R" ctlrun > t.out 2> t.err
		check_if "the report of a run with a newline in its region name and program: one 'samples:' line ($(grep -c '^samples:' t.out))" \
			'[ "$(grep -c "^samples:" t.out)" = 1 ]'
		check_if "no escape character reaches the terminal (stdout or stderr)" \
			'! grep -q "$ESC" t.out t.err'
		# (the library writes a newline of a region name as a space; the escape stays)
		check "the program's newline and escape written as backslash sequences" \
			grep -qF 'ctl\nsamples: 1 total: forged\x1b[31m (pid' t.out
		check "the region name's escape written as a backslash sequence" \
			grep -qF 'solve samples: 999,999 total: forged\x1b[2J (x1)' t.out
		"$R" ctlrun --json > t.json
		cat > name.py <<'PY'
import json, sys
r = json.load(open('t.json'))
sys.exit(0 if any(g['name'] == 'solve samples: 999,999 total: forged\x1b[2J' for g in r['regions']) else 1)
PY
		check "JSON keeps the region name exactly (the escape character itself)" python3 name.py
		"$R" dump --meta ctlrun > d.out 2>&1
		check_if "dump --meta: no escape character, no forged line" \
			'! grep -q "$ESC" d.out && ! grep -q "^samples:" d.out'
		"$R" compare ctlrun ctlrun > c.out 2>&1
		check_if "compare: no escape character" '! grep -q "$ESC" c.out'
	else
		not_ok "the test program builds: $(head -n 2 cc.err)"
	fi
else
	skip "control characters in names" "no C compiler ($CC)"
fi

# --- a count of 2^64-1 in a saved report
"$GEN" g -n 4000 > /dev/null
"$R" --json g > g.json
python3 - <<'EOF'
import json
r = json.load(open('g.json'))
M = 2**64 - 1
v = r['variables'][0]
v['matrix']['counts'][1][0] = M
json.dump(r, open('max.json', 'w'))
r = json.load(open('g.json'))
r['variables'][0]['matrix']['counts'][1][0] = 2**52 + 5   # each fits, their sum does not
r['variables'][1]['matrix']['counts'][0][0] = 2**52 + 5
json.dump(r, open('sum.json', 'w'))
EOF
for f in max sum; do
	for order in "g.json $f.json" "$f.json g.json"; do
		rc=$(run_rc o e "$R" compare $order)
		check_if "compare $order: refused in one line, exit 2 (got $rc: $(cat e))" \
			'one_line "$rc" 2 e && has e "than a run can hold (at most 2^53)" && [ ! -s o ]'
	done
done
rc=$(run_rc o e "$R" compare g.json g.json)
check_if "compare of the report with itself still works (exit $rc)" \
	'[ "$rc" = 0 ] && ! grep -qiE "nan|inf" o'

# --- saved reports that json-c reads and a browser does not
python3 - <<'EOF'
s = open('g.json').read()
open('trail.json', 'w').write(s.rstrip() + ' // saved by hand\n')
open('quote.json', 'w').write(s.replace('"schema": "memphis-report/1"', "'schema': 'memphis-report/1'", 1))
i = s.rindex('}')
open('comma.json', 'w').write(s[:i].rstrip() + ',\n}\n')
open('nan.json', 'w').write(s.replace('"total": ', '"total": NaN, "x": ', 1))
import json
r = json.loads(s); r['variables'] = 5; open('type.json', 'w').write(json.dumps(r))
r = json.loads(s); r['tables'][0]['entries'] = 5; r['variables'][0]['matrix'] = 'x'
open('deep.json', 'w').write(json.dumps(r))
EOF
for f in trail quote comma nan; do
	rm -f $f.html
	rc=$(run_rc o e "$R" html -o $f.html $f.json)
	check_if "html of $f.json: refused in one line naming it and the byte (exit $rc: $(cat e))" \
		'one_line "$rc" 2 e && grep -q "$f.json: not JSON at byte [0-9]" e && [ ! -e $f.html ]'
done
rc=$(run_rc o e "$R" html -o type.html type.json)
check_if "html of a report whose variables are a number: refused in one line (exit $rc: $(cat e))" \
	'one_line "$rc" 2 e && has e "type.json: member \"variables\" is an integer, not an array"'
rc=$(run_rc o e "$R" html -o deep.html deep.json)
check_if "html of a report with members of other types inside: a page (exit $rc)" \
	'[ "$rc" = 0 ] && [ -s deep.html ]'

# the page of that report in Chromium: drawn, with a note for each view it could not draw
NODE_PATH=${NODE_PATH:-$B/npm/node_modules}
if command -v node > /dev/null && command -v chromium > /dev/null && [ -d "$NODE_PATH/puppeteer-core" ]; then
	cat > probe.js <<'EOF'
const puppeteer = require('puppeteer-core');
(async () => {
	const b = await puppeteer.launch({ executablePath: process.env.MEMPHIS_CHROMIUM,
		args: ['--no-sandbox', '--headless=new'] });
	const p = await b.newPage();
	const errors = [];
	p.on('pageerror', (e) => errors.push(e.message));
	await p.goto(require('url').pathToFileURL(require('path').resolve(process.argv[2])).href);
	const r = await p.evaluate(() => ({
		shapes: document.querySelectorAll('svg *').length,
		header: document.querySelectorAll('#run-facts dd').length,
		notes: [...document.querySelectorAll('#notes p')].map((n) => n.textContent)
	}));
	console.log(JSON.stringify({ errors, shapes: r.shapes, header: r.header,
		undrawn: r.notes.filter((t) => t.includes('could not be drawn')).length }));
	await b.close();
})();
EOF
	NODE_PATH="$NODE_PATH" MEMPHIS_CHROMIUM=$(command -v chromium) node probe.js deep.html > probe.out 2>&1
	check_if "the page in Chromium: no uncaught error, the header and other views drawn, a note per view not drawn ($(head -c 300 probe.out))" \
		'python3 -c "import json,sys; r=json.load(open(\"probe.out\")); sys.exit(0 if not r[\"errors\"] and r[\"header\"] > 5 and r[\"shapes\"] > 0 and r[\"undrawn\"] >= 2 else 1)"'
else
	skip "the page of a report with members of other types, in Chromium" "no node, chromium or puppeteer-core in $NODE_PATH (make check-deps)"
fi

done_testing
