#!/bin/sh
# tests/lib/t_counters.sh - counters per region (issue 15). tests/programs/prog_counters.c
# faults 4000 pages in region "faults" on the main thread and starts a thread there that
# faults 1000; region "quiet" faults none. With MEMPHIS_PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS,
# PAPI_TOT_CYC: the two software events are counted per thread by the library's own
# perf_event_open (page faults within 2 % of the pages touched, in the region that touched
# them only; the thread made mid-region is counted, also when a scan found it before it
# registered itself), and the report says so per event; PAPI_TOT_CYC is named as not
# counted where the machine has no PMU, and the program's output and exit status are those
# of a run without memphis. With MEMPHIS_NUMA_COUNTERS=1 the kernel's counters and the
# resident pages per node are there. Then as the user nobody at perf_event_paranoid 2 and
# 3 (set for the length of one run, then put back): every event is counted or named with
# a reason, and the program is unaffected.
#
# Where libpfm4 knows no core PMU of the CPU (Debian 12's 4.13 on AMD family 26, a VM),
# PAPI 7.0 disables its perf_event component ("no default PMU"). LIBPFM_FORCE_PMU=perf
# makes that so on any machine (libpfm4 activates only its `perf` PMU, which is no core
# PMU, so PAPI finds none; PAPI shares the process's libpfm4): the software events are
# counted all the same. LIBPFM_FORCE_PMU=skx (a PMU PAPI has presets for): PAPI_TOT_CYC,
# one native event, goes the perf way; PAPI_L1_TCM, derived from two, goes to PAPI.
# $B/tests/shim_ctrcpu.so opens the library's counters on CPU 0 only, and prog_counters
# split faults 2000 pages on CPU 0 and 2000 on CPU 1: the kernel reads time_running about
# half of time_enabled, as for a multiplexed event; the counts must be flagged, scaled,
# and their coverage times the count must give back the 2000 faults counted (2 %).
. "$MEMPHIS_SRC/tests/tap.sh"
P=$B/tests/prog_counters
EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS,PAPI_TOT_CYC
if ! command -v python3 > /dev/null; then
	echo "t_counters: python3 is needed to read the JSON report" >&2
	exit 77
fi

"$P" > plain.out 2>&1
plain_rc=$?
grep '^sum' plain.out > plain.sum

# counted DIR WHO [CMD...]: run the program (under CMD) with the events into DIR; compare
# with the plain run. PRE: libraries preloaded ahead of libmemphis ($B/tests/shim_calls.so,
# whose lines on stderr are allowed).
counted() {
	dir=$1; who=$2; shift 2
	"$@" env MEMPHIS_PAPI_EVENTS=$EVENTS MEMPHIS_NUMA_COUNTERS=1 MEMPHIS_OUTPUT=$dir \
		LD_PRELOAD="${PRE:+$PRE }$B/libmemphis.so" "$P" > "$dir.out" 2> "$dir.err"
	rc=$?
	check_if "$who: exit status unchanged ($rc)" '[ "$rc" = "$plain_rc" ]'
	grep '^sum' "$dir.out" > "$dir.sum"
	check "$who: program output unchanged" cmp -s plain.sum "$dir.sum"
	check "$who: no line on stderr but memphis's" \
		sh -c "! grep -vE '^(memphis|usleep [0-9]+$|perf_switch [0-9]+$|affinity [0-9]+ [0-9]+$)' $dir.err | grep -q ."
	"$REPORT" report --json "$dir" > "$dir.json" 2> "$dir.rerr"
	"$REPORT" report "$dir" > "$dir.txt" 2>> "$dir.rerr"
}

