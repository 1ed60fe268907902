# numa-members.host.sh - issue 43's checks on numa-members.guest.sh's run: thread 0 (node 0)
# reads p[].a, thread 1 (node 1) p[].c, of pages the master first touched on node 0: >= 90 %
# of .c's samples from node 1 and remote, >= 90 % of .a's local, a split advice naming a
# and c (also through a heap object received by a typed pointer, and a nested struct); a
# member both nodes read and node 0 alone writes;
# fs.x and fs.y of one line stored to from both nodes flagged, fsp's padded twin not; a
# double array without member rows (tests/report/members_check.py).
. "$VM_LIB"
. "$MEMPHIS_SRC/tests/vm/guest-tests/numa-lib.sh"
case $VM_TOPO in 2x*) ;; *) vm_result skip "members: host checks" "they run for the 2-node guest"; exit 0 ;; esac
R="$MEMPHIS_BUILD/memphis-report"
if [ ! -f "$VM_OUT/members/meta.mph" ]; then
	vm_result fail "members: no run directory came back from the guest"
	exit 0
fi
"$R" --by member --json "$VM_OUT/members" > "$VM_OUT/members.json" 2> "$VM_OUT/members.err"
"$R" --by member "$VM_OUT/members" > "$VM_OUT/members.txt" 2>> "$VM_OUT/members.err"
sed -n '/^Members/,/^$/p' "$VM_OUT/members.txt" | while IFS= read -r l; do vm_note "$l"; done
P=prog_members.c
HP="hp (malloc at $P:$(grep -n 'hp = malloc' "$MEMPHIS_SRC/tests/programs/$P" | cut -d: -f1))"
python3 "$MEMPHIS_SRC/tests/report/members_check.py" "$VM_OUT/members.json" \
	"local|$P:p|$P:p[].a@0" "remote|$P:p|$P:p[].c@1" "split|$P:p|$P:p[].a,$P:p[].c" \
	"local|$HP|hp[].a@0" "remote|$HP|hp[].c@1" "split|$HP|hp[].a,hp[].c" \
	"local|$P:np|$P:np[].in.x@0" "remote|$P:np|$P:np[].in.y@1" "writer|$P:rw|$P:rw[].v@0" \
	"shared|$P:fs|$P:fs.x,$P:fs.y" "unshared|$P:fsp|-" "none|$P:sc|-" \
	> "$VM_OUT/members.check" 2>&1
results members "$VM_OUT/members.check"
