/* A program that writes its own results file, after a region that makes the run directory
 * grow fast (allocations of 4-19 KiB, each recorded with its free: about 30 MB/s of
 * records here).
 *   prog_fill [-2] RESULT SECONDS
 * The region lasts SECONDS; then RESULT gets 256 KiB of lines (written and closed with
 * their errors checked). -2: RESULT is opened at descriptor 2 (closed first), as a program
 * that keeps its results on its stderr, and memphis_print() is called once more with no
 * region open (a warning, with MEMPHIS_VERBOSE=1) between its lines. Prints one line and
 * exits 0 when every write of RESULT succeeded, else says which failed and exits 1. */
#include <errno.h>
#include <fcntl.h>
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RESULT_BYTES (256 * 1024)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes all of buf to fd: 0, or the errno of the write that failed. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int on_stderr = argc > 1 && !strcmp(argv[1], "-2");
	const char *result = argc > 1 + on_stderr ? argv[1 + on_stderr] : "result.txt";
	double seconds = argc > 2 + on_stderr ? atof(argv[2 + on_stderr]) : 1.0, t0;
	volatile unsigned long sink = 0;
	char line[64];
	int fd, err = 0;
	size_t done = 0;

	if (on_stderr)
		close(2);
	fd = open(result, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (on_stderr && fd != 2)) {
		printf("cannot open %s at %s: %s\n", result, on_stderr ? "2" : "any number",
		       strerror(errno));
		return 1;
	}
	memphis_mark_named("fill");
	t0 = now();
	for (unsigned long i = 0; now() - t0 < seconds; i++) {
		size_t sz = 4096 + (i % 16) * 1024;
		unsigned char *p = malloc(sz);

		if (!p)
			return 1;
		p[0] = (unsigned char)i;
		p[sz - 1] = (unsigned char)(i >> 8);
		sink += p[0] + p[sz - 1];
		free(p);
	}
	memphis_print();
	for (int i = 0; done < RESULT_BYTES && !err; i++) {
		int n = snprintf(line, sizeof(line), "result line %06d: %040d\n", i, i * 7);

		if (n > (int)(RESULT_BYTES - done))
			n = (int)(RESULT_BYTES - done);
		err = write_all(fd, line, (size_t)n);
		done += (size_t)n;
		if (on_stderr && i == 100)
			memphis_print(); /* no region open: the library has something to say */
	}
	if (!err && close(fd) < 0)
		err = errno;
	if (err) {
		printf("writing %s failed after %zu bytes: %s\n", result, done, strerror(err));
		return 1;
	}
	printf("fill: %zu bytes written to the results file\n", done);
	return 0;
}
