#!/bin/sh
# C++ function names as the user wrote them (issue 41 item 5): a local of an OpenMP
# region's outlined function is "ComputeForce::fx", not
# "_ZL12ComputeForceR4MeshPdd._omp_fn.0::fx"; no mangled name and no clone suffix
# (._omp_fn.N, .cold, .constprop.N, ...) anywhere in the text, the JSON or the pprof
# profile (tests/programs/prog_cxx_omp.cc); arrays from an inlined template wrapper named
# by their receiving variables; a class's std::vector, std::unique_ptr<T[]> and new[]
# members named Class::member (the vectors' at the line that resized them, found through
# the object std::vector's code stored into). The demangling itself is libiberty's.
. "$MEMPHIS_SRC/tests/report_common.sh"
P="$B/tests/prog_cxx_omp"
[ -x "$P" ] || { echo "prog_cxx_omp not built (no C++ compiler?)" >&2; exit 77; }
have_python || { echo "t_cxx_names: python3 is needed to read the JSON" >&2; exit 77; }

OMP_NUM_THREADS=2 MEMPHIS_DISABLE=1 "$P" > plain.out 2>&1
# fx takes about half the samples of the region (some 1,000 at 200 us): none at all is
# beyond any chance
OMP_NUM_THREADS=2 MEMPHIS_PERIOD=200us "$P" > prof.out 2>&1
check "output unchanged" cmp -s plain.out prof.out
d=$(rundir prog_cxx_omp)
"$R" --all --top 0 "$d" > text.txt 2> err.txt; rc1=$?
"$R" --all --top 0 --json "$d" > rep.json 2> /dev/null; rc2=$?
check_if "report and --json exit 0 ($rc1, $rc2)" '[ "$rc1" = 0 ] && [ "$rc2" = 0 ]'
check "the outlined region's local is ComputeForce::fx, a local with samples" python3 - <<'PY'
import json, sys
r = json.load(open("rep.json"))
v = [x for x in r["variables"] if x["name"] == "ComputeForce::fx"]
sys.exit(0 if v and v[0]["kind"] == "local" and v[0]["samples"] > 0 else 1)
PY
# the arrays from the inlined template wrapper: named by the variable receiving them, with
# the wrapper and the line that called it (each takes 12 to 90 samples; a
# name is checked in the JSON's variables, which list every heap variable with samples)
check "Allocate<double>'s arrays from five places: main::grad, force, mass, work, accel (... via Allocate<double>, from prog_cxx_omp.cc:N)" python3 - <<'PY'
import json, re, sys
r = json.load(open("rep.json"))
names = [v["name"] for v in r["variables"]]
bad = [x for x in ("grad", "force", "mass", "work", "accel")
       if not any(re.fullmatch(r"main::%s \((malloc|calloc) at prog_cxx_omp\.cc:\d+ via Allocate<double>, from prog_cxx_omp\.cc:\d+\)" % x, n) for n in names)]
print("# without a name or a sample:", bad or "none")
sys.exit(0 if not bad else 1)
PY
# the class's members: six std::vector<double> resized in its constructor, each named
# Mesh::m_x ... at the line of its resize; a std::unique_ptr<double[]> and a new[] member
# (each member takes 30 to 300 samples: each is also summed by a loop of its own)
check "Mesh's six vectors are Mesh::m_x ... (malloc at the line of their resize), its unique_ptr and new[] members Mesh::m_p and Mesh::m_q" python3 - "$S/tests/programs/prog_cxx_omp.cc" <<'PY'
import json, re, sys
r = json.load(open("rep.json"))
src = open(sys.argv[1]).read().split("\n")
names = [v["name"] for v in r["variables"]]
bad = []
for m in ("m_x", "m_y", "m_z", "m_vx", "m_vy", "m_vz"):
    line = 1 + next(i for i, l in enumerate(src) if "%s.resize(n)" % m in l)
    if "Mesh::%s (malloc at prog_cxx_omp.cc:%d)" % (m, line) not in names:
        bad.append(m)
