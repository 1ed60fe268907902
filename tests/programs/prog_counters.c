/* Counters per region: region "faults" writes the first byte of every page of a fresh
 * FAULT_PAGES-page anonymous mapping (one page fault each, no huge pages) on the main
 * thread, and starts a thread mid-region that faults THREAD_PAGES pages of its own and
 * runs for a while; region "quiet" only computes on memory already touched (no fault).
 * Prints "main TID", "thread TID" and "sum N" (the same with or without memphis).
 *
 * `prog_counters split`: only region "split", where the main thread faults SPLIT_PAGES
 * pages on CPU 0, then as many on CPU 1 (pinned to each in turn, then as before). Prints
 * "main TID" and "split SPLIT_PAGES", or "split nopin" when it cannot be pinned there. */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAULT_PAGES 4000
#define THREAD_PAGES 1000
#define SPLIT_PAGES 2000

static volatile long sink;

static void touch_pages(long n)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * ps), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise(p, (size_t)(n * ps), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * ps] = 1;
}

static void spin(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += i ^ (s >> 3);
	sink = s;
}

static void *worker(void *arg)
{
	(void)arg;
	printf("thread %ld\n", (long)syscall(SYS_gettid));
	touch_pages(THREAD_PAGES);
	spin(20000000);
	return NULL;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) == 0 && sched_getcpu() == cpu;
}

/* Region "split": SPLIT_PAGES faults on CPU 0, as many on CPU 1. */
static int split(void)
{
	cpu_set_t was;
	int ok;

	sched_getaffinity(0, sizeof(was), &was);
	memphis_mark_named("split");
	ok = pin(0);
	touch_pages(SPLIT_PAGES);
	ok = ok && pin(1);
	touch_pages(SPLIT_PAGES);
	sched_setaffinity(0, sizeof(was), &was);
	memphis_print();
	if (ok)
		printf("split %d\n", SPLIT_PAGES);
	else
		printf("split nopin\n");
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("main %ld\n", (long)syscall(SYS_gettid));
	if (argc > 1 && !strcmp(argv[1], "split"))
		return split();
	spin(1000); /* the code pages of spin faulted in before the regions */
	memphis_mark_named("faults");
	touch_pages(FAULT_PAGES);
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	memphis_print();
	memphis_mark_named("quiet");
	spin(20000000);
	memphis_print();
	printf("sum %ld\n", sink != 0 ? 1L : 0L);
	return 0;
}
