# The hardware backends' real kernel path without a PMU: the PEBS backend opened on the
# software page-faults event (MEMPHIS_EVENT=perf::PAGE-FAULTS, period 1) with PEBS's own
# sample_type (IP|TID|TIME|ADDR|ID|CPU|DATA_SRC|WEIGHT_STRUCT), so the ring reader, the
# record parser and the writer run on records the kernel wrote. prog_hwpages writes once
# to every page of a global (300 pages), a static (200) and a heap array (100) inside one
# region: each write is one fault, one sample in that page, so the report must give each
# array exactly its page count. Run as root and, where setpriv and the user nobody exist,
# as nobody (unprivileged, kernel.perf_event_paranoid as the machine has it, <= 2).
. "$MEMPHIS_SRC/tests/tap.sh"

P=$B/tests/prog_hwpages
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo "?")

# counts DIR: "global static heap total lost" from the report's text
counts() {
	"$REPORT" "$1" > report.txt 2>&1
	awk '/^\([0-9]+\) hw_global / { g = $NF } /^\([0-9]+\) prog_hwpages\.c:hw_static / { s = $NF }
	     /^\([0-9]+\) posix_memalign at prog_hwpages/ { h = $NF }
	     /^samples: / { t = $2 } /lost [0-9]+, throttled/ { gsub(",", "", $0); for (i = 1; i <= NF; i++) if ($i == "lost") l = $(i + 1) }
	     END { printf "%d %d %d %d %s\n", g, s, h, t, l }' report.txt
}

run_case() { # run_case WHO CMD...: one run of prog_hwpages, its checks
	who=$1; shift
	rm -rf memphis-prog_hwpages-*/
	# MEMPHIS_STACK_BYTES=0: the stand-in event is a page fault like the first-touch
	# stream's, and the kernel (6.18 here) sizes every sample of one fault for the
	# dynamic fields of all its events: with the first-touch stream's 1 KB of stack, this
	# event's 72-byte samples took 1,256 bytes and its ring overflowed (417 of 600). Real
	# PEBS events are not page faults.
	MEMPHIS_STACK_BYTES=0 MEMPHIS_BACKEND=pebs MEMPHIS_EVENT=perf::PAGE-FAULTS MEMPHIS_HW_PERIOD=1 \
		"$@" "$P" > out.txt 2> err.txt
	rc=$?
	d=$(rundir prog_hwpages)
	if [ "$rc" != 0 ] || [ -z "$d" ]; then
		not_ok "$who: prog_hwpages runs under the pebs backend (exit $rc: $(head -c 300 err.txt))"
		return
	fi
	grep -a -q '^backend=pebs$' "$d/meta.mph" && ok "$who: backend=pebs in the RUN block" ||
		not_ok "$who: backend=pebs in the RUN block ($(grep -a '^backend' "$d/meta.mph" | head -n 3))"
	# what was sampled: latency-weighted events in the hardware's unit, no time period
	"$REPORT" dump --meta "$d" > meta.txt 2>&1
	check "$who: RUN says weight=latency, hw_period=1 events, no period_ns" \
		sh -c "grep -q '^#   weight=latency$' meta.txt && grep -q '^#   hw_period=1$' meta.txt &&
		       grep -q '^#   hw_period_unit=events$' meta.txt && ! grep -q '^#   period_ns=' meta.txt"
	check "$who: RUN hw_events names the event and its encoding (software type 1, PAGE_FAULTS config 2)" \
		grep -q '^#   hw_events=perf::PAGE-FAULTS type=1 config=0x2 config1=0 precise_ip=[0-3] period=1$' meta.txt
	check "$who: RUN precise_ip is the one the kernel took, no ldlat (MEMPHIS_EVENT's own)" \
		sh -c "grep -q '^#   precise_ip=[0-3]$' meta.txt && ! grep -q '^#   ldlat=' meta.txt"
	# the region's coverage (review W6/M3): the event's TOTAL_TIME_ENABLED and _RUNNING, as
	# the kernel counted them, in a NOTE; a software event is never multiplexed
	check "$who: a coverage NOTE for region 1: the event enabled and running the same time (> 0)" \
		sh -c "grep -Eq '^# note [0-9.]+ s: hw coverage: region=1 enabled_ns=([1-9][0-9]*) running_ns=\\1 event=perf::PAGE-FAULTS$' meta.txt"
	counts "$d" > counts.txt
	check "$who: the report's header: sampled time 100.0 % of the enabled time" \
		grep -q '^sampled time: perf::PAGE-FAULTS 100.0 % of the time it was enabled$' report.txt
	check "$who: the report's header gives the period in events, not in ns" \
		sh -c "grep -q '^backend: pebs, one sample every 1 events; weighting: hardware' report.txt &&
		       ! grep -q '^backend: .*period' report.txt"
	"$REPORT" --json "$d" > report.json 2> report.err
	check "$who: JSON run: hw_period 1, unit events, period_ns 0" python3 -c "
import json, sys
r = json.load(open('report.json'))['run']
sys.exit(not (r['hw_period'] == 1 and r['hw_period_unit'] == 'events' and r['period_ns'] == 0))"
	read -r g s h total lost < counts.txt
	echo "# $who (paranoid $paranoid): hw_global $g of 300 pages, hw_static $s of 200, heap $h of 100; $total samples, lost $lost"
	check_if "$who: every touched page found once, by variable (300 / 200 / 100 exactly)" \
		'[ "$g" = 300 ] && [ "$s" = 200 ] && [ "$h" = 100 ]'
	check_if "$who: nothing lost" '[ "$lost" = 0 ]'
	"$REPORT" dump "$d" > dump.txt 2>&1
	check "$who: samples carry the kernel's data source (PERF_MEM_NA 0x1e05080021) and weight 0" \
		grep -q "0x1e05080021" dump.txt
}

run_case root
if command -v setpriv > /dev/null && id nobody > /dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	# nobody must be able to write the run directory and read the build
	mkdir -p nb && chmod 777 nb && cd nb
	if setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$P"; then
		run_case nobody setpriv --reuid=nobody --regid=nogroup --clear-groups
	else
		skip "nobody: the pebs path unprivileged" "nobody cannot run $P (build directory not readable)"
	fi
	cd ..
elif [ "$(id -u)" != 0 ]; then
	echo "# already unprivileged (uid $(id -u)): the root case above is the unprivileged one"
else
	skip "nobody: the pebs path unprivileged" "no setpriv or no user nobody"
fi

# the plain backends here: a clear line each, and auto falls back to soft
rm -rf memphis-prog_hwpages-*/
MEMPHIS_BACKEND=pebs "$P" > /dev/null 2> err.txt
check "MEMPHIS_BACKEND=pebs without a PMU: one line naming the cause (no core PMU or no event)" \
	grep -E -q "cannot sample memory accesses: pebs: no (hardware core PMU|load-latency event)" err.txt
rm -rf memphis-prog_hwpages-*/
"$P" > /dev/null 2> err.txt
d=$(rundir prog_hwpages)
check "auto without PMU or module: soft, with one skip line for ibs, pebs and kmod each" \
	sh -c "grep -a -q '^backend=soft$' '$d/meta.mph' && test \$(grep -a -c -E '^backend_skip=(ibs|pebs|kmod): ' '$d/meta.mph') = 3"
done_testing
