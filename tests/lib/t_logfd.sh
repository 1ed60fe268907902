# The library writes only to descriptors it opened (issue 38): after a program closed fd 2
# and opened its results file there, memphis's warning ("cannot write to ...: No space
# left on device") went into the results. Its lines go to its own copy of the stderr the
# program was started with (taken at its start, kept by lib/fd.c's rules); a copy the
# program closed, and whose number it reused, is never written again.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_fill"

MEMPHIS_DISABLE=1 "$P" -2 plain.txt 0.3 > plain.out 2> plain.err
# the library has two things to say meanwhile: its size cap (from its I/O thread) and a
# memphis_print() with no region open (from the program's thread)
MEMPHIS_VERBOSE=1 MEMPHIS_MAX_BYTES=1M "$P" -2 prof.txt 0.3 > prof.out 2> prof.err
rc=$?
check "results at fd 2: exit status 0 ($rc), output as without memphis" \
	sh -c "[ $rc = 0 ] && cmp -s plain.out prof.out"
check "results at fd 2: the results file holds only the program's lines" cmp -s plain.txt prof.txt
check "the library's lines went to the stderr the program was started with" \
	sh -c "grep -q '^memphis: .*size cap' prof.err && grep -q '^memphis warning: memphis_print() without an open region' prof.err"

# A daemon closes every inherited descriptor, the library's copy of stderr with them, and
# puts its own file on their numbers (at 1024 and above by dup2: a limit whose half is
# over 1024 puts the library's there); the library, asked to say everything, must not
# write a line into it.
H=$B/tests/prog_hostile
MEMPHIS_DISABLE=1 sh -c "ulimit -n 8192; exec \"$H\" closefds" > hplain.out 2> /dev/null
rm -f own.txt
MEMPHIS_VERBOSE=3 sh -c "ulimit -n 8192; exec \"$H\" closefds" > hprof.out 2> hprof.err
check "close_range, then its own file on the library's numbers: it holds only its own lines" \
	cmp -s hplain.out hprof.out
done_testing
