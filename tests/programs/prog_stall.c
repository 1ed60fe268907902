/* The library's threads stopped while the program samples: its sampling ring fills and
 * nothing reads it, so the kernel drops samples and counts them; the LOST record that
 * would tell us can only come with a later sample. A region that ends before one (and a
 * thread that sleeps or ends) must still report them.
 * Inside one region the main thread lists the other threads of the process (all the
 * library's: the program starts none), a child ptrace-stops them, the main thread works
 * for MS ms of its CPU time (argument, default 400) and lets the child resume them, then
 * the region ends. Prints "cpu_ms N stopped K"; exits 77 where ptrace is refused.
 * With "gap" after MS: region "before" works 20 ms and ends, the stall and the MS ms of
 * work come between regions (sampling lingers on: the drain that would switch it off is
 * stopped), the program sleeps 300 ms (the drain reads what the stall lost), then region
 * "after" works 50 ms: none of the stall's losses are its. */
#define _GNU_SOURCE
#include <dirent.h>
#include <memphis.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXT 64

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The child: stop every thread in tids, say so, wait for the word, let them go. */
static int stall(const pid_t *tids, int n, int to_parent, int from_parent)
{
	char c = 's';
	int ok = 1;

	for (int i = 0; i < n && ok; i++) {
		int st;
		ok = ptrace(PTRACE_SEIZE, tids[i], 0, 0) == 0 &&
		     ptrace(PTRACE_INTERRUPT, tids[i], 0, 0) == 0 &&
		     waitpid(tids[i], &st, __WALL) == tids[i];
	}
	if (!ok)
		c = 'e';
	if (write(to_parent, &c, 1) != 1 || read(from_parent, &c, 1) != 1)
		ok = 0;
	for (int i = 0; i < n; i++)
		ptrace(PTRACE_DETACH, tids[i], 0, 0);
	c = 'r';
	return write(to_parent, &c, 1) == 1 && ok ? 0 : 1;
}

/* MS ms of the calling thread's CPU time, loading from an array. */
static void work(double ms)
{
	static volatile double a[1 << 16];
	double t0 = cpu_ms(), sum = 0;

	for (unsigned i = 0; (i & 0xffff) || cpu_ms() - t0 < ms; i++)
		sum += a[(i * 2654435761u) & 0xffff];
	a[0] = sum;
}

/* MS ms of the main thread's CPU time while the library's threads are stopped: the CPU
 * ms worked, -1 on a failure, -77 where they cannot be stopped. */
static double stalled_work(double ms, int *stopped)
{
	pid_t tids[MAXT], self = gettid();
	int n = 0, up[2], down[2], st;
	double t0;
	struct dirent *e;
	DIR *d;
	char c;

	d = opendir("/proc/self/task");
	while (d && (e = readdir(d)) && n < MAXT) {
		pid_t t = atoi(e->d_name);
		if (t > 0 && t != self)
			tids[n++] = t;
	}
	if (d)
		closedir(d);
	*stopped = n;
	if (pipe(up) || pipe(down))
		return -1;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama's ptrace_scope 1 */
	pid_t child = fork();
	if (child < 0)
		return -1;
	if (child == 0)
		_exit(stall(tids, n, up[1], down[0]));
	if (read(up[0], &c, 1) != 1 || c != 's') {
		fprintf(stderr, "prog_stall: cannot ptrace-stop the library's threads\n");
		c = 'x';
		if (write(down[1], &c, 1) != 1)
			return -1;
		waitpid(child, &st, 0);
		return -77;
	}
	t0 = cpu_ms();
	work(ms);
	double used = cpu_ms() - t0;
	c = 'g';
	if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1)
		return -1;
	waitpid(child, &st, 0);
	for (int i = 0; i < 2; i++) {
		close(up[i]);
		close(down[i]);
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? used : -1;
}

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 400, used;
	int gap = argc > 2 && strcmp(argv[2], "gap") == 0, stopped;

	if (gap) {
		memphis_mark_named("before");
		work(20);
		memphis_print();
	} else {
		memphis_mark_named("stall");
	}
	used = stalled_work(ms, &stopped);
	if (used == -77)
		return 77;
	if (used < 0)
		return 1;
	if (gap) {
		struct timespec nap = { 0, 300000000 };
		nanosleep(&nap, NULL);
		memphis_mark_named("after");
		work(50);
	}
	memphis_print();
	printf("cpu_ms %.0f stopped %d\n", used, stopped);
	return 0;
}
