#!/bin/sh
# memphis-report over an MPI job (issue 19), on synthetic jobs from $B/tests/tool_gen --rank:
# the merged counts equal the sums of the ranks' own reports (exactly: every variable, its
# matrix, every table entry and each rank's share of it), the same for any -j, --rank N is
# that rank's own report, --by rank tables are the ranks' own, several run directories are
# a job too, compare reads job directories; bad input (a rank of another job, a missing
# rank, a corrupt file, a killed rank, an unreadable rank, another topology or backend)
# gets its line
# and the rest is reported; a job of 64 ranks x 200 k samples is merged with right totals.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
have_python || { echo "python3 is needed to read the JSON reports" >&2; exit 77; }

# --- a job of 4 ranks on 2 hosts
for r in 0 1 2 3; do
	"$GEN" job --rank $r --size 4 --host "h$((r / 2))" -n 30000 --seed $r >/dev/null
done
rc=$(run_rc job.json job.jerr "$R" job --json --top 0 -j 2)
check "job: exits 0 (got $rc)" [ "$rc" = 0 ]
for r in 0 1 2 3; do "$R" job/rank-$r --json --top 0 > rank$r.json; done
cat > sums.py <<'PY'
import json, sys
job = json.load(open(sys.argv[1]))
ranks = {r: json.load(open("rank%d.json" % r)) for r in range(4)}
bad = []
def want(what, got, exp):
    if got != exp: bad.append("%s: merged %r, ranks summed %r" % (what, got, exp))
vs = {}
for r, d in ranks.items():
    for v in d["variables"]:
        s = vs.setdefault((v["kind"], v["name"]), {"samples": 0, "remote": 0, "local": 0,
                                                   "m": None, "ranks": {}})
        for k in ("samples", "remote", "local"): s[k] += v[k]
        c = v["matrix"]["counts"]
        s["m"] = c if s["m"] is None else [[a + b for a, b in zip(x, y)] for x, y in zip(s["m"], c)]
        s["ranks"][r] = v["samples"]
mv = {(v["kind"], v["name"]): v for v in job["variables"]}
want("variables", sorted(mv), sorted(vs))
for key, s in vs.items():
    v = mv.get(key, {})
    for k in ("samples", "remote", "local"): want("%s %s" % (key[1], k), v.get(k), s[k])
    want("%s matrix" % key[1], v.get("matrix", {}).get("counts"), s["m"])
    want("%s ranks" % key[1], {x["rank"]: x["samples"] for x in v.get("ranks", [])}, s["ranks"])
ts = {}
for r, d in ranks.items():
    host = d["run"]["hostname"]
    for t in d["tables"]:
        for e in t["entries"]:
            k = (host, t["node"], e["name"])
            x = ts.setdefault(k, {"count": 0, "ranks": {}, "items": {}})
            x["count"] += e["count"]; x["ranks"][r] = e["count"]
            for it in e["items"]: x["items"][it["name"]] = x["items"].get(it["name"], 0) + it["count"]
got = {}
for t in job["tables"]:
    for e in t["entries"]:
        got[(t["host"], t["node"], e["name"])] = {"count": e["count"],
            "ranks": {x["rank"]: x["count"] for x in e["ranks"]},
            "items": {it["name"]: it["count"] for it in e["items"]}}
want("table entries", got, ts)
for k in ("total", "attributed", "remote", "local", "exact"):
    want("samples " + k, job["samples"][k], sum(d["samples"][k] for d in ranks.values()))