for m in ("m_p", "m_q"):
    if not any(n.startswith("Mesh::%s (malloc at prog_cxx_omp.cc:" % m) for n in names):
        bad.append(m)
print("# missing:", bad or "none")
sys.exit(0 if not bad else 1)
PY
# mangled: _Z then an uppercase letter, a digit or L (_ZL12..., _ZN4Mesh..., _Z8Allocate...)
bad='_Z[A-Z0-9]|\._omp_fn|\.omp_outlined|\.constprop|\.isra\.|\.cold\b|\.part\.[0-9]'
check "no mangled name or clone suffix in the text ($(grep -cE "$bad" text.txt) lines)" \
	sh -c "! grep -qE '$bad' text.txt"
check "... nor in the JSON" sh -c "! grep -qE '$bad' rep.json"
"$R" --all --html page.html "$d" > /dev/null 2>&1
check "... nor in the HTML page (Mesh::m_x in it)" sh -c "grep -q 'Mesh::m_x' page.html && ! grep -qE '$bad' page.html"
if command -v go > /dev/null; then
	"$R" report --format pprof -o p.pb.gz "$d" 2> /dev/null
	HOME=$PWD GOCACHE=$PWD/.gocache go tool pprof -raw p.pb.gz > raw.txt 2> /dev/null
	check_if "... nor in the pprof profile's functions (ComputeForce among them)" \
		'grep -q " ComputeForce " raw.txt && ! grep -qE "$bad" raw.txt'
else
	skip "... nor in the pprof profile's functions" "go is missing (make check-deps)"
fi

# ELF symbols too: a C++ library without DWARF (-g0) whose namespace function does the
# work (some 17 of its 128 samples at 200 us have an address: none at all has a chance
# below 1e-7); its code, told by its caller's line, is named by its
# symbol, demangled and without its parameters ("sweep_main.cc:12 (in sweep::Run)"), not
# "_ZN5sweep3RunEPdm"
CXX=${CXX:-g++}
if command -v "$CXX" > /dev/null; then
	cat > sweep.cc <<'CC'
#include <cstddef>
namespace sweep {
__attribute__((noinline)) double Run(double *a, size_t n)
{
	for (int k = 0; k < 20; k++)
		for (size_t i = 0; i < n; i++)
			a[i] = a[i] * 0.5 + 1.0;
	return a[n / 2];
}
}
CC
	cat > sweep_main.cc <<'CC'
#include <memphis.h>
#include <cstdio>
#include <cstdlib>
namespace sweep { double Run(double *a, size_t n); }
int main()
{
	size_t n = 1 << 21; // 16 MiB: the sweep waits on memory
	double *a = static_cast<double *>(calloc(n, sizeof(double)));
	for (size_t i = 0; i < n; i++) // its page faults before the region
		a[i] = 1;
	memphis_mark_named("sweep");
	double s = sweep::Run(a, n);
	memphis_print();
	printf("%.0f\n", s);
	free(a);
	return 0;
}
CC
	"$CXX" -O2 -g0 -shared -fPIC sweep.cc -o libsweep.so &&
		"$CXX" -O2 -g -I"$S/include" sweep_main.cc -o sweep_main -L. -lsweep -L"$B" \
			-Wl,-rpath,"$PWD" -Wl,-rpath,"$B" -lmemphis > cxx.log 2>&1
	rm -rf memphis-sweep_main-*/
	MEMPHIS_PERIOD=200us ./sweep_main > sweep.out 2>&1
	d=$(rundir sweep_main)
	"$R" --all "$d" > sweep.txt 2> /dev/null
	check "a C++ library's code without DWARF: its demangled symbol (sweep_main.cc:N (in sweep::Run))" \
		sh -c 'grep -qE "^    sweep_main\.cc:[0-9]+ \(in sweep::Run\) [0-9]+$" sweep.txt && ! grep -qE "$1" sweep.txt' sh "$bad"
else
	skip "a C++ library's code without DWARF: its demangled symbol" "no $CXX"
fi
done_testing
