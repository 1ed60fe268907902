/* Call-site chains of allocations (tests/lib/t_heapchain.sh): every allocation is made by
 * alloc_here(), which first takes its own backtrace, so the callers the library records
 * after the site must be backtrace()'s frames 1.. (both unwind by the same CFI). The
 * chains change the way the library's kept chains (lib/heap.c) must notice: one site
 * called from alternating callers, recursion of varying depth, a caller and the site's own
 * function with alloca of varying size, and two threads at once. Each allocation has a
 * size of its own; argv[1] gets one line per allocation, "SIZE RA1 RA2 ..." (hex). */
#include <alloca.h>
#include <execinfo.h>
#include <memphis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_THREAD 1500
#define MAX_LINES (2 * PER_THREAD)

static char lines[MAX_LINES][160];
static int nlines;
static pthread_mutex_t lines_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;

/* Allocate size bytes; note the callers backtrace() sees (its frame 0 is this function). */
static __attribute__((noinline)) void *alloc_here(size_t size)
{
	void *bt[12];
	int n = backtrace(bt, 12);
	char buf[160];
	int len = snprintf(buf, sizeof(buf), "%zu", size);
	void *p = malloc(size);

	for (int k = 1; k < n && k < 8 && len < (int)sizeof(buf) - 20; k++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, " %lx", (unsigned long)bt[k]);
	pthread_mutex_lock(&lines_lock);
	if (nlines < MAX_LINES)
		memcpy(lines[nlines++], buf, sizeof(buf));
	pthread_mutex_unlock(&lines_lock);
	if (p)
		((volatile char *)p)[0] = 1;
	return p;
}

/* The site's own function with a frame of varying size. */
static __attribute__((noinline)) void *alloc_alloca(size_t size, size_t pad)
{
	volatile char *b = alloca(pad);
	void *bt[12];
	int n = backtrace(bt, 12);
	char buf[160];
	int len = snprintf(buf, sizeof(buf), "%zu", size);
	void *p;

	b[0] = 1;
	p = malloc(size);
	for (int k = 1; k < n && k < 8 && len < (int)sizeof(buf) - 20; k++)
		len += snprintf(buf + len, sizeof(buf) - (size_t)len, " %lx", (unsigned long)bt[k]);
	pthread_mutex_lock(&lines_lock);
	if (nlines < MAX_LINES)
		memcpy(lines[nlines++], buf, sizeof(buf));
	pthread_mutex_unlock(&lines_lock);
	sink += b[0];
	return p;
}

static __attribute__((noinline)) void *from_a(size_t size)
{
	void *p = alloc_here(size);
	sink++;
	return p;
}

static __attribute__((noinline)) void *from_b(size_t size)
{
	void *p = alloc_here(size);
	sink += 2;
	return p;
}

static __attribute__((noinline)) void *recurse(size_t size, int depth)
{
	void *p = depth ? recurse(size, depth - 1) : alloc_here(size);
	sink += (unsigned long)depth;
	return p;
}

/* A caller of the site with a frame of varying size. */
static __attribute__((noinline)) void *caller_alloca(size_t size, size_t pad)
{
	volatile char *b = alloca(pad);
	void *p;

	b[0] = 2;
	p = alloc_here(size);
	sink += b[0];
	return p;
}

/* PER_THREAD allocations of sizes base, base + 8, ...; each freed at once. The first half
 * runs each kind of chain 50 times in a row (the deeper frames change under the same
 * site and caller), the second half alternates them. */
static void *work(void *arg)
{
	size_t base = (size_t)(unsigned long)arg;

	for (int i = 0; i < PER_THREAD; i++) {
		size_t size = base + 8 * (size_t)i;
		int kind = i < PER_THREAD / 2 ? (i / 50) % 6 : i % 6;
		void *p;

		switch (kind) {
		case 0: p = from_a(size); break;
		case 1: p = i % 3 ? from_a(size) : from_b(size); break;
		case 2: p = recurse(size, i % 5); break;
		case 3: p = caller_alloca(size, 16 + 48 * (size_t)(i % 7)); break;
		case 4: p = alloc_alloca(size, 16 + 48 * (size_t)(i % 5)); break;
		default: p = from_b(size); break;
		}
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	FILE *f;

	if (argc < 2)
		return 2;
	backtrace((void *[1]){ 0 }, 1); /* loads libgcc_s before the first line */
	memphis_mark_named("chains"); /* a run without a region is removed */
	if (pthread_create(&t, NULL, work, (void *)100000ul))
		return 1;
	work((void *)(unsigned long)(100000 + 8 * PER_THREAD));
	pthread_join(t, NULL);
	memphis_print();
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	for (int i = 0; i < nlines; i++)
		fprintf(f, "%s\n", lines[i]);
	fclose(f);
	printf("%d allocations\n", nlines);
	return 0;
}