want("job id", job["job"]["id"], "1234")
want("ranks", [(x["rank"], x["host"], x["status"]) for x in job["ranks"]],
     [(r, "h%d" % (r // 2), "ok") for r in range(4)])
want("hosts", job["hosts"], [{"name": "h0", "ranks": [0, 1]}, {"name": "h1", "ranks": [2, 3]}])
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
PY
check "job: every count of the merged JSON is the sum of the four ranks' own reports" \
	python3 sums.py job.json

"$R" job -j 1 > job.1.txt 2>&1
"$R" job -j 3 > job.3.txt 2>&1
"$R" job --json -j 1 > job.1.json 2>&1
"$R" job --json -j 8 > job.8.json 2>&1
check "job: -j 3 gives what -j 1 gives (text)" cmp -s job.1.txt job.3.txt
check "job: -j 8 gives what -j 1 gives (JSON)" cmp -s job.1.json job.8.json
check "job: the header says job, ranks and hosts" \
	sh -c "grep -q 'job 1234 (job): 4 ranks of 4 (0-3)' job.1.txt &&
	       grep -q '2 hosts: h0 (ranks 0, 1), h1 (ranks 2, 3)' job.1.txt"
check "job: tables per host and node with the ranks' counts" \
	sh -c "grep -q '^h1 Node1: total' job.1.txt && grep -Eq '^\(1\) colidx [0-9,]+  \[ranks 2: [0-9,]+, 3: [0-9,]+\]' job.1.txt"

# each executable is read once for all ranks: the job forks as many DWARF readers as one
# rank alone does (-j 1: no thread)
if command -v strace >/dev/null 2>&1; then
	strace -f -qq -e trace=clone,clone3,fork,vfork -o st.job "$R" job -j 1 >/dev/null 2>&1
	strace -f -qq -e trace=clone,clone3,fork,vfork -o st.one "$R" job/rank-0 -j 1 >/dev/null 2>&1
	nj=$(grep -cE '(clone3?|v?fork)\(' st.job) n1=$(grep -cE '(clone3?|v?fork)\(' st.one)
	if [ "$n1" = 0 ]; then
		skip "job: the executable's DWARF read once for 4 ranks" "no DWARF reader forked (a TSan build reads in process)"
	else
		check "job: the executable's DWARF read once for 4 ranks ($nj processes started, one rank alone $n1)" \
			sh -c "[ $nj = $n1 ] && [ $n1 -ge 1 ]"
	fi
else
	skip "job: the executable's DWARF read once for 4 ranks" "no strace"
fi

# --rank N is that rank's own report; --by rank tables are the ranks' own
"$R" job --rank 2 > r2.txt 2>&1
"$R" job/rank-2 > r2.own.txt 2>&1
check "--rank 2 is rank 2's own report" cmp -s r2.txt r2.own.txt
rc=$(run_rc r7.txt r7.err "$R" job --rank 7)
check "--rank 7 of 4 ranks: exit 2, says so (got $rc)" sh -c "[ $rc = 2 ] && grep -q 'no rank 7' r7.err"
"$R" job --by rank --json --top 0 > byrank.json
check "--by rank: one table per rank and node, each the rank's own" python3 - <<'PY'
import json
job = json.load(open("byrank.json"))
own = {}
for r in range(4):
    for t in json.load(open("rank%d.json" % r))["tables"]:
        own[(r, t["node"])] = {e["name"]: e["count"] for e in t["entries"]}
got = {(t["mpi_rank"], t["node"]): {e["name"]: e["count"] for e in t["entries"]}
       for t in job["tables"]}
raise SystemExit(0 if got == own else 1)
PY
rc=$(run_rc r.txt r.err "$R" job/rank-0 --by rank)
check "--by rank on one run directory: usage error (got $rc)" [ "$rc" = 1 ]

# several run directories are one job: the ranks not given are missing
rc=$(run_rc two.txt two.err "$R" job/rank-0 job/rank-3)
check "two rank directories: merged, ranks 1 and 2 missing, exit 2 (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -q '2 ranks of 4 (0, 3)' two.txt &&
	       grep -q 'rank 1 missing' two.txt && grep -q 'rank 2 missing' two.txt"

# compare reads job directories
for r in 0 1 2 3; do
	"$GEN" job2 --rank $r --size 4 --host "h$((r / 2))" -n 30000 --seed $((r + 10)) \
		--remote-pct 90 >/dev/null
done
rc=$(run_rc cmp.txt cmp.err "$R" compare job job2)
check "compare JOB JOB2: job2's 90 % remote regressed, per merged variable (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -q '^  colidx .*regressed' cmp.txt && grep -q '^verdict: regressed' cmp.txt"
rc=$(run_rc cmp0.txt cmp0.err "$R" compare job job)
check "compare JOB JOB: unchanged (got $rc)" sh -c "[ $rc = 0 ] && grep -q '^verdict: unchanged' cmp0.txt"

# --- bad input: rank 1 corrupt, rank 2 missing, rank 3 killed, rank 4 of another job,
# rank 5 on a one-node host, rank 6 of another backend (a hardware run), rank 7 without
# meta.mph
"$GEN" bad --rank 0 --size 8 -n 20000 >/dev/null
"$GEN" bad --rank 1 --size 8 -n 20000 --flip cpu001.mph:300 >/dev/null
"$GEN" bad --rank 3 --size 8 -n 20000 --no-end >/dev/null
"$GEN" bad --rank 4 --size 8 -n 20000 --job 999 >/dev/null
"$GEN" bad --rank 5 --size 8 -n 20000 --one-node >/dev/null
"$GEN" bad --rank 6 --size 8 -n 20000 --hw hw6.tsv >/dev/null
mkdir bad/rank-7
rc=$(run_rc bad.txt bad.err "$R" bad)
check "bad job: exit 2 (got $rc)" [ "$rc" = 2 ]
check "bad job: the missing rank named" has bad.txt "warning: rank 2 missing (the job has 8 ranks)"
check "bad job: the corrupt file and offset named" \
	sh -c "grep -q 'rank 1: damaged input: cpu001.mph: offset' bad.err"
check "bad job: the killed rank incomplete" has bad.txt "warning: rank 3 incomplete"
check "bad job: the other job's rank reported apart" \
	has bad.txt "warning: rank 4 reported apart, not summed with the job's: job id 999 (the job's: 1234)"
check "bad job: the other topology's rank reported apart" \
	sh -c "grep -q 'warning: rank 5 reported apart, not summed with the job.s: topology 1 nodes' bad.txt"
check "bad job: the other backend's rank reported apart" \
	has bad.txt "warning: rank 6 reported apart, not summed with the job's: backend ibs (the job's: soft)"
check "bad job: the unreadable rank left out" has bad.txt "warning: rank 7 unreadable (bad/rank-7), left out: bad/rank-7: no meta.mph"
"$R" bad --json > bad.json 2>/dev/null
check "bad job JSON: ranks 0, 1, 3 summed, 4, 5, 6 apart, 2 missing, 7 unreadable" python3 - <<'PY'
import json
d = json.load(open("bad.json"))
st = {x["rank"]: (x["status"], x["group"]) for x in d["ranks"]}
ok = (st[0] == ("ok", 0) and st[1] == ("damaged", 0) and st[3] == ("incomplete", 0)
      and st[4][1] == 1 and st[5][1] == 2 and st[6][1] == 3 and st[7] == ("unreadable", None)
      and d["job"]["missing"] == [2] and len(d["groups"]) == 3
      and d["samples"]["total"] == sum(x["samples"] for x in d["ranks"] if x["group"] == 0)
      and d["groups"][0]["apart"].startswith("job id 999"))
raise SystemExit(0 if ok else 1)
PY

# --- scale: 64 ranks x 200 k samples (not timed: make bench prints the times)
n=${MEMPHIS_JOB_SAMPLES:-200000}
r=0
while [ $r -lt 64 ]; do
	"$GEN" big --rank $r --size 64 --host "h$((r / 8))" -n "$n" --seed $r >/dev/null || break
	r=$((r + 1))
done
rc=$(run_rc big.json big.err "$R" big --json)
check "64 ranks: merged, exit 0 (got $rc)" [ "$rc" = 0 ]
check "64 ranks: totals right" python3 - "$n" <<'PY'
import json, sys
d = json.load(open("big.json")); n = int(sys.argv[1])
ok = (len(d["ranks"]) == 64 and d["samples"]["total"] == 64 * n and len(d["hosts"]) == 8
      and d["samples"]["remote"] == sum(x["remote"] for x in d["ranks"])
      and d["samples"]["remote"] == sum(t["total"] for t in d["tables"]))
raise SystemExit(0 if ok else 1)
PY
rm -rf big

# --- the job's ranks on hosts with a memory-only node (tool_nodes --memory-only: node 2
# without CPUs holds every other page): the far tier's tables merged apart from the remote
# ones, each the sum of the ranks' (issue 44)
mkdir farjob
for r in 0 1 2 3; do "$B/tests/tool_nodes" job/rank-$r farjob/rank-$r 3 --memory-only; done
rc=$(run_rc far.json far.err "$R" farjob --json --top 0)
"$R" farjob > far.txt 2>> far.err
for r in 0 1 2 3; do "$R" farjob/rank-$r --json --top 0 > far$r.json; done
check "far tier: merged apart from remote, each the ranks' sum (exit $rc)" python3 - <<'PY'
import json
d = json.load(open("far.json"))
ranks = [json.load(open("far%d.json" % r)) for r in range(4)]
s = d["samples"]
assert s["far"] == sum(r["samples"]["far"] for r in ranks) > 0, s
assert s["remote"] == sum(r["samples"]["remote"] for r in ranks), s
assert sum(t["total"] for t in d["far_tables"]) == s["far"], d["far_tables"]
assert sum(t["total"] for t in d["tables"]) == s["remote"], d["tables"]
PY
check_if "far tier: the text's attributed line and far-tier tables" \
	'grep -q "^samples: .* remote, .* local, [0-9,]* far tier (pages on nodes without CPUs)\$" far.txt &&
	 grep -q "^Far-tier samples per host and node of the sampling CPU (pages on nodes without CPUs), summed over ranks:\$" far.txt'
done_testing
