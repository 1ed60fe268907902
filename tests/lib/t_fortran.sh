#!/bin/sh
# tests/lib/t_fortran.sh - the Fortran side (issue 5): module memphis (bindings/fortran) used
# from gfortran, and examples/fortran/ocean.f90 (HYCOM pattern) built here with gfortran
# -fopenmp, run under memphis and read back with `memphis-report --all --json`: each
# COMMON member (hycom1r/dp, hycom1r/temp) and module array (ocean_state::u, ::v) by name,
# kind and hottest line (the source line marked "! LINE:tag"), and the COMMON arrays first
# touched by the master thread at their initialisation lines; the literal constants the
# update lines load are <read-only data of ocean>, not <unknown>.
. "$MEMPHIS_SRC/tests/tap.sh"
FC=${FC:-gfortran}
command -v "$FC" >/dev/null || { echo "no Fortran compiler ($FC)" >&2; exit 77; }
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON report" >&2; exit 77; }
EX=$S/examples/fortran/ocean.f90
LINK="-I$B/fortran -L$B -Wl,-rpath,$B -lmemphis_f -lmemphis"

# 1. the binding: built by make all, usable with -Wall -Werror
check "make all built build/fortran/memphis.mod and libmemphis_f.a" \
	test -f "$B/fortran/memphis.mod" -a -f "$B/libmemphis_f.a"
cat >api.f90 <<'F'
program api
  use memphis
  implicit none
  integer :: ierr, ierr2
  print '(a)', memphis_version()
  call memphis_print(stat=ierr)          ! no region open: -EINVAL
  print '(i0, 1x, a)', ierr, memphis_strerror(ierr)
  call memphis_mark_named('solver   ', stat=ierr)
  call memphis_print(ierr2)
  print '(i0, 1x, i0)', ierr, ierr2
  call memphis_mark()
  call memphis_print()
end program api
F
if $FC -Wall -Wextra -Werror -std=f2008 api.f90 -o api $LINK 2>api.err; then
	ok "a program using module memphis builds with -Wall -Wextra -Werror -std=f2008"
else
	not_ok "a program using module memphis builds with -Wall -Wextra -Werror -std=f2008"
	sed 's/^/# /' api.err
fi
./api >api.out 2>api.log
want=$(sed -n 's/^#define MEMPHIS_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$S/include/memphis.h" | paste -sd.)
check "memphis_version() is '$want' with no trailing blanks" test "$(sed -n 1p api.out)" = "$want"
check "memphis_print(stat=) without a region: -22 and memphis_strerror's text" \
	grep -qx -- '-22 no region is open, or an invalid argument' api.out
check "memphis_mark_named(stat=) and memphis_print(ierr) return 0" grep -qx '0 0' api.out
d=$(rundir api)
"$REPORT" "$d" --json >api.json 2>api.rerr
check "the region names come through with their length, trailing blanks dropped" \
	python3 -c 'import json,sys; r=json.load(open("api.json")); sys.exit([g["name"] for g in r["regions"]] != ["solver", "default"])'

# 2. the example, built here like a user would
if $FC -g -O2 -fopenmp -Wall -Werror -J. "$EX" -o ocean $LINK 2>ocean.err; then
	ok "examples/fortran/ocean.f90 builds with $FC -fopenmp"
else
	not_ok "examples/fortran/ocean.f90 builds with $FC -fopenmp"
	sed 's/^/# /' ocean.err
fi
OMP_NUM_THREADS=2 MEMPHIS_PERIOD=100us ./ocean -n 1000000 -s 60 >ocean.out 2>ocean.log
rc=$?
d=$(rundir ocean)
if [ $rc = 0 ] && [ -n "$d" ]; then
	ok "ocean runs under memphis ($(cat ocean.out))"
else
	not_ok "ocean runs under memphis (exit $rc, run directory ${d:-missing})"
	sed 's/^/# /' ocean.log
fi
"$REPORT" "$d" --all --json --top 0 >ocean.json 2>ocean.rerr || sed 's/^/# /' ocean.rerr
python3 - "$EX" ocean.json "$TAP_N" >checks <<'PY'
import json, re, sys
src, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
mark = {}
for i, t in enumerate(open(src), 1):
    for tag in re.findall(r"! LINE:(\w+)", t):
        mark[tag] = "ocean.f90:%d" % i
try:
    r = json.load(open(path))
    var = {v["name"]: v for v in r["variables"]}
    lines = {}
    for t in r["tables"]:
        for e in t["entries"]:
            d = lines.setdefault(e["name"], {})
            for it in e["items"]:
                d[it["name"]] = d.get(it["name"], 0) + it["count"]
except (OSError, ValueError, KeyError) as err:
    r, var, lines = None, {}, {}
    print("# report: %s" % err)
def check(good, what):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if good else "not ok", n, what))
for name, kind, tag in (("hycom1r/dp", "global", "u_dp"), ("hycom1r/temp", "global", "v_temp"),
                        ("ocean_state::u", "heap", "u_dp"), ("ocean_state::v", "heap", "v_temp")):
    v = var.get(name)
    check(v is not None and v["kind"] == kind and v["samples"] >= 5,
          "%s in the report as %s (%s)" % (name, kind, "%s, %d samples" % (v["kind"], v["samples"]) if v else "missing"))
    ls = lines.get(name, {})
    hot = max(ls.items(), key=lambda kv: kv[1]) if ls else ("none", 0)
    check(hot[0] == mark[tag], "%s hottest line %s (expect %s)" % (name, hot[0], mark[tag]))
for name, tag in (("hycom1r/dp", "init_dp"), ("hycom1r/temp", "init_temp")):
    ft = (var.get(name) or {}).get("first_touch") or {}
    check(ft.get("thread_index") == 0 and ft.get("line") == mark[tag],
          "%s first touched by the master thread at %s (got %s at %s)" % (name, mark[tag], ft.get("thread"), ft.get("line")))
# the real constants of the update lines live in .rodata, unnamed
ro = lines.get("<read-only data of ocean>", {})
unk = {l: c for l, c in lines.get("<unknown>", {}).items() if l in (mark["u_dp"], mark["v_temp"])}
check(not unk and (var.get("<read-only data of ocean>") or {}).get("kind") == "static",
      "no <unknown> samples on the update lines: the constants they load are <read-only data of ocean> (%s; <unknown> %s)" % (ro, unk))
check(not any(k.startswith("malloc at ocean.f90") for k in var),
      "no ALLOCATE site of ocean.f90 left unnamed: %s" % [k for k in var if "ocean.f90" in k and k.startswith("malloc")])
PY
cat checks
TAP_N=$((TAP_N + $(grep -c '^\(not \)\{0,1\}ok ' checks)))
echo "1..$TAP_N"
