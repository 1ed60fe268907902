/* dlopen'd libraries: argv[1] is the path of BUILD/tests/dlib_table.so, argv[2] the reps per
 * phase (default 8). Three regions, each reading the library's global `dl_table` through the
 * library's own code:
 *   "before"  the library was loaded after the profiler started, before the region;
 *   "first"   inside the region: dlclose, dlopen again, read (the same region once more);
 *   "moved"   dlclose, the old address range is taken by an anonymous mapping, dlopen again
 *             (so the library lands elsewhere), read, dlclose inside the region.
 * Prints "base PHASE ADDR" of dl_table in each phase and a sum that does not depend on
 * addresses. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#define DL_TABLE_N ((4u << 20) / sizeof(double)) /* as in tests/programs/dlib_table.c */

struct lib {
	void *h;
	double (*sum)(int);
	void (*fill)(void);
	double *table;
};

static int load(const char *path, struct lib *l)
{
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->h)
		return -1;
	l->sum = (double (*)(int))dlsym(l->h, "dl_sum");
	l->fill = (void (*)(void))dlsym(l->h, "dl_fill");
	l->table = (double *)dlsym(l->h, "dl_table");
	if (!l->sum || !l->fill || !l->table)
		return -1;
	l->fill();
	return 0;
}

int main(int argc, char **argv)
{
	int reps = argc > 2 ? atoi(argv[2]) : 8;
	struct lib l;
	double s = 0;

	if (argc < 2 || load(argv[1], &l) < 0) {
		fprintf(stderr, "prog_dlopen: %s\n", argc < 2 ? "usage: prog_dlopen LIB [REPS]" : dlerror());
		return 1;
	}
	fprintf(stderr, "base before %p\n", (void *)l.table);
	memphis_mark_named("before");
	s += l.sum(reps);

	memphis_mark_named("first");
	dlclose(l.h);
	if (load(argv[1], &l) < 0)
		return 1;
	fprintf(stderr, "base first %p\n", (void *)l.table);
	s += l.sum(reps);

	memphis_mark_named("moved");
	Dl_info info;
	if (!dladdr((void *)l.table, &info))
		return 1;
	uintptr_t lo = (uintptr_t)info.dli_fbase;
	size_t span = (uintptr_t)(l.table + DL_TABLE_N) - lo;
	dlclose(l.h);
	/* take the old place (free now, so the hint is honoured) so the library lands elsewhere */
	void *block = mmap((void *)lo, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			   -1, 0);
	if (load(argv[1], &l) < 0)
		return 1;
	fprintf(stderr, "base moved %p\n", (void *)l.table);
	s += l.sum(reps);
	dlclose(l.h);
	memphis_print();
	if (block != MAP_FAILED)
		munmap(block, span);
	printf("sum %.0f\n", s);
	return 0;
}
