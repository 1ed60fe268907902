#!/bin/sh
# memphis-report --html (issue 18): the page in a real browser. Debian's chromium, headless
# and offline, driven by tests/html_browser.js with puppeteer-core (make check-deps installs
# it into BUILD/npm; installed here too when missing): no console error, no request, the
# header's and tables' numbers equal the --json report's, every view of the top variables
# drawn (the member x node view where a variable has members), a screenshot that is not
# blank; a run with a node without CPUs (tool_nodes --memory-only) with its far-tier tables
# apart. On the hand-made sample (tests/data/html-sample.json:
# the pattern and advice members of docs/report-schema.md), a run of examples/cg (its page
# embeds exactly what --json --advice --by member prints, less the whitespace between tokens), and bad input: 0 samples, one node, one variable (named
# to end the page's <script> if it were not escaped), 256 threads; the errors for a missing
# charting library and template. Skips (77) without node, chromium or puppeteer-core.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
command -v node > /dev/null || { echo "t_html: node is missing (make check-deps)" >&2; exit 77; }
CHROMIUM=${MEMPHIS_CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || { echo "t_html: $CHROMIUM is missing (make check-deps)" >&2; exit 77; }
have_python || { echo "t_html: python3 is needed to read the JSON" >&2; exit 77; }
PUPPETEER=$(sed -n 's/^PUPPETEER := //p' "$S/Makefile")
if [ ! -d "$B/npm/node_modules/puppeteer-core" ]; then
	mkdir -p "$B/npm" && npm install --silent --no-audit --no-fund --prefix "$B/npm" "$PUPPETEER" > npm.log 2>&1 ||
		{ echo "t_html: npm install $PUPPETEER failed (make check-deps): $(tail -n 3 npm.log)" >&2; exit 77; }
fi
export NODE_PATH="$B/npm/node_modules" MEMPHIS_CHROMIUM="$CHROMIUM"

# browser PAGE JSON SHOT [TOP]: html_browser.js's lines as TAP lines, prefixed with PAGE
browser() {
	node "$S/tests/html_browser.js" "$@" > browser.out 2>&1
	tap_lines "$1" browser.out $?
}

# embedded PAGE: the page's report JSON, unescaped (the page writes '<' as \u003c)
embedded() {
	python3 - "$1" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
start = '<script id="memphis-report" type="application/json">'
i = page.index(start) + len(start)
sys.stdout.write(page[i:page.index("</script>", i)].replace("\\u003c", "<"))
PY
}

# squeeze JSON: JSON without whitespace between tokens (what the page embeds), on stdout
squeeze() {
	python3 - "$1" <<'PY'
import sys
s, out, in_str, i = open(sys.argv[1], encoding="utf-8").read(), [], False, 0
while i < len(s):
    c = s[i]
    if in_str or c not in " \n\t\r":
        out.append(c)
    if in_str and c == "\\":
        out.append(s[i + 1]); i += 1
    elif c == '"':
        in_str = not in_str
    i += 1
sys.stdout.write("".join(out))
PY
}

# 1. the hand-made sample: every view, the advice, the pattern cells
"$R" html -o sample.html "$S/tests/data/html-sample.json" 2> err.txt
rc=$?
check_if "html -o PAGE REPORT.json writes the page of a saved report (exit $rc)" \
	'[ "$rc" = 0 ] && [ -s sample.html ] && [ "$(cat err.txt)" = "memphis-report: the HTML page is in sample.html (open it in a browser)" ]'
check_if "the page names the charting library it inlined (d3 from libjs-d3)" \
	'grep -q "\"library\":{\"name\":\"d3\",\"version\":\"3\." sample.html'
browser sample.html "$S/tests/data/html-sample.json" sample.png

# 2. a run of examples/cg: the page embeds what --json prints; both spellings agree
"$B/examples/cg/cg" > cg.out 2>&1
run=$(rundir cg)
if [ -z "$run" ]; then
	not_ok "examples/cg left a run directory"
else
	"$R" "$run" --json --advice --by member > cg.json
	"$R" "$run" --html cg.html 2> err.txt
	rc=$?
	"$R" html -o cg2.html "$run" 2>> err.txt
	rc2=$?
	check_if "--html FILE and html -o FILE write the page ($rc, $rc2) and the same bytes" \
		'[ "$rc" = 0 ] && [ "$rc2" = 0 ] && cmp -s cg.html cg2.html'
	"$R" --html "$run" 2> err.txt; rc=$?
	check_if "--html RUNDIR, no FILE: the page of RUNDIR in RUNDIR.html, and it says so (exit $rc)" \
		'[ "$rc" = 0 ] && cmp -s cg.html "${run%/}.html" && grep -q "page is in ${run%/}.html" err.txt'
	touch 3 # a file named like --top's value: html must not take it for a saved report
	"$R" html -o top.html --top 3 "$run" 2> err.txt; rc=$?
	check_if "html -o FILE --top 3 RUNDIR: report options before RUNDIR (exit $rc)" \
		'[ "$rc" = 0 ] && [ -s top.html ]'
	embedded cg.html > cg.embedded
	squeeze cg.json > cg.squeezed
	check "the page embeds exactly what --json --advice --by member prints, without its indentation ($(wc -c < cg.json) bytes, $(wc -c < cg.embedded) embedded)" \
		cmp -s cg.squeezed cg.embedded
	check_if "the page has the pattern and advice of the shown variables (cg.c:a, cg.c:colidx)" \
		'python3 -c "import json,sys; v={x[\"name\"]: x for x in json.load(open(\"cg.json\"))[\"variables\"]}; sys.exit(not all(\"pattern\" in v[n] and \"advice\" in v[n] for n in (\"cg.c:a\", \"cg.c:colidx\")))"'
	check_if "the page holds the source text of the top lines (cg.c, read at report time)" \
		'grep -q "\"path\":\"[^\"]*examples\\\\/cg\\\\/cg.c\"" cg.html'
	check_if "no URL to load: no src=, href= or url( in the page" \
		'! grep -qiE "(src|href)=\"|url\\(" cg.html'
	browser cg.html cg.json cg.png
	[ -n "$MEMPHIS_HTML_SHOT" ] && cp cg.png "$MEMPHIS_HTML_SHOT"
	# the same run as if on two CPU nodes and a memory-only node 2 holding every other page
	# (issue 44): far-tier tables of their own, the node share without node 2
	"$B/tests/tool_nodes" "$run" far 3 --memory-only
	"$R" far --json --advice --by member > far.json
	"$R" far --html far.html 2> err.txt
	EXPECT_TEXT="Far-tier samples per node|far-tier share" browser far.html far.json far.png
fi

# 3. bad input: a valid page that says so
"$GEN" zero -n 0 > /dev/null 2>&1
"$R" zero --html zero.html 2> err.txt; rc=$?
"$R" zero --json --advice > zero.json
check_if "a run with 0 samples gets its page (exit $rc)" '[ "$rc" = 0 ] && [ -s zero.html ]'
EXPECT_TEXT="This run has no samples|No variable to show" browser zero.html zero.json zero.png

"$GEN" one -n 20000 --one-node > /dev/null 2>&1
"$R" one --html one.html 2> err.txt; rc=$?
"$R" one --json --advice > one.json
check_if "a run on one node gets its page (exit $rc)" '[ "$rc" = 0 ] && [ -s one.html ]'
EXPECT_TEXT="One NUMA node" browser one.html one.json one.png 3

# an MPI job (issue 19): the merged report of two ranks on two hosts, tables per host and node
for r in 0 1; do
	"$GEN" job --rank $r --size 2 --host "h$r" -n 20000 --seed $r > /dev/null 2>&1
done
"$R" job --html job.html 2> err.txt; rc=$?
"$R" job --json --advice > job.json
check_if "an MPI job directory gets its page (exit $rc), its tables per host" \
	'[ "$rc" = 0 ] && [ -s job.html ] && grep -q "\"host\":\"h1\"" job.html'
EXPECT_TEXT="rank 0: |rank 1: |No pattern data in the report of an MPI job" \
	browser job.html job.json job.png

# one variable, named to end the <script> element were '<' not escaped; 256 threads
python3 - "$S/tests/data/html-sample.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
one = dict(r)
v = dict(r["variables"][0]); v["name"] = "</script><script>document.title='x'</script><!--"
one["variables"] = [v]
one["tables"] = [dict(t, entries=[dict(e, name=v["name"]) for e in t["entries"] if e["name"] == "a"])
                 for t in r["tables"]]
one["tables"] = [dict(t, total=sum(e["count"] for e in t["entries"])) for t in one["tables"] if t["entries"]]
json.dump(one, open("onevar.json", "w"))
many = dict(r)
v = dict(r["variables"][0]); p = dict(v["pattern"])
p["threads"] = [{"index": i, "tid": 5000 + i, "node": i % 2} for i in range(256)]
p["thread_blocks"] = [[(i + b) % 7 if b * 4 // p["blocks"] == i % 4 else 0 for b in range(p["blocks"])]
                      for i in range(256)]
p["block_first_touch"] = [b % 256 for b in range(p["blocks"])]
p["time"] = dict(p["time"], cells=[c[:3] + [c[3] * 60] for c in p["time"]["cells"]])
v["pattern"] = p
many["variables"] = [v] + r["variables"][1:]
many["run"] = dict(r["run"], threads=256)
json.dump(many, open("threads256.json", "w"))
PY
"$R" html -o onevar.html onevar.json; rc=$?
check_if "one variable (named '</script>...<!--'): its page (exit $rc)" '[ "$rc" = 0 ]'
EXPECT_TEXT="One variable only" browser onevar.html onevar.json onevar.png
"$R" html -o threads256.html threads256.json; rc=$?
check_if "256 threads: its page (exit $rc)" '[ "$rc" = 0 ]'
EXPECT_TEXT="256 threads: one row each" browser threads256.html threads256.json threads256.png 1

# lines and an executable that name a FIFO and a device: not read (they would block or
# never end), the page is written
mkfifo fifo.c
python3 - "$S/tests/data/html-sample.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["tables"][0]["entries"][0]["items"][0]["name"] = "fifo.c:3"
r["tables"][1]["entries"][0]["items"][0]["name"] = "/dev/zero:2"
r["run"]["exe_read"] = "fifo.c"
json.dump(r, open("fifo.json", "w"))
PY
timeout 20 "$R" html -o fifo.html fifo.json 2> err.txt; rc=$?
check_if "source lines in a FIFO or a device are not read: the page without them (exit $rc)" \
	'[ "$rc" = 0 ] && grep -q "\"sources\":{\"cg.c:556\"\|\"sources\":{}" fifo.html && ! grep -q "fifo.c:3\":{\"path" fifo.html'

# 4. errors name the missing file
MEMPHIS_HTML_D3=/nonexistent/d3.min.js "$R" html -o nolib.html "$S/tests/data/html-sample.json" 2> err.txt
rc=$?
check_if "a missing charting library: exit 2, the error names the file and libjs-d3" \
	'[ "$rc" = 2 ] && grep -q "/nonexistent/d3.min.js" err.txt && grep -q libjs-d3 err.txt && [ ! -e nolib.html ]'
mkdir -p alone/bin && cp "$R" alone/bin/
MEMPHIS_SRC= alone/bin/memphis-report html -o notpl.html "$S/tests/data/html-sample.json" 2> err.txt
rc=$?
if [ -e /usr/local/share/memphis/html/page.html ]; then
	skip "a missing template: exit 2, the error names page.html" "memphis is installed in /usr/local"
else
	check_if "a missing template: exit 2, the error names page.html and where it looked" \
		'[ "$rc" = 2 ] && grep -q "page.html (looked in .*alone/bin/../share/memphis/html" err.txt'
fi
for bad in '{"schema": null}' '[1]' '{"schema": "memphis-report/1", "error": {}}' 'x'; do
	printf '%s' "$bad" > bad.json
	"$R" html -o bad.html bad.json 2> err.txt; rc=$?
	check_if "not a report ($bad): exit 2, said so, no page (exit $rc)" \
		'[ "$rc" = 2 ] && grep -qE "not a memphis-report JSON report|bad.json: not JSON at byte 0" err.txt && [ ! -e bad.html ]'
done
"$R" html -o /nonexistent/dir/p.html "$S/tests/data/html-sample.json" 2> err.txt; rc=$?
check_if "an unwritable page: exit 2, the error names it (exit $rc)" \
	'[ "$rc" = 2 ] && grep -q "cannot write /nonexistent/dir/p.html" err.txt'
"$R" one --html x.html --json > /dev/null 2> err.txt; rc=$?
check_if "--html with --json: usage error (exit $rc)" '[ "$rc" = 1 ] && [ ! -e x.html ]'
"$R" html "$S/tests/data/html-sample.json" > /dev/null 2> err.txt; rc=$?
check_if "html without -o: usage error (exit $rc)" '[ "$rc" = 1 ] && grep -q "missing -o FILE" err.txt'
done_testing
