#!/bin/sh
# tests/report/t_advice.sh - issue 18's pattern data and placement advice on this host (one NUMA
# node: every access is local, so the advice is "local" and the checks read the shape of
# the use, which does not need a remote page): the random gather (prog_gather) is
# interleave, the small read-only table (prog_table) replicate with no store, examples/cg
# master-initialised has `a` and `colidx` partitioned naming the master's init line; a
# short table run is too_few. Every shown variable's pattern is consistent (samples,
# blocks, time cells) and the document without pattern/advice is the plain --json. The
# 2-node advices: tests/vm/guest-tests/numa-advice.*.sh.
. "$MEMPHIS_SRC/tests/tap.sh"
CHECK="python3 $S/tests/advice/check.py"
export OMP_NUM_THREADS=2 OMP_PROC_BIND=false

# results FILE: check.py's lines as TAP
results() {
	while IFS= read -r line; do
		case $line in
		ok\ *) ok "${line#ok }" ;;
		fail\ *) not_ok "${line#fail }" ;;
		*) echo "# $line" ;;
		esac
	done < "$1"
}

# run_rep NAME CMD...: run CMD under memphis into run directory NAME (made afresh), report it
# three ways; the reports' exit status in $rep (1: the program failed)
run_rep() {
	name=$1
	shift
	rm -rf "$name"
	if ! MEMPHIS_OUTPUT=$name "$@" > "$name.out" 2> "$name.err"; then
		rep=1
		return 1
	fi
	"$REPORT" --json "$name" > "$name.plain.json" 2> "$name.rep.err" &&
		"$REPORT" --json --advice "$name" > "$name.json" 2>> "$name.rep.err" &&
		"$REPORT" --advice "$name" > "$name.txt" 2>> "$name.rep.err"
	rep=$?
}

# prof NAME CMD...: run_rep, then the checks of the reports' structure
prof() {
	run_rep "$@" || { not_ok "$1 runs"; return 1; }
	prof_checks "$1"
}
prof_checks() {
	name=$1
	check "$name: report --json, --json --advice, --advice exit 0" [ $rep = 0 ]
	$CHECK structure "$name.json" "$name.plain.json" > "$name.structure" 2>&1
	results "$name.structure"
}

SRC=$S/examples/cg/cg.c
lines() { grep -n "$1" "$SRC" | cut -d: -f1 | sed 's/^/cg.c:/' | paste -sd, -; }

prof gather "$B/tests/prog_gather" 64 40 &&
	$CHECK advice gather.json "main::x=local/interleave@prog_gather.c:$(grep -n 'x\[i\] = ' \
		"$S/tests/programs/prog_gather.c" | cut -d: -f1)" > gather.check 2>&1 && results gather.check
prof table "$B/tests/prog_table" 400 && {
	$CHECK advice table.json "prog_table.c:table=local/replicate" > table.check 2>&1
	results table.check
	check_if "table: reads only (no store among its samples)" \
		"python3 -c 'import json,sys; v=[v for v in json.load(open(\"table.json\"))[\"variables\"] if v[\"name\"]==\"prog_table.c:table\"][0][\"pattern\"]; sys.exit(not (v[\"writes\"]==0 and v[\"reads\"]==v[\"samples\"]))'"
}
# 250 us: four times the default rate, so that colidx (about a third of a's samples) stays
# well above the advice's minimum of 50 also under a sanitizer build (46 seen at 1 ms).
prof cg env MEMPHIS_PERIOD=250us "$B/examples/cg/cg" && {
	$CHECK advice cg.json "cg.c:a=local/partitioned@$(lines 'a\[k + o\] = v;\|a\[k\] = diag;')" \
		"cg.c:colidx=local/partitioned@$(lines 'colidx\[k + o\] = (int)j;\|colidx\[k\] = (int)i;')" \
		> cg.check 2>&1
	results cg.check
	check_if "cg: --advice prints an advice line under each shown variable's rows" \
		"[ \$(grep -c '^    advice: ' cg.txt) -ge 4 ] && grep -q '^    advice: local: nothing to do' cg.txt"
	check_if "cg: --json --pattern writes pattern without advice" \
		"\"$REPORT\" --json --pattern cg | python3 -c 'import json,sys; v=json.load(sys.stdin)[\"variables\"]; sys.exit(not (any(\"pattern\" in x for x in v) and not any(\"advice\" in x for x in v)))'"
	check_if "cg: --pattern --top 2: patterns of the 2 variables shown only" \
		"[ \$(\"$REPORT\" --json --pattern --top 2 cg | grep -c '\"span_bytes\"') = 2 ]"
}
# too_few needs the table sampled at all: 1 M reads a thread gives it a handful of samples,
# none at times beside busy processes, so the reads double until it has one (the minimum
# is 50; the first length with a sample has on average a few)
reads=1
while run_rep few "$B/tests/prog_table" $reads; do
	n=$(python3 -c 'import json,sys; print(sum(v["samples"] for v in json.load(open(sys.argv[1]))["variables"] if v["name"] == "prog_table.c:table"))' few.plain.json 2> /dev/null)
	[ "${n:-0}" -gt 0 ] || [ $reads -ge 64 ] && break
	reads=$((reads * 2))
done
echo "# few: $reads M reads a thread: ${n:-no} samples of the table"
if [ -d few ] && [ "$rep" != 1 ]; then
	prof_checks few
	$CHECK advice few.json "prog_table.c:table=too_few/too_few" > few.check 2>&1
	results few.check
	check_if "few: the evidence says how many samples and the minimum" \
		"grep -q 'fewer than the minimum of 50' few.txt"
else
	not_ok "few runs"
fi
done_testing
