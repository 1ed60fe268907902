#!/bin/sh
# tests/shape/t_layers.sh - no dependency loop among the project's own objects. For each group
# (lib: BUILD/lib/**/*.o, post: BUILD/post/*.o, each with BUILD/common/*.o when there is
# one; common alone), an object depends on every other object of the group that defines
# a global symbol it leaves undefined (nm -P -g: U/w/v are uses; every other type, TLS
# and weak definitions included, is a definition). tsort over those edges names each loop
# it finds; one TAP line per group. A symbol the C library also defines (malloc, free, ...
# which lib/ interposes) ties nobody to its interposer: its users call the C library's
# interface, so such symbols are left out. A layered tree has none: a file can be read, built and
# unit-tested with only what it depends on. Skips (77) when nothing is built.
. "$MEMPHIS_SRC/tests/tap.sh"
export LC_ALL=C # sort and join must agree
command -v nm > /dev/null && command -v tsort > /dev/null || { echo "t_layers: nm or tsort missing (binutils, coreutils)" >&2; exit 77; }

# the C library's dynamic symbols, one a line, without versions
libc=$(cc -print-file-name=libc.so.6 2> /dev/null)
[ -f "$libc" ] || libc=$(ls /lib/*/libc.so.6 /lib64/libc.so.6 2> /dev/null | head -n 1)
{ [ -f "$libc" ] && nm -D --defined-only "$libc" | awk '{ sub(/@.*/, "", $3); print $3 }'; } | sort -u > libc.syms

# objs DIR...: the .o files under the directories (recursive), sorted; only those whose
# source is still there (BUILD/lib/x/y.o <- lib/x/y.c): a file moved away leaves its old
# object behind in an incremental build.
objs() {
	for d in "$@"; do [ -d "$d" ] && find "$d" -name '*.o'; done | sort | while read -r o; do
		rel=${o#"$B"/}
		[ -f "$S/${rel%.o}.c" ] && echo "$o"
	done
}

# layers NAME OBJ...: one TAP line for the group.
layers() {
	name=$1; shift
	if [ $# = 0 ]; then skip "$name: no dependency loop" "no objects built"; return; fi
	: > defs; : > uses
	for o in "$@"; do
		# strip the build directory: short names in the messages, same names in both lists
		rel=${o#"$B"/}
		nm -P -g "$o" | awk -v o="$rel" '$2 ~ /^[Uwv]$/ { print $1, o >> "uses"; next }
			{ print $1, o >> "defs" }'
	done
	sort -u defs | join -v 1 - libc.syms > defs.own; mv defs.own defs
	sort -u -o uses uses
	# user definer, without self edges
	join uses defs | awk '$2 != $3 { print $2, $3 }' | sort -u > edges
	tsort edges > /dev/null 2> loops
	n=$(wc -l < edges | tr -d ' ')
	if [ -s loops ]; then
		not_ok "$name: no dependency loop among its $# objects ($n dependencies)"
		# tsort prints each loop it breaks as "input contains a loop:" and its members
		awk '/contains a loop/ { if (l) print "# loop:" l; l = ""; next }
			{ sub(/^tsort: /, ""); l = l " " $0 } END { if (l) print "# loop:" l }' loops
		# which symbols tie the loop's members (the first ones)
		awk '/contains a loop/ { next } { sub(/^tsort: /, ""); print }' loops | sort -u > members
		join uses defs | awk '$2 != $3 { print $2, $3, $1 }' |
			awk 'NR == FNR { m[$1] = 1; next } ($1 in m) && ($2 in m) { print "#   " $1 " -> " $2 " (" $3 ")" }' members - |
			sort -u | head -n 40
	else
		ok "$name: no dependency loop among its $# objects ($n dependencies)"
	fi
}

common=$(objs "$B/common")
groups=""
for g in lib post; do
	list=$(objs "$B/$g")
	[ -n "$list" ] || continue
	groups="$groups $g${common:++common}"
	# shellcheck disable=SC2086 # lists of objects, split on purpose (no spaces in paths)
	layers "$g${common:+ (with common/)}" $list $common
done
if [ -n "$common" ]; then
	groups="$groups common"
	# shellcheck disable=SC2086
	layers common $common
fi
[ -n "$groups" ] || { echo "t_layers: no objects under $B/lib, $B/post or $B/common" >&2; exit 77; }
echo "# groups checked:$groups"
done_testing
