/* Three 3-D grids as a multigrid code keeps them (issue 41 item 4): each a pointer array of
 * planes, each plane a pointer array of rows, each row its own malloc of ROW bytes, from
 * three call sites (u[k][j] = malloc(...), one site per grid); about 10^5 rows of 2 KiB in
 * all by default. In one region, SWEEPS times, OpenMP over the planes: u = (v + w) / 2,
 * row by row. Prints a checksum that does not depend on addresses.
 *   prog_grids [PLANES [ROWS_PER_PLANE [SWEEPS]]]   (default 32 1024 4) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

#define ROW 2048
#define N (ROW / sizeof(double))

double ***u, ***v, ***w;

/* A grid's planes: nk pointer arrays of nj rows each, the rows left to the caller. */
static double ***planes(long nk, long nj)
{
	double ***g = malloc((size_t)nk * sizeof(*g));

	for (long k = 0; g && k < nk; k++)
		if (!(g[k] = malloc((size_t)nj * sizeof(**g))))
			return NULL;
	return g;
}

int main(int argc, char **argv)
{
	long nk = argc > 1 ? atol(argv[1]) : 32, nj = argc > 2 ? atol(argv[2]) : 1024;
	long sweeps = argc > 3 ? atol(argv[3]) : 4;
	double sum = 0;

	if (nk < 1 || nj < 1 || sweeps < 1 || !(u = planes(nk, nj)) || !(v = planes(nk, nj)) ||
	    !(w = planes(nk, nj)))
		return 1;
#pragma omp parallel for schedule(static)
	for (long k = 0; k < nk; k++)
		for (long j = 0; j < nj; j++) {
			u[k][j] = malloc(ROW);
			v[k][j] = malloc(ROW);
			w[k][j] = malloc(ROW);
			if (!u[k][j] || !v[k][j] || !w[k][j])
				abort();
			for (size_t i = 0; i < N; i++) {
				u[k][j][i] = 0;
				v[k][j][i] = (double)((k + j + i) % 7);
				w[k][j][i] = (double)((k * j + i) % 5);
			}
		}
	memphis_mark_named("sweep");
	for (long s = 0; s < sweeps; s++) {
#pragma omp parallel for schedule(static)
		for (long k = 0; k < nk; k++)
			for (long j = 0; j < nj; j++) {
				double *a = u[k][j];
				const double *b = v[k][j], *c = w[k][j];

				for (size_t i = 0; i < N; i++)
					a[i] = 0.5 * (b[i] + c[i]) + 0.125 * a[i];
			}
	}
	memphis_print();
	for (long k = 0; k < nk; k++) {
		for (long j = 0; j < nj; j++) {
			sum += u[k][j][(size_t)j % N];
			free(u[k][j]);
			free(v[k][j]);
			free(w[k][j]);
		}
		free(u[k]);
		free(v[k]);
		free(w[k]);
	}
	free(u);
	free(v);
	free(w);
	printf("grids: %ld x %ld rows of %d bytes, 3 grids, %ld sweeps, sum %.6e\n", nk, nj, ROW,
	       sweeps, sum);
	return 0;
}
