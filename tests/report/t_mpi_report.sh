#!/bin/sh
# tests/report/t_mpi_report.sh - the merged report of real MPI jobs (issue 19): examples/mpi/halo
# under Open MPI's mpirun -np 4: the job report's counts equal the sums of the four ranks'
# own reports (every variable, every table entry, each rank's share); a rank killed
# mid-run is named incomplete and the other ranks' data are all there; two ranks in two
# UTS namespaces (two "hosts") give tables for two hosts. The launcher settings are
# tests/mpi_common.sh's (root, oversubscribed, loopback only).
. "$MEMPHIS_SRC/tests/mpi_common.sh"
command -v python3 > /dev/null || { echo "python3 is needed to read the JSON reports" >&2; exit 77; }
jobdir() { ls -d "$1"/memphis-*-job-*/ 2>/dev/null | sed 's,/$,,'; }

# sums.py JOB.json RANK.json... - every count of the job's report is the sum of the ranks'
cat > sums.py <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
ranks = [json.load(open(p)) for p in sys.argv[2:]]
bad = []
def want(what, got, exp):
    if got != exp: bad.append("%s: merged %r, ranks summed %r" % (what, got, exp))
vs, ts = {}, {}
for d in ranks:
    r = d["run"]["mpi"]["rank"]
    for v in d["variables"]:
        s = vs.setdefault((v["kind"], v["name"]), {"samples": 0, "remote": 0, "local": 0, "ranks": {}})
        for k in ("samples", "remote", "local"): s[k] += v[k]
        s["ranks"][r] = v["samples"]
    if d["no_remote"]: continue
    for t in d["tables"]:
        for e in t["entries"]:
            x = ts.setdefault((d["run"]["hostname"], t["node"], e["name"]), {"count": 0, "ranks": {}})
            x["count"] += e["count"]; x["ranks"][r] = e["count"]
got_v = {(v["kind"], v["name"]): {"samples": v["samples"], "remote": v["remote"], "local": v["local"],
         "ranks": {x["rank"]: x["samples"] for x in v["ranks"]}} for v in job["variables"]}
want("variables", got_v, vs)
if not job["no_remote"]:
    got_t = {(t["host"], t["node"], e["name"]): {"count": e["count"],
             "ranks": {x["rank"]: x["count"] for x in e["ranks"]}}
             for t in job["tables"] for e in t["entries"]}
    want("tables", got_t, ts)
for k in ("total", "attributed", "remote", "local"):
    want("samples " + k, job["samples"][k], sum(d["samples"][k] for d in ranks))
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
PY

# --- 4 ranks
mkdir c
(cd c && mpirun -np 4 "$H" -s 600 > out 2> err; echo $? > rc)
J=$(jobdir c)
check_if "mpirun -np 4 halo: exit 0, one job directory" '[ "$(cat c/rc)" = 0 ] && [ -d "$J" ]'
"$REPORT" "$J" --json --top 0 > job.json 2> job.err
echo $? > job.rc
for r in 0 1 2 3; do "$REPORT" "$J/rank-$r" --json --top 0 > rank$r.json 2>/dev/null; done
check_if "job report: exit 0, 4 ranks ok" \
	'[ "$(cat job.rc)" = 0 ] && python3 -c "import json; d = json.load(open(\"job.json\"));
raise SystemExit(0 if [x[\"status\"] for x in d[\"ranks\"]] == [\"ok\"] * 4 else 1)"'
check "job report: every count is the sum of the 4 ranks' own reports, rank column right" \
	python3 sums.py job.json rank0.json rank1.json rank2.json rank3.json
"$REPORT" "$J" --top 0 > job.txt 2>&1
check "job report text: 4 ranks of 4, the ranks' arrays with their ranks" \
	sh -c "grep -q ': 4 ranks of 4 (0-3)' job.txt &&
	       grep -Eq '^\([0-9]+\) main::grid \(malloc at halo.c:[0-9]+\) [0-9,]+  \[ranks 0: ' job.txt"

# --- rank 2 killed mid-run
mkdir k
(cd k && OMPI_MCA_orte_enable_recovery=1 mpirun -np 4 "$H" -s 600 -k 2 > out 2> err)
J=$(jobdir k)
"$REPORT" "$J" > kill.txt 2> kill.err
"$REPORT" "$J" --json > kill.json 2>/dev/null
check "killed rank: 'rank 2 incomplete' said" grep -q "^warning: rank 2 incomplete" kill.txt
check "killed rank: ranks 0, 1, 3 complete and in the sums" python3 - <<'PY'
import json
d = json.load(open("kill.json"))
st = {x["rank"]: x for x in d["ranks"]}
ok = (all(st[r]["status"] == "ok" and st[r]["group"] == 0 for r in (0, 1, 3))
      and st[2]["incomplete"] and st[2]["group"] == 0
      and d["samples"]["total"] == sum(x["samples"] for x in d["ranks"]))
raise SystemExit(0 if ok else 1)
PY

# --- two hosts: two ranks of one job in separate UTS namespaces
P=$B/examples/mpi/halo-nompi
if [ "$(id -u)" = 0 ] && unshare --uts true 2>/dev/null && [ -x "$P" ]; then
	mkdir u
	for r in 0 1; do
		(cd u && SLURM_JOB_ID=21 SLURM_NTASKS=2 SLURM_PROCID=$r unshare --uts \
			sh -c "hostname memphis-host$r && exec '$P' -s 300" > /dev/null 2>&1) &
	done
	wait
	"$REPORT" u/memphis-halo-nompi-job-21 > two.txt 2>&1
	check "two hosts: the job report names both, tables per host" \
		sh -c "grep -q '2 hosts: memphis-host0 (rank 0), memphis-host1 (rank 1)' two.txt &&
		       grep -q '^memphis-host0 Node' two.txt && grep -q '^memphis-host1 Node' two.txt"
else
	skip "two hosts in UTS namespaces" "not root, unshare --uts refused, or no halo-nompi"
fi
done_testing
