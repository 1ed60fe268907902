/* prog_members.c - struct members for `memphis-report --by member` (issue 43;
 * tests/report/t_members.sh, the 2-node guest's numa-members): arrays of structs whose
 * members two threads use apart, and two cache lines two threads store to.
 *
 *   p    static struct quad[N]: thread 0 reads .a, thread 1 reads .c
 *   hp   the same through a heap object received by a typed global pointer
 *   np   static struct outer[N] with a nested struct: thread 0 reads .in.x, thread 1 .in.y
 *   fs   one 64-byte line: thread 0 stores to .x, thread 1 to .y (false sharing)
 *   fsp  the same with .y 64 bytes after .x: nothing shared
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
static double sc[N];

/* thread 0: .a of every element, thread 1: .c */
static double quads(const struct quad *q, int t)
{
	double s = 0;

	for (long i = 0; i < N; i++)
		s += t == 0 ? q[i].a : q[i].c;
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

	for (long i = 0; i < N; i++)
		s += t == 0 ? np[i].in.x : np[i].in.y;
	return s;
}

static void stores(volatile long *x, long n)
{
	for (long i = 0; i < n; i++)
		*x += 1;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	double sum = 0;

	hp = malloc(N * sizeof(*hp));
	if (!hp) {
		fprintf(stderr, "prog_members: out of memory\n");
		return 1;
	}
	for (long i = 0; i < N; i++) {
		p[i] = hp[i] = (struct quad){ 1, 2, 3, 4 };
		np[i] = (struct outer){ i, { 1, 2 }, 3 };
		sc[i] = 1;
	}
	memphis_mark_named("work"); /* the master's first touch left out */
#pragma omp parallel reduction(+ : sum)
	{
		int t = omp_get_thread_num();

		for (int r = 0; r < rounds && t < 2; r++) {
			sum += quads(p, t) + quads(hp, t) + nested(t) + scalars();
			stores(t == 0 ? &fs.x : &fs.y, 50000);
			stores(t == 0 ? &fsp.x : &fsp.y, 50000);
		}
	}
	memphis_print();
	printf("prog_members: sum %.6e lines %ld %ld\n", sum, fs.x + fs.y, fsp.x + fsp.y);
	free(hp);
	return 0;
}
