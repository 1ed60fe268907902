/* Many small live objects, for `make bench` (issue 16 item 6): a multigrid-style pointer
 * tree. Level 0 has ROWS/2 rows, each coarser level half the rows of the one above, so
 * about ROWS rows are live at once; every row is its own malloc, made by the thread that
 * first touches it, of 64..1,856 bytes (mean
 * about 960: 1 M rows hold about 1 GiB), reached through a malloc'd array of row pointers
 * per level. In one region, SWEEPS times over all levels (OpenMP over rows), each row is
 * smoothed and takes a share of its coarse parent's row: random-looking pointer walks over
 * a million objects. Prints a checksum that does not depend on addresses.
 *   prog_manyobj [ROWS [SWEEPS]]   (default 1,000,000 rows, 3 sweeps) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

#define LEVELS 16

struct level {
	long nrows;
	double **row;
	unsigned *len; /* doubles in each row */
};

/* Row lengths vary with the row number so that allocations are of many sizes. */
static unsigned row_len(long i)
{
	return 8 + (unsigned)((i * 2654435761u) >> 7) % 225;
}

static int build(struct level *lv, long nrows)
{
	int bad = 0;

	lv->nrows = nrows;
	lv->row = malloc((size_t)nrows * sizeof(*lv->row));
	lv->len = malloc((size_t)nrows * sizeof(*lv->len));
	if (!lv->row || !lv->len)
		return -1;
#pragma omp parallel for schedule(static) reduction(| : bad)
	for (long i = 0; i < nrows; i++) {
		lv->len[i] = row_len(i);
		lv->row[i] = malloc(lv->len[i] * sizeof(double));
		if (!lv->row[i]) {
			bad = 1;
			continue;
		}
		for (unsigned j = 0; j < lv->len[i]; j++)
			lv->row[i][j] = (double)((i + j) % 11);
	}
	return bad ? -1 : 0;
}

/* The set-up reads its input through a large temporary buffer, freed before the tree is
 * built: the threads' malloc arenas then lie where the buffer was. */
static int setup(void)
{
	size_t n = (256u << 20) / sizeof(double);
	double *tmp = malloc(n * sizeof(*tmp)), s = 0;

	if (!tmp)
		return -1;
	for (size_t i = 0; i < n; i++)
		tmp[i] = (double)(i % 5);
	for (size_t i = 0; i < n; i += 4096)
		s += tmp[i];
	free(tmp);
	return s < 0;
}

/* One sweep of level l: smooth each row, add a share of its parent row on level l + 1. */
static void sweep(struct level *lv, int l, int nl)
{
	struct level *c = l + 1 < nl ? &lv[l + 1] : NULL;

#pragma omp parallel for schedule(dynamic, 256)
	for (long i = 0; i < lv[l].nrows; i++) {
		double *r = lv[l].row[i];
		unsigned n = lv[l].len[i];
		const double *p = c ? c->row[i / 2] : NULL;
		unsigned pn = c ? c->len[i / 2] : 0;

		for (unsigned j = 1; j + 1 < n; j++)
			r[j] = 0.25 * r[j - 1] + 0.5 * r[j] + 0.25 * r[j + 1];
		for (unsigned j = 0; p && j < n && j < pn; j++)
			r[j] += 0.125 * p[j];
	}
}

int main(int argc, char **argv)
{
	long rows = argc > 1 ? atol(argv[1]) : 1000000;
	long sweeps = argc > 2 ? atol(argv[2]) : 3;
	struct level lv[LEVELS];
	long total = 0;
	double sum = 0;
	int nl = 0;

	if (rows < 2 || sweeps < 1)
		return 1;
	if (setup())
		return 1;
	for (long n = rows / 2; n >= 1 && nl < LEVELS; n /= 2, nl++) {
		if (build(&lv[nl], n))
			return 1;
		total += n;
	}
	memphis_mark_named("sweep");
	for (long s = 0; s < sweeps; s++)
		for (int l = 0; l < nl; l++)
			sweep(lv, l, nl);
	memphis_print();
	for (int l = 0; l < nl; l++) {
		for (long i = 0; i < lv[l].nrows; i++) {
			sum += lv[l].row[i][0] + lv[l].row[i][lv[l].len[i] - 1];
			free(lv[l].row[i]);
		}
		free(lv[l].row);
		free(lv[l].len);
	}
	printf("manyobj: %ld rows on %d levels, %ld sweeps, sum %.6e\n", total, nl, sweeps, sum);
	return 0;
}
