#!/bin/sh
# memphis-report -j N: the per-CPU files read by N threads give the same report, byte for
# byte, as one thread (text, JSON, --by line, compare's input), on a synthetic run, a real
# multi-threaded run and a damaged run (the same messages naming file and offset, the same
# samples kept, the same exit status). A merge that depended on which thread finished first
# or on how the files were cut would show here: 3 and 8 threads cut 4 files differently.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built

# same_for_jobs NAME RUN [OPTIONS...] - the report (stdout, stderr, exit status) with 2, 3
# and 8 threads, and with MEMPHIS_REPORT_JOBS=2, equals the one with 1 thread.
same_for_jobs() {
	name=$1 run=$2
	shift 2
	"$R" "$run" -j 1 "$@" > "$name.1.out" 2> "$name.1.err"
	echo $? > "$name.1.rc"
	for j in 2 3 8; do
		"$R" "$run" --jobs $j "$@" > "$name.$j.out" 2> "$name.$j.err"
		echo $? > "$name.$j.rc"
		check "$name: -j $j gives what -j 1 gives (stdout, stderr, exit status)" \
			sh -c "cmp -s $name.1.out $name.$j.out && cmp -s $name.1.err $name.$j.err &&
			       cmp -s $name.1.rc $name.$j.rc"
		differs "$name" $j
	done
	MEMPHIS_REPORT_JOBS=2 "$R" "$run" "$@" > "$name.env.out" 2>/dev/null
	check "$name: MEMPHIS_REPORT_JOBS=2 gives what -j 1 gives" \
		cmp -s "$name.1.out" "$name.env.out"
	differs "$name" env
}
# differs NAME J: how report NAME with J threads differs from -j 1's, as TAP comments (the
# first lines of each stream's diff).
differs() {
	for s in out err rc; do
		[ -f "$1.$2.$s" ] && ! cmp -s "$1.1.$s" "$1.$2.$s" &&
			diff "$1.1.$s" "$1.$2.$s" | head -n 20 | sed "s/^/# $1 -j $2 $s: /"
	done
	return 0
}

# --- a synthetic run: 4 CPU files, 2 nodes, heap objects, remote and local samples
"$GEN" syn -n 300000 --allocs 20000 >/dev/null
same_for_jobs syn-text syn --top 0
same_for_jobs syn-json syn --json
same_for_jobs syn-line syn --by line --all --top 0 --matrix
check "synthetic: the report names variables" has syn-text.1.out "Node1: total"
# a hardware run: data sources and latencies merged the same way
"$GEN" hw -n 60000 --allocs 2000 --hw hw.tsv >/dev/null
same_for_jobs hw-text hw --top 0 --all
same_for_jobs hw-json hw --json --by line
"$GEN" syn2 -n 300000 --allocs 20000 --remote-pct 60 --seed 2 >/dev/null
MEMPHIS_REPORT_JOBS=1 "$R" compare syn syn2 > cmp.1 2>&1
MEMPHIS_REPORT_JOBS=3 "$R" compare syn syn2 > cmp.3 2>&1
check "compare with MEMPHIS_REPORT_JOBS=3 gives what 1 gives" cmp -s cmp.1 cmp.3

# --- a real run of a multi-threaded program (stacks, TLS, globals, heap)
if MEMPHIS_PERIOD=250us "$B/tests/prog_threads" > threads.out 2>&1; then
	d=$(rundir prog_threads)
	same_for_jobs real-text "$d" --top 0 --all
	same_for_jobs real-json "$d" --json --approx
	check "real run: samples were read" has real-json.1.out '"total"'
else
	not_ok "prog_threads runs under memphis"
fi

# --- a library that cannot be read at report time: its warning once, where one thread
# would have met it (the run's one cpu file copied twice: every thread needs the library)
cp "$B/tests/dlib_table.so" "$PWD/dlib_gone.so"
if MEMPHIS_PERIOD=100us "$B/tests/prog_dlopen" "$PWD/dlib_gone.so" 12 > dl.out 2>&1; then
	rm -f dlib_gone.so
	d=$(rundir prog_dlopen)
	f=$(ls "$d" | grep '^cpu' | head -n 1)
	for c in cpu100.mph cpu101.mph; do cp "$d/$f" "$d/$c"; done
	same_for_jobs gone-text "$d" --all --top 0
	check "missing library: one warning naming it" \
		sh -c "[ \$(grep -c 'cannot read .*dlib_gone.so' gone-text.3.err) = 1 ]"
else
	not_ok "prog_dlopen runs under memphis"
fi

# --- damage in two files and no END block: messages and what was kept the same
"$GEN" bad -n 100000 --truncate cpu001.mph:300000 --flip cpu003.mph:500000 --no-end >/dev/null
same_for_jobs bad-text bad --top 0
same_for_jobs bad-json bad --json
check "damaged: exit status 2" grep -qx 2 bad-text.1.rc
check "damaged: the truncated file and its offset named" has bad-text.1.err \
	"cpu001.mph: offset 262200: truncated SAMPLES block"
check "damaged: the flipped file named" has bad-text.1.err "cpu003.mph: offset"
# --- the default: the online CPUs, but a worker per 16 MB of sample files (hw: 4 MB, one
# worker; syn: 19 MB, two where there are two CPUs); threads counted against -j 1's, not
# under ThreadSanitizer (its runtime starts a thread of its own with the first)
threads() { # threads RUN [OPTIONS...]: the threads memphis-report starts
	strace -f -qq -e trace=clone,clone3 -o st.out env -u MEMPHIS_REPORT_JOBS "$R" "$@" \
		>/dev/null 2>&1
	grep -c 'CLONE_THREAD' st.out
}
if ldd "$R" 2>/dev/null | grep -q libtsan; then
	skip "default worker count" "a ThreadSanitizer build starts threads of its own"
elif command -v strace >/dev/null 2>&1; then
	base=$(threads hw -j 1)
	n=$(threads hw)
	check "default on a 4 MB run: one worker ($n threads, -j 1: $base)" [ "$n" = "$base" ]
	n=$(threads syn)
	want=$(($(nproc) >= 2 ? 2 : 1))
	check "default on a 19 MB run: $want workers ($n threads, -j 1: $base)" \
		[ "$n" = $((base + want - 1)) ]
	n=$(threads hw -j 3)
	check "-j 3 on the 4 MB run: 3 workers ($n threads, -j 1: $base)" [ "$n" = $((base + 2)) ]
else
	skip "default worker count" "strace is not installed"
fi

# --- bad job counts are usage errors (exit 1), named
rc=$(run_rc o e "$R" syn -j 0)
check "-j 0 exits 1 (got $rc)" sh -c "[ $rc = 1 ] && grep -q -- '--jobs wants a number' e"
rc=$(MEMPHIS_REPORT_JOBS=many run_rc o e "$R" syn)
check "MEMPHIS_REPORT_JOBS=many exits 1 (got $rc)" \
	sh -c "[ $rc = 1 ] && grep -q 'MEMPHIS_REPORT_JOBS wants a number' e"
rc=$(MEMPHIS_REPORT_JOBS=many run_rc o e "$R" syn -j 2)
check "-j 2 overrides a bad MEMPHIS_REPORT_JOBS (exit $rc)" [ "$rc" = 0 ]
done_testing
