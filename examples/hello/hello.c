/* The smallest use of memphis: sum an array inside one region.
 *   cc -fopenmp hello.c -lmemphis && ./a.out && memphis-report memphis-a.out-<pid>/ */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>

#define N (8 << 20)

int main(void)
{
	double *x = malloc(N * sizeof(*x));
	double sum = 0;

	if (!x)
		return 1;
	for (long i = 0; i < N; i++)
		x[i] = (double)i;
	memphis_mark_named("sum");
	for (int rep = 0; rep < 20; rep++)
#pragma omp parallel for reduction(+ : sum)
		for (long i = 0; i < N; i++)
			sum += x[i];
	memphis_print();
	printf("sum = %.0f\n", sum);
	free(x);
	return 0;
}
