#!/bin/sh
# tests/shape/t_identity.sh - the report's output is the same as the report of the pinned commit
# PIN (below) on the same run directories: programs run here under the current library
# (examples cg, hello and fortran/ocean, and a golden program built as t_golden.sh does),
# then both reports read each run: default text, --json, --all --json, --by line,
# --matrix, the HTML page (of the run, and of a saved --json), dump, and the error text
# and exit status on a damaged copy. One TAP line per
# comparison; a difference shows its first lines.
#
# Why a pin: issue 10 restructured lib/ and post/ without changing behaviour (checked
# against 006cdf1, the tree before it), and this holds every later change to the same
# promise. PIN is the last commit whose output is the reference. An issue that changes the
# output on purpose moves PIN to its own last commit and says so (and why) in its closing
# note. 4bdacfd: issue 11's last output change (heap sampling line, unfinished-run and
# write-error lines, RUN escapes). 69cdb11: issue 13 (the JSON's run.threads, a heap
# variable's site, lines with --by line); it also takes in issue 11's "set aside ... in
# libmemphis" line (7e8ac52), which left PIN behind and made the text comparisons fail
# whenever a run had such samples. 7cee47c: issue 16 (a runtime instruction's line told by
# its caller, heap objects by the variable that receives them, the runtimes' own data
# apart and the header's runtime wait, stack data by local variable, STACKS in dump).
# 01bed13: issue 14 (a run sampled per CPU: "(events per CPU)" in the header, run.scope in
# the JSON). 891d3ce: issue 14 again (runtime code named by its ELF symbols, libc's DWARF not
# read: "libc.so.6:__clone3" for "clone3.S:81", "__libc_start_main" for
# "__libc_start_main_impl"). e7a9293: issue 38 (variables named with their scope: cg.c:a,
# golden.c:s_static, cg.c:p (malloc at ...); a scoped variable's "scope" and "base_name" in
# the JSON); against 891d3ce every line that changed was such a scope, nothing else.
# a6efe73: issue 38 again (the "threads:" line with the regions' CPU time, "thread_time" in
# the JSON, dump's "samples per cpu file" and "thread CPU time" blocks, which the old report
# skipped as unknown); against e7a9293 nothing else changed.
# dec6b1f: issue 40 (the text explains itself: a legend under the samples line, the few-samples
# line, the first-touch shares said of what, the OBJ+0xOFF legend, the closing "Next:"
# line); against a6efe73 every line that changed was one of those, the JSON, HTML and dump
# did not change. c821413: issue 41's re-faults (first_touch.refaults and distinct_pages in
# the JSON, and so in the HTML page's); against dec6b1f nothing else
# changed. b35fe7e: issue 41's fences and poll loops (samples.fences in the JSON, and so in
# the HTML page's; the programs compared have no fence or poll loop); against c821413
# nothing else changed. 0c74ff7: issue 41's kernel time (the runs compared are made as
# root: their kernel samples leave the tables, which hold one or two samples fewer; the
# header's "kernel:" and "kernel by region:" lines, the "Kernel time by variable" section,
# samples.kernel_time in the JSON and the HTML page's, dump's "syscall" flag); against
# b35fe7e nothing else changed. 2f31466: issue 41 again (the pattern data of the HTML
# page and --advice leave the kernel's samples and fences out, as the tables do; a page
# fault's sample no longer marks its page seen; kernel clones named by their function).
# e22833c: issue 41's site map (the header's heap line names it, run.heap_map in the JSON
# and so in the HTML page's); against 2f31466 nothing else changed.
# f24a470: issue 42 (a heap site's chain in the JSON, the advice's placement and the spread
# advice, and so in the HTML page's); against e22833c nothing else changed.
# 382baee: issue 43 (--html implies --by member: each variable's "members" in the HTML
# page's JSON, null for the runs compared, none of whose variables has a struct type) and
# issue 42's partitioned cut between sampled pages (multi-node runs only); against f24a470
# only the HTML pages changed, by "members": null.
#
# Format 3 (SAMPLES layout 3, STACKS layout 2; format 2: SAMPLES layout 2): the old report
# refuses today's runs, so it reads a copy rewritten as format 1 (tests/programs/tool_v1.c)
# while today's report reads the run as written; dump, which prints the file sizes, reads
# the format 1 copy in both, and today's dump of the samples must be the same on both
# copies but for the STACKS blocks' bytes. The damaged copy is made from the format 1
# copy (under v1/) and read by both.
#
# The old report is built once from `git archive PIN` into BUILD/identity-PIN/ (reused
# while it exists). Skips (77) when the source tree is not a git checkout holding PIN.
PIN=382baee
. "$MEMPHIS_SRC/tests/tap.sh"
if ! command -v git > /dev/null || ! git -C "$S" cat-file -e "$PIN^{commit}" 2> /dev/null; then
	echo "t_identity: $S is not a git checkout with commit $PIN (the reference report)" >&2
	exit 77
fi
REF=$B/identity-$PIN
OLD=$REF/build/memphis-report
if [ ! -x "$OLD" ]; then
	rm -rf "$REF" && mkdir -p "$REF" &&
		git -C "$S" archive "$PIN" $(for p in Makefile VERSION include common post; do
			git -C "$S" cat-file -e "$PIN:$p" 2> /dev/null && echo "$p"; done) |
			tar -x -C "$REF" &&
		make --no-print-directory -s -C "$REF" -j2 B=build CFLAGS= LDFLAGS= build/memphis-report > ref-build.log 2>&1
	if [ ! -x "$OLD" ]; then
		not_ok "build the reference report of $PIN"
		tail -n 20 ref-build.log | sed 's/^/# /'
		exit 1
	fi
