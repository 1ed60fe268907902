/* prog_place.c - what `memphis apply` places in tests/lib/t_apply.sh and the 2-node guest
 * (tests/vm/guest-tests/numa-apply.*): a static array, two heap arrays from one wrapper (the
 * plan may name one of them: the call chain tells them apart), and an mmap'd array, each
 * first touched by the master thread and then swept by every thread, each its own half
 * (static schedule). Prints a checksum; exits with status 3, so that an unchanged status is
 * not just 0.
 *
 *   prog_place [SWEEPS [KB [--exec]]]
 *
 * KB: the bytes of each array used (the static one holds 1 MiB; default all of it; hx and
 * hy are half as large). --exec: after its work the program forks and execs itself
 * ("prog_place SWEEPS KB child"), whose allocations (from the same lines) must not be placed
 * unless asked.
 * PLACE_ADDRS=FILE: each array's name, address and bytes written there, one per line.
 * PLACE_EXIT=N: exit with status N instead of 3. */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (1l << 17) /* doubles: 1 MiB */

static double table[N];

static double *vec(long n)
{
	double *v = malloc((size_t)n * sizeof(*v));

	if (!v) {
		fprintf(stderr, "prog_place: out of memory\n");
		exit(1);
	}
	return v;
}

/* No reduction in the sweeps: its chain of additions would take most of the samples (the
 * arrays fit in the cache, so the additions' latency, not the loads', is what stalls) and
 * leave an array without any under load. The checksum is summed once, after. */
static double sweep(double *a, long n, int sweeps)
{
	double sum = 0;

	for (int s = 0; s < sweeps; s++) {
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			a[i] = a[i] * 0.5 + 1.0;
	}
	for (long i = 0; i < n; i++)
		sum += a[i];
	return sum;
}

int main(int argc, char **argv)
{
	int sweeps = argc > 1 ? atoi(argv[1]) : 20;
	long kb = argc > 2 ? atol(argv[2]) : 0, n = kb > 0 && kb * 128 < N ? kb * 128 : N;
	int child = argc > 3 && !strcmp(argv[3], "child");
	double *hx = vec(n / 2); /* hx and hy: one call site, two call chains */
	double *hy = vec(n / 2);
	double *mp = mmap(NULL, (size_t)n * sizeof(double), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const char *addrs = getenv("PLACE_ADDRS");
	double sum = 0;

	if (mp == MAP_FAILED) {
		perror("prog_place: mmap");
		return 1;
	}
	for (long i = 0; i < n; i++) { /* the master first-touches everything */
		table[i] = (double)i;
		mp[i] = 1.0;
	}
	for (long i = 0; i < n / 2; i++)
		hx[i] = hy[i] = 2.0;
	sum += sweep(table, n, sweeps) + sweep(hx, n / 2, sweeps) + sweep(hy, n / 2, sweeps) +
	       sweep(mp, n, sweeps);
	printf("prog_place: %s sum %.6e\n", child ? "child" : "parent", sum);
	fflush(stdout);
	if (addrs && !child) {
		FILE *f = fopen(addrs, "w");

		if (f) {
			fprintf(f, "table %p %zu\nhx %p %zu\nhy %p %zu\nmp %p %zu\n", (void *)table,
				sizeof(table), (void *)hx, n / 2 * sizeof(double), (void *)hy,
				n / 2 * sizeof(double), (void *)mp, n * sizeof(double));
			fclose(f);
		}
	}
	if (argc > 3 && !strcmp(argv[3], "--exec")) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execl("/proc/self/exe", "prog_place", argv[1], argv[2], "child", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
			return 1;
	}
	return getenv("PLACE_EXIT") ? atoi(getenv("PLACE_EXIT")) : 3;
}
