/* OpenMP with long barriers (issue 16 item 3): thread 0 does WORK times the others' work
 * on its slice of `grid` (heap) with `coef` (a global), so at every `#pragma omp barrier`
 * the other threads wait for it: spinning in libgomp with OMP_WAIT_POLICY=active, asleep
 * in the kernel with passive. Each thread measures its own time around its work and
 * around the barrier, as CPU time of the thread (what the sampler's task clock counts)
 * and as wall time (omp_get_wtime), and the program prints the share of the threads'
 * time spent waiting:
 *   waits: T threads, R rounds, wait share: cpu 41.2 %, wall 45.0 %
 * One memphis region around the rounds.
 *   prog_waits [ROUNDS [WORK]]   (default 150 rounds, thread 0 does 4 times the work) */
#include <memphis.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1u << 20)   /* doubles of grid: 8 MiB */
#define NCOEF 4096

double coef[NCOEF];
static double *grid;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One pass over grid[lo, hi). */
static void work(size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++)
		grid[i] = 0.5 * grid[i] + coef[i % NCOEF];
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 150;
	long heavy = argc > 2 ? atol(argv[2]) : 4;
	double cpu_busy = 0, cpu_wait = 0, wall_busy = 0, wall_wait = 0, sum = 0;
	int nthreads = 1;

	grid = malloc(N * sizeof(*grid));
	if (!grid || rounds < 1 || heavy < 1)
		return 1;
	for (size_t i = 0; i < NCOEF; i++)
		coef[i] = (double)(i % 13) * 0.25;
	for (size_t i = 0; i < N; i++)
		grid[i] = (double)(i % 7);
	memphis_mark_named("waits");
#pragma omp parallel reduction(+ : cpu_busy, cpu_wait, wall_busy, wall_wait)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		size_t lo = N / (size_t)nt * (size_t)t, hi = t + 1 == nt ? N : lo + N / (size_t)nt;

		if (t == 0)
			nthreads = nt;
		for (long r = 0; r < rounds; r++) {
			double c0 = thread_cpu(), w0 = omp_get_wtime(), c1, w1;

			for (long k = 0; k < (t == 0 ? heavy : 1); k++)
				work(lo, hi);
			c1 = thread_cpu();
			w1 = omp_get_wtime();
#pragma omp barrier
			cpu_busy += c1 - c0;
			wall_busy += w1 - w0;
			cpu_wait += thread_cpu() - c1;
			wall_wait += omp_get_wtime() - w1;
		}
	}
	memphis_print();
	for (size_t i = 0; i < N; i += 4096)
		sum += grid[i];
	printf("waits: %d threads, %ld rounds, wait share: cpu %.1f %%, wall %.1f %% (sum %.3e)\n",
	       nthreads, rounds, 100 * cpu_wait / (cpu_busy + cpu_wait),
	       100 * wall_wait / (wall_busy + wall_wait), sum);
	free(grid);
	return 0;
}
