# Settings (MEMPHIS_*): a value that cannot be used is never replaced silently. Each bad
# value gives one line, whatever MEMPHIS_VERBOSE says, naming the variable, the value and
# what is used instead; booleans take 1/0/yes/no/true/false/on/off in any case.
. "$MEMPHIS_SRC/tests/tap.sh"
P="$B/tests/prog_hostile"

meta() { "$REPORT" dump --meta "$(rundir prog_hostile)" 2>&1; }
lines() { grep -c "^memphis" "$1"; }

MEMPHIS_PERIOD=nan "$P" mark > nan.out 2> nan.err
check "MEMPHIS_PERIOD=nan: one line naming variable, value and the 1ms used instead" \
	sh -c '[ "$(grep -c "^memphis" nan.err)" = 1 ] && grep -q "MEMPHIS_PERIOD=nan.*using 1ms" nan.err'
check "MEMPHIS_PERIOD=nan: the run samples at 1ms, not 2^63 ns" \
	sh -c "\"$REPORT\" dump --meta \"$(rundir prog_hostile)\" | grep -q '^#   period_ns=1000000$'"
rm -rf memphis-*/
for v in inf -1ms 0x10us 5parsecs; do
	MEMPHIS_PERIOD=$v "$P" mark > p.out 2> p.err
	check "MEMPHIS_PERIOD=$v: one line, 1ms used" \
		sh -c "[ \"\$(grep -c '^memphis' p.err)\" = 1 ] && grep -q -- 'MEMPHIS_PERIOD=$v.*using 1ms' p.err"
	rm -rf memphis-*/
done

for v in yes YES true On 1; do
	MEMPHIS_DISABLE=$v "$P" mark > d.out 2> d.err
	check "MEMPHIS_DISABLE=$v: disabled (no run directory, API says -ENOTSUP, silent)" \
		sh -c '[ -z "$(ls -d memphis-*/ 2>/dev/null)" ] && grep -q "^mark: -95 " d.out && [ ! -s d.err ]'
	rm -rf memphis-*/
done
for v in no FALSE off 0; do
	MEMPHIS_DISABLE=$v "$P" mark > d.out 2> d.err
	check "MEMPHIS_DISABLE=$v: profiling on, silent" \
		sh -c '[ -n "$(ls -d memphis-*/ 2>/dev/null)" ] && [ ! -s d.err ]'
	rm -rf memphis-*/
done
MEMPHIS_DISABLE=maybe "$P" mark > d.out 2> d.err
check "MEMPHIS_DISABLE=maybe: one line naming it and the 0 used" \
	sh -c '[ "$(grep -c "^memphis" d.err)" = 1 ] && grep -q "MEMPHIS_DISABLE=maybe.*using 0" d.err'
rm -rf memphis-*/

# parsed once at start (lib/config.c), whatever backend runs
MEMPHIS_KMOD_KIND=fast "$P" mark > k.out 2> k.err
check "MEMPHIS_KMOD_KIND=fast: one line naming it and the auto used" \
	sh -c '[ "$(grep -c "^memphis" k.err)" = 1 ] && grep -q "MEMPHIS_KMOD_KIND=fast is not auto, clock, ibs or pebs.*using auto" k.err'
rm -rf memphis-*/
for v in auto clock IBS pebs; do
	MEMPHIS_KMOD_KIND=$v "$P" mark > k.out 2> k.err
	check "MEMPHIS_KMOD_KIND=$v: taken, silent" sh -c '[ ! -s k.err ]'
	rm -rf memphis-*/
done

MEMPHIS_FIRST_TOUCH=no "$P" mark > f.out 2> f.err
check "MEMPHIS_FIRST_TOUCH=no: first touch off, silent" \
	sh -c "[ ! -s f.err ] && \"$REPORT\" dump --meta \"$(rundir prog_hostile)\" | grep -q '^#   first_touch=0$'"
rm -rf memphis-*/

MEMPHIS_CALLSITE_DEPTH=99 MEMPHIS_VERBOSE=loud "$P" mark > two.out 2> two.err
check "two bad values: two lines, each naming its variable and what is used" \
	sh -c '[ "$(grep -c "^memphis" two.err)" = 2 ] &&
	       grep -q "MEMPHIS_CALLSITE_DEPTH=99.*using 4" two.err &&
	       grep -q "MEMPHIS_VERBOSE=loud.*using 0" two.err'
rm -rf memphis-*/

long=$(printf '%05000d' 0)
MEMPHIS_OUTPUT="x$long" "$P" mark > o.out 2> o.err
check "over-long MEMPHIS_OUTPUT: one line saying the default name is used" \
	sh -c '[ "$(grep -c "^memphis" o.err)" = 1 ] && grep -q "MEMPHIS_OUTPUT=x0000.*\.\.\. .*using the default" o.err &&
	       [ -n "$(ls -d memphis-prog_hostile-*/ 2>/dev/null)" ]'
rm -rf memphis-*/
