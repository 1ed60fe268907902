#!/bin/sh
# tests/hw/run.sh BUILD - the hardware backends on hardware, run by hand on a machine with a
# PMU (not in make check): ground-truth programs under MEMPHIS_BACKEND=ibs and =pebs.
#   prog_ratio: random loads, 3 from the global A for each 1 from the heap array B: among
#     attributed samples >= 95 % fall on A or B, and A's share is 75 % (within 5);
#   prog_hwpages: first writes to a global, a static and a heap array: each is named;
#   with >= 2 NUMA nodes, prog_ratio under numactl --membind=1 --cpunodebind=0: >= 90 %
#     of its samples remote, and the hardware's own remote flag set on most of them.
# Exits 77 with one line when the machine has neither an ibs_op nor a core PMU.
# Untested on hardware: no machine of the project has a PMU.
B=${1:-build}
B=$(cd "$B" && pwd) || exit 2
REPORT=$B/memphis-report
ev=/sys/bus/event_source/devices
backends=""
[ -e $ev/ibs_op/type ] && backends="$backends ibs"
{ [ -e $ev/cpu/events/mem-loads ] || [ -e $ev/cpu_core/events/mem-loads ]; } && backends="$backends pebs"
if [ -z "$backends" ]; then
	echo "tests/hw/run.sh: needs a PMU (ibs_op, or a core PMU with mem-loads) in $ev: none here"
	exit 77
fi
work=$(mktemp -d) && cd "$work" || exit 2
fail=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }

# share DIR NAME: the percentage of attributed samples on the variable NAME
share() {
	"$REPORT" "$1" | awk -v name="$2" '/^attributed: / { t = $2; gsub(",", "", t) } $0 ~ "^\\([0-9]+\\) (.* \\()?" name "[ :)]" { s += $NF }
		END { if (t) printf "%d\n", 100 * s / t; else print 0 }'
}
# attributed DIR: attributed samples as a percentage of all samples with an address
attributed() {
	"$REPORT" "$1" | awk '/^attributed: / { t = $2; gsub(",", "", t) } /^\([0-9]+\) <unknown> / { u += $NF }
		END { if (t) printf "%d\n", 100 * (t - u) / t; else print 0 }'
}

for be in $backends; do
	rm -rf memphis-*
	MEMPHIS_BACKEND=$be "$B/tests/prog_ratio" 3 > /dev/null 2> err || { not_ok "$be: prog_ratio runs ($(head -c 200 err))"; continue; }
	d=$(ls -td memphis-prog_ratio-*/ | head -n 1)
	grep -a -q "^backend=$be\$" "$d/meta.mph" && ok "$be: backend=$be" || not_ok "$be: backend=$be ($(grep -a '^backend' "$d/meta.mph"))"
	a=$(attributed "$d"); A=$(share "$d" A); Bs=$(share "$d" "malloc at prog_ratio.c")
	echo "# $be prog_ratio: $a % attributed, A $A %, B $Bs %"
	[ "$a" -ge 95 ] && ok "$be: >= 95 % of samples attributed ($a)" || not_ok "$be: >= 95 % of samples attributed ($a)"
	[ "$A" -ge 70 ] && [ "$A" -le 80 ] && ok "$be: A's share 75 +- 5 % ($A)" || not_ok "$be: A's share 75 +- 5 % ($A)"
	rm -rf memphis-*
	MEMPHIS_BACKEND=$be "$B/tests/prog_hwpages" 4096 4096 4096 > /dev/null 2>&1
	d=$(ls -td memphis-prog_hwpages-*/ | head -n 1)
	r=$("$REPORT" "$d")
	for v in hw_global hw_static "posix_memalign at prog_hwpages"; do
		echo "$r" | grep -q "^([0-9]*) $v" && ok "$be: prog_hwpages: $v named" || not_ok "$be: prog_hwpages: $v named"
	done
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2> /dev/null | wc -l)
	if [ "$nodes" -ge 2 ] && command -v numactl > /dev/null; then
		rm -rf memphis-*
		MEMPHIS_BACKEND=$be numactl --membind=1 --cpunodebind=0 "$B/tests/prog_ratio" 3 > /dev/null 2>&1
		d=$(ls -td memphis-prog_ratio-*/ | head -n 1)
		line=$("$REPORT" "$d" | grep '^attributed: ' | tr -d ,)
		rem=$(echo "$line" | awk '{ for (i = 1; i <= NF; i++) if ($i == "remote") r = $(i - 1); print (100 * r / $2) }' | cut -d. -f1)
		hw=$("$REPORT" dump --samples "$d" | awk '$7 ~ /exact/ { t++; if ($7 ~ /remote_hw/) h++ } END { if (t) printf "%d\n", 100 * h / t; else print 0 }')
		echo "# $be remote: $rem % remote by page home, $hw % by the hardware's flag"
		[ "${rem:-0}" -ge 90 ] && ok "$be: membind=1 cpunodebind=0: >= 90 % remote ($rem)" || not_ok "$be: membind=1 cpunodebind=0: >= 90 % remote ($rem)"
		[ "${hw:-0}" -ge 50 ] && ok "$be: the hardware says remote for most ($hw %)" || not_ok "$be: the hardware says remote for most ($hw %)"
	else
		echo "# $be: one NUMA node (or no numactl): no remote/local split"
	fi
done
echo "1..$n"
cd / && rm -rf "$work"
[ "$fail" = 0 ]
