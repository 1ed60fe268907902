#!/bin/sh
# A run directory missing one or all of its cpuNNN.mph files, or one cut short (issue 38):
# meta.mph's CPU_SAMPLES records say how many samples of which regions each file got, so
# the report names each missing file with those samples, and a short one with what it
# holds of them, as damage: exit 2, the rest reported. The same in JSON ("damage") and in
# dump. A run of an older library (tool_gen writes none of those records) with no cpu file
# at all while its regions count samples: damage too.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built
P="$B/examples/hello/hello"
[ -x "$P" ] || { echo "not ok 1 - $P is not built"; exit 1; }

MEMPHIS_OUTPUT=run "$P" > /dev/null 2>&1
rc=$(run_rc o e "$R" run)
check_if "the whole run: exit 0, no damage (exit $rc)" '[ "$rc" = 0 ] && ! grep -q "damaged" e'
# what each file holds, as dump counts it, and what meta.mph says it got
"$R" dump run --samples 2> /dev/null | sed -n 's/^# \(cpu[0-9]*\.mph\): \([0-9,]*\) samples.*/\1 \2/p' > held
"$R" dump run --meta > meta.txt 2>&1
files=$(ls run | grep '^cpu[0-9]*\.mph$')
check_if "the run has cpu files ($(echo $files))" '[ -n "$files" ]'
for f in $files; do
	held=$(sed -n "s/^$f //p" held)
	said=$(sed -n "s/^#   $f in region [0-9]*: \([0-9,]*\) samples$/\1/p" meta.txt | tr -d , |
		awk '{ s += $1 } END { print s + 0 }')
	check_if "$f: meta.mph says $said samples were written to it, dump reads $held" \
		'[ "$said" -gt 0 ] && [ "$(echo "$held" | tr -d ,)" = "$said" ]'
	rm -rf miss && cp -r run miss && rm "miss/$f"
	rc=$(run_rc o e "$R" miss)
	said_c=$(echo "$said" | awk '{ n = $1; s = ""; while (n >= 1000) { s = sprintf(",%03d", n % 1000) s; n = int(n / 1000) } print n s }')
	check_if "$f removed: exit 2, named with its $said_c samples (exit $rc: $(cat e))" \
		'[ "$rc" = 2 ] && grep -q "damaged input: $f: missing; meta.mph says $said_c samples of region 1 were written to it" e'
	"$R" miss --json > j.json 2> /dev/null
	check_if "$f removed: the same in JSON's damage" \
		'python3 -c "import json,sys; d=json.load(open(\"j.json\"))[\"damage\"]; sys.exit(0 if any(\"$f: missing\" in m for m in d) else 1)"'
	rc=$(run_rc o e "$R" dump miss --meta)
	check_if "$f removed: dump says so too (exit $rc)" '[ "$rc" = 2 ] && grep -q "$f: missing" o e'
	# cut after its FILE block: it holds none of them
	rm -rf cut && cp -r run cut && head -c 40 "run/$f" > "cut/$f"
	rc=$(run_rc o e "$R" cut)
	check_if "$f cut to its FILE block: exit 2, 0 of its $said_c samples (exit $rc: $(cat e))" \
		'[ "$rc" = 2 ] && grep -q "damaged input: $f: 0 samples after 40 bytes, of the $said_c meta.mph says were written to it" e'
done
rm -rf none && cp -r run none && rm none/cpu*.mph
rc=$(run_rc o e "$R" none)
n=$(grep -c "damaged input: cpu[0-9]*\.mph: missing" e)
check_if "every cpu file removed: exit 2, each named ($n of $(echo $files | wc -w))" \
	'[ "$rc" = 2 ] && [ "$n" = "$(echo $files | wc -w)" ]'

# a run without CPU_SAMPLES records (an older library: tool_gen) and no cpu file
"$GEN" old -n 2000 > /dev/null
rm old/cpu*.mph
rc=$(run_rc o e "$R" old)
check_if "an older run without any cpu file: exit 2, its regions' samples named (exit $rc: $(cat e))" \
	'[ "$rc" = 2 ] && grep -q "no cpuNNN.mph file, though meta.mph.s regions count [0-9,]* samples written" e'
"$GEN" empty -n 0 > /dev/null
rm -f empty/cpu*.mph
rc=$(run_rc o e "$R" empty)
check_if "a run whose regions count no sample, without cpu files: exit 0 (exit $rc)" '[ "$rc" = 0 ]'

done_testing
