/* STACKS entries (tests/lib/t_stacks.sh): phases in regions of their own, with fixed work so
 * that stdout is the same with and without memphis:
 *   copy   memcpy/memset of heap arrays by the C library (samples outside the executable)
 *   heap   a sum over a heap array in the executable (samples with no entry)
 *   local  a function's local array (samples on the thread's stack)
 *   small  a thread with a 16 KiB stack calling memset on its local array
 * The arrays are first touched by memset. Addresses go to stderr: "text LO HI" (the
 * executable's code), "heap LO HI", "small TID"; the sums to stdout. Exits with 3.
 *   prog_stacks [SCALE]   every phase's work times SCALE (default 1) */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define N (4ul << 20)
extern char __executable_start[], etext[];
static volatile size_t small_len = 200; /* not a constant: memset stays a call */
static unsigned long copies = 2000, sums = 2000, locals = 20000, smalls = 6000000;
static volatile double sink;

static __attribute__((noinline)) double local_array(unsigned long rounds)
{
	double loc[2048];
	double s = 0;

	for (int i = 0; i < 2048; i++)
		loc[i] = i;
	for (unsigned long r = 0; r < rounds; r++)
		for (int i = 0; i < 2048; i++) {
			loc[(i * 7) & 2047] += loc[i] * 0.5;
			s += loc[(i * 13) & 2047];
		}
	sink = s; /* a side effect: the call stays inside its region */
	return s;
}

static void *small_stack(void *arg)
{
	char buf[256];
	unsigned long *out = arg, s = 0;

	fprintf(stderr, "small %ld\n", (long)syscall(SYS_gettid));
	for (unsigned long r = 0; r < smalls; r++) {
		memset(buf, (int)r, small_len);
		s += (unsigned char)buf[r % small_len];
	}
	*out = s;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned char *a = malloc(N), *b = malloc(N);
	long *h;
	unsigned long sum = 0, small_sum = 0;
	pthread_attr_t attr;
	pthread_t t;

	if (!a || !b)
		return 1;
	if (argc > 1) {
		unsigned long k = strtoul(argv[1], NULL, 10);
		copies *= k, sums *= k, locals *= k, smalls *= k;
	}
	fprintf(stderr, "text %p %p\nheap %p %p\n", (void *)__executable_start, (void *)etext,
		(void *)a, (void *)(a + N));
	memset(a, 1, N); /* first touches by the C library */
	memset(b, 2, N);

	memphis_mark_named("copy");
	for (unsigned long i = 0; i < copies; i++) {
		memcpy(b, a, N);
		memset(a, (int)i, N);
	}
	memphis_print();
	sum += b[N / 2] + a[N / 3];

	memphis_mark_named("heap");
	h = (long *)a;
	for (unsigned long r = 0; r < sums; r++)
		for (size_t i = 0; i < N / sizeof(*h); i += 8)
			sum += (unsigned long)h[i] + r;
	memphis_print();

	memphis_mark_named("local");
	sum += (unsigned long)local_array(locals);
	memphis_print();

	memphis_mark_named("small");
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 16384);
	if (pthread_create(&t, &attr, small_stack, &small_sum))
		return 2;
	pthread_join(t, NULL);
	memphis_print();

	printf("sum %lu small %lu\n", sum, small_sum);
	free(a);
	free(b);
	return 3;
}
