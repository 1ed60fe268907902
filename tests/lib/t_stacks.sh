# STACKS entries (registers and top of the user stack, lib/stack.c, post/run/rundir_stacks.c)
# on tests/programs/prog_stacks.c: samples in memcpy/memset carry entries whose IP register is the
# sampled IP (a kernel sample's: the user IP at the kernel's entry) and whose stack holds a
# return address into the program's code; first
# touches by memset carry entries; samples in the executable on heap data have none;
# samples on a local array have them; a thread with a 16 KiB stack gets entries cut at its
# stack's top; MEMPHIS_STACK_BYTES=0 gives none; the program's output and exit status are
# those of an unprofiled run.
# "Every sample of a kind has X" needs enough of them to mean something: 20 of each kind
# (a property broken for 37 % of them or more then shows with P >= 1 - 1e-4), 5 of the
# small thread. The phases are fixed work (the same output as unprofiled), whose samples
# depend on the CPU: 49-128 a kind here. A count of mean lambda is below 20 with
# P <= 1e-4 / 3 when lambda >= stats.py pneed 20 3.3e-5 (43), below 5 with P <= 1e-4 when
# lambda >= stats.py pneed 5 (17.8); the work is scaled up (prog_stacks SCALE) until the
# fewest of the run has half as much again, its count standing for lambda.
. "$MEMPHIS_SRC/tests/tap.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the dumps" >&2; exit 77; }

P=$B/tests/prog_stacks
SCALE=1

# run NAME [VAR=VALUE...]: profile prog_stacks SCALE at 250 us into run-NAME/, dumps beside it
run() {
	name=$1; shift
	rm -rf "run-$name"
	env MEMPHIS_PERIOD=250us MEMPHIS_OUTPUT="run-$name" "$@" "$P" $SCALE > "$name.out" 2> "$name.err"
	echo $? > "$name.rc"
	"$REPORT" dump --meta "run-$name" > "$name.meta"
	"$REPORT" dump --samples "run-$name" > "$name.samples"
	"$REPORT" dump --touches "run-$name" > "$name.touches"
	"$REPORT" dump --stacks "run-$name" > "$name.stacks"
}

# judge NAME: one line of counts (see the python below)
judge() {
	python3 - "$1" <<'PY'
import sys
n = sys.argv[1]
err = dict((w[0], w[1:]) for w in (l.split() for l in open(n + ".err")) if w)
tlo, thi = (int(x, 16) for x in err["text"])
hlo, hhi = (int(x, 16) for x in err["heap"])
small = int(err["small"][0])
stacks = {}  # tid -> (lo, hi)
for l in open(n + ".meta"):
    w = l.split()
    if len(w) > 9 and w[3] == "thread" and "stack" in w:
        lo, hi = w[w.index("stack") + 1].split("-")
        stacks[int(w[w.index("tid") + 1])] = (int(lo, 16), int(hi, 16))
ent = {}
missing = 0
for l in open(n + ".stacks"):
    w = l.split()
    if not w or w[0] not in ("sample", "touch"):
        continue
    if w[4] == "missing":
        missing += 1
        continue
    words = [int(x, 16) for x in w[7:]]
    ent[(w[0], w[1], int(w[2]))] = (int(w[3], 16), int(w[4], 16), int(w[5], 16), int(w[6]), words)
intext = lambda a: tlo <= a < thi
c = dict.fromkeys("lib lib_entry lib_ip lib_ret heap heap_none local local_entry "
                  "touch touch_entry touch_ret touch_big small small_inside small_cut".split(), 0)
for l in open(n + ".samples"):
    w = l.split()
    if not w or w[0] == "#":
        continue
    tid, ip, sip, addr, flags, region = int(w[2]), int(w[3], 16), int(w[4], 16), int(w[5], 16), w[6].split(","), w[-1]
    e = ent.get(("sample", w[0], tid))
    mem = "nonmem" not in flags
    if region == "copy" and mem and not intext(ip):
        c["lib"] += 1
        c["lib_entry"] += "stack" in flags and e is not None
        # a sample in the kernel (a page fault in memset) carries the user registers at
        # the kernel's entry: their IP is the user instruction, sampled_ip the kernel's
        c["lib_ip"] += e is not None and e[1] == (ip if "kernel" in flags else sip)
        c["lib_ret"] += e is not None and any(intext(x) for x in e[4])
    if region == "heap" and intext(ip) and "exact" in flags and hlo <= addr < hhi:
        c["heap"] += 1
        c["heap_none"] += "stack" not in flags
    lo, hi = stacks.get(tid, (0, 0))
    if region == "local" and "exact" in flags and lo <= addr < hi:
        c["local"] += 1
        c["local_entry"] += "stack" in flags and e is not None
for (kind, t, tid), e in ent.items():
    if tid == small:
        lo, hi = stacks[small]
        c["small"] += 1
        c["small_inside"] += e[2] + e[3] <= hi
        c["small_cut"] += e[3] == hi - e[2]
for l in open(n + ".touches"):
    w = l.split()
    ip, addr = int(w[3], 16), int(w[4], 16)
    if not intext(ip) and hlo <= addr < hhi:
        c["touch"] += 1
        e = ent.get(("touch", w[0], int(w[2])))
        c["touch_entry"] += "stack" in w and e is not None and e[1] == ip
        c["touch_ret"] += e is not None and any(intext(x) for x in e[4])
c["touch_big"] = sum(1 for (kind, t, tid), e in ent.items() if kind == "touch" and e[3] > 256)
print(" ".join("%s=%d" % kv for kv in c.items()), "missing=%d" % missing)
PY
}

