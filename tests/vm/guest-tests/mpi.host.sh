# mpi.host.sh - the 2-rank job of mpi.guest.sh: per rank, its keys (rank, job, launcher),
# its arrays on its own node and read remotely by its thread on the other node, named in
# that node's remote table (numa_check.py rank). Each rank directory is reported alone; the
# job directory is reported as a whole too where this memphis-report reads job directories
# (its merged report, issue 19), else a note says it was not.
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "mpi: host checks" "they run for the 2-node guest"; exit 0 ;; esac
R="$MEMPHIS_BUILD/memphis-report"
J="$VM_OUT/job"
for r in 0 1; do
	d="$J/rank-$r"
	if [ ! -f "$d/meta.mph" ]; then
		vm_result fail "mpi: rank $r: no run directory came back from the guest"
		continue
	fi
	keys=$("$R" dump "$d" 2>/dev/null | sed -n 's/^#   \(mpi_rank=.*\|job_id=.*\|launcher=.*\)$/\1/p' | tr '\n' ' ')
	if [ "$keys" = "mpi_rank=$r job_id=1919 launcher=slurm " ]; then
		vm_result ok "mpi: rank $r: RUN keys mpi_rank=$r job_id=1919 launcher=slurm"
	else
		vm_result fail "mpi: rank $r: RUN keys mpi_rank=$r job_id=1919 launcher=slurm (got: $keys)"
	fi
	"$R" --all --json --top 1000 "$d" > "$VM_OUT/rank$r.json" 2> "$VM_OUT/rank$r.report.err"
	"$R" --json --top 1000 "$d" > "$VM_OUT/rank$r.remote.json" 2>> "$VM_OUT/rank$r.report.err"
	python3 "$MEMPHIS_SRC/tests/vm/guest-tests/numa_check.py" "$VM_OUT/rank$r.json" \
		"$VM_OUT/rank$r.remote.json" rank "$r" > "$VM_OUT/rank$r.check" 2>&1
	results "mpi rank $r" "$VM_OUT/rank$r.check"
done
# the whole job: both ranks' arrays in the merged report
if "$R" "$J" > "$VM_OUT/job.txt" 2> "$VM_OUT/job.err"; then
	if grep -q "main::grid" "$VM_OUT/job.txt" && grep -q "main::next" "$VM_OUT/job.txt"; then
		vm_result ok "mpi: memphis-report JOBDIR names main::grid and main::next"
	else
		vm_result fail "mpi: memphis-report JOBDIR names main::grid and main::next"
	fi
else
	vm_note "mpi: memphis-report JOBDIR is not read by this build ($(head -n 1 "$VM_OUT/job.err")): the ranks were checked alone"
fi
