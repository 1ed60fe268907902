/* shim_numamaps.c - preloaded in tests/lib/t_apply.sh: at exit, copies /proc/self/maps and
 * /proc/self/numa_maps (each mapping's memory policy: "prefer:0", "bind:0", "interleave:0-1",
 * "default") to $SHIM_NUMAMAPS.maps and $SHIM_NUMAMAPS.numa, so the test reads the policy
 * `memphis apply` gave each variable of a program it did not change. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void copy(const char *from, const char *base, const char *suffix)
{
	char path[4096], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(path, sizeof(path), "%s.%s", base, suffix);
	if ((in = open(from, O_RDONLY)) < 0)
		return;
	if ((out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		while ((n = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, (size_t)n) != n)
				break;
		close(out);
	}
	close(in);
}

__attribute__((destructor)) static void dump(void)
{
	const char *base = getenv("SHIM_NUMAMAPS");

	if (!base || !*base)
		return;
	copy("/proc/self/maps", base, "maps");
	copy("/proc/self/numa_maps", base, "numa");
}
