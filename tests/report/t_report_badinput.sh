#!/bin/sh
# memphis-report on damaged, empty and mismatched input: a clear message naming the file
# and byte offset, exit status 2, and whatever was readable still reported.
. "$MEMPHIS_SRC/tests/report_common.sh"
need_built

# One SAMPLES block holds 4096 samples: 16 + 4096 * 56 = 229392 bytes; the FILE block
# before the first one is 16 + 24 = 40 bytes. So block k (from 0) starts at 40 + k*229392.
N=40000

# --- empty and missing directories
mkdir empty
rc=$(run_rc o e "$R" empty)
check "empty run directory exits 2 (got $rc)" [ "$rc" = 2 ]
check "empty run directory: message names meta.mph" has e "meta.mph"
rc=$(run_rc o e "$R" no-such-dir)
check "missing run directory exits 2 (got $rc)" [ "$rc" = 2 ]
check "missing run directory: message names it" has e "no-such-dir"

# --- a good run for reference
"$GEN" good -n $N --truth truth.json >/dev/null
rc=$(run_rc good.txt good.err "$R" good)
check "undamaged run exits 0 (got $rc)" [ "$rc" = 0 ]
check "undamaged run: no damage message" sh -c '! grep -q damaged good.err'

# --- meta.mph missing while samples exist
cp -r good nometa && rm nometa/meta.mph
rc=$(run_rc o e "$R" nometa)
check "run without meta.mph exits 2 (got $rc)" [ "$rc" = 2 ]
check "run without meta.mph: says so" has e "no meta.mph"

# --- truncated sample file, inside its second SAMPLES block
"$GEN" trunc -n $N --truncate cpu001.mph:300000 >/dev/null
rc=$(run_rc trunc.txt trunc.err "$R" trunc)
check "truncated cpu file exits 2 (got $rc)" [ "$rc" = 2 ]
check "truncated: file and offset of the last complete block" \
	has trunc.err "cpu001.mph: offset 262200: truncated SAMPLES block"
check "truncated: samples read before it" has trunc.err "4,096 samples read before it"
check "truncated: the valid prefix is still reported" has trunc.txt "Node1: total"
rc=$(run_rc trunc.json trunc.jerr "$R" trunc --json)
check "truncated, --json: exits 2 (got $rc)" [ "$rc" = 2 ]
check "truncated, --json: damage listed in the JSON" has trunc.json "cpu001.mph: offset 262200"

# --- a flipped byte in the first SAMPLES block of cpu002.mph
"$GEN" flip -n $N --flip cpu002.mph:100 >/dev/null
rc=$(run_rc flip.txt flip.err "$R" flip)
check "corrupted cpu file exits 2 (got $rc)" [ "$rc" = 2 ]
check "corrupted: checksum mismatch with file and offset" \
	has flip.err "cpu002.mph: offset 40: checksum mismatch in SAMPLES block; 0 samples read before it"
check "corrupted: other CPUs still reported" has flip.txt "Node0: total"

# --- a flipped magic in the middle of meta.mph (its last blocks are lost)
sz=$(wc -c < good/meta.mph)
"$GEN" flipmeta -n $N --flip meta.mph:$((sz - 40)) >/dev/null
rc=$(run_rc fm.txt fm.err "$R" flipmeta)
check "corrupted meta.mph exits 2 (got $rc)" [ "$rc" = 2 ]
check "corrupted meta.mph: named with an offset" grep -q "meta.mph: offset [0-9]*: " fm.err
check "corrupted meta.mph: report still printed" has fm.txt "samples:"

# --- meta.mph cut inside its first block: nothing readable
"$GEN" cutmeta -n 1000 --truncate meta.mph:20 >/dev/null
rc=$(run_rc o e "$R" cutmeta)
check "meta.mph cut in its first block exits 2 (got $rc)" [ "$rc" = 2 ]
check "meta.mph cut: offset 0 named" has e "meta.mph: offset 0: truncated FILE block"

# --- dump of a damaged run: prefix printed, damage at the end
rc=$(run_rc d.txt d.err "$R" dump trunc)
check "dump of a truncated run exits 2 (got $rc)" [ "$rc" = 2 ]
check "dump: damage reported at the end" sh -c 'tail -n 3 d.txt | grep -q "cpu001.mph: offset 262200"'
lines=$(grep -vc '^#' d.txt)
check_if "dump: the readable samples are printed ($lines of $N)" '[ "$lines" -gt 0 ] && [ "$lines" -lt $N ]'

# --- future format version: refused clearly
"$GEN" future -n 1000 --future >/dev/null
rc=$(run_rc o e "$R" future)
check "future format version exits 2 (got $rc)" [ "$rc" = 2 ]
check "future format version: says which version and what to do" has e "format version 4"

# --- unknown block types are skipped, a missing END is only a warning
"$GEN" unk -n 5000 --unknown-block >/dev/null
rc=$(run_rc unk.txt o "$R" unk)
check "unknown block types skipped, exit 0 (got $rc)" [ "$rc" = 0 ]
"$GEN" noend -n 5000 --no-end >/dev/null
rc=$(run_rc o e "$R" noend)
check "missing END block: exit 0 (got $rc)" [ "$rc" = 0 ]
check "missing END block: warned" has e "no END block"

