#!/bin/sh
# The text report explains itself to a newcomer (issue 40), each explanation when its
# condition holds and not otherwise:
# - under the samples line, what non-memory, lost and throttled count, each only when not 0
#   (tool_gen's run: 2 non-memory, 15 lost, 2 throttled; its region "other": none lost or
#   throttled; a small seed's region "other": nothing to explain, no line);
# - under the tables' title, "few samples" when they rest on under 100 samples, with how to
#   get more: MEMPHIS_PERIOD for a run sampled by time, MEMPHIS_HW_PERIOD for a hardware
#   one; nothing at 3,000 samples;
# - the first-touch line says what its shares are of ("of these pages"), and none when one
#   thread at one line touched them all;
# - a legend for OBJ+0xOFF rows (code without a symbol or line) when the report shows one:
#   a program whose stripped library's thread reads the program's array (a real run,
#   skipped where the library cannot sample); none for tool_gen's runs, whose code has
#   lines;
# - one last "Next:" line naming the run directory as given, the options not given; once
#   for an MPI job and for its --rank N; none in the JSON.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built

"$GEN" g -n 50 > /dev/null
"$GEN" big -n 3000 > /dev/null
"$GEN" zero -n 12 --seed 1 > /dev/null
"$GEN" hw -n 50 --hw hw.txt > /dev/null
"$R" g > g.out 2> /dev/null
"$R" g --region other > other.out 2> /dev/null
"$R" zero --region other > zero.out 2> /dev/null
"$R" big --all > big.out 2> /dev/null
"$R" hw > hw.out 2> /dev/null

# --- the samples line's counts
legend() { grep '^  non-memory:\|^  lost:\|^  throttled:' "$1"; }
check "non-memory, lost and throttled, all not 0: each explained under the samples line" \
	grep -q '^  non-memory: samples whose instruction does not access memory, counted in no table; lost: samples the kernel could not hand over (its buffer was full); throttled: ' g.out
check_if "the legend follows the samples line" \
	'[ "$(grep -A1 "^samples: " g.out | tail -n 1 | cut -c1-13)" = "  non-memory:" ]'
check_if "non-memory alone not 0 (lost 0, throttled 0): non-memory explained, not the others" \
	'grep -q "^samples: .* lost 0, throttled 0" other.out && grep -q "^  non-memory: " other.out &&
	 ! grep -q "lost: \|throttled: " other.out'
check_if "all three 0: no legend line" \
	'grep -q "^samples: .* 0 non-memory; lost 0, throttled 0" zero.out && [ -z "$(legend zero.out)" ]'

# --- few samples
check "22 samples in the tables: 'few samples', their uncertainty, and a shorter period" \
	grep -q '^few samples: the tables rest on 22 samples, so a share in them is uncertain by up to +-21 points (95 %); for more, profile a longer run or region, or sample more often: memphis run --period 250us, or MEMPHIS_PERIOD=250us' g.out
check_if "'few samples' right under the tables' title" \
	'[ "$(grep -A1 "^Remote samples per node" g.out | tail -n 1 | cut -c1-12)" = "few samples:" ]'
check "a hardware run with few samples: a smaller MEMPHIS_HW_PERIOD" \
	grep -q '^few samples: .*a smaller MEMPHIS_HW_PERIOD (now 131,072 ops)' hw.out
check_if "3,000 samples: no 'few samples' line" '! grep -q "^few samples\|^no samples for" big.out'

# --- first touch
check "first touch by one thread at one line: no shares" \
	grep -Eq '^colidx: 100 % of 1,024 pages on node 0, first touched by thread 0 \(node 0\) at tool_gen\.c:[0-9]+$' big.out
check "first touch shared: each share says it is of these pages" \
	grep -Eq '^a: 50 % of 1,024 pages on node 0, 50 % on node 1, first touched by thread 0 \(node 0\) for 50 % of these pages, at tool_gen\.c:[0-9]+ for 50 % of these pages$' big.out
check_if "no bare '(50 %)' after a first-touch line any more" '! grep -q "^a: .*(50 %)$" big.out'

# --- OBJ+0xOFF
check_if "code with lines only (tool_gen): no OBJ+0xOFF legend" \
	'! grep -q "^OBJ+0xOFF" g.out big.out hw.out'
CC=${CC:-cc}
cat > raw.c <<'EOF'
/* a stripped library's code, run by a thread the library starts: no symbol, no line, and no
 * caller in the program to name instead */
