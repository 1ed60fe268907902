# dlopen'd libraries: a library loaded after the start and before a region, unloaded and
# loaded again inside a region, then moved to another address and unloaded inside the
# region (tests/programs/prog_dlopen.c). Its global must be named with its source lines in every
# phase, and the memory samples taken in its code must have an address and that variable.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_dlopen"
L="$B/tests/dlib_table.so"

MEMPHIS_DISABLE=1 "$P" "$L" 4 > plain.out 2> plain.err
MEMPHIS_PERIOD=100us "$P" "$L" 4 > prof4.out 2> /dev/null
check "output unchanged" cmp -s plain.out prof4.out
rm -rf memphis-*/
# phase_counts PHASE: "TAB MEM ok|no-lines" of PHASE.txt and samples.dump: dl_table's
# samples, the memory samples in the library's code, whether dl_table has its lines
phase_counts() {
	python3 - "$1.txt" samples.dump "$d/meta.mph" "$1" <<'PY'
import re, sys
txt, dump, meta, phase = sys.argv[1:]
spans = [(int(a, 16), int(b, 16)) for a, b in
         re.findall(rb'([0-9a-f]+)-([0-9a-f]+) r-xp [^\n]*dlib_table\.so\n', open(meta, 'rb').read())]
mem = 0  # dump lines: time cpu tid ip sampled_ip addr flags page_node region
for l in open(dump):
    f = l.split()
    # the kernel's samples (page faults of the library's pages) are not the tables'
    if l.startswith("#") or len(f) < 9 or f[-1] != phase or f[6] == "nonmem" or "kernel" in f[6].split(","):
        continue
    if any(lo <= int(f[3], 16) < hi for lo, hi in spans):
        mem += 1
tab = 0
lines = False
var = None
for l in open(txt):
    m = re.match(r"\(\d+\) (.*) (\d+)$", l.rstrip())
    if m:
        var = m.group(1)
        if var.endswith(":dl_table"):
            tab += int(m.group(2))
        continue
    if not l.startswith("    "):
        var = None
    elif var and var.endswith(":dl_table") and l.startswith("    dlib_table.c:"):
        lines = True
print(tab, mem, "ok" if lines else "no-lines")
PY
}
# The bound is on the memory samples taken in the library's code (their IP in one of its
# executable mappings in the run's maps snapshots): those must have an address and be
# named dl_table. The rest of a phase, the loader's and malloc's work in dlopen/dlclose,
# has a few samples per run without an address (an IP at a branch target has no known
# predecessor) or of no variable, whatever the phase's length: not the library's.
# dl_table's samples in a phase: more than 20, fixed work (REPS passes over 4 MiB) whose
# samples depend on the CPU (57-69 at 12 here). A count of mean lambda is 20 or fewer with
# P <= 1e-4 / 3 when lambda >= stats.py pneed 21 3.3e-5 (45); the passes are made more
# until the fewest phase has half as much again, its count standing for lambda.
want=$(stats pneed 21 3.3e-5 | awk '{ print int(1.5 * $1 + 0.999) }')
reps=12
while :; do
	rm -rf memphis-prog_dlopen-*/
	MEMPHIS_PERIOD=100us "$P" "$L" $reps > prof.out 2> prof.err
	d=$(rundir prog_dlopen)
	"$REPORT" dump "$d" --samples > samples.dump 2> samples.err
	fewest=
	for phase in before first moved; do
		"$REPORT" --all --top 0 --region "$phase" "$d" > "$phase.txt" 2> "$phase.err"
		phase_counts "$phase" > "$phase.res"
		read tab mem lines < "$phase.res"
		[ -z "$fewest" ] || [ "${tab:-0}" -lt "$fewest" ] && fewest=${tab:-0}
	done
	echo "# $reps passes a phase: the fewest phase has $fewest samples of dl_table (want $want)"
	[ "$fewest" -ge "$want" ] || [ $reps -ge 192 ] && break
	reps=$(awk -v r=$reps -v f="$fewest" -v w="$want" 'BEGIN { t = f < 1 ? 192 : int(r * w / f * 1.2) + 1; print (t > 192 ? 192 : t) }')
done
check "the program runs profiled" test -s prof.out
b1=$(sed -n 's/^base first //p' prof.err)
b2=$(sed -n 's/^base moved //p' prof.err)
check "the library came back at another address ($b1 then $b2)" test -n "$b1" -a "$b1" != "$b2"
for phase in before first moved; do
	read tab mem lines < "$phase.res"
	echo "# $phase: dl_table $tab of the $mem memory samples in the library's code, lines $lines"
	check "$phase: the library's global is named, with its source lines ($tab samples, $lines)" \
		test "${tab:-0}" -gt 20 -a "$lines" = ok
	check "$phase: at most 5% of the library's memory samples without an address or variable ($mem - $tab of $mem)" \
		test $(( (${mem:-0} - ${tab:-0}) * 20 )) -le "${mem:-0}"
done
# a dlclose first writes the layout its samples were taken in: the moved library is in a
# maps snapshot whatever the drain thread's polls saw (its samples were <unknown> in about
# one run in ten when no poll fell between the dlopen and the dlclose)
check "a maps snapshot holds the library at its moved address ($b2)" python3 - "$d/meta.mph" "$b2" <<'PY'
import re, sys
data, addr = open(sys.argv[1], 'rb').read(), int(sys.argv[2], 16)
spans = [(int(a, 16), int(b, 16)) for a, b in
         re.findall(rb'([0-9a-f]+)-([0-9a-f]+) [^\n]*dlib_table\.so\n', data)]
sys.exit(not any(lo <= addr < hi for lo, hi in spans))
PY
rm -rf memphis-*/
