/* Allocation-heavy: argv[1] (default 2,000,000) small malloc/free pairs of 16..271 bytes in
 * a region, a few live at a time, plus one 8 MiB array read at the end. Prints a checksum
 * that does not depend on addresses. */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE 64
static double big_init = 1.0; /* a global the program reads too */

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 2000000;
	unsigned char *live[LIVE] = { 0 };
	unsigned long sum = 0;

	memphis_mark_named("alloc");
	for (long i = 0; i < n; i++) {
		size_t sz = 16 + (size_t)(i % 256);
		int k = (int)(i % LIVE);
		free(live[k]);
		live[k] = malloc(sz);
		if (!live[k])
			return 1;
		live[k][0] = (unsigned char)i;
		live[k][sz - 1] = (unsigned char)(i >> 8);
		sum += live[k][0];
	}
	for (int k = 0; k < LIVE; k++)
		free(live[k]);
	size_t big_n = (8u << 20) / sizeof(double);
	double *big = malloc(big_n * sizeof(double));
	if (!big)
		return 1;
	for (size_t i = 0; i < big_n; i++)
		big[i] = big_init * (double)(i % 7);
	double s = 0;
	for (int r = 0; r < 4; r++)
		for (size_t i = 0; i < big_n; i++)
			s += big[(i * 4099) % big_n];
	free(big);
	memphis_print();
	printf("sum %lu %.0f\n", sum, s);
	return 0;
}
