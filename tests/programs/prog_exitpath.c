/* Ends inside an open region without memphis_print(), the way argv[1] says: "exit"
 * (normal exit, the reference), "_exit", "_Exit", "abort" (SIGABRT, default disposition),
 * "quick_exit", "exec" (execv of this program with "done", which prints and exits 0).
 * The region reads a 32 MiB array for 0.3 s of its CPU time (300 clock ticks at 1 ms:
 * one user-mode sample at least but with P < 1e-6, even where only 5 % of a busy loop's
 * time is counted as user time): its samples are still in the library's buffers when the
 * program ends. Prints a deterministic line first. */
#include <memphis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N (32u << 20)
static unsigned char data[N];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "exit";
	unsigned long sum = 0, x = 12345;

	if (!strcmp(how, "done")) {
		printf("exec'd: done\n");
		return 0;
	}
	memset(data, 1, N);
	memphis_mark_named("tail");
	double t0 = now();
	while (now() - t0 < 0.3)
		for (int i = 0; i < 100000; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			sum += data[(x >> 20) % N];
		}
	printf("%s: read %s\n", how, sum ? "ok" : "nothing");
	fflush(stdout);
	if (!strcmp(how, "_exit"))
		_exit(3);
	if (!strcmp(how, "_Exit"))
		_Exit(5);
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "quick_exit"))
		quick_exit(4);
	if (!strcmp(how, "exec")) {
		char *args[] = { argv[0], "done", NULL };
		execv(argv[0], args);
		perror("execv");
		return 1;
	}
	return 0;
}