# checks JSON ARGS: python checks of the report, one "ok ..." / "fail ..." line each
checks() {
	python3 - "$@" << 'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("fail the report's JSON reads: %s" % e)
    sys.exit(0)
mode, main_tid, thr_tid = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
names = {r["seq"]: r["name"] for r in d["regions"]}
ctr = {names[c["region"]]: c for c in d.get("counters", [])}
def say(ok, what): print(("ok " if ok else "fail ") + what)
def val(c, tid, ev):
    for t in c["threads"]:
        if t["tid"] == tid:
            return t["values"].get(ev)
    return None
def named(c, ev):
    return [b for b in c["not_counted"] if b["event"] == ev and b["reason"]]
say("faults" in ctr and "quiet" in ctr, "both regions have counters")
f, q = ctr.get("faults", {"threads": [], "not_counted": [], "kernel": [], "events": []}), \
       ctr.get("quiet", {"threads": [], "not_counted": [], "kernel": [], "events": []})
for ev in ("perf::TASK-CLOCK", "perf::PAGE-FAULTS", "PAPI_TOT_CYC"):
    say(ev in f["events"] or bool(named(f, ev)), ev + " counted or named with a reason")
if mode == "counted":
    pf = val(f, main_tid, "perf::PAGE-FAULTS")
    say(pf is not None and abs(pf - 4000) <= 80, "main thread: %s page faults in faults (4000 +- 2 %%)" % pf)
    pt = val(f, thr_tid, "perf::PAGE-FAULTS")
    say(pt is not None and abs(pt - 1000) <= 20, "thread made mid-region: %s page faults (1000 +- 2 %%)" % pt)
    tc = val(f, thr_tid, "perf::TASK-CLOCK")
    say(tc is not None and tc > 1000000, "thread made mid-region: task clock %s ns" % tc)
    pq = val(q, main_tid, "perf::PAGE-FAULTS")
    say(pq is not None and pq <= 5, "main thread: %s page faults in quiet (~0)" % pq)
    say(val(q, thr_tid, "perf::PAGE-FAULTS") is None, "the ended thread is not in quiet")
    s = f["sum"]["values"].get("perf::PAGE-FAULTS", 0)
    say(s == sum(t["values"]["perf::PAGE-FAULTS"] for t in f["threads"]), "sum is the threads' sum")
    if "PAPI_TOT_CYC" not in f["events"]:
        say(bool(named(f, "PAPI_TOT_CYC")), "PAPI_TOT_CYC named as not counted")
    how = {e["event"]: e for e in f.get("counted_by", [])}
    for ev in ("perf::TASK-CLOCK", "perf::PAGE-FAULTS"):
        e = how.get(ev, {})
        say(e.get("path") == "perf_event_open" and e.get("multiplexed") is False and
            e.get("coverage") == 1, "%s: counted by perf_event_open, not multiplexed (%s)" % (ev, e))
    cov = [t.get("coverage", {}).get("perf::PAGE-FAULTS") for t in f["threads"]]
    say(cov and all(c == 1 for c in cov), "every thread's page faults counted all the time: %s" % cov)
    res = sum(k["value"] for k in f["kernel"] if k["source"] == "numa_maps")
    say(res >= 5000, "numa_maps: %d resident pages at the end of faults (>= 5000)" % res)
    loc = sum(k["value"] for k in f["kernel"] if k["name"] == "local_node")
    say(loc >= 4900, "numastat: local_node moved by %d in faults (>= 4900)" % loc)
    if "numa_pages_migrated" in open("/proc/self/sched").read():
        say(any(k["source"] == "task" and k["tid"] == main_tid for k in f["kernel"]),
            "the main thread's numa_pages_migrated is there")
PY
}

main_tid() { sed -n 's/^main //p' "$1"; }
thr_tid() { sed -n 's/^thread //p' "$1"; }

mkdir -p root && counted root/run root
checks root/run.json counted "$(main_tid root/run.out)" "$(thr_tid root/run.out)" > root.chk
while read -r res what; do
	check_if "root: $what" '[ "$res" = ok ]'
done < root.chk
check "root: text report names the events" grep -q "perf::PAGE-FAULTS" root/run.txt
check "root: text report says how they were counted" \
	grep -q "^  counted by: perf::TASK-CLOCK (perf_event_open), perf::PAGE-FAULTS (perf_event_open)$" root/run.txt
if grep -q "PAPI_TOT_CYC" root/run.json && ! grep -q '"events": \[[^]]*PAPI_TOT_CYC' root/run.json; then
	check "root: text report says PAPI_TOT_CYC is not counted" grep -q "not counted: PAPI_TOT_CYC" root/run.txt
fi

# The thread registers itself 600 ms late ($B/tests/shim_calls.so): the drain thread's scan
# (every 250 ms) finds it first, where PAPI cannot attach a set to another thread without
# a PMU; the thread's own set, made when it registers, counts it all the same.
PRE=$B/tests/shim_calls.so
mkdir -p late && counted late/run "late thread" env SHIM_GETATTR_MS=600
PRE=
checks late/run.json counted "$(main_tid late/run.out)" "$(thr_tid late/run.out)" |
	grep "thread made mid-region" > late.chk
while read -r res what; do
	check_if "thread found by a scan before it registered: $what" '[ "$res" = ok ]'
done < late.chk

# no default PMU for PAPI, on any machine: libpfm4's perf PMU only
mkdir -p nopmu && counted nopmu/run "no default PMU" env LIBPFM_FORCE_PMU=perf
checks nopmu/run.json counted "$(main_tid nopmu/run.out)" "$(thr_tid nopmu/run.out)" > nopmu.chk
while read -r res what; do
	check_if "no default PMU: $what" '[ "$res" = ok ]'
done < nopmu.chk
check "no default PMU: PAPI's perf_event component is off, as PAPI says" \
	grep -q "not counted: PAPI_TOT_CYC (every thread): perf_event off: .*no default PMU" nopmu/run.txt

# the way of a PAPI preset: one native event (the perf way) or derived (PAPI)
LIBPFM_FORCE_PMU=skx MEMPHIS_PAPI_EVENTS=PAPI_TOT_CYC,PAPI_L1_TCM MEMPHIS_OUTPUT=preset \
	LD_PRELOAD=$B/libmemphis.so "$P" > preset.out 2>&1