#include <pthread.h>
static volatile long *buf;
static long sum;
static void *walk(void *arg)
{
	long n = (long)arg, s = 0;

	for (long k = 0; k < 16; k++)
		for (long i = 0; i < n; i += 8)
			s += buf[i];
	sum += s;
	return 0;
}
long raw_walk(volatile long *p, long n)
{
	pthread_t t;

	buf = p;
	if (pthread_create(&t, 0, walk, (void *)n) == 0)
		pthread_join(t, 0);
	return sum;
}
EOF
cat > main.c <<'EOF'
#include <memphis.h>
#include <stdio.h>
long raw_walk(volatile long *, long);
static long big[1 << 21];
int main(void)
{
	long s;

	memphis_mark_named("raw");
	s = raw_walk(big, 1 << 21);
	memphis_print();
	printf("%ld\n", s);
	return 0;
}
EOF
if ! command -v "$CC" > /dev/null || ! command -v strip > /dev/null; then
	skip "a stripped library's code: the OBJ+0xOFF legend" "no $CC or strip"
elif ! { "$CC" -O1 -shared -fPIC -pthread -o libraw.so raw.c && strip libraw.so &&
	 "$CC" -g -O1 -I"$S/include" -o raw main.c -L. -lraw -Wl,-rpath,"$PWD" \
		-L"$B" -Wl,-rpath,"$B" -lmemphis -pthread; } > build.err 2>&1; then
	not_ok "build a program with a stripped library"
	sed 's/^/# /' build.err
else
	MEMPHIS_PERIOD=100us MEMPHIS_OUTPUT=rawrun ./raw > /dev/null 2> raw.err
	"$R" rawrun > raw.out 2> /dev/null
	if ! grep -q '^    libraw\.so+0x[0-9a-f]* [0-9]' raw.out; then
		# no sampling here (no perf events), or too few samples in the library's loop
		skip "a stripped library's code: the OBJ+0xOFF legend" \
			"no libraw.so+0xOFF row in the report ($(grep '^samples:' raw.out))"
	else
		# libraw.so among the objects named: a rare sample in another object without
		# symbols (the loader, the vDSO) may be named beside it
		check "a libraw.so+0xOFF row: the legend names the object and its debug symbols" \
			grep -qE '^OBJ\+0xOFF: code at offset OFF of the shared object OBJ, which has no symbol or line for it \((.*; )?libraw\.so(; .*)?\); its debug symbols name it' raw.out
	fi
fi

# --- what next
check_if "the last line names the page and the run directory as given" \
	'[ "$(tail -n 1 g.out)" = "Next: memphis-report report --html g.html g writes a page with views and placement advice; more here: --advice, --by line, --matrix, --json (all options: --help)" ]'
"$R" ./g/ --advice --matrix > adv.out 2> /dev/null
check_if "options given are not offered again; a trailing / is not in the page's name" \
	'[ "$(tail -n 1 adv.out)" = "Next: memphis-report report --html g.html ./g/ writes a page with views and placement advice; more here: --by line, --json (all options: --help)" ]'
mkdir "a b" && cp -r g "a b/r'x"
"$R" "a b/r'x" > quote.out 2> /dev/null
cat > quote.want <<'EOF'
Next: memphis-report report --html 'r'\''x.html' 'a b/r'\''x' writes a page
EOF
check "a directory with a space and a quote: one shell word, quoted" grep -qF "$(cat quote.want)" quote.out
check_if "exactly one Next line" '[ "$(grep -c "^Next: " g.out)" = 1 ]'
"$R" g --json > g.json 2> /dev/null
check_if "none in the JSON" '! grep -q "Next: " g.json'
for r in 0 1; do "$GEN" job --rank $r --size 2 --host h0 -n 300 --seed $r > /dev/null; done
"$R" job > job.out 2> /dev/null
check_if "an MPI job: one Next line, the last, for the job's directory" \
	'[ "$(grep -c "^Next: " job.out)" = 1 ] && tail -n 1 job.out | grep -q "^Next: memphis-report report --html job.html job writes .*--by rank, --rank N, --json"'
"$R" job --rank 1 > rank.out 2> /dev/null
check_if "a job's --rank N: one Next line, for that rank's directory" \
	'[ "$(grep -c "^Next: " rank.out)" = 1 ] && tail -n 1 rank.out | grep -q "^Next: memphis-report report --html rank-1.html job/rank-1 "'
done_testing
