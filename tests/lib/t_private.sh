# Run files are private (issue 38): a run directory holds the program's data and up to 1 KiB
# of its stack per kept entry (a password on the stack, read by another user from a 0644
# cpu file). Directories are made 0700, files 0600, the umask only narrowing them (umask 0
# gives no more); a rank's job directory too, the ranks of one job (one user) still making
# theirs in it. memphis-report says, in one line on stderr, when the run it reads is
# another user's (a job: once, for its directory).
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

# modes DIR: "DIRMODE FILEMODES" of a run directory and its files (each mode once, sorted)
modes() { echo "$(stat -c %a "$1")" $(find "$1" -type f -exec stat -c %a {} + | sort -u); }

for u in 022 000 077; do
	(umask $u && exec "$P" work 0.1) > /dev/null 2>&1
	d=$(rundir prog_hostile)
	m=$(modes "$d")
	check_if "umask $u: the run directory 0700, its files 0600 ($m)" '[ "$m" = "700 600" ]'
	rm -rf memphis-*/
done

# a rank: its job directory and its own, both 0700; a second rank of the job (same user)
# makes its directory in the job's
(umask 000 && SLURM_JOB_ID=7 SLURM_PROCID=0 exec "$P" work 0.05) > /dev/null 2>&1
(umask 000 && SLURM_JOB_ID=7 SLURM_PROCID=1 exec "$P" work 0.05) > /dev/null 2>&1
j=$(ls -d memphis-prog_hostile-job-7 2> /dev/null)
jm=$(stat -c %a "$j" 2> /dev/null)
r0=$(modes "$j/rank-0" 2> /dev/null)
check_if "a rank, umask 000: the job directory 0700 ($jm), rank-0 0700 and its files 0600 ($r0)" \
	'[ "$jm" = 700 ] && [ "$r0" = "700 600" ]'
check "the job's second rank made rank-1 in it" test -f "$j/rank-1/meta.mph"

# another user cannot read the run, nor its stack bytes; the report says whose a run is
if [ "$(id -u)" != 0 ] || ! command -v setpriv > /dev/null || ! id nobody > /dev/null 2>&1 ||
	! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$P"; then
	for t in "another user cannot read the run" "the report names another user's run" \
		"the report says nothing of one's own run" "the report names another user's job once"; do
		skip "$t" "not root, no setpriv or user nobody, or the build is not readable by nobody"
	done
else
	"$P" work 0.1 > /dev/null 2>&1
	d=$(rundir prog_hostile)
	check "another user cannot list the run nor read its files" \
		sh -c "! setpriv --reuid=nobody --regid=nogroup --clear-groups cat '$d/meta.mph' > /dev/null 2>&1 &&
			! setpriv --reuid=nobody --regid=nogroup --clear-groups ls '$d' > /dev/null 2>&1"
	"$REPORT" "$d" > own.txt 2> own.err
	check "the report says nothing of one's own run" sh -c "! grep -q 'belongs to' own.err"
	mkdir nb && chmod 777 nb
	(cd nb && setpriv --reuid=nobody --regid=nogroup --clear-groups "$P" work 0.1) > /dev/null 2>&1
	nd=nb/$(cd nb && rundir prog_hostile)
	"$REPORT" "$nd" > other.txt 2> other.err
	rc=$?
	check "the report names another user's run in one line on stderr, exit 0 ($rc)" \
		sh -c "[ $rc = 0 ] && [ \"\$(grep -c 'belongs to user nobody' other.err)\" = 1 ] &&
			[ \"\$(grep -c . other.err)\" = 1 ] && grep -q '^samples:' other.txt"
	# a job of two ranks: one line for the job, not one a rank
	for r in 0 1; do
		(cd nb && SLURM_JOB_ID=8 SLURM_PROCID=$r setpriv --reuid=nobody --regid=nogroup \
			--clear-groups "$P" work 0.05) > /dev/null 2>&1
	done
	"$REPORT" nb/memphis-prog_hostile-job-8 > job.txt 2> job.err
	rc=$?
	check "the report names another user's job once, exit 0 ($rc, $(grep -c 'belongs to' job.err) lines)" \
		sh -c "[ $rc = 0 ] && [ \"\$(grep -c 'belongs to user nobody' job.err)\" = 1 ] &&
			grep -q 'memphis-prog_hostile-job-8 belongs' job.err"
fi
done_testing
