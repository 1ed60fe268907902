/* cmd/apply.c - memphis apply --advice ADVICE [options] -- PROGRAM ARGS: run PROGRAM with the
 * placement its advice asks for carried out by libmemphis (lib/place.c) before the first
 * touch, profiled only with --profile. The plan is made by `memphis-report plan` (which
 * reads the advice, checks the build and finds the variables in PROGRAM), or read from a
 * file it wrote (--plan), and handed to the library in MEMPHIS_PLACE; then PROGRAM is exec'd as by `memphis run`. docs/apply.md. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"

/* An environment string holds at most 32 pages (MAX_ARG_STRLEN): the plan must fit. */
#define MAX_PLAN (128 * 1024 - 64)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: memphis apply --advice ADVICE | --plan PLAN [options] [--] PROGRAM [ARGS...]\n"
		"Run PROGRAM with the placement its advice asks for carried out before the first\n"
		"touch: `move` and `partitioned` variables' pages on the nodes the advice names,\n"
		"`interleave` ones interleaved over the nodes their threads ran on (mbind(2); no\n"
		"rebuild). ADVICE: memphis-report --json --advice RUNDIR > ADVICE, or RUNDIR.\n"
		"  -a, --advice ADVICE   the advice (this or --plan)\n"
		"      --plan PLAN       a plan memphis-report plan wrote, instead of the advice\n"
		"      --profile         also profile the run, as memphis run: its report shows\n"
		"                        the placement and the page homes it led to\n"
		"  -o, --output DIR      the run directory, with --profile\n"
		"  -b, --backend NAME    -p, --period TIME   as memphis run, with --profile\n"
		"      --bind            MPOL_BIND, not MPOL_PREFERRED, for move and partitioned\n"
		"      --weights N:W[,N:W...]\n"
		"                        interleave weighted, W pages on node N per page of a node\n"
		"                        of weight 1 (MPOL_WEIGHTED_INTERLEAVE where the kernel's\n"
		"                        weights are these, else by stripes)\n"
		"      --kernel-weights  set the kernel's weighted-interleave weights to the plan's\n"
		"                        (--weights, or the tier advice's from the HMAT bandwidths;\n"
		"                        root, Linux 6.9; system-wide, they stay after PROGRAM)\n"
		"      --force           ADVICE of another build of PROGRAM: its variables are\n"
		"                        placed by name, its heap sites not\n"
		"      --children        also place (and profile) the processes PROGRAM starts\n"
		"  -v, --verbose         library messages on stderr\n"
		"  -h, --help            this text\n"
		"One line per variable on stderr says what was placed, when PROGRAM ends.\n"
		"Exit status: PROGRAM's; 2 when the advice cannot be used (another program or\n"
		"build without --force, damaged or unreadable: one line says which); 127 / 126\n"
		"as memphis run.\n");
}

/* Run memphis-report plan on advice for file (weights: its --weights, or NULL); its plan
 * into plan (NUL-terminated, at
 * most MAX_PLAN bytes), its lines on our stderr. Returns 0, or the exit status to end with
 * (a line printed). */
