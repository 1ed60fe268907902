/* cmd/tune.c - memphis tune [options] -- PROGRAM ARGS: the whole loop in one command. A
 * profiled run (DIR/before), its advice (DIR/advice.json), a profiled run under that
 * placement (DIR/after, `memphis apply --profile`), both reports and their comparison
 * (DIR/before.json, DIR/after.json, DIR/compare.json), then --repeat N unprofiled runs of
 * each placement, interleaved and timed (DIR/times); `memphis-report tune DIR` judges it all
 * and its output and exit status are tune's. Every run's output is kept in DIR
 * (NAME.out, NAME.err). docs/apply.md. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memphis tune [options] [--] PROGRAM [ARGS...]\n"
		"Profile PROGRAM, carry out the placement its advice asks for (memphis apply),\n"
		"profile it again so placed, compare the two, and time unprofiled runs of both\n"
		"placements: per placed variable the measure its advice promised, with a 95 %%\n"
		"interval, and the wall-time ratio.\n"
		"  -o, --output DIR      keep every run in DIR (default memphis-tune-PROGRAM-PID)\n"
		"  -n, --repeat N        unprofiled runs of each placement, interleaved (default 5;\n"
		"                        0: none); the applied runs are timed from the plan made\n"
		"                        once (memphis apply --plan), not remade each time\n"
		"  -p, --period TIME     -b, --backend NAME   as memphis run, for both profiles\n"
		"      --bind            MPOL_BIND, not MPOL_PREFERRED (memphis apply --bind)\n"
		"      --weights N:W[,N:W...]  a weighted interleave (memphis apply --weights)\n"
		"      --max-regress N   as memphis-report compare (default 2 points)\n"
		"      --json            JSON (schema memphis-tune/1, docs/apply.md)\n"
		"      --markdown        a Markdown report (a pull-request comment)\n"
		"  -h, --help            this text\n"
		"PROGRAM's output goes to DIR (before.out, after.out, ...), not to the terminal.\n"
		"Exit status: as memphis-report compare's, an interleave's deliberate trade not\n"
		"counted as a regression: 0 none, 1 a regression, 2 cannot judge (a run failed, the\n"
		"program's exit status changed, bad usage).\n");
}

/* Run argv with stdout into DIR/OUT (or /dev/null) and stderr into DIR/ERR; the wait status,
 * or -1 when it could not be started. off: with libmemphis off (MEMPHIS_DISABLE=1: a
 * program linked with it profiles itself otherwise). */
