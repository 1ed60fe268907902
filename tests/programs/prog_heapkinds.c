/* tests/programs/prog_heapkinds.c - heap objects of every kind memphis records besides malloc
 * (tests/lib/t_heapkinds.sh): arrays made by pvalloc, reallocarray, mmap, mmap64 (as
 * -D_FILE_OFFSET_BITS=64 builds call it; cut to an alignment by munmap of its head and
 * tail), mremap and a large malloc, each read by chases of its own of the same length, in
 * turns, inside region "kinds", so each gets the share of the samples that its chases'
 * CPU time has (printed on stderr, "cpu SITE PERCENT"). Prints what an overflowing
 * reallocarray returned, whether errno survived successful calls, and the sums: the
 * output must be the same with and without the library.
 * `prog_heapkinds threads STEPS`: threads that chase arrays on their own stacks (one of
 * them a stack the program mapped itself, MAP_STACK), inside region "stacks".
 * The memphis API is referenced weakly: built without -lmemphis the program runs unprofiled,
 * or profiled through LD_PRELOAD. */
#define _GNU_SOURCE /* mremap, reallocarray */
#include <memphis.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#pragma weak memphis_mark_named
#pragma weak memphis_print

enum { N = 1 << 17, BYTES = N * sizeof(long) }; /* 1 MiB arrays */
#define RW (PROT_READ | PROT_WRITE)
#define ANON (MAP_PRIVATE | MAP_ANONYMOUS)

static void mark(const char *name)
{
	if (memphis_mark_named)
		memphis_mark_named(name);
}

static void print(void)
{
	if (memphis_print)
		memphis_print();
}

static void fill(long *p)
{
	for (long i = 0; i < N; i++)
		p[i] = i * 7 + 1;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* steps reads of p from step `from` of one fixed pseudo-random walk */
__attribute__((noinline)) static long chase(const long *p, long from, long steps)
{
	long sum = 0;
	for (long s = from; s < from + steps; s++)
		sum += p[(s * 4099) & (N - 1)];
	return sum;
}

static int kinds(long steps)
{
	volatile size_t huge = SIZE_MAX / 4; /* volatile: no compile-time size warning */
	long *a, *b, *b0, *c, *d, *d0, *e, *f, *q, sum = 0;
	char *raw;
	uintptr_t al;
	int rc;

	a = pvalloc(BYTES - 100);                     /* SITE:pvalloc */
	b0 = reallocarray(NULL, 16, sizeof(long));
	if (!a || !b0)
		return 1;
	b = reallocarray(b0, N, sizeof(long));        /* SITE:reallocarray */
	if (!b)
		return 1;
	errno = 0;
	q = reallocarray(b, huge, sizeof(long));
	printf("overflowing reallocarray: %s, errno %s\n", q ? "a pointer" : "NULL",
	       errno == ENOMEM ? "ENOMEM" : strerror(errno));
	if (q)
		b = q;
	errno = 0;
	q = reallocarray(NULL, 8, huge);
	printf("overflowing reallocarray(NULL): %s, errno %s\n", q ? "a pointer" : "NULL",
	       errno == ENOMEM ? "ENOMEM" : strerror(errno));
	errno = EXDEV; /* a successful call leaves errno alone, recorded or not */
	c = mmap(NULL, BYTES, RW, ANON, -1, 0);                   /* SITE:mmap */
	raw = mmap64(NULL, 3 * (size_t)BYTES, RW, ANON, -1, 0);   /* SITE:mmap_aligned */
	d0 = mmap(NULL, BYTES / 4, RW, ANON, -1, 0);
	if (c == MAP_FAILED || raw == MAP_FAILED || d0 == MAP_FAILED)
		return 1;
	/* an array aligned to its size, cut out of a larger mapping */
	al = ((uintptr_t)raw + BYTES - 1) & ~(uintptr_t)(BYTES - 1);
	if (al > (uintptr_t)raw && munmap(raw, al - (uintptr_t)raw))
		return 1;
	if (munmap((char *)al + BYTES, (uintptr_t)raw + 3 * (size_t)BYTES - al - BYTES))
		return 1;
	f = (long *)al;
	d0[0] = 42;
	d = mremap(d0, BYTES / 4, BYTES, MREMAP_MAYMOVE); /* SITE:mremap */
	if (d == MAP_FAILED)
		return 1;
	printf("mmap, munmap, mremap kept errno: %s\n", errno == EXDEV ? "yes" : strerror(errno));
	e = malloc(BYTES);                            /* SITE:malloc */
	if (!e)
		return 1;
	printf("mremap kept the contents: %s\n", d[0] == 42 ? "yes" : "no");
	fill(a), fill(b), fill(c), fill(d), fill(e), fill(f);

	mark("kinds");
	/* the same steps on each array, but not the same time: on a KVM guest they took up to
	 * twice as long on one array as on another, so the CPU time of each array's chases is
	 * measured, and its share printed on stderr */
	const long *arr[6] = { a, b, c, d, e, f };
	static const char *site[6] = { "pvalloc", "reallocarray", "mmap", "mremap", "malloc",
				       "mmap_aligned" };
	double t[6] = { 0 }, all = 0;
	for (long r = 0, n = steps / 50; r < 50; r++) { /* a load on the machine hits all alike */
		for (int k = 0; k < 6; k++) {
			double t0 = cpu_s();

			sum += chase(arr[k], r * n, n);
			t[k] += cpu_s() - t0;
		}
	}
	print();
	for (int k = 0; k < 6; k++)
		all += t[k];
	for (int k = 0; k < 6; k++)
		fprintf(stderr, "cpu %s %.2f\n", site[k], all > 0 ? 100 * t[k] / all : 0);
	printf("sum %ld\n", sum);
	errno = EXDEV;
	if (munmap(c, BYTES) || munmap(d, BYTES) || munmap(f, BYTES))
		return 1;
	printf("munmap kept errno: %s\n", errno == EXDEV ? "yes" : strerror(errno));
	rc = munmap((char *)c + 1, 4096);
	printf("munmap of an unaligned address: %d, %s\n", rc, strerror(errno));
	free(a);
	free(b);
	free(e);
	return 0;
}

struct job {
	long steps, sum;
};

static void *on_stack(void *arg)
{
	struct job *j = arg;
	long local[N / 8];

	for (long i = 0; i < N / 8; i++)
		local[i] = i;
	__asm__ volatile("" ::"r"(local) : "memory");
	for (long s = 0; s < j->steps; s++)
		j->sum += local[(s * 4099) & (N / 8 - 1)];
	return NULL;
}

static int threads(long steps)
{
	enum { T = 8, STACK = 1 << 20 };
	pthread_t th[T];
	struct job job[T];
	pthread_attr_t attr;
	void *stack = mmap(NULL, STACK, RW, ANON | MAP_STACK, -1, 0);
	long sum = 0;

	if (stack == MAP_FAILED || pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, stack, STACK))
		return 1;
	mark("stacks");
	for (int i = 0; i < T; i++) {
		job[i] = (struct job){ steps, 0 };
		if (pthread_create(&th[i], i == 0 ? &attr : NULL, on_stack, &job[i]))
			return 1;
	}
	for (int i = 0; i < T; i++) {
		pthread_join(th[i], NULL);
		sum += job[i].sum;
	}
	print();
	printf("sum %ld\n", sum);
	pthread_attr_destroy(&attr);
	return munmap(stack, STACK) != 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads(argc > 2 ? atol(argv[2]) : 20000000);
	return kinds(argc > 1 ? atol(argv[1]) : 40000000);
}
