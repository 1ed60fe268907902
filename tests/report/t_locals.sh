#!/bin/sh
# tests/report/t_locals.sh - stack data by local variable (issue 16 item 4): samples whose data
# address lies in the sampling thread's own stack are named "function::var" (kind local)
# by the DWARF location of the sampled frame's locals, with the frame's CFA from the
# sample's registers (STACKS entry) and the CFI.
#   - C (-O2, tests/programs/prog_locals.c): kernel() loads its local arrays hot and cold 7:3 with
#     loads of equal cost: kernel::hot and kernel::cold, hot's share 70 +- 8 points; peek()
#     loads main's array far through a pointer: main::far, a local of its caller's frame;
#     vla() loads its variable-length array (no DWARF size, no variable): those samples
#     stay <stack of thread 0>; kernel's locals have the first touch of their pages;
#     without STACKS entries (MEMPHIS_STACK_BYTES=0) nothing is local.
#   - Fortran (-O2 -fopenmp, tests/fixtures/locals_lu.f90): blts, called by two OpenMP
#     threads, loads its automatic arrays tmat and tv 7:3: blts::tmat and blts::tv in both
#     threads' stacks, tmat's share 70 +- 8 points, hardly any <stack of thread N> left.
#   Which instruction a timer interrupt lands on depends on the CPU: on an AMD EPYC host
#   the shares were 64.6-70.6 % (C, 7 runs) and 65.2-67.7 % (Fortran, 6), here 67-68,
#   not 70; a local named wrongly would give 30 % (swapped) or 50 % (mixed). So the true
#   share is taken to lie in [0.63, 0.75], and hot's (tmat's) count of n passes within
#   stats.py share's range (P <= 1e-4 of failing by chance), with n at least
#   stats.py apart 0.63 0.75 0.5 (843: a 50/50 mix then fails with P >= 1 - 1e-4): the
#   program runs longer until n reaches that. main::far and the VLA's samples: each
#   phase has a third of the region's CPU time, and its array about half of the phase's
#   loads (0.59 and 0.61 of a third seen): each is at least stats.py min N 0.1 of the
#   region's N samples.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
export MEMPHIS_PERIOD=250us

# vars RUNDIR > FILE: "name<TAB>kind<TAB>samples<TAB>first touch's line" per variable of
# the JSON report
vars() {
	"$REPORT" --json "$1" | python3 -c '
import json, sys
for v in json.load(sys.stdin)["variables"]:
    ft = v["first_touch"] or {}
    print("%s\t%s\t%d\t%s" % (v["name"], v["kind"], v["samples"], ft.get("line") or "-"))'
}
# samples FILE NAME: the samples of variable NAME (0 if absent)
samples() { awk -F '\t' -v n="$2" '$1 == n { s = $3 } END { print s + 0 }' "$1"; }
# kind FILE NAME: the kind of variable NAME
kind() { awk -F '\t' -v n="$2" '$1 == n { print $2 }' "$1"; }
# share A B: A's share of A + B in percent, one decimal
share() { python3 -c "import sys; a, b = $1, $2; print('%.1f' % (100.0 * a / (a + b) if a + b else 0))"; }
# the true share's range, and what a mixed attribution gives
LO=0.63 HI=0.75 WRONG=0.5
NEED=$(stats apart $LO $HI $WRONG)
# longer SECS N: the seconds that give NEED samples where SECS gave N (half as many again;
# 0: N is enough; at most 16 s)
longer() { awk -v s="$1" -v n="$2" -v w="$NEED" 'BEGIN { if (n >= w) print 0; else if (n < 1) print 16;
	else { t = s * w / n * 1.5; print (t > 16 ? 16 : t) } }'; }

# 1. C
secs=1
while :; do
	rm -rf memphis-prog_locals-*/
	"$B/tests/prog_locals" $secs > c.out || not_ok "prog_locals runs"
	d=$(rundir prog_locals)
	vars "$d" > c.vars
	hot=$(samples c.vars kernel::hot)
	cold=$(samples c.vars kernel::cold)
	more=$(longer $secs $((hot + cold)))
	[ "$more" = 0 ] || [ "$secs" = 16 ] && break
	secs=$more
done
sed 's/^/# /' c.vars
sh=$(share "$hot" "$cold")
range=$(stats share "$hot" $((hot + cold)) $LO $HI $WRONG)
check "C: kernel's arrays are kernel::hot and kernel::cold, kind local" \
	test "$(kind c.vars kernel::hot)" = local -a "$(kind c.vars kernel::cold)" = local
