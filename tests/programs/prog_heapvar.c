/* tests/programs/prog_heapvar.c - heap objects named by the variable that receives them
 * (tests/report/t_heapvar.sh, issue 16 item 2): one allocation site (xmalloc's malloc) behind a
 * wrapper two levels deep (alloc_matrix -> xmalloc -> malloc) whose arrays land in a
 * global, a static, a member of a global struct, a local, a global through one more
 * function that returns the pointer without storing it (make_tmp), into a member of the
 * struct a pointer parameter points to (grid_init's gr->cells), and in no variable at all
 * (passed straight to consume: named by its call site). posix_memalign's status in %rax
 * (its int rc) is no pointer: named by its call site. Each array is read by a chase
 * of the same length inside region "heapvar".
 *   prog_heapvar [STEPS [ELEMENTS]]   (default 20000000 steps, 131072 doubles an array: 1 MiB;
 *                                      ELEMENTS a power of two) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

static long N = 1 << 17; /* doubles an array: 1 MiB (argv[2]) */

struct grid {
	long n;
	double *cells;
};

double *g_mat;        /* VAR:global */
static double *s_mat; /* VAR:static */
struct grid g_grid;   /* VAR:member */
double *t_mat;        /* VAR:returned */
struct grid p_grid;   /* filled through a pointer (grid_init) */
long made;

__attribute__((noinline)) void *xmalloc(size_t n)
{
	void *p = malloc(n); /* SITE */

	if (!p) {
		perror("malloc");
		exit(1);
	}
	return p;
}

__attribute__((noinline)) double *alloc_matrix(size_t n)
{
	double *m = xmalloc(n * sizeof(*m));

	/* many instructions and reloads of m before the return (at -O0) */
	for (size_t i = 0; i < n; i++)
		m[i] = (double)(i % 7);
	for (size_t i = 1; i < n; i++)
		m[i] += m[i - 1] * 0.25 - m[(i * 5) % n] * 0.125;
	for (size_t i = 0; i < n; i += 2)
		m[i] = m[i] * 0.5 + (double)(i % 3);
	for (size_t i = 0; i < n; i++)
		m[i] += m[(i * 7) % n] - m[(i * 3) % n] * 0.5;
	return m;
}

/* returns the array without storing it (the count after the call: no tail call) */
__attribute__((noinline)) double *make_tmp(size_t n)
{
	double *m = alloc_matrix(n);

	made++;
	return m;
}

/* stores the array through the pointer parameter gr: named gr->cells (not specialised
 * for &p_grid, which would make it a store to p_grid.cells: external, and noipa for gcc) */
#ifdef __clang__
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noipa))
#endif
NOIPA void grid_init(struct grid *gr, long n);
NOIPA void grid_init(struct grid *gr, long n)
{
	gr->cells = alloc_matrix((size_t)n); /* VAR:through */
	gr->n = n;
}

/* steps reads of p along one fixed pseudo-random walk */
__attribute__((noinline)) static double chase(const double *p, long steps)
{
	double sum = 0;

	for (long s = 0; s < steps; s++)
		sum += p[(s * 4099) & (N - 1)];
	return sum;
}

__attribute__((noinline)) static double local_case(long steps)
{
	double *loc = alloc_matrix(N); /* VAR:local */
	double sum = chase(loc, steps);

	free(loc);
	return sum;
}

__attribute__((noinline)) static double consume(double *p, long steps)
{
	double sum = chase(p, steps);

	free(p);
	return sum;
}

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 20000000;
	double sum = 0, *pm;
	int rc;

	if (argc > 2)
		N = atol(argv[2]);
	if (N < 8 || (N & (N - 1)))
		return 1;

	g_mat = alloc_matrix(N);       /* FROM:global */
	s_mat = alloc_matrix(N);       /* FROM:static */
	g_grid.cells = alloc_matrix(N); /* FROM:member */
	g_grid.n = N;
	t_mat = make_tmp(N);           /* FROM:returned */
	grid_init(&p_grid, N);
	rc = posix_memalign((void **)&pm, 64, N * sizeof(*pm)); /* VAR:memalign */
	if (rc)
		return 1;
	for (long i = 0; i < N; i++)
		pm[i] = (double)(i % 3);
	memphis_mark_named("heapvar");
	sum += chase(g_mat, steps);
	sum += chase(s_mat, steps);
	sum += chase(g_grid.cells, steps);
	sum += chase(t_mat, steps);
	sum += chase(p_grid.cells, steps);
	sum += chase(pm, steps);
	sum += local_case(steps);
	sum += consume(alloc_matrix(N), steps); /* VAR:none */
	memphis_print();
	printf("sum %.0f made %ld\n", sum, made);
	free(g_mat);
	free(s_mat);
	free(g_grid.cells);
	free(t_mat);
	free(p_grid.cells);
	free(pm);
	return 0;
}
