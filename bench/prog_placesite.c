/* prog_placesite.c - one call site that allocates argv[1] (default 1,000,000) blocks of 16
 * KiB, 64 live at a time, each filled once: what `memphis apply` costs when a site it
 * places allocates that often (bench/bench.sh; the plan names the site in place_block()).
 * Prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE 64
#define BYTES (16u << 10)

static __attribute__((noinline)) unsigned char *place_block(void)
{
	return malloc(BYTES);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	unsigned char *live[LIVE] = { 0 };
	unsigned long sum = 0;

	for (long i = 0; i < n; i++) {
		int k = (int)(i % LIVE);

		free(live[k]);
		if (!(live[k] = place_block()))
			return 1;
		memset(live[k], (int)(i & 0xff), BYTES);
		sum += live[k][0] + live[k][BYTES - 1];
	}
	for (int k = 0; k < LIVE; k++)
		free(live[k]);
	printf("sum %lu\n", sum);
	return 0;
}