static int spawn_as(char *const *argv, const char *dir, const char *out, const char *err, int off)
{
	char path[PATH_MAX + 64];
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, out ? out : "/dev/null");
		fd = open(out ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
			_exit(126);
		snprintf(path, sizeof(path), "%s/%s", dir, err);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(126);
		if (off)
			setenv("MEMPHIS_DISABLE", "1", 1);
		execvp(argv[0], argv);
		fprintf(stderr, "memphis tune: cannot run %s: %s\n", memphis_shown(argv[0]),
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

static int spawn(char *const *argv, const char *dir, const char *out, const char *err)
{
	return spawn_as(argv, dir, out, err, 0);
}

/* The program's exit status as text ("0", "signal 11"). */
static const char *status_text(int st, char *buf, size_t n)
{
	if (st < 0)
		snprintf(buf, n, "not started");
	else if (WIFEXITED(st))
		snprintf(buf, n, "%d", WEXITSTATUS(st));
	else
		snprintf(buf, n, "signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return buf;
}

/* argv of a command: the fixed words w (NULL-terminated), then the program's. */
static char **command(char **prog, ...)
{
	static char *argv[256];
	size_t n = 0;
	va_list ap;
	char *w;

	va_start(ap, prog);
	while ((w = va_arg(ap, char *)) && n < 64)
		argv[n++] = w;
	va_end(ap);
	for (size_t i = 0; prog && prog[i] && n < 255; i++)
		argv[n++] = prog[i];
	argv[n] = NULL;
	return argv;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A step's line on stderr. */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "memphis tune: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

int memphis_tune(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, 0, 'o' }, { "repeat", required_argument, 0, 'n' },
		{ "period", required_argument, 0, 'p' }, { "backend", required_argument, 0, 'b' },
		{ "bind", no_argument, 0, 'B' },          { "max-regress", required_argument, 0, 'M' },
		{ "json", no_argument, 0, 'J' },          { "markdown", no_argument, 0, 'K' },
		{ "help", no_argument, 0, 'h' },          { "weights", required_argument, 0, 'W' },
		{ 0, 0, 0, 0 },
	};
	char dir[PATH_MAX - 128] = "", self[PATH_MAX], report[PATH_MAX];
	char path[PATH_MAX + 64], advice[PATH_MAX + 64], plan[PATH_MAX + 64], runs[3][PATH_MAX + 64];
	char st[3][32];
	const char *format = NULL, *max_regress = NULL, *bind = NULL, *weights = NULL;
	char *end, **prog;
	long repeat = 5;
	int c, before, after;
	FILE *f;

	while ((c = getopt_long(argc, argv, "+o:n:p:b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': snprintf(dir, sizeof(dir), "%s", optarg); break;
		case 'n':
			errno = 0;
			repeat = strtol(optarg, &end, 10);
			if (errno || *end || repeat < 0 || repeat > 1000) {
				fprintf(stderr, "memphis tune: --repeat %s: a count 0 to 1000\n", optarg);
				return 2;
			}
			break;
		case 'p': setenv("MEMPHIS_PERIOD", optarg, 1); break;
		case 'b': setenv("MEMPHIS_BACKEND", optarg, 1); break;
		case 'B': bind = "--bind"; break;
		case 'W': weights = optarg; break;
		case 'M': max_regress = optarg; break;
		case 'J': format = "--json"; break;
		case 'K': format = "--markdown"; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	prog = argv + optind;
	if (memphis_tool("memphis", self, sizeof(self)) ||
	    memphis_tool("memphis-report", report, sizeof(report))) {
		fprintf(stderr, "memphis tune: cannot find memphis and memphis-report\n");
		return 2;
	}
	if (!dir[0]) {
		const char *base = strrchr(prog[0], '/');

		snprintf(dir, sizeof(dir), "memphis-tune-%s-%d", base ? base + 1 : prog[0],
			 (int)getpid());
	}
	if (mkdir(dir, 0755) && (errno != EEXIST || rmdir(dir) || mkdir(dir, 0755))) {
		fprintf(stderr, "memphis tune: cannot make %s (a new or empty directory): %s\n",
			memphis_shown(dir), strerror(errno));
		return 2;
	}
	snprintf(runs[0], sizeof(runs[0]), "%s/before", dir);
	snprintf(runs[1], sizeof(runs[1]), "%s/after", dir);
	snprintf(advice, sizeof(advice), "%s/advice.json", dir);

	say("1/5 profiled run of %s (%s)", memphis_shown(prog[0]), runs[0]);
	before = spawn(command(prog, self, "run", "-o", runs[0], "--", NULL), dir, "before.out",
		       "before.err");
	say("2/5 its advice (%s)", advice);
	{
		char *const adv[] = { report, "--json", "--advice", runs[0], NULL };

		if (spawn(adv, dir, "advice.json", "advice.err")) {
			say("no advice: memphis-report failed on %s (%s/advice.err)", runs[0], dir);
			return 2;
		}
	}
	snprintf(plan, sizeof(plan), "%s/plan", dir);
	{
		char file[PATH_MAX];
		char *const pl[] = { report, "plan", "--exe", file, advice,
				     weights ? "--weights" : (char *)bind, (char *)weights,
				     weights ? (char *)bind : NULL, NULL };

		if (memphis_find_program(prog[0], file, sizeof(file)) ||
		    spawn(pl, dir, "plan", "plan.err")) {
			say("no plan: memphis-report plan failed (%s/plan.err)", dir);
			return 2;
		}
	}
	say("3/5 profiled run with the advice applied (%s)", runs[1]);
	after = spawn(command(prog, self, "apply", "--plan", plan, "--profile", "-o", runs[1], "--",
			      NULL), dir, "after.out", "after.err");
	snprintf(path, sizeof(path), "%s/status", dir);
	if ((f = fopen(path, "w"))) {
		fprintf(f, "before %s\nafter %s\n", status_text(before, st[0], sizeof(st[0])),
			status_text(after, st[1], sizeof(st[1])));
		fclose(f);
	}
	say("4/5 both reports and their comparison");
	{
		char *const jb[] = { report, "--json", runs[0], NULL };
		char *const ja[] = { report, "--json", runs[1], NULL };
		char *const cmp[] = { report, "compare", "--json", runs[0], runs[1],
				      max_regress ? "--max-regress" : NULL, (char *)max_regress, NULL };

		spawn(jb, dir, "before.json", "before.json.err");
		spawn(ja, dir, "after.json", "after.json.err");
		spawn(cmp, dir, "compare.json", "compare.err");
	}
	snprintf(path, sizeof(path), "%s/times", dir);
	if (!(f = fopen(path, "w"))) {
		fprintf(stderr, "memphis tune: cannot write %s: %s\n", path, strerror(errno));
		return 2;
	}
	say("5/5 %ld unprofiled run%s of each placement, interleaved", repeat, repeat == 1 ? "" : "s");
	for (long i = 0; i < repeat; i++)
		for (int k = 0; k < 2; k++) {
			int applied = (int)((i + k) % 2); /* plain first, then applied first, ... */
			double t0 = now_s();
			int s = applied ? spawn(command(prog, self, "apply", "--plan", plan, "--", NULL),
						dir, "applied.out", "applied.err")
					: spawn_as(prog, dir, "plain.out", "plain.err", 1);

			fprintf(f, "%s %.6f %s\n", applied ? "applied" : "plain", now_s() - t0,
				status_text(s, st[2], sizeof(st[2])));
		}
	fclose(f);
	{
		char *const judge[] = { report, "tune", dir, (char *)format, NULL };

		fflush(NULL);
		execv(report, judge);
	}
	fprintf(stderr, "memphis tune: cannot run %s: %s\n", memphis_shown(report), strerror(errno));
	return 2;
}
