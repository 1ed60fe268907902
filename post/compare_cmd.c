/* post/compare_cmd.c - `memphis-report compare A B`: the command line, loading both sides,
 * the checks that they can be compared (same program, same node count, same selection)
 * and the provenance warnings (--strict: refusals), the outputs and the exit status:
 * 0 no regression, 1 a regression, 2 cannot compare (bad usage included, so that a CI job
 * never reads a typo as a regression). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "cmd.h"
#include "compare/compare.h"

enum { EXIT_SAME = 0, EXIT_REGRESSED = 1, EXIT_CANNOT = 2 };

struct copts {
	struct cmp_opts c;
	const char *a, *b, *junit;
	double max_regress;  /* points */
	int strict;
	enum cmp_format fmt;
	size_t top;
};

void mr_help_compare(FILE *f)
{
	fprintf(f,
		"usage: memphis-report compare A B [OPTIONS]\n\n"
		"Compares two profiles of one program, before (A) and after (B) a change; each is\n"
		"a run directory or a report saved with `memphis-report --json`. Per node of the\n"
		"sampling CPU, overall, and per variable (per source line with --by line): the\n"
		"share of the node's accesses that is remote, with a 95 %% interval for its change\n"
		"(Newcombe's hybrid score method); improved / regressed only when the interval\n"
		"excludes 0 and the change exceeds --max-regress; new / gone for variables of one\n"
		"side only (heap objects are matched by allocation site across line shifts).\n\n"
		"Options:\n"
		"  --max-regress N  threshold in percentage points: N, Npt or N%% (default 2)\n"
		"  --strict         refuse (exit 2) runs that differ in executable name, backend,\n"
		"                   period, weighting or thread count (default: a warning)\n"
		"  --region NAME    only regions called NAME (repeatable), as in the report\n"
		"  --local          compare local shares (higher is better)\n"
		"  --all            compare each node's and variable's share of the accesses (no\n"
		"                   verdicts: up / down)\n"
		"  --by line        source lines instead of variables (--by variable: default)\n"
		"  --approx         also use approximate data addresses (run directories)\n"
		"  --top N          variables shown per node (default 10, 0 = all tracked)\n"
		"  --json           JSON output (schema memphis-compare/1, docs/compare.md)\n"
		"  --markdown       a Markdown table (a pull-request comment)\n"
		"  --junit FILE     also write JUnit XML: one testcase per node and per tracked\n"
		"                   variable, regressions as failures\n"
		"  --exe-a PATH, --exe-b PATH  the executable of run directory A / B, when no\n"
		"                   longer at the recorded path\n"
		"  --force          accept an executable whose build-id differs from the run's\n"
		"  -h, --help       this text\n\n"
		"Exit status: 0 no regression, 1 at least one regression, 2 cannot compare (bad\n"
		"usage, unreadable input, different node counts, or --strict and runs that\n"
		"differ).\n");
}

/* A usage error of compare: printed like the report's, exit 2 (not 1: that is a
 * regression). */
static int usage(const char *fmt, const char *arg)
{
	mr_usage("compare", fmt, arg);
	return EXIT_CANNOT;
}

