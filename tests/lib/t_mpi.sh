#!/bin/sh
# tests/lib/t_mpi.sh - MPI jobs under Open MPI's mpirun (examples/mpi): 4 ranks of the C
# stencil write one job directory with rank-0..rank-3 and the right RUN keys, output and
# exit status as without memphis, each rank's report names the rank's arrays; a rank that
# kills itself mid-run leaves the other ranks' directories complete (END blocks) and its own
# readable up to its last block; `mpirun memphis run -- prog` makes the program the rank;
# the Fortran variant the same. Skipped (77) without mpirun or the examples.
# mpirun's environment: tests/mpi_common.sh.
. "$MEMPHIS_SRC/tests/mpi_common.sh"
HF=$B/examples/mpi/halo_f
SWEEPS=600

# keys DIR: the rank keys of a run directory on one line
keys() {
	"$REPORT" dump "$1" 2>/dev/null |
		sed -n 's/^#   \(mpi_[a-z_]*=.*\|job_id=.*\|launcher=.*\)$/\1/p' | tr '\n' ' '
}
# complete DIR REGIONS: readable, clean END blocks, exactly REGIONS regions recorded
complete() {
	"$REPORT" dump "$1" > c.out 2> c.err && ! grep -q "no END block" c.out c.err &&
		[ "$(grep -c '^#   region [0-9]* "' c.out)" = "$2" ]
}
# jobdir WORK: the one job directory in WORK
jobdir() { ls -d "$1"/memphis-*-job-*/ 2>/dev/null | sed 's,/$,,'; }

# --- 4 ranks of the C stencil, with and without memphis
mkdir c off
(cd off && MEMPHIS_DISABLE=1 mpirun -np 4 "$H" -s $SWEEPS > out 2> err; echo $? > rc)
(cd c && mpirun -np 4 "$H" -s $SWEEPS > out 2> err; echo $? > rc)
check_if "mpirun -np 4 halo: exit 0, output as without memphis, nothing on stderr" \
	'[ "$(cat c/rc)" = 0 ] && [ "$(cat off/rc)" = 0 ] && cmp -s c/out off/out &&
	 grep -q "^halo: 4 ranks, $SWEEPS sweeps" c/out && [ ! -s c/err ] && [ ! -s off/err ]'
check_if "without memphis (MEMPHIS_DISABLE=1): no run directory" '[ -z "$(ls off | grep memphis)" ]'
J=$(jobdir c)
check_if "one job directory memphis-halo-job-<id> holding rank-0 .. rank-3 and nothing else" \
	'[ "$(echo "$J" | wc -w)" = 1 ] && [ "$(ls -A "$J" | tr "\n" " ")" = "rank-0 rank-1 rank-2 rank-3 " ]'
id=${J##*-job-}
for r in 0 1 2 3; do
	check_if "rank $r: complete, keys mpi_rank=$r mpi_size=4 local $r/4 job_id=$id openmpi" \
		'complete "$J/rank-$r" 1 &&
		 [ "$(keys "$J/rank-$r")" = "mpi_rank=$r mpi_size=4 mpi_local_rank=$r mpi_local_size=4 job_id=$id launcher=openmpi " ]'
	check_if "rank $r reported alone names main::grid and main::next" \
		'"$REPORT" "$J/rank-$r" > rep$r 2>&1 && grep -q "main::grid (malloc at halo.c" rep$r &&
		 grep -q "main::next (malloc at halo.c" rep$r'
done

# --- the merged report of the job (memphis-report JOBDIR, issue 19's report half): each
# array's count is the sum of the four ranks' own reports, and its rank column holds them
# sums NAME JSON...: "name total" for main::grid and main::next over all tables, then per
# rank "name rank count" from the merged report's rank column
sums() {
	python3 - "$@" <<'PY'
import json, sys
for path in sys.argv[1:]:
    rep = json.load(open(path))
    for a in ("main::grid", "main::next"):
        total, ranks = 0, {}
        for t in rep["tables"]:
            for e in t["entries"]:
                if e["name"].startswith(a + " "):
                    total += e["count"]
                    for rc in e.get("ranks", []):
                        ranks[rc["rank"]] = ranks.get(rc["rank"], 0) + rc["count"]
        print(a, total, " ".join("%d:%d" % kv for kv in sorted(ranks.items())))
PY
}
J=$(jobdir c)
if "$REPORT" --json "$J" > job.json 2> job.err && grep -q '"ranks"' job.json; then
	for r in 0 1 2 3; do "$REPORT" --json "$J/rank-$r" > r$r.json 2>/dev/null; done
	sums r0.json r1.json r2.json r3.json > single.sums
	sums job.json > job.sums
	same=1
	for a in main::grid main::next; do
		want=$(awk -v a=$a '$1 == a { s += $2; r = r " " n + 0 ":" $2; n++ } END { print s r }' single.sums)
		got=$(awk -v a=$a '$1 == a { print $2, $3, $4, $5, $6 }' job.sums)
		echo "# $a: ranks alone $want; merged $got"
		[ "$want" = "$got" ] && [ "${want%% *}" -gt 0 ] || same=0
	done
	check_if "memphis-report JOBDIR: main::grid and main::next are the exact sums of the 4 ranks' reports, each rank's count in the rank column" \
		'[ $same = 1 ]'
else
	skip "memphis-report JOBDIR: sums of the ranks" "this memphis-report does not read job directories ($("$REPORT" "$J" 2>&1 | head -n 1 | cut -c 1-100))"
fi

# --- rank 2 kills itself (SIGKILL) halfway through its second region. Open MPI would
# then kill the other ranks (mpirun's default): recovery lets them finish. Open MPI 4.1
# prints one PMIx line for the failure notice, which is the only stderr line accepted.
mkdir k
(cd k && OMPI_MCA_orte_enable_recovery=1 mpirun -np 4 "$H" -s $SWEEPS -k 2 > out 2> err
 echo $? > rc)
J=$(jobdir k)
check_if "a killed rank: mpirun ends (exit 0 under recovery), rank 0 prints the checksum" \
	'[ "$(cat k/rc)" = 0 ] && cmp -s k/out c/out &&
	 [ -z "$(grep -v "PMIX ERROR: BAD-PARAM in file .*pmix_event_notification.c" k/err)" ]'
for r in 0 1 3; do
	check "a killed rank: rank $r complete with both regions" complete "$J/rank-$r" 2
done
check_if "a killed rank: rank 2 readable up to its last block (stencil region, samples), no END" \
	'"$REPORT" dump "$J/rank-2" > k2.out 2> k2.err && grep -q "region 1 \"stencil\"" k2.out &&
	 ! grep -q "region 2 \"local\"" k2.out && grep -q "no END block" k2.err'
check_if "a killed rank: its report names the arrays and says the run did not finish cleanly" \
	'"$REPORT" "$J/rank-2" > k2.rep 2>&1 && grep -q "main::grid" k2.rep &&
	 grep -q "did not finish cleanly" k2.rep'
if "$REPORT" --json "$J" > kjob.json 2> kjob.err && grep -q '"ranks"' kjob.json; then
	check_if "memphis-report JOBDIR: rank 2 and only rank 2 is incomplete, all 4 reported" \
		'python3 -c "
import json, sys
r = json.load(open(\"kjob.json\"))[\"ranks\"]
inc = sorted(x[\"rank\"] for x in r if x[\"incomplete\"])
print(\"# incomplete:\", inc, \"ranks:\", sorted(x[\"rank\"] for x in r))
sys.exit(0 if inc == [2] and sorted(x[\"rank\"] for x in r) == [0, 1, 2, 3] else 1)"'
else
	skip "memphis-report JOBDIR: the killed rank named incomplete" "this memphis-report does not read job directories"
fi

# --- memphis run as the launched program: each launched program is a rank
mkdir m
(cd m && mpirun -np 2 "$B/memphis" run -- "$H" -s 20 > out 2> err; echo $? > rc)
J=$(jobdir m)
check_if "mpirun memphis run -- halo: exit 0, rank-0 and rank-1 with the run and stencil regions" \
	'[ "$(cat m/rc)" = 0 ] && [ ! -s m/err ] && [ "$(ls -A "$J" | tr "\n" " ")" = "rank-0 rank-1 " ] &&
	 complete "$J/rank-1" 2 && grep -q "region 1 \"run\"" c.out &&
	 [ "$(keys "$J/rank-1")" = "mpi_rank=1 mpi_size=2 mpi_local_rank=1 mpi_local_size=2 job_id=${J##*-job-} launcher=openmpi " ]'

# --- Fortran
if [ -x "$HF" ]; then
	mkdir f foff
	(cd foff && MEMPHIS_DISABLE=1 mpirun -np 4 "$HF" -s $SWEEPS > out 2> err; echo $? > rc)
	(cd f && mpirun -np 4 "$HF" -s $SWEEPS > out 2> err; echo $? > rc)
	J=$(jobdir f)
	check_if "mpirun -np 4 halo_f: exit 0, output as without memphis, 4 rank directories" \
		'[ "$(cat f/rc)" = 0 ] && [ "$(cat foff/rc)" = 0 ] && cmp -s f/out foff/out &&
		 [ ! -s f/err ] && [ "$(ls -A "$J" | tr "\n" " ")" = "rank-0 rank-1 rank-2 rank-3 " ]'
	for r in 0 1 2 3; do
		check_if "halo_f rank $r: complete, mpi_rank=$r, report names halo_state::grid" \
			'complete "$J/rank-$r" 1 && keys "$J/rank-$r" | grep -q "^mpi_rank=$r mpi_size=4 " &&
			 "$REPORT" "$J/rank-$r" 2>&1 | grep -q "halo_state::grid"'
	done
else
	skip "the Fortran example under mpirun" "examples/mpi/halo_f not built (no mpif90)"
fi
done_testing
