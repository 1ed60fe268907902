#!/bin/sh
# A data file the program maps (as libc maps a locale archive and gconv's cache), read in a
# region after a dlopen made the profiler snapshot the maps with it
# (tests/programs/prog_mapfile.c): its bytes are one variable, "<mapped file NAME>", and
# the report gives no warning for it (before: "cannot read ...: not an ELF file; its code
# and data stay unresolved", twice, and the samples under <unknown>).
. "$MEMPHIS_SRC/tests/report_common.sh"
have_python || { echo "t_report_mapfile: python3 is needed to read the JSON" >&2; exit 77; }
P="$B/tests/prog_mapfile"
L="$B/tests/dlib_table.so"

MEMPHIS_DISABLE=1 "$P" "$L" plain.bin > plain.out 2>&1
MEMPHIS_PERIOD=200us "$P" "$L" data.bin > prof.out 2>&1
check "output unchanged" cmp -s plain.out prof.out
d=$(rundir prog_mapfile)
"$R" "$d" > text.txt 2> err.txt; rc=$?
check_if "report exits 0 ($rc)" '[ "$rc" = 0 ]'
check_if "no warning about the mapped file ($(grep -c . err.txt) lines on stderr: $(head -c 300 err.txt))" \
	'! grep -q "data.bin" err.txt && ! grep -q "not an ELF" text.txt err.txt'
"$R" --json "$d" > rep.json 2> /dev/null
python3 - "$PWD/data.bin" > var.txt 2>&1 <<'PY'
import json, sys
r = json.load(open("rep.json"))
v = [x for x in r["variables"] if x["name"] == "<mapped file data.bin>"]
att = r["samples"]["attributed"]
print("samples %d of %d attributed" % (v[0]["samples"] if v else 0, att))
# the region reads the file and little else: 1,500 samples expected at 200 us over 300 ms
# of CPU, 98 % of them in the file; half of them is far below any chance shortfall
ok = v and v[0]["object"] == sys.argv[1] and v[0]["kind"] == "static" and 2 * v[0]["samples"] >= att > 100
sys.exit(0 if ok else 1)
PY
rc=$?
check_if "the file's bytes are the variable <mapped file data.bin> (kind static, object its path): $(cat var.txt)" \
	'[ "$rc" = 0 ]'
check "the text names it with the reading line" sh -c \
	'grep -q "^(1) <mapped file data.bin> " text.txt && grep -A1 "^(1) <mapped file" text.txt | grep -q "prog_mapfile.c:"'
done_testing
