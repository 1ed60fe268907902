/* A work array mapped afresh on every call (issue 41 item 2): argv[1] "each" maps,
 * touches and unmaps 256 KiB (64 pages) in each of 2,000 calls, so the kernel faults in
 * and zeroes new pages 128,000 times; "once" maps it once outside the loop; "calloc"
 * callocs it once (its own mapping: glibc maps a request this large) and reads every page
 * before the loop writes it, two faults a page in one mapping (the zero page, then a copy):
 * no re-fault either. Region "calls". Prints the same line each way. */
#include <stdlib.h>
#include <memphis.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define WORK (256u << 10)
#define CALLS 2000

static double fill(double *w, int k)
{
	double s = 0;

	for (size_t i = 0; i < WORK / sizeof(double); i++)
		w[i] = (double)(i + (size_t)k);
	for (size_t i = 0; i < WORK / sizeof(double); i += 8)
		s += w[i];
	return s;
}

static double work_each(int k)
{
	double *w = mmap(NULL, WORK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double s;

	if (w == MAP_FAILED)
		return -1;
	s = fill(w, k);
	munmap(w, WORK);
	return s;
}

int main(int argc, char **argv)
{
	int each = argc > 1 && !strcmp(argv[1], "each");
	int zeroed = argc > 1 && !strcmp(argv[1], "calloc");
	double *w = each ? NULL : zeroed ? calloc(WORK / sizeof(double), sizeof(double))
		  : mmap(NULL, WORK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double s = 0;

	if (w == MAP_FAILED || (zeroed && !w))
		return 1;
	/* calloc: a read of every page first (the kernel maps its zero page), then the loop
	 * writes (a second fault: a page of its own) */
	for (size_t i = 0; zeroed && i < WORK / sizeof(double); i += 4096 / sizeof(double))
		s += ((volatile double *)w)[i];
	memphis_mark_named("calls");
	for (int k = 0; k < CALLS; k++)
		s += each ? work_each(k) : fill(w, k);
	memphis_print();
	printf("sum %.0f\n", s);
	return 0;
}
