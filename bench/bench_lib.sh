# bench/bench_lib.sh - what bench_report.sh and bench_scale.sh share (sourced, in the
# directory they measure in): measure CMD..., the wall and CPU time and peak RSS of CMD.
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "# /usr/bin/time is missing (Debian package 'time'): RSS not measured"
	TIME=""
fi

# measure CMD... - sets wall, cpu (user+sys seconds) and rss (KiB) of CMD
measure() {
	if [ -n "$TIME" ]; then
		"$TIME" -f "%e %U %S %M" -o t.out "$@" >/dev/null 2>t.err
		# the last line: time puts "Command exited with non-zero status N" before it
		tail -n 1 t.out > t.last
		read -r wall u s rss < t.last
		cpu=$(awk "BEGIN { print $u + $s }")
	else
		t0=$(date +%s.%N)
		"$@" >/dev/null 2>t.err
		t1=$(date +%s.%N)
		wall=$(awk "BEGIN { print $t1 - $t0 }")
		cpu=$wall
		rss=0
	fi
}
