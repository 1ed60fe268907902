#!/bin/sh
# Struct members and shared cache lines (issue 43), on this one-node host: the runs'
# topologies are rewritten to two nodes (tool_nodes: CPU 1 on node 0, CPU 0 on node 1,
# every page on node 0) and each program's two threads pinned, thread 0 on CPU 1 (node 0),
# thread 1 on CPU 0 (node 1), so that thread 1's samples are remote by construction
# (the 2-node guest: tests/vm/guest-tests/numa-members.*). tests/programs/prog_members.c:
# thread 0 reads .a of struct quad p[], thread 1 .c (also through a heap object received
# by a typed global pointer and by a local one, and .in.x / .in.y of a nested struct; .v of
# struct pair rw[] read by both, written by thread 0 alone); .x and .y of one 64-byte line
# stored to by both threads, and the same 64 bytes apart; a double array without members.
# Then a C++ class (prog_members_cxx.cc) and a Fortran derived type (members_f.f90).
# Counts: each member has some 250 to 450 samples at 100 us and each shared line's side
# some 2,500 store samples (locked adds; 2,480 to 3,308 in 3 runs on an AMD EPYC VM), so
# the advice's minimum (20 samples a member) and the line's (5 stores a side) fail by
# chance with a probability far under 1e-4; the shares are 100 % by construction (a
# pinned thread's samples are its CPU's, in the region "work").
. "$MEMPHIS_SRC/tests/report_common.sh"
have_python || { echo "t_members: python3 is needed to read the JSON" >&2; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "t_members: two CPUs are needed to pin the threads apart" >&2; exit 77; }
export OMP_NUM_THREADS=2 OMP_PLACES="{1},{0}" OMP_PROC_BIND=true MEMPHIS_PERIOD=100us

# prof NAME PROG ARGS...: PROG under memphis into NAME (one node) and NAME2 (two), their
# --by member reports: NAME2.txt, NAME2.json, NAME.json; of the region "work" when PROG
# marks one (WORK=1): the master's first touches before it are stores of one node to
# every member, and where page faults are slow (13-16 us in a paravirtual VM) they were
# over a tenth of a member's samples, a second user of it (MR_MEMBERS_USER)
prof() {
	name=$1
	shift
	rm -rf "$name" "${name}2"
	"$B/memphis" run -o "$name" -- "$@" > "$name.out" 2> "$name.err" &&
		"$B/tests/tool_nodes" "$name" "${name}2" 2 &&
		"$R" --by member ${WORK:+--region work} "${name}2" > "${name}2.txt" 2> "${name}2.err" &&
		"$R" --by member ${WORK:+--region work} --json "${name}2" > "${name}2.json" \
			2>> "${name}2.err" &&
		"$R" --by member ${WORK:+--region work} --json "$name" > "$name.json" 2> "$name.rerr"
}

# judge JSON SPEC...: members_check.py's verdicts on the report JSON, one TAP line each
judge() {
	python3 "$S/tests/report/members_check.py" "$@" > judge.out 2>&1
	while IFS= read -r line; do
		case $line in
		ok\ *) ok "${line#ok }" ;;
		fail\ *) not_ok "${line#fail }" ;;
		*) echo "# $line" ;;
		esac
	done < judge.out
}

P=prog_members.c
WORK=1
prof m "$B/tests/prog_members" 600
check_if "prog_members under memphis: output unchanged, reports made" \
	'[ -s m2.json ] && MEMPHIS_DISABLE=1 "$B/tests/prog_members" 600 | cmp -s - m.out'
