# fortran.host.sh - judges fortran.guest.sh's run directory (see there) with memphis-report.
. "$VM_LIB"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "fortran: report checks" "they run for the 2-node guest"; exit 0 ;;
esac
if [ ! -d "$VM_OUT/ocean" ]; then
	vm_result skip "fortran: report checks" "no run directory came back"
	exit 0
fi
"$MEMPHIS_BUILD/memphis-report" --all --json --top 1000 "$VM_OUT/ocean" > "$VM_OUT/ocean.json" 2> "$VM_OUT/ocean.report.err"
"$MEMPHIS_BUILD/memphis-report" --json --top 1000 "$VM_OUT/ocean" > "$VM_OUT/ocean.remote.json" 2>> "$VM_OUT/ocean.report.err"
python3 - "$VM_OUT/ocean.json" "$VM_OUT/ocean.remote.json" "$MEMPHIS_SRC/tests" <<'PY' | while IFS= read -r line; do
import json, sys
sys.path.insert(0, sys.argv[3])
import stats
def say(c, d): print(("ok " if c else "fail ") + "fortran: " + d)
def pct(a, b): return 100.0 * a / b if b else 0.0
try:
    rep, rem = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
    var = {v["name"]: v for v in rep["variables"]}
    nodes = rep["nodes"]
except (OSError, ValueError, KeyError) as err:
    say(False, "memphis-report: %s" % err); sys.exit(0)
def remote_of(name, node):
    v = var.get(name)
    if not v: return 0, 0
    row = v["matrix"]["counts"][node][:nodes]
    return sum(row) - row[node], sum(row)
# node 1's remote share of an array: its true value lies in [lo, hi] (the pages' placement,
# checked first, gives it), checked with its sampling noise (stats.py, 1e-4), on enough
# samples that a broken attribution's 50 % could not pass
def share(name, lo, hi):
    r, t = remote_of(name, 1)
    ok, least, most, need = stats.share_check(r, t, lo, hi, 0.5)
    say(ok, "%s: %.1f %% of node 1's %d samples remote (%d..%d of them for a share in "
        "[%g, %g]; %d samples at least)" % (name, pct(r, t), t, least, most, lo, hi, need))
for name in ("hycom1r/dp", "hycom1r/temp"):
    p = ((var.get(name) or {}).get("first_touch") or {}).get("by_node", [0] * nodes)[:nodes]
    say(sum(p) > 0 and pct(p[0], sum(p)) >= 95, "%s: %.1f %% of %d pages on node 0 (>= 95)" % (name, pct(p[0], sum(p)), sum(p)))
    share(name, 0.95, 1.0)
for name in ("ocean_state::u", "ocean_state::v"):
    share(name, 0.0, 0.05)
names = set()
for t in rem.get("tables", []):
    if t["node"] == 1 and rem.get("table_mode") == "remote":
        names |= {e["name"] for e in t["entries"]}
say({"hycom1r/dp", "hycom1r/temp"} <= names and not names & {"ocean_state::u", "ocean_state::v"},
    "node 1's remote table names the COMMON members, not the module arrays: %s" % sorted(names))
PY
	case $line in
	ok\ *) vm_result ok "${line#ok }" ;;
	fail\ *) vm_result fail "${line#fail }" ;;
	*) vm_note "$line" ;;
	esac
done
