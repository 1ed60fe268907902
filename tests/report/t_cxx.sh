# C++ heap objects (issue 11 item 11): objects made by new, new[] and std::vector are named
# by the program's function and line, not by operator new (`malloc in _Znwm`): allocator
# frames (operator new, std::allocator and the other C++ library headers, libstdc++, libc)
# are skipped when naming a call site.
. "$MEMPHIS_SRC/tests/tap.sh"

P="$B/tests/prog_cxx"
[ -x "$P" ] || { echo "prog_cxx not built (no C++ compiler?)" >&2; exit 77; }
"$P" > cxx.out || not_ok "prog_cxx runs"
d=$(rundir prog_cxx)
"$REPORT" "$d" --all > cxx.txt 2> cxx.err
# the lines of the sites, from the source
line() { grep -n "$1" "$S/tests/programs/prog_cxx.cc" | head -n 1 | cut -d: -f1; }
# new[] and new are stored into main's locals a and b (issue 16: named by them)
check "new[] named by its function and line" \
	grep -qF ") main::a (malloc at prog_cxx.cc:$(line 'line of the new\[\] site') via array_by_new, from prog_cxx.cc:$(line 'long \*a = array_by_new')) " cxx.txt
check "new named by its function and line" \
	grep -qF ") main::b (malloc at prog_cxx.cc:$(line 'line of the new site') via object_by_new, from prog_cxx.cc:$(line 'block \*b = object_by_new')) " cxx.txt
check "std::vector named by its function and line" \
	grep -q "^([0-9]*) malloc at prog_cxx.cc:$(line 'line of the vector site') in vector_of_longs " cxx.txt
check "no object named by operator new" sh -c '! grep -qE "_Znwm|_Znam|operator new" cxx.txt'
echo "1..$TAP_N"
