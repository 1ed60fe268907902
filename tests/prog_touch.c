/* First touch: a 64 MiB buffer (2 MiB aligned) touched page by page by two threads, each
 * its half. argv[1] = "huge" asks for transparent huge pages (MADV_HUGEPAGE), anything
 * else forbids them. Prints "buf LO HI" and "half K TID LO HI". */
#define _GNU_SOURCE
#include <memphis.h>
#include <pthread.h>
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

int main(int argc, char **argv)
{
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
