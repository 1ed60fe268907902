/* Counters per region: region "faults" writes the first byte of every page of a fresh
 * FAULT_PAGES-page anonymous mapping (one page fault each, no huge pages) on the main
 * thread, and starts a thread mid-region that faults THREAD_PAGES pages of its own and
 * runs for a while; region "quiet" only computes on memory already touched (no fault).
 * Prints "main TID", "thread TID" and "sum N" (the same with or without memphis). */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FAULT_PAGES 4000
#define THREAD_PAGES 1000

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

int main(void)
{
	pthread_t t;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("main %ld\n", (long)syscall(SYS_gettid));
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