# scale_for NEED COUNT...: the scale that gives each COUNT 1.5 NEED (0: SCALE does)
scale_for() {
	need=$1; shift
	printf '%s\n' "$@" | awk -v w="$need" -v s=$SCALE '{ if (m == "" || $1 < m) m = $1 }
		END { t = 1.5 * w; if (m >= t) print 0; else if (m < 1) print 16 * s; else print int(s * t / m) + 1 }'
}

want=$(stats pneed 20 3.3e-5)
while :; do
	run default
	judge default > default.res
	eval "$(cat default.res)"
	echo "# default, scale $SCALE: $(cat default.res)"
	more=$(scale_for "$want" "$lib" "$heap" "$local")
	[ "$more" = 0 ] || [ $SCALE -ge 16 ] && break
	SCALE=$((more > 16 ? 16 : more))
done
MEMPHIS_DISABLE=1 "$P" $SCALE > plain.out 2> /dev/null
plain_rc=$?
check_if "output and exit status ($(cat default.rc)) as unprofiled ($plain_rc)" \
	'cmp -s default.out plain.out && [ "$(cat default.rc)" = "$plain_rc" ]'
check_if "samples in memcpy/memset (ip outside the executable): enough ($lib >= 20; scale $SCALE)" '[ "$lib" -ge 20 ]'
check_if "... every one has its entry ($lib_entry of $lib)" '[ "$lib_entry" = "$lib" ]'
check_if "... whose IP register is the sampled IP ($lib_ip)" '[ "$lib_ip" = "$lib" ]'
check_if "... and whose stack holds a return address into the program ($lib_ret)" '[ "$lib_ret" = "$lib" ]'
check_if "first touches of the heap arrays by memset ($touch) have entries ($touch_entry) with a return address into the program ($touch_ret)" \
	'[ "$touch" -ge 2 ] && [ "$touch_entry" = "$touch" ] && [ "$touch_ret" = "$touch" ]'
check_if "first touches' entries keep at most 256 bytes of stack (MEMPHIS__FAULT_STACK_BYTES: $touch_big larger)" \
	'[ "$touch_big" = 0 ]'
ntouch_stk=$(grep -c " stack$" default.touches)
nentries=$(sed -n 's/^# stacks of first touches: \([0-9,]*\) entries.*/\1/p' default.meta | tr -d ,)
check_if "memset's faults of one call share an entry: ${nentries:-?} entries for $ntouch_stk touches" \
	'[ -n "$nentries" ] && [ "$ntouch_stk" -ge 1000 ] && [ $((nentries * 20)) -le "$ntouch_stk" ]'
check_if "samples in the executable on heap data ($heap >= 20) have no entry ($heap_none)" \
	'[ "$heap" -ge 20 ] && [ "$heap_none" = "$heap" ]'
check_if "samples on a local array ($local >= 20) have entries ($local_entry)" \
	'[ "$local" -ge 20 ] && [ "$local_entry" = "$local" ]'
check_if "every entry flagged is found (missing=$missing)" '[ "$missing" = 0 ]'
check_if "dump counts the STACKS blocks of the sample files and of meta.mph" \
	'grep -q "stack entries in .* STACKS blocks" default.stacks && grep -q "stacks of first touches: .* STACKS blocks" default.meta'

# 8 KiB from SP reach past the top of a 16 KiB stack: the entries stop at its top
want=$(stats pneed 5)
while :; do
	run wide MEMPHIS_STACK_BYTES=8192
	judge wide > wide.res
	eval "$(cat wide.res)"
	echo "# MEMPHIS_STACK_BYTES=8192, scale $SCALE: $(cat wide.res)"
	more=$(scale_for "$want" "$small")
	[ "$more" = 0 ] || [ $SCALE -ge 16 ] && break
	SCALE=$((more > 16 ? 16 : more))
	MEMPHIS_DISABLE=1 "$P" $SCALE > plain.out 2> /dev/null
done
check_if "16 KiB-stack thread: entries ($small >= 5) end inside its stack ($small_inside) and are cut at its top ($small_cut)" \
	'[ "$small" -ge 5 ] && [ "$small_inside" = "$small" ] && [ "$small_cut" -ge 1 ]'
check_if "... its output and exit status as unprofiled" \
	'cmp -s wide.out plain.out && [ "$(cat wide.rc)" = "$plain_rc" ]'

run off MEMPHIS_STACK_BYTES=0
check_if "MEMPHIS_STACK_BYTES=0: no entry, no flag, no STACKS block" \
	'! grep -q "^sample\|^touch" off.stacks && ! grep -q stack off.touches &&
	 ! awk "\$7 ~ /stack/" off.samples | grep -q . && ! grep -q STACKS off.stacks off.meta'
check_if "... output and exit status as unprofiled" \
	'cmp -s off.out plain.out && [ "$(cat off.rc)" = "$plain_rc" ]'

# a value perf cannot take: one line, 1024 used
for v in 12 9000 -8; do
	rm -rf "run-bad"
	MEMPHIS_STACK_BYTES=$v MEMPHIS_OUTPUT=run-bad MEMPHIS_PERIOD=10ms "$P" > bad.out 2> bad.err
	check_if "MEMPHIS_STACK_BYTES=$v: one line naming it, 1024 used" \
		'[ "$(grep -c "^memphis" bad.err)" = 1 ] && grep -q -- "MEMPHIS_STACK_BYTES=$v.*using 1024" bad.err &&
		 "$REPORT" dump --meta run-bad | grep -q "^#   stack_bytes=1024$"'
done
done_testing