static int make_plan(const char *advice, const char *file, int force, int bind,
		     const char *weights, char *plan)
{
	char report[PATH_MAX];
	const char *args[10];
	int fds[2], status, n = 0;
	size_t len = 0;
	ssize_t got;
	pid_t child;

	if (memphis_tool("memphis-report", report, sizeof(report))) {
		fprintf(stderr, "memphis: apply: cannot find memphis-report (next to this program "
				"or on PATH)\n");
		return 127;
	}
	args[n++] = report;
	args[n++] = "plan";
	args[n++] = "--exe";
	args[n++] = file;
	if (force)
		args[n++] = "--force";
	if (bind)
		args[n++] = "--bind";
	if (weights) {
		args[n++] = "--weights";
		args[n++] = weights;
	}
	args[n++] = advice;
	args[n] = NULL;
	if (pipe(fds)) {
		fprintf(stderr, "memphis: apply: pipe: %s\n", strerror(errno));
		return 2;
	}
	if ((child = fork()) < 0) {
		fprintf(stderr, "memphis: apply: fork: %s\n", strerror(errno));
		return 2;
	}
	if (child == 0) {
		close(fds[0]);
		if (dup2(fds[1], STDOUT_FILENO) < 0)
			_exit(2);
		execv(report, (char *const *)args);
		fprintf(stderr, "memphis: apply: cannot run %s: %s\n", memphis_shown(report),
			strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], plan + len, MAX_PLAN + 1 - len)) > 0 || (got < 0 && errno == EINTR))
		if (got > 0 && (len += (size_t)got) > MAX_PLAN)
			break;
	close(fds[0]);
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	if (len > MAX_PLAN) { /* memphis-report may have died of SIGPIPE */
		fprintf(stderr, "memphis: apply: the plan of %s is over %d bytes, more than the "
				"environment can carry\n", memphis_shown(advice), MAX_PLAN);
		return 2;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? 127 : 2; /* it said why */
	plan[len] = 0;
	return 0;
}

/* The numbers of the list p ("0 1 2", up to the line's end) into v[0 .. max); their count. */
static unsigned numbers(const char *p, unsigned *v, unsigned max)
{
	unsigned n = 0;
	int len;

	while (n < max && sscanf(p, " %u%n", &v[n], &len) == 1 && !memchr(p, '\n', (size_t)len)) {
		p += len;
		n++;
	}
	return n;
}

/* --kernel-weights: the weights of the plan's weighted interleaves (a "nodes" line, then
 * "weights W..."; the tier advice's come from the HMAT bandwidths) written to the kernel's
 * weighted-interleave weights in dir (system-wide: they stay after PROGRAM; root only),
 * and those lines made "weights kernel" where the weights written are all theirs, so the
 * library asks for MPOL_WEIGHTED_INTERLEAVE (Linux 6.9) rather than stripes. A node two
 * lines weigh differently keeps the first's weight (the second goes by stripes). One line
 * on stderr says what was set, or why nothing was. plan is rewritten in place. */
static void kernel_weights(char *plan, const char *dir)
{
	static char out[MAX_PLAN + 2];
	unsigned w[1024] = { 0 }, nodes[64], v[64], nn = 0, nv;
	char path[PATH_MAX + 32], said[1024] = "";
	size_t o = 0;
	int failed = 0;

	for (char *l = plan; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		if (!strncmp(l, "nodes ", 6))
			nn = numbers(l + 5, nodes, 64);
		if (strncmp(l, "weights ", 8) || !strncmp(l, "weights kernel", 14))
			continue;
		nv = numbers(l + 7, v, 64);
		for (unsigned k = 0; k < nv && k < nn && !failed; k++) {
			FILE *f;

			if (nodes[k] >= 1024 || w[nodes[k]])
				continue;
			snprintf(path, sizeof(path), "%s/node%u", dir, nodes[k]);
			errno = 0;
			if (!(f = fopen(path, "w")) || fprintf(f, "%u\n", v[k]) < 0 || fclose(f)) {
				failed = errno ? errno : EIO;
				break;
			}
			w[nodes[k]] = v[k];
			snprintf(said + strlen(said), sizeof(said) - strlen(said), "%snode%u %u",
				 said[0] ? ", " : "", nodes[k], v[k]);
		}
	}
	if (failed)
		fprintf(stderr, "memphis: apply: --kernel-weights: %s: %s (root sets them, on Linux "
			"6.9 or later): the weights go by stripes\n", memphis_shown(path),
			strerror(failed));
	if (failed || !said[0])
		return;
	fprintf(stderr, "memphis: apply: the kernel's weighted-interleave weights set "
		"(system-wide, in %s, until changed): %s\n", memphis_shown(dir), said);
	for (char *l = plan; *l;) { /* the plan again, its weights lines told "kernel" */
		size_t len = strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n');
		int mine = 0;

		if (!strncmp(l, "nodes ", 6))
			nn = numbers(l + 5, nodes, 64);
		if (!strncmp(l, "weights ", 8) && strncmp(l, "weights kernel", 14)) {
			nv = numbers(l + 7, v, 64);
			mine = nv == nn;
			for (unsigned k = 0; k < nv && k < nn; k++)
				mine &= nodes[k] < 1024 && w[nodes[k]] == v[k];
		}
		if (o + len + 8 > MAX_PLAN)
			return; /* no room: the plan as it was */
		if (mine)
			o += (size_t)sprintf(out + o, "weights kernel");
		memcpy(out + o, l + (mine ? 7 : 0), len - (mine ? 7 : 0));
		o += len - (mine ? 7 : 0);
		l += len;
	}
	out[o] = 0;
	memcpy(plan, out, o + 1);
}

