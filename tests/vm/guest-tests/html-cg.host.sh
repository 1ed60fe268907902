# html-cg.host.sh - the HTML page (issue 18) of the 2-node guest's master-initialised
# examples/cg (numa-cg's run directory cg-master; no guest half of its own) in headless
# Chromium: tests/html_browser.js's checks (no console error or request, header and tables
# equal to the JSON, every view of the top variables drawn, a screenshot that is not blank)
# on real remote accesses, and a's pattern as the page draws it: both threads with samples,
# node 1's share of remote accesses above 0.
. "$VM_LIB"
case $VM_TOPO in 2x*) ;; *) vm_result skip "html: cg's page" "it runs for the 2-node guest"; exit 0 ;; esac
run=$(dirname "$VM_OUT")/numa-cg/cg-master
if [ ! -d "$run" ]; then
	vm_result fail "html: numa-cg's cg-master run directory came back from the guest"
	exit 0
fi
if ! command -v node > /dev/null || [ ! -x "${MEMPHIS_CHROMIUM:-/usr/bin/chromium}" ] ||
	[ ! -d "$MEMPHIS_BUILD/npm/node_modules/puppeteer-core" ]; then
	vm_result skip "html: cg's page in Chromium" "node, chromium or puppeteer-core is missing (make check-deps)"
	exit 0
fi
mkdir -p "$VM_OUT" && cd "$VM_OUT" || exit 1
R=$MEMPHIS_BUILD/memphis-report
"$R" "$run" --html cg-master.html 2> html.err
rc=$?
"$R" "$run" --json --advice > cg-master.json 2>> html.err
if [ "$rc" = 0 ] && [ -s cg-master.html ]; then
	vm_result ok "html: memphis-report --html writes the page of the 2-node cg run"
else
	vm_note "exit $rc: $(tail -n 2 html.err)"
	vm_result fail "html: memphis-report --html writes the page of the 2-node cg run"
fi
NODE_PATH="$MEMPHIS_BUILD/npm/node_modules" SHOT_VAR=a node "$MEMPHIS_SRC/tests/html_browser.js" \
	cg-master.html cg-master.json cg-master.png > browser.out 2>&1
while IFS= read -r line; do
	case $line in
	"ok "*) vm_result ok "html: ${line#ok }" ;;
	"not ok "*) vm_result fail "html: ${line#not ok }" ;;
	*) vm_note "html: $line" ;;
	esac
done < browser.out
python3 - cg-master.json > pattern.check 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
a = [v for v in r["variables"] if v["name"] == "cg.c:a"]
p = a[0].get("pattern") if a else None
with_samples = [t for t, row in enumerate(p["thread_blocks"]) if sum(row)] if p else []
print(("ok" if len(with_samples) >= 2 else "fail") +
      " a's thread x block matrix has %d threads with samples (2 OpenMP threads ran)" % len(with_samples))
m = a[0]["matrix"]["counts"] if a else [[0, 0], [0, 0]]
print(("ok" if m[1][0] > 0 else "fail") +
      " node 1's accesses to a on node 0 are in its node x node heatmap: %d" % m[1][0])
PY
while IFS= read -r line; do
	case $line in
	ok\ *) vm_result ok "html: ${line#ok }" ;;
	*) vm_result fail "html: ${line#fail }" ;;
	esac
done < pattern.check