# --- a shared library modified after the program mapped it: read as it is now, with a
# warning naming it (the executable's build-id is checked instead, below); none when its
# time is before the run. prog_dlopen loads a copy of dlib_table.so given by its path. The
# warning is for code the samples used: at 100 us 36-108 samples in the library's dl_sum
# (20 runs beside two CPU hogs); at 1 ms there were 2, and a run with none warns of nothing.
cp "$B/tests/dlib_table.so" libdl.so
touch -d '-1 hour' libdl.so
MEMPHIS_PERIOD=100us MEMPHIS_OUTPUT=chrun "$B/tests/prog_dlopen" "$PWD/libdl.so" 1 > /dev/null 2> chrun.err
rc=$(run_rc ch0.txt ch0.err "$R" chrun)
check "a library as it was mapped: exit 0, no 'modified' warning (got $rc)" \
	sh -c "[ $rc = 0 ] && ! grep -q 'modified' ch0.err ch0.txt"
touch libdl.so
rc=$(run_rc ch1.txt ch1.err "$R" chrun)
check "a library modified after the run: exit 0 (got $rc), one warning naming it" \
	sh -c "[ $rc = 0 ] && [ \"\$(grep -c 'modified' ch1.err)\" = 1 ] &&
	       grep -q 'warning: $PWD/libdl.so was modified [0-9.]* s after the program mapped it: it is read as it is now' ch1.err"
"$R" chrun --json > ch1.json 2> /dev/null
check "a library modified after the run: the warning in the JSON too" \
	grep -q "\"$PWD/libdl.so was modified" ch1.json
touch -d '-1 hour' libdl.so
rc=$(run_rc ch2.txt ch2.err "$R" chrun)
check "the library's time set back before the run: no warning (got $rc)" \
	sh -c "[ $rc = 0 ] && ! grep -q 'modified' ch2.err"

# --- the executable: missing, pointed to with --exe, rebuilt (other build-id), --force
cp "$GEN" ./prog
./prog moved -n 5000 >/dev/null
mv prog prog.moved
rc=$(run_rc o e "$R" moved)
check "missing executable exits 2 (got $rc)" [ "$rc" = 2 ]
check "missing executable: names the path and --exe" sh -c "grep -q '$PWD/prog' e && grep -q -- '--exe' e"
rc=$(run_rc o e "$R" moved --exe prog.moved)
check "--exe points to the moved executable (got $rc)" [ "$rc" = 0 ]
check "--exe: symbols resolve" has o "colidx"
cp /bin/true prog
rc=$(run_rc o e "$R" moved)
check "rebuilt executable (other build-id) exits 2 (got $rc)" [ "$rc" = 2 ]
check "rebuilt executable: says build-id and --force" sh -c "grep -q 'build-id' e && grep -q -- '--force' e"
rc=$(run_rc o e "$R" moved --force)
check "--force accepts the mismatch (got $rc)" [ "$rc" = 0 ]
check "--force: warns that symbols may be wrong" has e "symbols may be wrong"

# --- bad usage exits 1
rc=$(run_rc o e "$R" good --no-such-option)
check "unknown option exits 1 (got $rc)" [ "$rc" = 1 ]
rc=$(run_rc o e "$R" report)
check "missing RUNDIR exits 1 (got $rc)" [ "$rc" = 1 ]
rc=$(run_rc o e "$R" good --top many)
check "--top with a non-number exits 1 (got $rc)" [ "$rc" = 1 ]
rc=$(run_rc o e "$R" good --region nosuch)
check "--region with an unknown name exits 1 (got $rc)" [ "$rc" = 1 ]
check "--region unknown: lists the regions there are" has e "regions: solve, other"
rc=$(run_rc o e "$R" dump good extra)
check "dump with two directories exits 1 (got $rc)" [ "$rc" = 1 ]

# --- damage anywhere: 40 random truncations and flipped bytes over every file; the
# report must never crash or hang: exit 0 (damage in a skipped place) or 2, never more
"$GEN" base -n 20000 --allocs 200 >/dev/null
crashes=0
i=0
seed=12345
for f in meta.mph cpu000.mph cpu001.mph cpu002.mph cpu003.mph; do
	size=$(wc -c < "base/$f")
	for k in 1 2 3 4 5 6 7 8; do
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		off=$(( seed % size ))
		rm -rf fz && cp -r base fz
		if [ $((k % 2)) = 0 ]; then
			truncate -s "$off" "fz/$f"
		else
			printf '\377' | dd of="fz/$f" bs=1 seek="$off" conv=notrunc 2>/dev/null
		fi
		timeout 20 "$R" fz --all >/dev/null 2>fz.err
		rc=$?
		timeout 20 "$R" dump fz >/dev/null 2>>fz.err
		rc2=$?
		if { [ "$rc" != 0 ] && [ "$rc" != 2 ]; } || { [ "$rc2" != 0 ] && [ "$rc2" != 2 ]; }; then
			crashes=$((crashes + 1))
			echo "# $f offset $off ($([ $((k % 2)) = 0 ] && echo truncated || echo flipped)): exit $rc / dump $rc2"
		fi
		i=$((i + 1))
	done
done
check "$i random damages: report and dump exit 0 or 2, never crash ($crashes bad)" [ "$crashes" = 0 ]

done_testing
