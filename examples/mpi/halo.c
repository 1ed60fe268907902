/* examples/mpi/halo.c - an MPI + OpenMP Jacobi stencil with halo exchange, the shape of
 * the users' codes: each rank owns a block of rows of a 2-D grid, exchanges one halo row
 * with each neighbour per sweep, and updates its rows with OpenMP threads.
 *
 * The NUMA problem is inside each rank: its two arrays are initialised by the master
 * thread alone (serial loops, as when reading input), so under first touch all their pages
 * sit on the master's node; when the rank's threads span nodes, memphis-report shows the
 * remote accesses to `grid` and `next` of main() per rank. The sweeps are one region,
 * "stencil" (memphis_mark_named / memphis_print); nothing else of memphis is needed, and
 * no MPI call is made by memphis (it reads the rank from the launcher's environment).
 *
 *   mpirun -np 4 halo [-s SWEEPS] [-r ROWS] [-c COLS] [-k RANK]
 *     defaults: 60 sweeps of 256 rows x 1024 columns per rank
 *     -k RANK   for the tests: after the checksum and MPI_Finalize every rank runs a
 *               second region, "local", of sweeps without exchange, and rank RANK kills
 *               itself (SIGKILL) halfway through it (a rank killed mid-run; the others
 *               finish it, which Open MPI lets them do only with orte_enable_recovery).
 *               Finalize comes first: Open MPI 4.1's finalize fence, entered after a rank
 *               died, hung in 1 of 6 tries on a 2-CPU machine.
 * Prints one line from rank 0 with the checksum of the whole grid, summed in rank order
 * (the same with and without memphis, for any number of threads).
 *
 * Built with -DMEMPHIS_NO_MPI (build/examples/mpi/halo-nompi, no MPI library): one rank
 * whose first and last rows stay fixed, the same code otherwise; started several times
 * with a launcher's environment (tests/vm) each process is a rank for memphis. */
#include <memphis.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef MEMPHIS_NO_MPI
#include <mpi.h>
#endif

struct options {
	int sweeps, rows, cols, die_rank;
};

static void options(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .sweeps = 60, .rows = 256, .cols = 1024, .die_rank = -1 };
	for (int i = 1; i + 1 < argc; i += 2) {
		int v = atoi(argv[i + 1]);
		if (!strcmp(argv[i], "-s") && v > 0)
			o->sweeps = v;
		else if (!strcmp(argv[i], "-r") && v > 0)
			o->rows = v;
		else if (!strcmp(argv[i], "-c") && v > 2)
			o->cols = v;
		else if (!strcmp(argv[i], "-k") && v >= 0)
			o->die_rank = v;
	}
}

/* Row `r` of the rank's block (r = 0 and rows + 1 are the halo rows). */
#define AT(a, r, c) ((a)[(size_t)(r) * (size_t)cols + (size_t)(c)])

/* One Jacobi sweep over the block's own rows, from `in` to `out`. */
static void sweep(const double *in, double *out, int rows, int cols)
{
#pragma omp parallel for schedule(static)
	for (int r = 1; r <= rows; r++)
		for (int c = 1; c < cols - 1; c++)
			AT(out, r, c) = 0.25 * (AT(in, r - 1, c) + AT(in, r + 1, c) +
						AT(in, r, c - 1) + AT(in, r, c + 1));
}

/* Send the first and last own rows to the neighbours, receive their rows into the halo. */
static void exchange(double *a, int rows, int cols, int rank, int size)
{
#ifndef MEMPHIS_NO_MPI
	int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	int down = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;

	MPI_Sendrecv(&AT(a, 1, 0), cols, MPI_DOUBLE, up, 0, &AT(a, rows + 1, 0), cols,
		     MPI_DOUBLE, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv(&AT(a, rows, 0), cols, MPI_DOUBLE, down, 1, &AT(a, 0, 0), cols,
		     MPI_DOUBLE, up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#else
	(void)a, (void)rows, (void)cols, (void)rank, (void)size;
#endif
}

int main(int argc, char **argv)
{
	struct options o;
	int rank = 0, size = 1;

#ifndef MEMPHIS_NO_MPI
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
#endif
	options(argc, argv, &o);
	int rows = o.rows, cols = o.cols;
	size_t n = (size_t)(rows + 2) * (size_t)cols;
	double *grid = malloc(n * sizeof(*grid));
	double *next = malloc(n * sizeof(*next));

	if (!grid || !next) {
		fprintf(stderr, "halo: out of memory\n");
		return 1;
	}
	/* master-initialised: every page on the master thread's node */
	for (int r = 0; r < rows + 2; r++)
		for (int c = 0; c < cols; c++) {
			long g = (long)rank * rows + r; /* the global row */
			AT(grid, r, c) = (double)((g * 7 + c * 3) % 101) / 100.0;
		}
	memcpy(next, grid, n * sizeof(*grid));

	memphis_mark_named("stencil");
	for (int s = 0; s < o.sweeps; s++) {
		exchange(grid, rows, cols, rank, size);
		sweep(grid, next, rows, cols);
		double *t = grid;
		grid = next;
		next = t;
	}
	memphis_print();

	/* the checksum: each rank's rows summed in order by one thread, the ranks in order */
	double local = 0, total = 0;
	for (int r = 1; r <= rows; r++)
		for (int c = 0; c < cols; c++)
			local += AT(grid, r, c);
#ifndef MEMPHIS_NO_MPI
	double *all = rank == 0 ? malloc((size_t)size * sizeof(*all)) : NULL;
	MPI_Gather(&local, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && all && i < size; i++)
		total += all[i];
	free(all);
#else
	total = local;
#endif
	if (rank == 0)
		printf("halo: %d ranks, %d sweeps of %d x %d, checksum %.12e\n", size, o.sweeps,
		       size * rows, cols, total);
	fflush(stdout);
#ifndef MEMPHIS_NO_MPI
	MPI_Finalize();
#endif

	if (o.die_rank >= 0) {
		memphis_mark_named("local");
		for (int s = 0; s < o.sweeps; s++) {
			if (rank == o.die_rank && s == o.sweeps / 2)
				raise(SIGKILL);
			sweep(grid, next, rows, cols);
			double *t = grid;
			grid = next;
			next = t;
		}
		memphis_print();
	}
	free(grid);
	free(next);
	return 0;
}
