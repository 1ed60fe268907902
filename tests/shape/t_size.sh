#!/bin/sh
# tests/shape/t_size.sh - no .c file of lib/, post/ or common/ (subfolders included) over MAX
# (800) lines: a file a reader can hold in mind. Prints the longest three; the failure
# names every file over the limit.
. "$MEMPHIS_SRC/tests/tap.sh"
MAX=${MEMPHIS_MAX_LINES:-800}
for d in lib post common; do
	[ -d "$S/$d" ] && find "$S/$d" -name '*.c' -type f
done | while read -r f; do
	echo "$(wc -l < "$f" | tr -d ' ') ${f#"$S"/}"
done | sort -rn > sizes
[ -s sizes ] || { echo "t_size: no .c files under lib/, post/, common/" >&2; exit 77; }
echo "# longest: $(head -n 3 sizes | awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $2, $1 }')"
awk -v max="$MAX" '$1 > max' sizes > over
if [ -s over ]; then
	not_ok "no .c file in lib/, post/, common/ over $MAX lines; over: $(awk '{ printf "%s%s (%s)", (NR > 1 ? ", " : ""), $2, $1 }' over)"
else
	ok "no .c file in lib/, post/, common/ over $MAX lines ($(wc -l < sizes | tr -d ' ') files)"
fi
done_testing