check "C: kernel::hot's share of hot + cold is 63-75 % but for chance ($sh %: $hot of $((hot + cold)) samples in ${secs}s a phase; least, most, samples needed: $range)" \
	share_ok "$hot" $((hot + cold)) $LO $HI $WRONG
nall=$(awk -F '\t' '{ s += $3 } END { print s + 0 }' c.vars)
tenth=$(stats min "$nall" 0.1)
# kernel's frame is the deepest the stack went: its pages are first touched in kernel
# (lines 25-47: filling the arrays), and those touches are its locals'
ft=$(awk -F '\t' '$1 ~ /^kernel::(hot|cold)$/ && $4 ~ /^prog_locals.c:/ { split($4, a, ":"); if (a[2] >= 25 && a[2] <= 47) print $1 }' c.vars | head -n 1)
check "C: a page of kernel's locals is first touched in kernel, and the touch is the local's (${ft:-none})" \
	test -n "$ft"
far=$(samples c.vars main::far)
check "C: peek's loads from its caller's array are main::far, kind local ($far samples of $nall, $tenth wanted)" \
	test "$far" -ge "$tenth" -a "$(kind c.vars main::far)" = local
st=$(samples c.vars "<stack of thread 0>")
check "C: vla's loads from its variable-length array stay <stack of thread 0> ($st samples of $nall, $tenth wanted)" \
	test "$st" -ge "$tenth"
check "C: the variable-length array vla::v is no variable" sh -c '! grep -q "^vla::v	" c.vars'

MEMPHIS_STACK_BYTES=0 "$B/tests/prog_locals" 0.3 > c0.out || not_ok "prog_locals runs without stacks"
d0=$(ls -td memphis-prog_locals-*/ | head -n 1)
vars "$d0" > c0.vars
check "C: without STACKS entries no variable is local" sh -c '! grep -q "	local	" c0.vars'

# 2. Fortran
FC=${FC:-gfortran}
if command -v "$FC" >/dev/null && [ -f "$B/fortran/memphis.mod" ]; then
	"$FC" -g -O2 -fopenmp -I"$B/fortran" "$S/tests/fixtures/locals_lu.f90" -o lu \
		-L"$B" -Wl,-rpath,"$B" -lmemphis_f -lmemphis || not_ok "gfortran builds locals_lu.f90"
	secs=1.5
	while :; do
		rm -rf memphis-lu-*/
		./lu $secs > f.out || not_ok "locals_lu runs"
		d=$(rundir lu)
		vars "$d" > f.vars
		tm=$(samples f.vars blts::tmat)
		tv=$(samples f.vars blts::tv)
		more=$(longer $secs $((tm + tv)))
		[ "$more" = 0 ] || [ "$secs" = 16 ] && break
		secs=$more
	done
	sed 's/^/# /' f.vars
	sf=$(share "$tm" "$tv")
	range=$(stats share "$tm" $((tm + tv)) $LO $HI $WRONG)
	check "Fortran: blts's arrays are blts::tmat and blts::tv, kind local" \
		test "$(kind f.vars blts::tmat)" = local -a "$(kind f.vars blts::tv)" = local
	check "Fortran: blts::tmat's share of tmat + tv is 63-75 % but for chance ($sf %: $tm of $((tm + tv)) samples in ${secs}s; least, most, samples needed: $range)" \
		share_ok "$tm" $((tm + tv)) $LO $HI $WRONG
	ftf=$(awk -F '\t' '$1 ~ /^blts::(tmat|tv)$/ && $4 ~ /^locals_lu.f90:2[12]$/ { print $1 }' f.vars | head -n 1)
	check "Fortran: a page of blts's arrays is first touched where blts fills them (${ftf:-none})" \
		test -n "$ftf"
	# Both threads' frames named: no stack sample of blts's loop (lines 26-35) is left as
	# <stack of thread N>. Others are: the exit test's temporaries (line 38) and
	# cpu_time's own frame, a share that grows with the cost of its system call.
	rest=$("$REPORT" --json --top 0 "$d" | python3 -c '
import json, re, sys
n = 0
for t in json.load(sys.stdin)["tables"]:
    for e in t["entries"]:
        if e["name"].startswith("<stack of thread"):
            n += sum(i["count"] for i in e["items"] if re.fullmatch(r"locals_lu\.f90:(2[6-9]|3[0-5])", i["name"]))
print(n)')
	check "Fortran: both threads' blts frames are named: ${rest:-?} samples of its loop left as <stack of thread N>" \
		test "${rest:-1}" = 0
else
	skip "Fortran: blts::tmat and blts::tv" "no $FC or no memphis.mod"
	skip "Fortran: blts::tmat's share" "no $FC or no memphis.mod"
fi
done_testing
