#!/bin/sh
# tests/shape/t_layers.sh - no dependency loop among the project's own objects. For each group
# (lib: BUILD/lib/**/*.o, post: BUILD/post/**/*.o, each with BUILD/common/*.o when there is
# one; common alone), an object depends on every other object of the group that defines
# a global symbol it leaves undefined (nm -P -g: U/w/v are uses; every other type, TLS
# and weak definitions included, is a definition). tsort over those edges names each loop
# it finds; one TAP line per group. A symbol the C library also defines (malloc, free, ...
# which lib/ interposes) ties nobody to its interposer: its users call the C library's
# interface, so such symbols are left out. A layered tree has none: a file can be read, built and
# unit-tested with only what it depends on.
# post/'s folders (docs/architecture.md) are layers too: its objects folded to their folder
# (post/run/rundir.o -> run, post/main.o -> post, common/*.o -> common), with an edge also
# for each #include "FOLDER/x.h" of a source, form no loop; run/ and binary/ (what the run
# directory says, what the binaries say) do not reach each other; and a folder's NOUN_impl.h
# is included by that folder's files only. Skips (77) when nothing is built.
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
	[ "$g" = post ] && join uses defs | awk '$2 != $3 { print $2, $3, $1 }' > post.edges
done
# folder PATH: the folder of post/ a file or object (relative path) is in: post/X/y -> X,
# post/y -> post, common/y -> common.
folder_awk='function folder(p) { n = split(p, a, "/"); return a[1] == "post" && n > 2 ? a[2] : a[1] }'

if [ -f post.edges ]; then
	# "FROM TO WHY" between folders: objects (WHY: the symbol, as object->object) and
	# includes (WHY: file includes "X/y.h")
	awk "$folder_awk"' { f = folder($1); t = folder($2)
		if (f != t) print f, t, $1 "->" $2 "(" $3 ")" }' post.edges > fedges
	(cd "$S" && find post -name '*.[ch]' | sort | while read -r f; do
		sed -n 's/^#[[:space:]]*include[[:space:]]*"\([a-z_]*\)\/\([^"]*\)".*/\1 \2/p' "$f" |
			while read -r d h; do [ -d "post/$d" ] && echo "$f post/$d/$h"; done
	done) | awk "$folder_awk"' { f = folder($1); t = folder($2)
		if (f != t) print f, t, $1 "-includes-" $2 }' >> fedges
	nf=$(cd "$S/post" && find . -mindepth 1 -maxdepth 1 -type d | wc -l | tr -d ' ')
	awk '{ print $1, $2 }' fedges | sort -u > fpairs
	tsort fpairs > /dev/null 2> floops
	desc="post/: no dependency loop among its $nf folders and the commands ($(wc -l < fpairs | tr -d ' ') folder dependencies)"
	if [ -s floops ]; then
		not_ok "$desc"
		awk '/contains a loop/ { next } { sub(/^tsort: /, ""); print }' floops | sort -u > fmembers
		awk 'NR == FNR { m[$1] = 1; next } ($1 in m) && ($2 in m) { print "#   " $1 " -> " $2 ": " $3 }' fmembers fedges |
			sort | awk '{ k = $2 $4; if (++c[k] <= 3) print }' | head -n 40
	else
		ok "$desc"
	fi
	# none FILE DESC: ok when FILE is empty, else not_ok with its first lines
	none() {
		if [ -s "$1" ]; then
			not_ok "$2"
			sed 's/^/#   /' "$1" | head -n 20
		else
			ok "$2"
		fi
	}
	awk '($1 == "run" && $2 == "binary") || ($1 == "binary" && $2 == "run")' fedges > crossed
	none crossed "post/run and post/binary do not reach each other"
	awk '$3 ~ /_impl\.h$/' fedges > impl
	none impl "post/: a folder's *_impl.h is included by its own files only"
fi

if [ -n "$common" ]; then
	groups="$groups common"
	# shellcheck disable=SC2086
	layers common $common
fi
[ -n "$groups" ] || { echo "t_layers: no objects under $B/lib, $B/post or $B/common" >&2; exit 77; }
echo "# groups checked:$groups"
done_testing
