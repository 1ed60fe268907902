/* The library's threads stopped while the program samples: its sampling ring fills and
 * nothing reads it, so the kernel drops samples and counts them; the LOST record that
 * would tell us can only come with a later sample. A region that ends before one (and a
 * thread that sleeps or ends) must still report them.
 * Inside one region the main thread lists the other threads of the process (all the
 * library's: the program starts none), a child ptrace-stops them, the main thread works
 * for MS ms of its CPU time (argument, default 400) and lets the child resume them, then
 * the region ends. Prints "cpu_ms N stopped K"; exits 77 where ptrace is refused. */
#define _GNU_SOURCE
#include <dirent.h>
#include <memphis.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char **argv)
{
	static volatile double a[1 << 16];
	double ms = argc > 1 ? atof(argv[1]) : 400, t0, sum = 0;
	pid_t tids[MAXT], self = gettid();
	int n = 0, up[2], down[2], st;
	struct dirent *e;
	DIR *d;
	char c;

	memphis_mark_named("stall");
	d = opendir("/proc/self/task");
	while (d && (e = readdir(d)) && n < MAXT) {
		pid_t t = atoi(e->d_name);
		if (t > 0 && t != self)
			tids[n++] = t;
	}
	if (d)
		closedir(d);
	if (pipe(up) || pipe(down))
		return 1;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama's ptrace_scope 1 */
	pid_t child = fork();
	if (child < 0)
		return 1;
	if (child == 0)
		_exit(stall(tids, n, up[1], down[0]));
	if (read(up[0], &c, 1) != 1 || c != 's') {
		fprintf(stderr, "prog_stall: cannot ptrace-stop the library's threads\n");
		c = 'x';
		if (write(down[1], &c, 1) != 1)
			return 1;
		waitpid(child, &st, 0);
		return 77;
	}
	t0 = cpu_ms();
	for (unsigned i = 0; (i & 0xffff) || cpu_ms() - t0 < ms; i++)
		sum += a[(i * 2654435761u) & 0xffff];
	double used = cpu_ms() - t0;
	c = 'g';
	if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1)
		return 1;
	waitpid(child, &st, 0);
	memphis_print();
	printf("cpu_ms %.0f stopped %d sum %g\n", used, n, sum);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
