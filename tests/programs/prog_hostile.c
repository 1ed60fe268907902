/* Hostile and unlucky uses of a profiled program (issue 11). Each mode prints deterministic
 * lines that the tests compare with an unprofiled run (MEMPHIS_DISABLE=1) or check.
 *   prog_hostile mark              one region: the API's return values and their texts
 *   prog_hostile cancel N          N threads, each cancelled right after pthread_create
 *   prog_hostile sigmark           memphis_mark from a signal handler, often while the
 *                                  interrupted thread is inside memphis_mark/print
 *   prog_hostile closefds          a daemon: closes every inherited descriptor
 *                                  (close_range(3, ~0U)), then puts its own files on the
 *                                  numbers the library had, and keeps working in a region
 *   prog_hostile churn N FILES     N short threads one after another inside a region,
 *                                  then FILES files opened at once
 *   prog_hostile many N FILES      N threads alive at once inside a region, FILES files
 *                                  opened meanwhile
 *   prog_hostile work N            a region of memory-bound work, N * 3e7 steps (0.1 s each
 *                                  on the 2-vCPU machine this was written on)
 *   prog_hostile redirect N        a shell's redirection N times (save fd 1, close(1),
 *                                  dup2(file, 1), write a byte, put fd 1 back) in a region
 *                                  while another thread touches new pages (the library
 *                                  reads the pagemap meanwhile); prints how many bytes
 *                                  did not reach their file and how many of the
 *                                  library's files are in the process's table
 *   prog_hostile cpu               prints the CPU main() starts on, after the library's
 *                                  start (its threads must not have moved it)
 *   prog_hostile forkfds           forks inside a region; the child prints how many perf
 *                                  event descriptors it holds and how many descriptors
 *                                  beyond stdio that it did not open (the library's must
 *                                  be closed in it) and works on after the parent ended;
 *                                  the parent prints nothing
 *   prog_hostile forkchurn N       two threads fork N children each while a third makes
 *                                  and ends 4N threads; prints the descriptor counts the
 *                                  children saw (each exits with its count)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <memphis.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

static void work(unsigned long n)
{
	static unsigned a[1 << 20];
	unsigned long s = 0, x = 12345;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		a[(x >> 33) & ((1 << 20) - 1)] += (unsigned)i;
		s += a[(x >> 13) & ((1 << 20) - 1)];
	}
	sink += s;
}

/* work() until the thread has used `seconds` of CPU time since the call. */
static void work_cpu(double seconds)
{
	struct timespec ts;
	double t0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t0 = ts.tv_sec + ts.tv_nsec * 1e-9;
	do {
		work(20000);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec + ts.tv_nsec * 1e-9 - t0 < seconds);
}

static void *spin(void *arg)
{
	work(arg ? (unsigned long)(uintptr_t)arg : 20000);
	return NULL;
}

static int mode_mark(void)
{
	int rc = memphis_mark_named("x");

	printf("mark: %d (%s)\n", rc, memphis_strerror(rc));
	work(2000000);
	rc = memphis_print();
	printf("print: %d (%s)\n", rc, memphis_strerror(rc));
	return 0;
}

static void *cancellable(void *arg)
{
	for (;;) {
		work(1000);
		pthread_testcancel();
	}
	return NULL;
}

static int mode_cancel(int n)
{
	int done = 0;

	memphis_mark_named("cancel");
	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *res;
		if (pthread_create(&t, NULL, cancellable, NULL))
			continue;
		pthread_cancel(t);
		pthread_join(t, &res);
		done += res == PTHREAD_CANCELED;
	}
	memphis_print();
	printf("cancelled %d of %d\n", done, n);
	return 0;
}

static volatile sig_atomic_t in_handler_calls, deadlk;

static void on_alarm(int sig)
{
	int e = errno;
	int rc = memphis_mark_named("signal");

	in_handler_calls++;
	if (rc == -EDEADLK)
		deadlk++;
	errno = e;
}

static int mode_sigmark(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 300 }, { 0, 300 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < 400; i++) {
		memphis_mark_named("main");
		work(2000);
		memphis_print();
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	printf("sigmark done\n");
	fprintf(stderr, "handler calls %d, -EDEADLK %d\n", (int)in_handler_calls, (int)deadlk);
	return 0;
}

#define OWN_LINE "the program's own line\n"

