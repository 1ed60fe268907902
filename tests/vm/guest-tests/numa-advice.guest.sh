# numa-advice.guest.sh - issue 18's advice on 2 nodes, one OpenMP thread per node: a random
# gather over a 24 MiB array the master initialised (interleave) and a 64 KiB read-only
# table the master filled (replicate). examples/cg master-initialised (partitioned) and
# NUMA-aware (local) are numa-cg's runs: numa-advice.host.sh reads them there.
. "$VM_LIB"
vm_require_memphis
. "$(dirname "$VM_LIB")/guest-tests/numa-lib.sh"
case $VM_TOPO in
2x*) ;;
*) vm_result skip "advice checks" "they run in the 2-node guest"; exit 0 ;;
esac
export OMP_NUM_THREADS=2 OMP_PLACES="{0},{$VM_CPUS_PER_NODE}"
# gather at 1 ms: at 250 us the single-stepped drain fell behind, a thread's ring
# overflowed unread and node 1's thread kept as few as 7 % of the samples (2 of 16 runs
# below the advice's 10 %); at 1 ms 19-51 % in 8 runs. Without the user stack: the
# drain's first pass with samples builds its code cache (symbols, function sweeps), 4 ms
# natively and 0.6-1.2 s single-stepped (a pass timed in the guest), while rings hold
# 100 ms; with 1 KB a sample that is 107 samples, without it 178: a thread lost more
# than it kept in 2 of 5 runs with the stack, in 1 of 6 without.
# prog_gather's reads are in the executable: its advice needs no stack.
MEMPHIS_STACK_BYTES=0 MEMPHIS_PERIOD=1ms run gather $ON0 "$MEMPHIS_BUILD/tests/prog_gather" 24 1
# prog_table's too. With the stack (1,224-byte records) node 1's thread kept 428 samples,
# its ring full, in each of 11 CI runs and lost 1,300-3,000 while node 0's kept
# 1,200-3,300, and the table's remote share (8-33 %) fell below the advice's 10 % once.
# The rings are the threads' here (scope=thread), read on the drain's timer: in a run
# without the stack thread 1 kept 712 samples (184-byte records, its ring full), all from
# its first 0.8 s, and lost 1,311; the drain made 27 passes in 7.9 s on 2.9 s of CPU
# single-stepped (natively milliseconds) and read that ring again only after the thread
# ended. Without the stack the share was 17-32 % of 823-1,027 samples in two runs (1 ms as
# gather: 98 samples, near too_few's 50).
# The library's threads inherited CPU 0 from the master (libgomp binds it before the
# library's constructor runs): the master then ran its loop 10-25 times as slowly as thread
# 1 and kept 5-7 times its samples, and in one CI run, where it lost fewer than it kept,
# the table's remote share fell under the advice's 10 % ("local"). They now leave that CPU
# (lib/self.c): in 14 runs each thread kept 860-1,964 samples; in 5 the master's ring
# overflowed after its loop, unread for 10-15 s (19-43 k lost: skipped as starved).
MEMPHIS_STACK_BYTES=0 run table $ON0 "$MEMPHIS_BUILD/tests/prog_table" 2
