/* First touch: a 64 MiB buffer (2 MiB aligned) touched page by page by two threads, each
 * its half. argv[1] = "huge" asks for transparent huge pages (MADV_HUGEPAGE), anything
 * else forbids them. Prints "buf LO HI" and "half K TID LO HI".
 * argv[1] = "freed": one page of a mapping faulted in a region and unmapped before its
 * memphis_print() (a freed buffer); prints "freed ADDR".
 * argv[1] = "cut": the first page of a 2 MiB range under MADV_NOHUGEPAGE faulted, 300 ms
 * later (its record flushed alone meanwhile) its other 511; prints "cut ADDR". */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIZE (64ul << 20)
static char *buf;

static void *toucher(void *arg)
{
	long k = (long)arg;
	char *lo = buf + k * (SIZE / 2), *hi = lo + SIZE / 2;
	printf("half %ld %ld %p %p\n", k, (long)syscall(SYS_gettid), (void *)lo, (void *)hi);
	for (char *p = lo; p < hi; p += 4096)
		*p = 1;
	return NULL;
}

#define MAPPED (4ul << 20)

/* A fresh mapping of MAPPED bytes (*p) and the 2 MiB range aligned inside it, or NULL. */
static char *range_2m(char **p)
{
	*p = mmap(NULL, MAPPED, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*p == MAP_FAILED)
		return NULL;
	return (char *)(((uintptr_t)*p + (2ul << 20) - 1) & ~((2ul << 20) - 1));
}

static int freed(void)
{
	char *p, *page = range_2m(&p);

	if (!page)
		return 1;
	memphis_mark_named("freed");
	*(volatile char *)page = 1;
	munmap(p, MAPPED);
	memphis_print();
	printf("freed %p\n", (void *)page);
	return 0;
}

static int cut(void)
{
	char *p, *range = range_2m(&p);

	if (!range)
		return 1;
	madvise(p, MAPPED, MADV_NOHUGEPAGE);
	*(volatile char *)range = 1;
	usleep(300000);
	for (size_t off = 4096; off < (2ul << 20); off += 4096)
		*(volatile char *)(range + off) = 1;
	printf("cut %p\n", (void *)range);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "freed"))
		return freed();
	if (argc > 1 && !strcmp(argv[1], "cut"))
		return cut();
	int huge = argc > 1 && !strcmp(argv[1], "huge");
	pthread_t t[2];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (posix_memalign((void **)&buf, 2ul << 20, SIZE))
		return 1;
	madvise(buf, SIZE, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	printf("buf %p %p\n", (void *)buf, (void *)(buf + SIZE));
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, toucher, (void *)k);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	long sum = 0;
	for (size_t i = 0; i < SIZE; i += 4096)
		sum += buf[i];
	printf("sum %ld\n", sum);
	return 0;
}