/* Every descriptor number open now, from 3 up. */
static int list_fds(int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) && n < max) {
		int fd = atoi(e->d_name);
		if (fd >= 3 && fd != dirfd(d))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

static int mode_closefds(void)
{
	int fds[4096], n, own, bad = 0;
	pthread_t t[4];
	struct stat st;

	memphis_mark_named("daemon");
	work(200000);
	n = list_fds(fds, 4096);
	if (syscall(SYS_close_range, 3u, ~0u, 0u) < 0)
		for (int i = 0; i < n; i++)
			close(fds[i]);
	own = open("own.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (own < 0)
		return 1;
	/* The program's files on the numbers the library had: the high ones by dup2, the low
	 * ones (3, 4, ...: a PAPI event set's) by taking the lowest free numbers again, as a
	 * daemon's next opens do. dup2 onto a low number would race with any thread's short-lived
	 * descriptor (the kernel hands out the lowest free one), the library's included. */
	for (int i = 0; i < n; i++) {
		if (fds[i] == own)
			continue;
		if (fds[i] >= 1024 ? dup2(own, fds[i]) < 0 : (fds[i] = fcntl(own, F_DUPFD, 0)) < 0)
			return 1;
	}
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, spin, (void *)(uintptr_t)200000);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		if (write(own, OWN_LINE, strlen(OWN_LINE)) < 0)
			return 1;
	}
	memphis_print();
	/* 20 ms of CPU time: 200 clock ticks at 100 us, one user-mode sample at least but
	 * with P < 1e-4 where only 5 % of a busy loop's time counts as user time */
	memphis_mark_named("after");
	work_cpu(0.02);
	memphis_print();
	for (int i = 0; i < n; i++)
		if (fds[i] != own && fcntl(fds[i], F_GETFD) < 0)
			bad++;
	fstat(own, &st);
	printf("own file: %lld bytes (expected %zu)\n", (long long)st.st_size, 20 * strlen(OWN_LINE));
	printf("descriptors the program put in place and lost: %d\n", bad);
	return 0;
}

static int open_files(int files)
{
	int ok = 0;
	FILE **f = calloc((size_t)files, sizeof(*f));

	for (int i = 0; f && i < files; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%d.txt", i);
		f[i] = fopen(name, "w");
		ok += f[i] != NULL;
	}
	for (int i = 0; f && i < files; i++)
		if (f[i])
			fclose(f[i]);
	free(f);
	return ok;
}

static int mode_churn(int n, int files)
{
	int ok;

	memphis_mark_named("churn");
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, spin, NULL) == 0)
			pthread_join(t, NULL);
	}
	ok = open_files(files);
	memphis_print();
	printf("threads %d, files opened %d of %d\n", n, ok, files);
	return ok == files ? 0 : 1;
}

static volatile int release_all;

static void *waiter(void *arg)
{
	while (!release_all)
		usleep(1000);
	return NULL;
}

static int mode_many(int n, int files)
{
	pthread_t *t = calloc((size_t)n, sizeof(*t));
	int made = 0, ok;

	memphis_mark_named("many");
	for (int i = 0; t && i < n; i++)
		made += pthread_create(&t[i], NULL, waiter, NULL) == 0;
	ok = open_files(files);
	release_all = 1;
	for (int i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	memphis_print();
	printf("threads %d of %d, files opened %d of %d\n", made, n, ok, files);
	return ok == files && made == n ? 0 : 1;
}

static int mode_work(double seconds)
{
	memphis_mark_named("work");
	work((unsigned long)(seconds * 3e7));
	memphis_print();
	printf("work done\n");
	return 0;
}

/* Descriptors of this process's table whose target (readlink of /proc/self/fd/N)
 * contains `what`. */
static int fds_with(const char *what)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[4096];
	int n = 0;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(path, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = 0;
			n += strstr(link, what) != NULL;
		}
	}
	if (d)
		closedir(d);
	return n;
}

static volatile int redirect_done, touching;

/* New pages touched, a few at a time, until the redirections are done: first touches
 * for the library's thread to flush (it reads the pagemap for each batch). */
static void *touch_pages(void *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = 0;
	char *mem = arg;

	touching = 1;
	while (!redirect_done) {
		for (int k = 0; k < 16 && n < 65536; k++, n++)
			mem[n * page] = 1;
		work(2000);
	}
	return NULL;
}

/* dash's way with `cmd > file`: the file opened, fd 1 saved above 10 and closed, the
 * file put on 1 by dup2, its own number closed; here a byte written to 1 instead of a
 * command run, and fd 1 put back. Between close(1) and dup2 the lowest free number is 1:
 * a descriptor another thread opens then gets it, and closing it later would close the
 * program's redirection. */
