#!/bin/sh
# tests/t_golden.sh - golden attribution: programs whose access shares are known by
# construction (tests/golden/golden.h), built here with cc -g -O0 and -O2, profiled at
# MEMPHIS_PERIOD=250us, and checked through `memphis-report --all --json`: every variable
# is found by name and kind, with its expected share of the region's samples (+-5 points)
# and with the line that loads it (marked /* LINE:tag */ in the source) as its hottest
# line. Covers a global, a file-scope static, a function-scope static, heap objects from
# three call sites in two files, a shared library's global, a __thread array of two
# threads and the stacks of two threads. tests/golden/check.py does the checks.
# MEMPHIS_GOLDEN_SECONDS (default 2) is the length of each region.
B=${MEMPHIS_BUILD:?MEMPHIS_BUILD is the build directory}
S=${MEMPHIS_SRC:?MEMPHIS_SRC is the source tree}
G=$S/tests/golden
SEC=${MEMPHIS_GOLDEN_SECONDS:-2}
CC=${CC:-cc}

command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }
# the main thread keeps a 20 MiB array on its stack
ulimit -s 262144 2>/dev/null || { echo "cannot raise the stack limit to 256 MiB" >&2; exit 77; }

# region | report name (@SITE:tag = line of that call site) | kind | share | loading line
cat >expect <<'EOF'
main   | g_global                                        | global          | W_GLOBAL/W_MAIN | global
main   | s_static                                        | static          | W_STATIC/W_MAIN | static
main   | func_pool::f_static                             | function static | W_FUNC/W_MAIN   | func
main   | malloc at golden.c:@SITE:heap_a in main         | heap            | W_HEAP_A/W_MAIN | heap_a
main   | malloc at golden.c:@SITE:heap_b in make_b       | heap            | W_HEAP_B/W_MAIN | heap_b
main   | malloc at golden_alloc.c:@SITE:heap_c in golden_alloc_c | heap    | W_HEAP_C/W_MAIN | heap_c
main   | libgolden.so:golden_lib                         | global          | W_LIB/W_MAIN    | lib
main   | t_tls                                           | tls             | W_TLS/W_MAIN    | tls
main   | <stack of thread 0>                             | stack           | W_STACK/W_MAIN  | stack
thread | t_tls                                           | tls             | T_TLS/T_SUM     | tls_t
thread | <stack of thread 1>                             | stack           | T_STACK/T_SUM   | stack_t
thread | g_global                                        | global          | T_GLOBAL/T_SUM  | global_t
EOF

n=0
tap() { # tap STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

for opt in O0 O2; do
	rm -rf "$opt" && mkdir "$opt" && cd "$opt" || exit 1
	"$CC" -g -"$opt" -shared -fPIC -o libgolden.so "$G/golden_lib.c" 2>build.err &&
		"$CC" -g -"$opt" -I"$S/include" -o golden "$G/golden.c" "$G/golden_alloc.c" \
			-L. -lgolden -Wl,-rpath,"$PWD" \
			-L"$B" -Wl,-rpath,"$B" -lmemphis -pthread 2>>build.err
	rc=$?
	tap $rc "$opt: build the golden program and libgolden.so"
	[ $rc = 0 ] || sed 's/^/# /' build.err
	MEMPHIS_PERIOD=250us ./golden "$SEC" >run.out 2>run.err
	rc=$?
	rundir=$(ls -d memphis-golden-* 2>/dev/null | head -n 1)
	[ $rc = 0 ] && [ -n "$rundir" ]
	tap $? "$opt: run it under memphis (exit $rc, run directory ${rundir:-missing})"
	[ $rc = 0 ] || sed 's/^/# /' run.err
	for r in main thread; do
		"$B/memphis-report" "$rundir" --all --json --top 0 --region $r >$r.json 2>report.err ||
			sed 's/^/# /' report.err
	done
	python3 "$G/check.py" "$n" "$opt" "$G" ../expect main.json thread.json >checks
	cat checks
	n=$((n + $(grep -c '^\(not \)\{0,1\}ok ' checks)))
	cd ..
done
echo "1..$n"
