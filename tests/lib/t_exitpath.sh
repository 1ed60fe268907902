# A program that leaves an open region by exec, _exit, _Exit, abort or quick_exit: same
# output and exit status as without memphis; exec, _exit, _Exit and quick_exit write what
# was buffered first (the samples are in the run, the run finished); abort cannot, and the
# report says how much may be missing, never a silent "lost 0". The region is 0.3 s of
# CPU time (prog_exitpath.c): it has samples but with P < 1e-6.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_exitpath"

for how in exit exec _exit _Exit abort quick_exit; do
	MEMPHIS_DISABLE=1 "$P" $how > plain.out 2> /dev/null
	prc=$?
	"$P" $how > prof.out 2> /dev/null
	rc=$?
	check "$how: output and exit status ($prc) unchanged" \
		sh -c "[ $rc -eq $prc ] && cmp -s plain.out prof.out"
	# the run of the first image (exec leaves a second one, of the new image)
	d=$(grep -l "cmdline=.* $how\$" memphis-prog_exitpath-*/meta.mph 2>/dev/null | head -n 1)
	d=${d%/meta.mph}
	"$REPORT" "$d" > $how.report 2> $how.err
	case $how in
	exit | exec | _exit | _Exit | quick_exit)
		check "$how: the region's samples are in the run" \
			grep -Eq '^samples: [1-9][0-9,]* total' $how.report
		check "$how: run finished cleanly, nothing said to be missing" \
			sh -c "! grep -q 'may be missing' $how.report && ! grep -q 'did not finish' $how.err" ;;
	*)
		check "$how: the report says how many ms of samples may be missing" \
			grep -Eq '^unfinished run: .*up to [0-9,]+ ms of samples .* may be missing' $how.report
		"$REPORT" --json "$d" > $how.json 2> /dev/null
		check "$how: --json says it too" grep -q '"unwritten_max_ms": *[0-9]' $how.json ;;
	esac
	rm -rf memphis-*/
done
