/* Millions of small blocks live at once (issue 16 item 6): N (default 6,000,000) mallocs
 * of 24 bytes, all kept until the end, each written once and read once in a region.
 * With the default heap sampling 1 in 64 of them is recorded: N / 64 recorded blocks
 * live at once. Prints a checksum that does not depend on addresses. */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 6000000, sum = 0;
	unsigned char **p = n > 0 ? malloc((size_t)n * sizeof(*p)) : NULL;

	if (!p)
		return 1;
	memphis_mark_named("live");
	for (long i = 0; i < n; i++) {
		p[i] = malloc(24);
		if (!p[i])
			return 1;
		p[i][0] = (unsigned char)i;
	}
	for (long i = 0; i < n; i++)
		sum += p[i][0];
	memphis_print();
	for (long i = 0; i < n; i++)
		free(p[i]);
	free(p);
	printf("livesmall: %ld blocks, sum %ld\n", n, sum);
	return 0;
}
