# tests/vm/guest-lib.sh - shell helpers for the VM tests, sourced (never run) by the guest's
# runner and by every tests/vm/guest-tests/*.sh script, in the guest and on the host.
# Results are lines starting with "@@VM" that the host turns into TAP:
#   @@VM ok - DESCRIPTION            @@VM not ok - DESCRIPTION
#   @@VM ok - DESCRIPTION # SKIP WHY @@VM # a note (a TAP comment)
# Each result is also appended to $VM_RESULTS so the final marker can say how many there
# were (the host checks that none was lost on the serial line).

VM_RESULTS=${VM_RESULTS:-/tmp/vm-results}

# vm_result ok|fail|skip DESCRIPTION [WHY] - print one result line.
vm_result() {
	case $1 in
	ok) echo "@@VM ok - $2" ;;
	skip) echo "@@VM ok - $2 # SKIP ${3:-}" ;;
	*) echo "@@VM not ok - $2" ;;
	esac
	echo "$1" >> "$VM_RESULTS"
}

# vm_note TEXT... - a comment line that travels with the results.
vm_note() {
	echo "@@VM # $*"
}

# vm_check DESCRIPTION PROGRAM [ARGS...] - run PROGRAM (under a 120 s timeout), pass its
# output on as notes, and print ok when it exits 0, not ok otherwise.
vm_check() {
	_desc=$1
	shift
	_out=$(timeout "${VM_CHECK_TIMEOUT:-120}" "$@" 2>&1)
	_rc=$?
	printf '%s\n' "$_out" | while IFS= read -r _l; do
		[ -n "$_l" ] && echo "@@VM #   $_l"
	done
	if [ "$_rc" = 0 ]; then
		vm_result ok "$_desc"
	else
		vm_result fail "$_desc (exit $_rc)"
	fi
}

# vm_singlestep on|off - ask the host to switch QEMU's single-stepping (every instruction
# its own translation block, so timer samples land where the program really is; see
# shared/VM-RECIPE.md) and wait for its acknowledgement on the second serial port.
# Guest only. Returns non-zero when no acknowledgement came within 60 s. Single-stepped
# code runs ~10x slower: switch it on only around what samples.
vm_singlestep() {
	echo "@@VM-REQ singlestep $1"
	while IFS= read -r -t 60 _ack < /dev/ttyS1; do
		case $_ack in
		*"ack singlestep $1"*) echo "$1" > /tmp/vm-singlestep; return 0 ;;
		esac
	done
	echo "@@VM # no acknowledgement for singlestep $1" >&2
	return 1
}

# vm_only NAME [PATTERNS] - true when the guest-tests script NAME (without .guest.sh or
# .host.sh) is to run: PATTERNS (default $VM_ONLY) empty, or one of its comma-separated
# shell patterns matches NAME.
vm_only() {
	_only=${2-${VM_ONLY:-}}
	[ -n "$_only" ] || return 0
	_ifs=$IFS
	IFS=,
	set -f
	for _p in $_only; do
		case $1 in $_p) set +f; IFS=$_ifs; return 0 ;; esac
	done
	set +f
	IFS=$_ifs
	return 1
}

# vm_require_memphis - in a guest-tests script: exit (as a skip) unless the library and
# the report were built; "$MEMPHIS_BUILD" holds them, at the same absolute path as on the host.
vm_require_memphis() {
	if [ -z "${MEMPHIS_BUILD:-}" ] || [ ! -f "$MEMPHIS_BUILD/libmemphis.so" ]; then
		vm_result skip "${VM_TEST_NAME:-memphis test}" "libmemphis.so not built"
		exit 0
	fi
}
