# fortran.guest.sh - issue 5 in the 2-node guest: examples/fortran/ocean (HYCOM pattern),
# one OpenMP thread per node, single-stepped so timer samples carry exact addresses. Its
# run directory comes back for fortran.host.sh, which checks that the COMMON arrays the
# master initialised (hycom1r/dp, hycom1r/temp) are the hot-spot - all pages on node 0,
# node 1's samples of them remote - and that the module arrays initialised in parallel
# (ocean_state::u, ::v) are not.
. "$VM_LIB"
vm_require_memphis
case $VM_TOPO in
2x*) ;;
*) vm_result skip "fortran: ocean hot-spot" "needs the 2-node topology"; exit 0 ;;
esac
OCEAN=$MEMPHIS_BUILD/examples/fortran/ocean
if [ ! -x "$OCEAN" ]; then
	vm_result skip "fortran: ocean hot-spot" "examples/fortran/ocean was not built"
	exit 0
fi
# Per thread: in single-step mode a CPU's clock (MEMPHIS_SCOPE=cpu, what auto takes as
# root) gave node 1's thread 7-8 samples of each COMMON array where per thread gave 23-49
# from 4 steps; numa-cg, numa-ring and numa-advice check the remote counts per CPU.
# 16 steps: a share told apart from a broken attribution's 50 % needs 46 samples (stats.py
# apart 0.95 1 0.5), which an expected 76 misses with probability 1e-4 (stats.py pneed 46),
# and 16 steps expect 92 or more.
export MEMPHIS_SCOPE=thread MEMPHIS_PERIOD=250us OMP_PROC_BIND=true OMP_WAIT_POLICY=passive OMP_NUM_THREADS=2 \
	OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
vm_singlestep on || exit 1
MEMPHIS_OUTPUT="$VM_OUT/ocean" timeout 300 "$OCEAN" -n 200000 -s 16 > "$VM_OUT/ocean.out" 2> "$VM_OUT/ocean.err"
rc=$?
vm_singlestep off
if [ "$rc" = 0 ] && [ -f "$VM_OUT/ocean/meta.mph" ]; then
	vm_result ok "fortran: ocean runs under memphis in the $VM_TOPO guest"
else
	vm_note "ocean: exit $rc: $(tail -n 2 "$VM_OUT/ocean.err")"
	vm_result fail "fortran: ocean runs under memphis in the $VM_TOPO guest"
fi