/* Parse the command line into *o; returns -1 to go on, else the exit status. */
static int parse(struct copts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "region", required_argument, NULL, 'r' }, { "local", no_argument, NULL, 'l' },
		{ "all", no_argument, NULL, 'a' },          { "by", required_argument, NULL, 'b' },
		{ "approx", no_argument, NULL, 'x' },       { "json", no_argument, NULL, 'j' },
		{ "markdown", no_argument, NULL, 'm' },     { "junit", required_argument, NULL, 'u' },
		{ "max-regress", required_argument, NULL, 'M' },
		{ "strict", no_argument, NULL, 's' },       { "top", required_argument, NULL, 't' },
		{ "exe-a", required_argument, NULL, 'A' },  { "exe-b", required_argument, NULL, 'B' },
		{ "force", no_argument, NULL, 'f' },        { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int ch;

	o->max_regress = 2;
	o->top = 10;
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			mr_err_json = 1;
	mr_err_schema = MR_COMPARE_SCHEMA;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (ch) {
		case 'r': {
			const char **nr = realloc(o->c.regions, (o->c.nregions + 1) * sizeof(*nr));
			if (!nr)
				return mr_error(EXIT_CANNOT, "out of memory");
			o->c.regions = nr;
			nr[o->c.nregions++] = optarg;
			break;
		}
		case 'l': o->c.mode = 1; break;
		case 'a': o->c.mode = 2; break;
		case 'b':
			if (strcmp(optarg, "line") && strcmp(optarg, "variable") && strcmp(optarg, "var"))
				return usage("--by wants 'line' or 'variable', not '%s'", optarg);
			o->c.by_line = !strcmp(optarg, "line");
			break;
		case 'x': o->c.approx = 1; break;
		case 'j': o->fmt = CMP_JSON; break;
		case 'm': if (o->fmt != CMP_JSON) o->fmt = CMP_MARKDOWN; break;
		case 'u': o->junit = optarg; break;
		case 'M':
			if (!cmp_parse_points(optarg, &o->max_regress))
				return usage("--max-regress wants points from 0 to 100 (2, 2pt or 2%%), "
					     "not '%s'", optarg);
			break;
		case 's': o->strict = 1; break;
		case 't':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return usage("--top wants a number, not '%s'", optarg);
			break;
		case 'A': o->c.exe_a = optarg; break;
		case 'B': o->c.exe_b = optarg; break;
		case 'f': o->c.force = 1; break;
		case 'h': mr_help_compare(stdout); return EXIT_SAME;
		default:
			for (size_t i = 0; lo[i].name; i++)
				if (optopt && lo[i].val == optopt && lo[i].has_arg)
					return usage("%s needs an argument", argv[optind - 1]);
			return usage("unknown option %s", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return usage("%s", argc - optind < 2 ? "two inputs expected: A B (run directories "
						       "or saved --json reports)"
						     : "two inputs expected, got more");
	o->a = argv[optind];
	o->b = argv[optind + 1];
	return -1;
}

/* Does the saved selection of side s (a JSON report) differ from the command's? The
 * message names what differs. */
static const char *selection_differs(const struct cmp_side *s, const struct copts *o)
{
	if (!s->from_json)
		return NULL;
	if (s->by_line != o->c.by_line)
		return s->by_line ? "it was saved with --by line" : "it was saved without --by line";
	if (s->approx != o->c.approx)
		return s->approx ? "it was saved with --approx" : "it was saved without --approx";
	if (s->nregions != o->c.nregions)
		return "it was saved with another --region selection";
	for (size_t i = 0; i < s->nregions; i++) {
		size_t k = 0;
		while (k < o->c.nregions && strcmp(o->c.regions[k], s->regions[i]))
			k++;
		if (k == o->c.nregions)
			return "it was saved with another --region selection";
	}
	return NULL;
}

/* The file name part of a path. */
static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Checks that refuse a comparison (exit 2 after one line) and the provenance notes. */
static int check(const struct cmp_side *a, const struct cmp_side *b, const struct copts *o,
		 struct cmp_result *res)
{
	const struct cmp_side *s[2] = { a, b };
	size_t before;

	for (int i = 0; i < 2; i++) {
		const char *why = selection_differs(s[i], o);
		if (why)
			return mr_error(EXIT_CANNOT, "compare: %s: %s; compare it with the same "
				       "options or use its run directory", s[i]->path, why);
	}
	if (a->nnodes != b->nnodes)
		return mr_error(EXIT_CANNOT, "compare: %s has %u NUMA nodes, %s has %u; runs on "
			       "different node counts cannot be compared", a->path, a->nnodes,
			       b->path, b->nnodes);
	before = res->nnotes;
	/* app.before against app.after is how builds are compared: another name is worth a
	 * word, not a refusal (variables still pair by name and allocation site). Another
	 * build id alone is what comparing two builds means: the header prints both. */
	if (strcmp(base(a->exe), base(b->exe)) &&
	    cmp_note(res, "executables differ: %s, %s", base(a->exe), base(b->exe)))
		return mr_error(EXIT_CANNOT, "out of memory");
	if (strcmp(a->backend, b->backend) &&
	    cmp_note(res, "backends differ: %s, %s", a->backend, b->backend))
		return mr_error(EXIT_CANNOT, "out of memory");
	if (a->period_ns != b->period_ns &&
	    cmp_note(res, "sampling periods differ: %" PRIu64 " ns, %" PRIu64 " ns", a->period_ns,
		     b->period_ns))
		return mr_error(EXIT_CANNOT, "out of memory");
	if (strcmp(a->weighting, b->weighting) &&
	    cmp_note(res, "weightings differ: %s; %s", a->weighting, b->weighting))
		return mr_error(EXIT_CANNOT, "out of memory");
	if (a->threads >= 0 && b->threads >= 0 && a->threads != b->threads &&
	    cmp_note(res, "thread counts differ: %" PRId64 ", %" PRId64, a->threads, b->threads))
		return mr_error(EXIT_CANNOT, "out of memory");
	if (o->strict && res->nnotes > before)
		return mr_error(EXIT_CANNOT, "compare: --strict: %s and %s differ: %s", a->path,
				b->path, res->notes[before]);
	for (int i = 0; i < 2; i++)
		for (size_t k = 0; k < s[i]->nwarnings; k++)
			if (cmp_note(res, "%s: %s", s[i]->path, s[i]->warnings[k]))
				return mr_error(EXIT_CANNOT, "out of memory");
	return -1;
}

/* Load both sides, check, compare, print. Returns the exit status. */
static int run(struct copts *o, struct cmp_side *a, struct cmp_side *b, struct cmp_result *res)
{
	char err[1024];
	int rc, printed;

	if ((rc = cmp_load(a, o->a, o->c.exe_a, &o->c, err, sizeof(err), &printed)) ||
	    (rc = cmp_load(b, o->b, o->c.exe_b, &o->c, err, sizeof(err), &printed))) {
		if (printed)
			return EXIT_CANNOT;
		return mr_error(EXIT_CANNOT, "compare: %s", rc == -ENOMEM ? "out of memory" : err);
	}
	if ((rc = check(a, b, o, res)) >= 0)
		return rc;
	if (cmp_compare(a, b, o->c.mode, o->max_regress / 100, res))
		return mr_error(EXIT_CANNOT, "out of memory");
	cmp_print(a, b, res, o->fmt, o->top, stdout);
	fflush(stdout);
	if (o->fmt != CMP_TEXT)
		for (size_t i = 0; i < res->nnotes; i++)
			fprintf(stderr, "memphis-report: compare: warning: %s\n", res->notes[i]);
	if (o->junit && (rc = cmp_write_junit(a, b, res, o->junit)))
		return mr_error(EXIT_CANNOT, "compare: cannot write %s: %s", o->junit,
				strerror(-rc));
	return res->regressions ? EXIT_REGRESSED : EXIT_SAME;
}

int mr_cmd_compare(int argc, char **argv)
{
	struct copts o;
	struct cmp_side a, b;
	struct cmp_result res;
	int rc;

	memset(&o, 0, sizeof(o));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&res, 0, sizeof(res));
	rc = parse(&o, argc, argv);
	if (rc < 0)
		rc = run(&o, &a, &b, &res);
	cmp_result_free(&res);
	cmp_side_free(&a);
	cmp_side_free(&b);
	free(o.c.regions);
	return rc;
}
