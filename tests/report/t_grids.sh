#!/bin/sh
# Many small objects named by default, and by the variable they are reached through (issue
# 41 item 4). tests/programs/prog_grids.c allocates three 3-D grids as a multigrid code
# does, 32 x 1,024 rows of 2 KiB each from three sites, each row stored into an element of
# a pointer array (u[k][j] = malloc(...), u a global double ***), inside an OpenMP loop;
# then sweeps them in parallel. With default settings (rows sampled 1 in 64, the site map
# naming the others) at most 5 % of the samples with a data address are <unknown> (the
# map off: most of them are; t_manyobj.sh), and each grid is one row named u[][], v[][],
# w[][] (malloc at prog_grids.c:LINE), its receiver in the JSON. Built at -O2 (make) and
# at -O0 and -O1 here: the element's address is computed before the call (-O2: in a
# callee-saved register, or spilled to the frame) or after it (-O0). prog_manyobj's rows,
# stored through the OpenMP region's copy of a pointer parameter (lv->row[i]), are
# build::lv->row[]. The shares: every row of a grid is one variable, so a grid's samples
# are a third of the sweep's loads (hundreds here); the checks are on names, and on the
# unknown share whose expectation is 0.
. "$MEMPHIS_SRC/tests/tap.sh"
CC=${CC:-cc}
SRC=$S/tests/programs/prog_grids.c
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
command -v "$CC" >/dev/null || { echo "no C compiler ($CC)" >&2; exit 77; }
export OMP_NUM_THREADS=2

line() { grep -n "$2" "$1" | head -n 1 | cut -d: -f1; }

# grids NAME PROG ARGS...: run PROG under memphis at 100 us, its report's JSON in NAME.json
grids() {
	name=$1
	shift
	MEMPHIS_PERIOD=100us MEMPHIS_OUTPUT="run-$name" "$@" > "$name.out" 2>&1
	"$REPORT" --all --top 0 --json "run-$name" > "$name.json" 2> "$name.err"
}

# named NAME: the three grids named by their receivers, and the unknown share
named() {
	python3 - "$1.json" "$(line "$SRC" 'u\[k\]\[j\] = malloc(ROW)')" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
first = int(sys.argv[2])
heap = {v["name"]: v for v in r["variables"] if v["kind"] == "heap"}
bad = []
for i, g in enumerate("uvw"):
    want = "%s[][] (malloc at prog_grids.c:%d)" % (g, first + i)
    v = heap.get(want)
    if not v or (v.get("receiver") or {}).get("variable") != g + "[][]" or v["samples"] < 1:
        bad.append(want)
unknown = sum(v["samples"] for v in r["variables"] if v["kind"] == "unknown")
att = r["samples"]["attributed"]
print("unknown %d of %d; missing %s" % (unknown, att, bad or "none"))
sys.exit(0 if not bad and att >= 100 and unknown * 20 <= att else 1)
PY
}

MEMPHIS_DISABLE=1 "$B/tests/prog_grids" > plain.out 2>&1
grids o2 "$B/tests/prog_grids"
check "-O2: output unchanged" cmp -s plain.out o2.out
check "-O2: u[][], v[][], w[][] named by their receivers; at most 5 % <unknown> ($(named o2 2>&1 | tail -n 1))" \
	named o2
for opt in O0 O1; do
	if $CC -std=gnu11 -g -"$opt" -fopenmp -I"$S/include" "$SRC" -o "grids_$opt" \
		-L"$B" -Wl,-rpath,"$B" -lmemphis 2> "cc_$opt.err"; then
		grids "$opt" "./grids_$opt"
		check "-$opt: u[][], v[][], w[][] named by their receivers; at most 5 % <unknown> ($(named "$opt" 2>&1 | tail -n 1))" \
			named "$opt"
	else
		not_ok "-$opt: the program builds ($(head -n 1 "cc_$opt.err"))"
	fi
done

grids manyobj "$B/tests/prog_manyobj" 100000 2
check "manyobj: rows stored through an OpenMP region's copy of a pointer are build::lv->row[]" \
	grep -q '"name": "build::lv->row\[\] (malloc at prog_manyobj.c:[0-9]*)"' manyobj.json
done_testing
