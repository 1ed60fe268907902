/* A data file mapped by the program, as a locale archive or gconv's cache is by libc:
 * argv[1] is the path of BUILD/tests/dlib_table.so, argv[2] the data file to write and map.
 * The file (16 MiB) is mapped read-only, then the library is dlopen'd (the profiler takes a
 * maps snapshot that holds both), then region "read" sums the mapped bytes for about
 * 300 ms of CPU. Prints the sum. The report must name the file's bytes "<mapped file
 * NAME>" and give no warning about it (it is no ELF object, and need not be). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <memphis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SIZE (16u << 20)

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	static unsigned char buf[1 << 16];
	const volatile unsigned char *p;
	uint64_t sum = 0;
	void *h;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: prog_mapfile DLIB DATAFILE\n");
		return 2;
	}
	fd = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7);
	for (size_t off = 0; off < SIZE; off += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	p = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return 1;
	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 1;
	memphis_mark_named("read");
	for (double t0 = cpu_seconds(); cpu_seconds() - t0 < 0.3;)
		for (size_t i = 0; i < SIZE; i += 4096 + 64)
			sum += p[i];
	memphis_print();
	printf("read %s\n", sum ? "done" : "nothing");
	dlclose(h);
	return 0;
}