"$REPORT" report --json preset > preset.json 2> /dev/null
python3 - preset.json > preset.chk << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["counters"][0]
path = {e["event"]: e["path"] for e in c.get("counted_by", [])}
path.update({b["event"]: b.get("path") for b in c["not_counted"]})
def say(ok, what): print(("ok " if ok else "fail ") + what)
say(path.get("PAPI_TOT_CYC") == "perf_event_open", "PAPI_TOT_CYC (one native event): %s" % path.get("PAPI_TOT_CYC"))
say(path.get("PAPI_L1_TCM") == "papi", "PAPI_L1_TCM (derived): %s" % path.get("PAPI_L1_TCM"))
PY
while read -r res what; do
	check_if "LIBPFM_FORCE_PMU=skx: $what" '[ "$res" = ok ]'
done < preset.chk

# multiplexed: counted on CPU 0 only, half the region on CPU 1
S=$B/tests/shim_ctrcpu.so
MEMPHIS_PAPI_EVENTS=perf::PAGE-FAULTS,perf::TASK-CLOCK MEMPHIS_OUTPUT=split \
	LD_PRELOAD="$S $B/libmemphis.so" "$P" split > split.out 2>&1
if grep -q "^split nopin" split.out; then
	skip "a count multiplexed" "the program could not run on CPUs 0 and 1 in turn"
else
	"$REPORT" report --json split > split.json 2> /dev/null
	"$REPORT" report split > split.txt 2> /dev/null
	python3 - split.json "$(main_tid split.out)" "$(sed -n 's/^split //p' split.out)" > split.chk << 'PY'
import json, sys
d, tid, n = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
c = d["counters"][0]
how = {e["event"]: e for e in c.get("counted_by", [])}
t = [t for t in c["threads"] if t["tid"] == tid]
def say(ok, what): print(("ok " if ok else "fail ") + what)
for ev in ("perf::PAGE-FAULTS", "perf::TASK-CLOCK"):
    e = how.get(ev, {})
    say(e.get("path") == "perf_event_open" and e.get("multiplexed") is True and
        0 < e.get("coverage", 0) < 0.97, "%s flagged multiplexed: %s" % (ev, e))
v = t[0]["values"]["perf::PAGE-FAULTS"] if t else 0
cov = t[0]["coverage"].get("perf::PAGE-FAULTS", 0) if t else 0
say(abs(v * cov - n) <= 0.02 * n,
    "scaled: %d page faults x coverage %.4f = %.0f counted on CPU 0 (%d +- 2 %%)" % (v, cov, v * cov, n))
PY
	while read -r res what; do
		check_if "a count multiplexed: $what" '[ "$res" = ok ]'
	done < split.chk
	check "a count multiplexed: the text marks it and says so" \
		grep -q "^  multiplexed (\*): perf::PAGE-FAULTS on 1 of 1 threads" split.txt
fi

# a daemon closes every descriptor inside a region and puts its own files on their numbers:
# PAPI must not read, stop or close them (the program's file keeps exactly its lines)
H=$B/tests/prog_hostile
MEMPHIS_DISABLE=1 timeout 120 "$H" closefds > hplain.out 2> /dev/null
rm -f own.txt
MEMPHIS_PAPI_EVENTS=$EVENTS MEMPHIS_OUTPUT=hostile timeout 120 "$H" closefds > hprof.out 2> hprof.err
rc=$?
check_if "close_range inside a region: exit status 0 ($rc)" '[ "$rc" = 0 ]'
check "close_range inside a region: the program's file holds only its own lines" cmp -s hplain.out hprof.out
"$REPORT" report hostile > hostile.txt 2>&1
check "close_range inside a region: the counters are named as not read" \
	grep -q "not counted: perf::PAGE-FAULTS (thread 0): its descriptors were closed by the program" hostile.txt

# unprivileged, at paranoid 2 and 3
par=/proc/sys/kernel/perf_event_paranoid
old=$(cat $par 2> /dev/null)
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1 ||
	! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$P"; then
	skip "nobody at paranoid 2 and 3" "not root, no setpriv or user nobody, or the build is not readable by nobody"
else
	for level in 2 3; do
		mkdir -p "p$level" && chmod 777 "p$level"
		if ! echo "$level" > $par 2> /dev/null; then
			skip "nobody at paranoid $level" "this kernel does not take perf_event_paranoid=$level"
			continue
		fi
		counted "p$level/run" "nobody, paranoid $level" setpriv --reuid=nobody --regid=nogroup --clear-groups
		echo "$old" > $par
		checks "p$level/run.json" named 0 0 > "p$level.chk"
		while read -r res what; do
			check_if "nobody, paranoid $level: $what" '[ "$res" = ok ]'
		done < "p$level.chk"
	done
	echo "$old" > $par
fi
done_testing
