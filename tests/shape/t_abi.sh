# The library's ABI as docs/abi.md states it (issue 17 item 6): the dynamic symbols
# libmemphis.so exports are exactly lib/libmemphis.map's list (the public API and the
# interposed C library functions), every function of include/memphis.h is among them, the
# soname is libmemphis.so.MAJOR of VERSION, and VERSION is what the header, the library and
# both tools' --version say.
. "$MEMPHIS_SRC/tests/tap.sh"

command -v nm >/dev/null || { echo "t_abi: nm is needed (binutils)" >&2; exit 77; }
so=$B/libmemphis.so
[ -f "$so" ] || { echo "not ok 1 - $so is not built"; exit 1; }
v=$(cat "$S/VERSION")

nm -D --defined-only "$so" | awk '{ sub(/@.*/, "", $NF); print $NF }' | sort -u > exported
sed -n '/global:/,/local:/p' "$S/lib/libmemphis.map" | sed 's/global://; s/local:.*//' |
	tr ';' '\n' | tr -d ' \t' | grep . | sort -u > map
check "libmemphis.so exports symbols ($(wc -l < exported)) and the map lists some ($(wc -l < map))" \
	test -s exported -a -s map
diff map exported > map.diff
check "exported dynamic symbols equal lib/libmemphis.map (diff: < map only, > exported only)" \
	test ! -s map.diff
sed 's/^/# /' map.diff
sed -n 's/^[a-z].*[ *]\(memphis_[a-z_]*\)(.*/\1/p' "$S/include/memphis.h" | sort -u > api
check "include/memphis.h declares functions ($(wc -l < api))" test -s api
check_if "every one of them is exported" '[ -z "$(comm -23 api exported)" ]'
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
check "soname is libmemphis.so.MAJOR of VERSION ($soname, VERSION $v)" test "$soname" = "libmemphis.so.${v%%.*}"
hv=$(sed -n 's/^#define MEMPHIS_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)/\2/p' "$S/include/memphis.h" | paste -sd.)
check "include/memphis.h says VERSION ($hv)" test "$hv" = "$v"
check_if "memphis --version prints it" '[ "$("$B/memphis" --version)" = "memphis $v" ]'
check_if "memphis-report --version prints it" \
	'"$REPORT" --version | grep -q "^memphis-report $v "'
echo "1..$TAP_N"
