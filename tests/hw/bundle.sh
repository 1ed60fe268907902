#!/bin/sh
# tests/hw/bundle.sh BUILD DIR - the built programs with every shared library they load
# (glibc and its loader included), numactl, /usr/bin/time and perf, patched (patchelf) to
# load from /tmp/mphb, and DIR/run: for a lent machine that has none of our packages and
# another distribution (the device tool's machines: Ubuntu, no network), to run there the
# hardware backends' checks (tests/hw/run.sh) and `make bench` (BENCH_QUICK=1 and
# BENCH_SPLIT=1 unless set otherwise). On that machine: sh DIR/run OUT (it copies DIR to
# /tmp/mphb; OUT gets info.txt, hw.tap, bench.txt). About 45 MB.
set -e
B=$(cd "${1:?usage: tests/hw/bundle.sh BUILD DIR}" && pwd)
D=${2:?usage: tests/hw/bundle.sh BUILD DIR}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
P=/tmp/mphb
command -v patchelf > /dev/null || { echo "tests/hw/bundle.sh: needs patchelf (apt-get install patchelf)" >&2; exit 2; }
rm -rf "$D"
mkdir -p "$D/build/tests" "$D/build/examples/cg" "$D/build/examples/hello" "$D/lib" "$D/bin" \
	"$D/src/tests/hw" "$D/src/bench" "$D/src/lib"
cp -a "$B"/memphis "$B"/memphis-report "$B"/libmemphis.so* "$D/build/"
cp "$B/examples/cg/cg" "$D/build/examples/cg/"
cp "$B/examples/hello/hello" "$D/build/examples/hello/"
cp "$B"/tests/prog_* "$B"/tests/tool_* "$B"/tests/*.so "$D/build/tests/"
rm -f "$D"/build/tests/*.d "$D"/build/tests/*.o
for t in numactl time perf; do
	p=$(command -v $t) && cp -L "$p" "$D/bin/" || echo "tests/hw/bundle.sh: no $t here: left out" >&2
done
cp "$SRC/bench/bench.sh" "$SRC/bench/bench_report.sh" "$D/src/bench/"
cp -r "$SRC/tests/callers" "$D/src/tests/"
cp "$SRC/tests/hw/run.sh" "$D/src/tests/hw/"
cp "$SRC/lib/config.h" "$D/src/lib/"
cp -r "$SRC/include" "$D/src/"
# every library any of them loads, then the loader and search path of each program
for f in "$D"/build/memphis* "$D"/build/libmemphis.so.? "$D"/build/examples/*/* "$D"/build/tests/* "$D"/bin/*; do
	ldd "$f" 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
done | sort -u | while read -r l; do cp -L "$l" "$D/lib/"; done
for f in "$D"/build/memphis "$D"/build/memphis-report "$D"/build/examples/*/* "$D"/build/tests/* "$D"/bin/*; do
	[ -L "$f" ] && continue
	if readelf -l "$f" 2> /dev/null | grep -q 'program interpreter'; then
		patchelf --set-interpreter "$P/lib/$(basename "$D"/lib/ld-linux*)" "$f"
	fi
	patchelf --force-rpath --set-rpath "$P/build:$P/lib" "$f"
done
patchelf --force-rpath --set-rpath "$P/lib" "$D/build/libmemphis.so"
cat > "$D/run" << 'EOF'
#!/bin/sh
# DIR/run OUT: what this machine has (CPU, NUMA, PMUs), tests/hw/run.sh, make bench.
OUT=${1:-/tmp/mphb-out}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
rm -rf /tmp/mphb && cp -a "$(dirname "$0")" /tmp/mphb || exit 2
export PATH=/tmp/mphb/bin:$PATH
# the benchmarks name /usr/bin/time
[ -x /usr/bin/time ] || ln -s /tmp/mphb/bin/time /usr/bin/time 2> /dev/null
M=/tmp/mphb/build S=/tmp/mphb/src ev=/sys/bus/event_source/devices
{
	uname -a; grep PRETTY /etc/os-release; id; nproc
	lscpu | grep -E 'Model name|Vendor|Socket|NUMA|Hypervisor'
	for n in /sys/devices/system/node/node[0-9]*; do echo "$n: cpus $(cat $n/cpulist)"; done
	echo "perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)"
	ls $ev
	for d in cpu cpu_core ibs_op; do
		[ -d $ev/$d ] && echo "$d: type $(cat $ev/$d/type); caps: $(grep -s . $ev/$d/caps/* | tr '\n' ' ')"
	done
	dmesg 2> /dev/null | grep -i -E 'performance events|pmu|ibs|pebs' | head
} > "$OUT/info.txt" 2>&1
cat "$OUT/info.txt"
cd /tmp || exit 2
timeout 300 sh $S/tests/hw/run.sh $M > "$OUT/hw.tap" 2>&1
echo "tests/hw/run.sh: exit $?"; tail -n 20 "$OUT/hw.tap"
# quick, with the split of the collection cost by part (what a 16-core machine shows best)
BENCH_QUICK=${BENCH_QUICK:-1} BENCH_SPLIT=${BENCH_SPLIT:-1} sh $S/bench/bench.sh $M > "$OUT/bench.txt" 2>&1
echo "bench: exit $?"; cat "$OUT/bench.txt"
EOF
chmod +x "$D/run"
du -sh "$D"
