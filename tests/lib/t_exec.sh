# exec'd images (issue 38): `memphis run -o out -- ./wrap.sh` where the script execs the
# real program through shims gave the shell `out` and the program "File exists; sampling
# stopped" (0 samples); without -o, one empty run directory per image. Now an image that
# ends by exec having taken no sample (a shell on its way) leaves no run directory, and an
# image that finds DIR holding a run (one that did sample) continues in DIR.1, DIR.2, ...
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

printf '#!/bin/sh\nexec ./shim1.sh "$@"\n' > wrap.sh
printf '#!/bin/sh\nexec ./shim2.sh "$@"\n' > shim1.sh
printf '#!/bin/sh\nexec "%s" "$@"\n' "$P" > shim2.sh
# a shell that works (and is sampled) before it execs
printf '#!/bin/sh\ni=0\nwhile [ $i -lt 300000 ]; do i=$((i + 1)); done\nexec ./shim1.sh "$@"\n' > busy.sh
chmod +x wrap.sh shim1.sh shim2.sh busy.sh
MEMPHIS_DISABLE=1 ./wrap.sh work 0.3 > plain.out 2> /dev/null

# samples RUNDIR: the samples the report counts in RUNDIR
samples() { "$REPORT" "$1" 2> /dev/null | sed -n 's/^samples: \([0-9,]*\) total.*/\1/p' | tr -d ,; }
# program RUNDIR: the program that wrote it (the RUN key exe's last part)
program() { basename "$(run_key "$1" exe)"; }
# every run directory given holds samples
all_sampled() {
	for d in "$@"; do
		n=$(samples "$d")
		[ "${n:-0}" -gt 0 ] || return 1
	done
}

"$B/memphis" run -o out -- ./wrap.sh work 0.3 > o.out 2> o.err
rc=$?
last=$(ls -d out out.* 2> /dev/null | sort -t. -k2 -n | tail -n 1)
check "-o out through two shims: exit 0 ($rc), output as without memphis, nothing said" \
	sh -c "[ $rc = 0 ] && cmp -s plain.out o.out && [ ! -s o.err ]"
check_if "-o out: the program sampled in the last of out, out.N ($last: $(program "$last"), $(samples "$last") samples)" \
	'[ "$(program "$last")" = prog_hostile ] && [ "$(samples "$last")" -gt 0 ]'
check "-o out: no run directory without samples ($(ls -d out*))" all_sampled out*
rm -rf out*

"$B/memphis" run -- ./wrap.sh work 0.3 > d.out 2> /dev/null
check "no -o: the program's run directory" sh -c 'ls -d memphis-prog_hostile-* > /dev/null 2>&1'
for d in memphis-*; do
	n=$(samples "$d")
	check_if "no -o: $d holds samples ($n)" '[ "${n:-0}" -gt 0 ]'
done
rm -rf memphis-*

# the shell sampled before its exec: it keeps out, the program continues in out.N
"$B/memphis" run -o out -- ./busy.sh work 0.3 > b.out 2> b.err
last=$(ls -d out out.* 2> /dev/null | sort -t. -k2 -n | tail -n 1)
check_if "a shell that sampled keeps out ($(program out), $(samples out) samples)" \
	'[ "$(program out)" = dash ] || [ "$(program out)" = sh ] || [ "$(program out)" = bash ]'
check_if "the program continues in $last ($(program "$last"), $(samples "$last") samples)" \
	'[ "$last" != out ] && [ "$(program "$last")" = prog_hostile ] && [ "$(samples "$last")" -gt 0 ]'
check "nothing said" test ! -s b.err
done_testing
