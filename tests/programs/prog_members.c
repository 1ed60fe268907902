/* prog_members.c - struct members for `memphis-report --by member` (issue 43;
 * tests/report/t_members.sh, the 2-node guest's numa-members): arrays of structs whose
 * members two threads use apart, and two cache lines two threads store to.
 *
 *   p    static struct quad[N]: thread 0 reads .a, thread 1 reads .c
 *   hp   the same through a heap object received by a typed global pointer
 *   lp   ... and by a typed local pointer of main
 *   np   static struct outer[N] with a nested struct: thread 0 reads .in.x, thread 1 .in.y
 *   fs   one 64-byte line: thread 0 stores to .x, thread 1 to .y (false sharing)
 *   fsp  the same with .y 64 bytes after .x: nothing shared
 *   rw   static struct pair[N]: both threads read .v, thread 0 also writes it
 *   sc   a static double[N], read by both threads: no members
 *
 * Everything is first touched by the master thread, outside the profiled region "work".
 * Each thread's work is its own loop
 * (thread 0 and thread 1 of a team of OMP_NUM_THREADS; the others wait), so which thread
 * uses which member does not depend on the schedule. Prints a checksum.
 *
 *   prog_members [ROUNDS]    (default 200) */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

#include <omp.h>

#define N (1 << 16)

struct quad {
	double a, b, c, d;
};
struct outer {
	long id;
	struct {
		double x, y;
	} in;
	double w;
};
struct line {
	volatile long x, y;
};
struct padded {
	volatile long x;
	char pad[56];
	volatile long y;
};

static struct quad p[N];
struct quad *hp;
static struct outer np[N];
static struct line fs __attribute__((aligned(64)));
static struct padded fsp __attribute__((aligned(64)));
static struct pair {
	double v, w;
} rw[N];
static double sc[N];

/* thread 0: .a of every element, thread 1: .c. A loop each: a select inside one loop may
 * be compiled to loads of both members. */
static double quads(const struct quad *q, int t)
{
	double s = 0;

	if (t == 0)
		for (long i = 0; i < N; i++)
			s += q[i].a;
	else
		for (long i = 0; i < N; i++)
			s += q[i].c;
	return s;
}

/* both threads read rw[].v, thread 0 writes it too (the value it holds: the checksum does
 * not depend on which thread gets there first). In a loop of its own: a store skipped by a
 * branch inside the reading loop would precede the join point, and the soft sampler takes
 * the linear predecessor there (thread 1's samples became stores in the guest). */
static double pairs(int t)
{
	double s = 0;

	for (long i = 0; i < N; i++)
		s += rw[i].v;
	for (long i = 0; i < N && t == 0; i++)
		((volatile struct pair *)rw)[i].v = 1;
	return s;
}

static double scalars(void)
{
	double s = 0;

	for (long i = 0; i < N; i += 4)
		s += sc[i];
	return s;
}

static double nested(int t)
{
	double s = 0;

	if (t == 0)
		for (long i = 0; i < N; i++)
			s += np[i].in.x;
	else
		for (long i = 0; i < N; i++)
			s += np[i].in.y;
	return s;
}

/* One locked add an iteration, a single instruction that reads and writes the line: in
 * a loop of `*x += 1` (a load, an add, a store) an AMD Zen's timer interrupts land on the
 * load that waits for the contended line, 4 to 6 store samples a side where an Intel core
 * gave some 100. */
static void stores(volatile long *x, long n)
{
	for (long i = 0; i < n; i++)
		__atomic_fetch_add(x, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	double sum = 0;
	struct quad *lp;

	hp = malloc(N * sizeof(*hp));
	lp = malloc(N * sizeof(*lp));
	if (!hp || !lp) {
		fprintf(stderr, "prog_members: out of memory\n");
		return 1;
	}
	for (long i = 0; i < N; i++) {
		p[i] = hp[i] = lp[i] = (struct quad){ 1, 2, 3, 4 };
		rw[i] = (struct pair){ 1, 2 };
		np[i] = (struct outer){ i, { 1, 2 }, 3 };
		sc[i] = 1;
	}
	memphis_mark_named("work"); /* the master's first touch left out */
#pragma omp parallel reduction(+ : sum)
	{
		int t = omp_get_thread_num();

		for (int r = 0; r < rounds && t < 2; r++) {
			sum += quads(p, t) + quads(hp, t) + quads(lp, t) + nested(t) + pairs(t) +
			       scalars();
			stores(t == 0 ? &fs.x : &fs.y, 50000);
			stores(t == 0 ? &fsp.x : &fsp.y, 50000);
		}
	}
	memphis_print();
	printf("prog_members: sum %.6e lines %ld %ld\n", sum, fs.x + fs.y, fsp.x + fsp.y);
	free(hp);
	free(lp);
	return 0;
}