judge m2.json "local|$P:p|$P:p[].a@0" "remote|$P:p|$P:p[].c@1" "split|$P:p|$P:p[].a,$P:p[].c" \
	"local|hp (malloc at $P:$(grep -n 'hp = malloc' "$S/tests/programs/$P" | cut -d: -f1))|hp[].a@0" \
	"split|hp (malloc at $P:$(grep -n 'hp = malloc' "$S/tests/programs/$P" | cut -d: -f1))|hp[].a,hp[].c" \
	"local|$P:np|$P:np[].in.x@0" "remote|$P:np|$P:np[].in.y@1" \
	"split|$P:np|$P:np[].in.x,$P:np[].in.y" \
	"remote|main::lp (malloc at $P:$(grep -n 'lp = malloc' "$S/tests/programs/$P" | cut -d: -f1))|main::lp[].c@1" \
	"split|main::lp (malloc at $P:$(grep -n 'lp = malloc' "$S/tests/programs/$P" | cut -d: -f1))|main::lp[].a,main::lp[].c" \
	"writer|$P:rw|$P:rw[].v@0" \
	"shared|$P:fs|$P:fs.x,$P:fs.y" "unshared|$P:fsp|-" "none|$P:sc|-"
check_if "text: member rows under p in node 1's table, lines under sc" \
	'sed -n "/^Node1: /,/^\$/p" m2.txt | grep -q "^    $P:p\[\]\.c [0-9]" &&
	 ! sed -n "/^Node1: /,/^\$/p" m2.txt | grep -q "^    $P:p\[\]\.a " &&
	 grep -A1 "^([0-9]*) $P:sc " m2.txt | grep -q "^    $P:[0-9]"'
check_if "text: the shared line told with both members, the split named" \
	'grep -q "^  shared line at offset 0 (bytes 0\.\.63): node [01] stored [0-9]* samples to $P:fs\.[xy] at $P:[0-9]*; node [01] stored [0-9]* samples to $P:fs\.[xy] at " m2.txt &&
	 grep -q "^  advice: split: $P:p\[\]\.a (8 bytes per element) used by node 0 (100 %); $P:p\[\]\.c (8 bytes per element) used by node 1 (100 %)" m2.txt'
# one node: the users are threads, no line is shared between nodes
judge m.json "split|$P:p|$P:p[].a,$P:p[].c" "unshared|$P:fs|-"
check_if "one node: the split's users are threads (no placement told)" \
	'python3 -c "import json; d = json.load(open(\"m.json\")); v = [v for v in d[\"variables\"] if v[\"name\"] == \"$P:p\"][0]; assert all(\"tid\" in g for g in v[\"members\"][\"split\"])"'
check_if "without --by member no member data" \
	'"$R" --json m2 | python3 -c "import json, sys; d = json.load(sys.stdin); assert all(\"members\" not in v for v in d[\"variables\"])"'

if [ -x "$B/tests/prog_members_cxx" ]; then
	X=prog_members_cxx.cc
	prof c "$B/tests/prog_members_cxx" 600
	judge c2.json "local|$X:mesh::cells|$X:mesh::cells[].rho@0" "remote|$X:mesh::cells|$X:mesh::cells[].flux@1" \
		"split|$X:mesh::cells|$X:mesh::cells[].rho,$X:mesh::cells[].flux" \
		"remote|heap_cells (malloc at $X:$(grep -n 'heap_cells = new' "$S/tests/programs/$X" | cut -d: -f1))|heap_cells[].flux@1"
else
	skip "a C++ class's members" "prog_members_cxx not built (no C++ compiler)"
fi

WORK= # members_f marks no region
if command -v "${FC:-gfortran}" >/dev/null &&
	"${FC:-gfortran}" -g -O1 -fopenmp -o members_f "$S/tests/fixtures/members_f.f90" 2> fc.err; then
	prof f ./members_f
	judge f2.json "local|grid::cells|grid::cells(:)%rho@0" "remote|grid::cells|grid::cells(:)%flux@1" \
		"split|grid::cells|grid::cells(:)%rho,grid::cells(:)%flux"
else
	skip "a Fortran derived type's members" "no Fortran compiler: $(head -n 1 fc.err 2>/dev/null)"
fi
done_testing
