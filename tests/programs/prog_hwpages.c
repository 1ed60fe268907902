/* Ground truth for the hardware backends' live path: inside one region, the first write to
 * every page of a global, a static and a heap array, once each. Run with the PEBS backend
 * on the software page-faults event (MEMPHIS_BACKEND=pebs MEMPHIS_EVENT=perf::PAGE-FAULTS
 * MEMPHIS_HW_PERIOD=1), every write is one fault and one sample whose address lies in the
 * page: the report must name each array with exactly its page count (tests/lib/t_hwpath.sh).
 * Transparent huge pages are turned off (one fault would cover 512 pages).
 * Prints "NAME PAGES" for each array.
 *   prog_hwpages [GLOBAL_PAGES STATIC_PAGES HEAP_PAGES]   (at most 4096 each) */
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#define MAXP 4096

char hw_global[MAXP * 4096] __attribute__((aligned(4096)));
static char hw_static[MAXP * 4096] __attribute__((aligned(4096)));

static void touch(volatile char *p, long pages)
{
	for (long i = 0; i < pages; i++)
		p[i * 4096] = 1;
}

int main(int argc, char **argv)
{
	long g = argc > 3 ? atol(argv[1]) : 300, s = argc > 3 ? atol(argv[2]) : 200;
	long h = argc > 3 ? atol(argv[3]) : 100;
	char *heap;

	if (g < 0 || s < 0 || h < 0 || g > MAXP || s > MAXP || h > MAXP)
		return 2;
	if (posix_memalign((void **)&heap, 4096, (size_t)(h ? h : 1) * 4096))
		return 1;
	/* for the whole process: one huge-page fault would stand for 512 touched pages */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	memphis_mark_named("touch");
	touch(hw_global, g);
	touch(hw_static, s);
	touch(heap, h);
	memphis_print();
	printf("hw_global %ld\nhw_static %ld\nheap %ld\n", g, s, h);
	free(heap);
	return 0;
}
