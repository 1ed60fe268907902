#!/bin/sh
# tests/report/t_golden.sh - golden attribution: programs whose access shares are known by
# construction (tests/golden/golden.h), built here with cc -g -O0 and -O2, profiled at
# MEMPHIS_PERIOD=250us, and checked through `memphis-report --all --json`: every variable
# is found by name and kind, with its expected share of the region's samples (+-2.5 points
# and the count's noise: tests/golden/check.py) and with the line that loads it (marked
# /* LINE:tag */ in the source) as its hottest line. Covers a global, a file-scope static, a function-scope static, heap objects from
# three call sites in two files (at -O0 named by the members of main's struct that receive
# them, issue 16; at -O2 that struct lives in registers: by their call sites), a shared
# library's global, __thread arrays of the executable and of the library (each in two
# threads) and the stacks of two threads (at -O2 the stack arrays by name, main::st and
# thread_main::st).
# tests/golden/check.py does the checks. Last, tests/golden/bigtls.c: a program with more
# __thread data than the stack limit.
# MEMPHIS_GOLDEN_SECONDS (default 2) is the length of each region, in CPU time.
. "$MEMPHIS_SRC/tests/tap.sh"
G=$S/tests/golden
SEC=${MEMPHIS_GOLDEN_SECONDS:-2}
CC=${CC:-cc}

command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }
# the main thread keeps a 20 MiB array on its stack
ulimit -s 65536 2>/dev/null || { echo "cannot set the stack limit to 64 MiB (ulimit -s)" >&2; exit 77; }

# region | report name (@SITE:tag = line of that call site) | kind | share | loading line
cat >expect <<'EOF'
main   | g_global                                        | global          | W_GLOBAL/W_MAIN | global
main   | golden.c:s_static                               | static          | W_STATIC/W_MAIN | static
main   | func_pool::f_static                             | function static | W_FUNC/W_MAIN   | func
main@O2 | malloc at golden.c:@SITE:heap_a in main        | heap            | W_HEAP_A/W_MAIN | heap_a
main@O2 | malloc at golden.c:@SITE:heap_b in make_b      | heap            | W_HEAP_B/W_MAIN | heap_b
main@O2 | malloc at golden_alloc.c:@SITE:heap_c in golden_alloc_c | heap   | W_HEAP_C/W_MAIN | heap_c
main@O0 | main::h.a (malloc at golden.c:@SITE:heap_a)    | heap            | W_HEAP_A/W_MAIN | heap_a
main@O0 | main::h.b (malloc at golden.c:@SITE:heap_b via make_b, from golden.c:@SITE:recv_b) | heap | W_HEAP_B/W_MAIN | heap_b
main@O0 | main::h.c (malloc at golden_alloc.c:@SITE:heap_c via golden_alloc_c, from golden.c:@SITE:recv_c) | heap | W_HEAP_C/W_MAIN | heap_c
main   | libgolden.so.1:golden_lib                       | global          | W_LIB/W_MAIN    | lib
main   | libgolden.so.1:golden_lib_tls                   | tls             | W_LIB_TLS/W_MAIN | lib_tls
main   | t_tls                                           | tls             | W_TLS/W_MAIN    | tls
main   | <stack of thread 0>                             | stack           | W_STACK/W_MAIN  | stack
thread | t_tls                                           | tls             | T_TLS/T_SUM     | tls_t
thread | libgolden.so.1:golden_lib_tls                   | tls             | T_LIB_TLS/T_SUM | lib_tls_t
thread | <stack of thread 1>                             | stack           | T_STACK/T_SUM   | stack_t
thread | g_global                                        | global          | T_GLOBAL/T_SUM  | global_t
EOF
# -O2 inlines loads_main and loads_thread into main and thread_main, which own the stack
# arrays: there they are locals of the sampled frame, named function::var (issue 16
# item 4); at -O0 they stay the thread's stack: they are in the caller's frame, whose CFA
# is rbp-based and whose return address lies 20 MiB up, past the STACKS entry's bytes
cp expect expect.O0
sed -e 's/| <stack of thread 0> *| stack *|/| main::st | local |/' \
	-e 's/| <stack of thread 1> *| stack *|/| thread_main::st | local |/' expect >expect.O2

for opt in O0 O2; do
	rm -rf "$opt" && mkdir "$opt" && cd "$opt" || exit 1
	# a versioned library as installed ones are: the report names it in its soname form
	if "$CC" -g -"$opt" -shared -fPIC -Wl,-soname,libgolden.so.1 -o libgolden.so.1.0.0 \
		"$G/golden_lib.c" 2>build.err &&
		ln -s libgolden.so.1.0.0 libgolden.so.1 && ln -s libgolden.so.1 libgolden.so &&
		"$CC" -g -"$opt" -I"$S/include" -o golden "$G/golden.c" "$G/golden_alloc.c" \
			-L. -lgolden -Wl,-rpath,"$PWD" \
			-L"$B" -Wl,-rpath,"$B" -lmemphis -pthread 2>>build.err; then
		ok "$opt: build the golden program and libgolden.so"
	else
		not_ok "$opt: build the golden program and libgolden.so"
		sed 's/^/# /' build.err
	fi
	under_memphis "$opt" golden "" env MEMPHIS_PERIOD=250us ./golden "$SEC"
	for r in main thread; do
		"$REPORT" "$d" --all --json --top 0 --region $r >$r.json 2>report.err ||
			sed 's/^/# /' report.err
	done
	python3 "$G/check.py" "$TAP_N" "$opt" "$G" ../expect.$opt main.json thread.json >checks 2>check.err
	rc=$?
	cat checks
	TAP_N=$((TAP_N + $(grep -c '^\(not \)\{0,1\}ok ' checks)))
	[ $rc = 0 ] || { not_ok "$opt: tests/golden/check.py failed (exit $rc)"; sed 's/^/# /' check.err; }
	cd ..
done

# 20 MiB of __thread data, as golden.c has, with the default 8 MiB stack limit: glibc leaves a
# thread with default attributes only a few KiB above the static TLS in its stack, and the
# program must not die because memphis runs a thread of its own (tests/golden/bigtls.c).
if "$CC" -g -O2 -I"$S/include" -o bigtls "$G/bigtls.c" -L"$B" -Wl,-rpath,"$B" -lmemphis \
	2>build.err; then
	(ulimit -s 8192 && MEMPHIS_PERIOD=250us ./bigtls) >bigtls.out 2>bigtls.err
	rc=$?
	if [ $rc = 0 ] && grep -q '^bigtls ok$' bigtls.out; then
		ok "20 MiB of static TLS and an 8 MiB stack limit: the program runs under memphis"
	else
		not_ok "20 MiB of static TLS and an 8 MiB stack limit: the program runs under memphis (exit $rc)"
		sed 's/^/# /' bigtls.err
	fi
else
	not_ok "build tests/golden/bigtls.c"
	sed 's/^/# /' build.err
fi
echo "1..$TAP_N"
