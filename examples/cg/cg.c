/* cg - an OpenMP sparse conjugate-gradient kernel in the shape of NAS CG, the paper's
 * case study. The matrix (rowstr, colidx, a) is built by the master thread alone, so under
 * first touch all its pages land on the master's node: the "hot-spot" that memphis shows
 * as remote accesses to `a` and `colidx` from every other node. With --numa-aware the
 * matrix is first touched inside a parallel loop with the same static partition as the
 * solver, and the remote accesses disappear. Both variants compute the same result.
 *
 *   cg [--numa-aware] [-n ROWS (<= 400000)] [-i ITERATIONS]
 */
#include <math.h>
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOFF 9     /* stencil: the diagonal and four symmetric pairs of far neighbours */
#define NA 400000  /* most rows; like NAS CG the matrix lives in static arrays */

static long n = 150000;
static int niter = 30;
static long rowstr[NA + 1];    /* row i is a[rowstr[i] .. rowstr[i+1]) */
static int colidx[NA * NOFF];  /* column of each nonzero */
static double a[NA * NOFF];    /* value of each nonzero */
static double *x, *z, *p, *q, *r;

/* Symmetric off-diagonal value of entry (i, j). */
static double offdiag(long i, long j)
{
	long lo = i < j ? i : j, hi = i < j ? j : i;
	return -1.0 / (double)(1 + (lo * 7 + hi * 13) % 97);
}

/* Fill rows [lo, hi) of the matrix: diagonal dominance makes it positive definite. */
static void fill_rows(long lo, long hi, const long *offs)
{
	for (long i = lo; i < hi; i++) {
		long k = rowstr[i];
		double diag = 1.0;
		for (int o = 1; o < NOFF; o++) {
			long j = ((i + offs[o]) % n + n) % n;
			double v = offdiag(i, j);
			colidx[k + o] = (int)j;
			a[k + o] = v;
			diag += fabs(v);
		}
		colidx[k] = (int)i;
		a[k] = diag;
	}
}

/* Build the matrix; with numa_aware every thread first-touches its own rows. */
static void makea(int numa_aware)
{
	const long offs[NOFF] = { 0, 1, -1, 37, -37, 1031, -1031, n / 3, -(n / 3) };

	if (numa_aware) {
#pragma omp parallel for schedule(static)
		for (long i = 0; i <= n; i++)
			rowstr[i] = i * NOFF;
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			fill_rows(i, i + 1, offs);
	} else {
		/* the master thread alone touches every page of the matrix */
		for (long i = 0; i <= n; i++)
			rowstr[i] = i * NOFF;
		fill_rows(0, n, offs);
	}
}

/* Vectors are first-touched in parallel in both variants: only the matrix differs. */
static double *vector(void)
{
	double *v = malloc((size_t)n * sizeof(*v));
	if (!v) {
		fprintf(stderr, "cg: out of memory\n");
		exit(1);
	}
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++)
		v[i] = 0.0;
	return v;
}

/* 25 CG iterations on A z = x; returns ||x - A z||. */
static double conj_grad(void)
{
	double rho = 0.0, norm = 0.0;

#pragma omp parallel for schedule(static) reduction(+ : rho)
	for (long i = 0; i < n; i++) {
		z[i] = 0.0;
		r[i] = x[i];
		p[i] = r[i];
		rho += r[i] * r[i];
	}
	for (int cgit = 0; cgit < 25; cgit++) {
		double d = 0.0, rho0 = rho;
#pragma omp parallel for schedule(static) reduction(+ : d)
		for (long i = 0; i < n; i++) {
			double sum = 0.0;
			for (long k = rowstr[i]; k < rowstr[i + 1]; k++)
				sum += a[k] * p[colidx[k]];
			q[i] = sum;
			d += p[i] * q[i];
		}
		double alpha = rho0 / d;
		rho = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rho)
		for (long i = 0; i < n; i++) {
			z[i] += alpha * p[i];
			r[i] -= alpha * q[i];
			rho += r[i] * r[i];
		}
		double beta = rho / rho0;
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			p[i] = r[i] + beta * p[i];
	}
#pragma omp parallel for schedule(static) reduction(+ : norm)
	for (long i = 0; i < n; i++) {
		double sum = 0.0;
		for (long k = rowstr[i]; k < rowstr[i + 1]; k++)
			sum += a[k] * z[colidx[k]];
		norm += (x[i] - sum) * (x[i] - sum);
	}
	return sqrt(norm);
}

int main(int argc, char **argv)
{
	int numa_aware = 0;
	double zeta = 0.0, rnorm = 0.0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--numa-aware"))
			numa_aware = 1;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atol(argv[++i]);
		else if (!strcmp(argv[i], "-i") && i + 1 < argc)
			niter = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: cg [--numa-aware] [-n ROWS] [-i ITERATIONS]\n");
			return 2;
		}
	}
	if (n < 4 || n > NA || niter < 1) {
		fprintf(stderr, "cg: need 4 <= ROWS <= %d and ITERATIONS >= 1\n", NA);
		return 2;
	}
	makea(numa_aware);
	x = vector();
	z = vector();
	p = vector();
	q = vector();
	r = vector();
#pragma omp parallel for schedule(static)
	for (long i = 0; i < n; i++)
		x[i] = 1.0;

	for (int it = 0; it < niter; it++) {
		memphis_mark_named("cg");
		rnorm = conj_grad();
		double norm_z = 0.0, xz = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : norm_z, xz)
		for (long i = 0; i < n; i++) {
			xz += x[i] * z[i];
			norm_z += z[i] * z[i];
		}
		zeta = 10.0 + 1.0 / xz;
#pragma omp parallel for schedule(static)
		for (long i = 0; i < n; i++)
			x[i] = z[i] / sqrt(norm_z);
		memphis_print();
	}
	printf("cg: %s, n=%ld, %d iterations, zeta=%.12e, residual=%.3e\n",
	       numa_aware ? "numa-aware" : "master-initialised", n, niter, zeta, rnorm);
	return 0;
}
