/* Thread churn: argv[1] (default 2000) short threads created and joined one after another
 * inside a region, each touching 16 KiB of its own. Prints a deterministic sum. */
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *work(void *arg)
{
	unsigned char buf[16384];
	unsigned long s = 0;

	memset(buf, (int)(long)arg, sizeof(buf));
	for (size_t i = 0; i < sizeof(buf); i += 64)
		s += buf[i];
	return (void *)s;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000;
	unsigned long sum = 0;

	memphis_mark_named("churn");
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, work, (void *)(i & 255)))
			return 1;
		pthread_join(t, &r);
		sum += (unsigned long)r;
	}
	memphis_print();
	printf("sum %lu\n", sum);
	return 0;
}