static int mode_redirect(int n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem = malloc(65536 * page);
	int lost = 0, out = dup(1);
	pthread_t t;

	memphis_mark_named("redirect");
	if (!mem || out < 0 || pthread_create(&t, NULL, touch_pages, mem))
		return 1;
	/* A thread's events are opened in the program's table when it is born (before its
	 * function runs): that open is not what this mode tests. */
	while (!touching)
		sched_yield();
	for (int i = 0; i < n; i++) {
		int fd = open("redirect.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		int saved = fcntl(1, F_DUPFD_CLOEXEC, 10);
		struct stat st;

		if (fd < 0 || saved < 0) { /* fd 1 is gone: closed by someone else */
			dprintf(out, "redirect %d: %s\n", i, strerror(errno));
			return 1;
		}
		close(1);
		sched_yield();
		dup2(fd, 1);
		close(fd);
		lost += write(1, "x", 1) != 1 || stat("redirect.txt", &st) || st.st_size != 1;
		dup2(saved, 1);
		close(saved);
	}
	redirect_done = 1;
	pthread_join(t, NULL);
	/* the library's files (its run, /proc/self/pagemap, maps and task) */
	int theirs = fds_with(".mph") + fds_with("/pagemap") + fds_with("/maps") +
		     fds_with("/task");
	memphis_print();
	dprintf(out, "redirects %d, bytes that missed their file %d, library files in the "
		"program's table %d\n", n, lost, theirs);
	free(mem);
	return 0;
}

static int mode_forkfds(void)
{
	memphis_mark_named("forkfds");
	work(3000000);
	pid_t c = fork();
	if (c == 0) {
		/* the program opened 0, 1 and 2; fds_with's directory stream is one more */
		printf("child perf descriptors: %d\n", fds_with("anon_inode:[perf_event]"));
		printf("child descriptors it did not open: %d\n", fds_with("") - 4);
		usleep(300000); /* outlives the parent: its events would sample on */
		_exit(0);
	}
	memphis_print();
	return c < 0;
}

static int fork_rounds;

/* Forks fork_rounds children one after another; each exits with how many descriptors it
 * holds. Returns the counts seen, a bit each. */
static void *forker(void *arg)
{
	unsigned long seen = 0;

	(void)arg;
	for (int i = 0; i < fork_rounds; i++) {
		int st = 0;
		pid_t c = fork();

		if (c == 0)
			_exit(fds_with("") < 63 ? fds_with("") : 63);
		if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st))
			seen |= 1ul << WEXITSTATUS(st);
	}
	return (void *)seen;
}

static void *noop(void *arg)
{
	return arg;
}

static void *churner(void *arg)
{
	for (int i = 0; i < 4 * fork_rounds; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, noop, NULL) == 0)
			pthread_join(t, NULL);
	}
	return arg;
}

/* Two threads fork while a third makes and ends threads (the library opens and closes
 * their descriptors meanwhile); prints the descriptor counts the children saw. */
static int mode_forkchurn(int n)
{
	pthread_t a, b, c;
	void *ra, *rb;

	fork_rounds = n;
	memphis_mark_named("forkchurn");
	pthread_create(&a, NULL, forker, NULL);
	pthread_create(&b, NULL, forker, NULL);
	pthread_create(&c, NULL, churner, NULL);
	pthread_join(a, &ra);
	pthread_join(b, &rb);
	pthread_join(c, NULL);
	memphis_print();
	printf("descriptor counts the children saw:");
	for (int k = 0; k < 64; k++)
		if (((unsigned long)ra | (unsigned long)rb) >> k & 1)
			printf(" %d", k);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(m, "mark"))
		return mode_mark();
	if (!strcmp(m, "cancel"))
		return mode_cancel(argc > 2 ? atoi(argv[2]) : 200);
	if (!strcmp(m, "sigmark"))
		return mode_sigmark();
	if (!strcmp(m, "closefds"))
		return mode_closefds();
	if (!strcmp(m, "churn"))
		return mode_churn(argc > 2 ? atoi(argv[2]) : 300, argc > 3 ? atoi(argv[3]) : 20);
	if (!strcmp(m, "many"))
		return mode_many(argc > 2 ? atoi(argv[2]) : 40, argc > 3 ? atoi(argv[3]) : 20);
	if (!strcmp(m, "work"))
		return mode_work(argc > 2 ? atof(argv[2]) : 1.0);
	if (!strcmp(m, "forkfds"))
		return mode_forkfds();
	if (!strcmp(m, "forkchurn"))
		return mode_forkchurn(argc > 2 ? atoi(argv[2]) : 100);
	if (!strcmp(m, "redirect"))
		return mode_redirect(argc > 2 ? atoi(argv[2]) : 20000);
	if (!strcmp(m, "cpu")) {
		unsigned cpu = 0;
		return syscall(SYS_getcpu, &cpu, NULL, NULL) < 0 || printf("%u\n", cpu) < 0;
	}
	fprintf(stderr, "usage: prog_hostile mark|cancel N|sigmark|closefds|churn N FILES|many N FILES|work S|forkfds|forkchurn N|redirect N|cpu\n");
	return 2;
}