/* The plan in file into plan (NUL-terminated); 0, or 2 with a line. The library checks
 * its content (a damaged plan: one line, nothing placed). */
static int read_plan(const char *file, char *plan)
{
	FILE *f = fopen(file, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "memphis: apply: %s: %s\n", memphis_shown(file), strerror(errno));
		return 2;
	}
	n = fread(plan, 1, MAX_PLAN + 1, f);
	fclose(f);
	if (n > MAX_PLAN) {
		fprintf(stderr, "memphis: apply: the plan %s is over %d bytes, more than the "
				"environment can carry\n", memphis_shown(file), MAX_PLAN);
		return 2;
	}
	plan[n] = 0;
	return 0;
}

int memphis_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "advice", required_argument, 0, 'a' }, { "profile", no_argument, 0, 'P' },
		{ "output", required_argument, 0, 'o' }, { "backend", required_argument, 0, 'b' },
		{ "period", required_argument, 0, 'p' }, { "bind", no_argument, 0, 'B' },
		{ "force", no_argument, 0, 'f' },         { "children", no_argument, 0, 'C' },
		{ "verbose", no_argument, 0, 'v' },       { "help", no_argument, 0, 'h' },
		{ "plan", required_argument, 0, 'L' },    { "weights", required_argument, 0, 'W' },
		{ "kernel-weights", no_argument, 0, 'K' },
		{ 0, 0, 0, 0 },
	};
	static char plan[MAX_PLAN + 2];
	const char *advice = NULL, *plan_file = NULL, *weights = NULL;
	char file[PATH_MAX];
	int c, profile = 0, force = 0, bind = 0, kweights = 0, rc;

	while ((c = getopt_long(argc, argv, "+a:o:b:p:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'a': advice = optarg; break;
		case 'L': plan_file = optarg; break;
		case 'W': weights = optarg; break;
		case 'K': kweights = 1; break;
		case 'P': profile = 1; break;
		case 'o': setenv("MEMPHIS_OUTPUT", optarg, 1); break;
		case 'b': setenv("MEMPHIS_BACKEND", optarg, 1); break;
		case 'p': setenv("MEMPHIS_PERIOD", optarg, 1); break;
		case 'B': bind = 1; break;
		case 'f': force = 1; break;
		case 'C': setenv("MEMPHIS_CHILDREN", "1", 1); break;
		case 'v': setenv("MEMPHIS_VERBOSE", "2", 1); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	if (optind >= argc || !advice == !plan_file) {
		usage(stderr);
		return 1;
	}
	if (memphis_find_program(argv[optind], file, sizeof(file))) {
		fprintf(stderr, "memphis: cannot run %s: %s\n", memphis_shown(argv[optind]),
			strerror(ENOENT));
		return 127;
	}
	if (plan_file ? (rc = read_plan(plan_file, plan)) : (rc = make_plan(advice, file, force, bind, weights, plan)))
		return rc;
	if (kweights)
		kernel_weights(plan, getenv("MEMPHIS_WEIGHTED_INTERLEAVE") ? getenv("MEMPHIS_WEIGHTED_INTERLEAVE")
					: "/sys/kernel/mm/mempolicy/weighted_interleave");
	setenv("MEMPHIS_PLACE", plan, 1);
	if (!profile)
		setenv("MEMPHIS_PROFILE", "0", 1);
	return memphis_launch(argv + optind, profile ? "run" : NULL);
}