fi
NEW=$REPORT

# with PROG DIR ARGS...: run PROG with ARGS, each @RUN in them replaced by DIR.
with() {
	prog=$1; dir=$2; shift 2
	for a; do
		shift
		[ "$a" = @RUN ] && a=$dir
		set -- "$@" "$a"
	done
	"$prog" "$@"
}

# same DESC ARGS...: the old report on the format 1 copy OLDRUN and today's on NEWRUN (@RUN
# in ARGS); stdout, stderr and exit status must match.
same() {
	desc=$1; shift
	with "$OLD" "$OLDRUN" "$@" > old.out 2> old.err; echo "exit $?" >> old.err
	with "$NEW" "$NEWRUN" "$@" > new.out 2> new.err; echo "exit $?" >> new.err
	# the program's own name and the run's two paths in its messages are not output
	# the run's path, and its name in the "Next:" line's page name (RUNNAME.html), as RUN
	sed -i "s|$OLD|memphis-report|g; s|${OLDRUN##*/}\.html|RUN.html|g; s|$OLDRUN|RUN|g" old.out old.err
	sed -i "s|$NEW|memphis-report|g; s|${NEWRUN##*/}\.html|RUN.html|g; s|$NEWRUN|RUN|g" new.out new.err
	if cmp -s old.out new.out && cmp -s old.err new.err; then
		ok "$desc: same output ($(wc -l < new.out | tr -d ' ') lines, $(tail -n 1 new.err))"
	else
		not_ok "$desc: same output"
		{ diff old.out new.out; diff old.err new.err; } | head -n 12 | sed 's/^/# /'
	fi
}

# compare NAME RUNDIR: every comparison on one run directory.
compare() {
	r=${2%/}
	mkdir -p v1 && rm -rf "v1/$r"
	if ! "$B/tests/tool_v1" "$r" "v1/$r"; then
		not_ok "$1: a format 1 copy"
		return
	fi
	OLDRUN=v1/$r NEWRUN=$r
	same "$1: report" @RUN
	same "$1: --json" @RUN --json
	same "$1: --all --json" @RUN --all --json
	same "$1: --by line" @RUN --by line
	same "$1: --matrix" @RUN --matrix
	same "$1: html" html -o - @RUN
	"$NEW" "$r" --json > "$1.json" 2> /dev/null
	OLDRUN=$r # the same file for both: only its paths are replaced
	same "$1: html of a saved --json" html -o - "$1.json"
	OLDRUN=v1/$r NEWRUN=v1/$r
	same "$1: dump" dump @RUN
	# the STACKS blocks' bytes differ: today's layout 2 gives only what changed
	"$NEW" dump --samples "$r" 2>&1 | sed 's/ STACKS blocks, [0-9,]* bytes$/ STACKS blocks/' > v2.dump
	"$NEW" dump --samples "v1/$r" 2>&1 | sed 's/ STACKS blocks, [0-9,]* bytes$/ STACKS blocks/' > v1.dump
	check "$1: dump --samples: the format 1 copy and today's run alike" cmp -s v1.dump v2.dump
	NEWRUN=$r
}

# ran NAME: the run directory the program NAME left here, or a failure.
ran() {
	d=$(rundir "$1")
	[ -n "$d" ] || not_ok "$1 left a run directory"
	echo "$d"
}

export MEMPHIS_PERIOD=250us OMP_NUM_THREADS=2
"$B/examples/hello/hello" > hello.out 2>&1
d=$(ran hello) && [ -n "$d" ] && compare hello "$d"
"$B/examples/cg/cg" -n 20000 -i 20 > cg.out 2>&1
d=$(ran cg) && [ -n "$d" ] && compare cg "$d"
if [ -x "$B/examples/fortran/ocean" ]; then
	"$B/examples/fortran/ocean" -n 200000 -s 10 > ocean.out 2>&1
	d=$(ran ocean) && [ -n "$d" ] && compare ocean "$d"
else
	skip "ocean: report, --json, ..." "examples/fortran/ocean is not built (no gfortran)"
fi
G=$S/tests/golden
if cc -g -O2 -shared -fPIC -Wl,-soname,libgolden.so.1 -o libgolden.so.1 "$G/golden_lib.c" 2> golden.err &&
	cc -g -O2 -I"$S/include" -o golden "$G/golden.c" "$G/golden_alloc.c" -L. -l:libgolden.so.1 \
		-Wl,-rpath,"$PWD" -L"$B" -Wl,-rpath,"$B" -lmemphis -pthread 2>> golden.err; then
	(ulimit -s 65536 2> /dev/null; ./golden 1 > golden.out 2>&1)
	d=$(ran golden) && [ -n "$d" ] && {
		compare golden "$d"
		same "golden: --region thread --all --json" @RUN --region thread --all --json
	}
else
	not_ok "build the golden program (tests/golden)"
	sed 's/^/# /' golden.err
fi

# a damaged copy: a cpu file cut inside a block, another with a flipped byte
d=$(rundir cg)
d=${d%/}
if [ -n "$d" ] && [ -d "v1/$d" ]; then
	cp -r "v1/$d" damaged
	f=$(ls damaged/cpu*.mph | head -n 1)
	n=$(wc -c < "$f")
	head -c $((n * 2 / 3)) "$f" > cut && mv cut "$f"
	g=$(ls damaged/cpu*.mph | tail -n 1)
	[ "$g" != "$f" ] && printf '\125' | dd of="$g" bs=1 seek=100 conv=notrunc 2> /dev/null
	OLDRUN=damaged NEWRUN=damaged
	same "damaged cg: report" @RUN
	same "damaged cg: --json" @RUN --json
	same "damaged cg: dump" dump @RUN
fi
done_testing
