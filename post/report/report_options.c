/* post/report/report_options.c - the command line of `memphis-report report`: --help, the
 * options, and the regions --region selects; the words shared by the outputs (weighting,
 * thread). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "bytes.h"
#include "report_impl.h"

/* For `return stop(exit_code, mr_usage(...))`: the command is over with that status. */
static bool stop(int *exit_code, int code)
{
	*exit_code = code;
	return false;
}

void mr_help_report(FILE *f)
{
	fprintf(f,
		"usage: memphis-report [report] RUNDIR [OPTIONS]\n"
		"       memphis-report [report] JOBDIR | RUNDIR RUNDIR... [OPTIONS]\n\n"
		"Per NUMA node (the node of the CPU that took the sample), the program variables\n"
		"whose accesses were remote (page home node != CPU node), in descending order, each\n"
		"with its source lines; then where the variables' pages live and who touched them\n"
		"first.\n\n"
		"Options:\n"
		"  --region NAME  only regions called NAME (repeatable; same names accumulate)\n"
		"  --top N        at most N variables per node and N lines per variable (default 10,\n"
		"                 0 = all)\n"
		"  --local        local samples only (page on the sampling CPU's node)\n"
		"  --all          local and remote samples\n"
		"  --by line      code-centric: lines first, variables under them (--by variable is\n"
		"                 the default)\n"
		"  --by member    the members of struct variables (a struct, an array of them, a heap\n"
		"                 object received by a typed pointer) under them, each member's\n"
		"                 nodes, and the cache lines threads of two nodes store to\n"
		"  --by rank      an MPI job: the tables per rank (and node), not per host\n"
		"  --tier-budget BYTES  with --advice on a machine with a memory-only node or two\n"
		"                 memory tiers: the fast tier's room (e.g. 128M; default: its nodes'\n"
		"                 free memory at start) for the tier advice\n"
		"  --rank N       an MPI job: the report of rank N alone\n"
		"  --approx       also use approximate (proxy) data addresses; by default only exact\n"
		"                 addresses are attributed\n"
		"  --matrix       print the node x node matrix of each variable shown\n"
		"  --json         JSON output (schema memphis-report/1, docs/report-schema.md)\n"
		"  --format F     text (default), json (as --json), pprof or trace: for pprof\n"
		"                 (gzip'd profile.proto: go tool pprof) and trace (Chrome trace\n"
		"                 event JSON: Perfetto, speedscope), with -o FILE (docs/export.md)\n"
		"  -o, --output FILE  where --format pprof or trace writes ('-': standard output,\n"
		"                 not a terminal)\n"
		"  --pprof-view V data (default): each sample's stack is variable, then allocation\n"
		"                 site or first-touch line, then the access line; code: the access\n"
		"                 line alone, the variable a label (to merge with CPU profiles)\n"
		"  --html FILE    write a self-contained HTML page with the report and its views\n"
		"                 to FILE (docs/html.md; '-': standard output); implies --advice\n"
		"  --pattern      with --json: how the threads use each shown variable's pages\n"
		"                 (thread x page-block samples, time bins; a second pass)\n"
		"  --advice       placement advice for each shown variable, from its pattern\n"
		"                 (docs/advice.md); implies --pattern\n"
		"  --exe PATH     the executable that ran, when it is no longer at the recorded path\n"
		"  -j, --jobs N   read the per-CPU sample files with N threads (default: the\n"
		"                 environment's MEMPHIS_REPORT_JOBS, else the online CPUs, one per\n"
		"                 16 MB of sample files); the report is the same for every N. A\n"
		"                 job: N ranks at once\n"
		"  --force        accept an executable whose build-id differs from the run's\n"
		"  -h, --help     this text\n\n"
		"An MPI job (a JOBDIR of rank-<r>/ run directories, or the ranks' RUNDIRs): one\n"
		"report summed over the ranks, per host and node, with the ranks of each variable;\n"
		"ranks of another job, topology, executable or backend are reported apart.\n\n"
		"Exit status: 0 ok, 1 bad usage, 2 damaged or unreadable input (after printing what\n"
		"was readable; a job: a rank damaged, unreadable or missing), missing executable or\n"
		"build-id mismatch.\n");
}

const char *report_weighting(const char *w)
{
	if (!w || !*w)
		return "samples (weighting not recorded)";
	if (!strcmp(w, "stall"))
		return "stall-weighted samples (latency-exposed time, not access counts)";
	if (!strcmp(w, "latency"))
		return "hardware samples (counted; sources and latencies under Data sources)";
	if (!strcmp(w, "count"))
		return "access-count samples";
	return w;
}

void report_thread_text(const struct report *r, uint32_t tid, char *buf, size_t len)
{
	int idx = mr_attrib_thread_index(r->a, tid);

	if (idx >= 0)
		snprintf(buf, len, "thread %d", idx);
	else
		snprintf(buf, len, "tid %" PRIu32, tid);
}

/* A job count of 1 .. MR_MAX_JOBS in s into *n. */
static bool parse_jobs(const char *s, long *n)
{
	char *end;

	errno = 0;
	*n = strtol(s, &end, 10);
	return !errno && *s && !*end && *n >= 1 && *n <= MR_MAX_JOBS;
}

/* MEMPHIS_REPORT_JOBS into *n when it is set to a job count (1 .. MR_MAX_JOBS). */
static bool report_jobs_env(long *n)
{
	const char *s = getenv("MEMPHIS_REPORT_JOBS");

	return s && parse_jobs(s, n);
}

bool report_jobs_given(const struct report_opts *o)
{
	long n;

	return o->jobs > 0 || report_jobs_env(&n);
}

size_t report_jobs(const struct report_opts *o)
{
	long n = (long)o->jobs;

	if (n <= 0 && !report_jobs_env(&n))
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > MR_MAX_JOBS)
		n = MR_MAX_JOBS;
	return (size_t)n;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* `--html RUNDIR` and nothing after it: the user meant the page of RUNDIR, not a page
 * written over a directory. The page goes to RUNDIR's name + ".html" in the working
 * directory (html_write_page says where). Parsed once per process: the name's storage
 * is static. */
static bool html_dir_only(struct report_opts *o, char **arg)
{
	static char page[4096];
	const char *dir = *arg, *end = dir + strlen(dir), *name;

	while (end > dir + 1 && end[-1] == '/')
		end--;
	name = end;
	while (name > dir && name[-1] != '/')
		name--;
	snprintf(page, sizeof(page), "%.*s.html", (int)(end - name), name);
	o->html = page;
	o->dir = dir;
	o->dirs = arg;
	o->ndirs = 1;
	return true;
}

/* --format's word into *f; false when it is none of them. */
static bool parse_format(const char *s, enum report_format *f)
{
	static const char *const names[] = { "text", "json", "pprof", "trace" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*f = (enum report_format)i;
			return true;
		}
	return false;
}

/* The options of the exports agree: pprof and trace want -o FILE (a binary profile on a
 * terminal helps nobody), -o and --pprof-view want their format, and neither goes with
 * --html or a job's several run directories (one profile of one process). */
static bool export_options_ok(const struct report_opts *o, int *exit_code)
{
	bool export = o->format == REPORT_PPROF || o->format == REPORT_TRACE;

	if (o->output && !export)
		return stop(exit_code, mr_usage("report", "-o FILE is for --format pprof or trace "
						"(text and JSON go to standard output)"));
	if (o->pprof_code && o->format != REPORT_PPROF)
		return stop(exit_code, mr_usage("report", "--pprof-view is for --format pprof"));
	if (export && o->html)
		return stop(exit_code, mr_usage("report", "--html and --format %s exclude each "
						"other", o->format == REPORT_PPROF ? "pprof" : "trace"));
	if (export && !o->output)
		return stop(exit_code, mr_usage("report", "--format %s needs -o FILE",
						o->format == REPORT_PPROF ? "pprof" : "trace"));
	if (export && !strcmp(o->output, "-") && isatty(STDOUT_FILENO))
		return stop(exit_code, mr_usage("report", "-o - would write the %s file on a "
						"terminal: give a file name, or redirect",
						o->format == REPORT_PPROF ? "pprof" : "trace"));
	return true;
}

bool report_parse_options(struct report_opts *o, int argc, char **argv, int *exit_code)
{
	static const struct option lo[] = {
		{ "region", required_argument, NULL, 'r' }, { "top", required_argument, NULL, 't' },
		{ "local", no_argument, NULL, 'l' },        { "all", no_argument, NULL, 'a' },
		{ "by", required_argument, NULL, 'b' },     { "approx", no_argument, NULL, 'x' },
		{ "matrix", no_argument, NULL, 'm' },       { "json", no_argument, NULL, 'J' },
		{ "exe", required_argument, NULL, 'e' },    { "force", no_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },   { "help", no_argument, NULL, 'h' },
		{ "rank", required_argument, NULL, 'R' },
		{ "html", required_argument, NULL, 'H' },
		{ "pattern", no_argument, NULL, 'P' },      { "advice", no_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'F' }, { "output", required_argument, NULL, 'o' },
		{ "pprof-view", required_argument, NULL, 'V' },
		{ "tier-budget", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	char **html_arg = NULL; /* the argv element that is --html's FILE (not --html=FILE) */
	char *end;
	long jobs;

	o->top = 10;
	/* errors as JSON from the first one on when JSON was asked for */
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "--format=json") ||
		    (!strcmp(argv[i], "--format") && i + 1 < argc && !strcmp(argv[i + 1], "json")))
			mr_err_json = o->json = 1;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "hj:o:", lo, NULL)) != -1) {
		switch (ch) {
		case 'r': {
			const char **nr = realloc(o->regions, (o->nregions + 1) * sizeof(*nr));
			if (!nr)
				return stop(exit_code, mr_error(MR_EXIT_DATA, "out of memory"));
			o->regions = nr;
			nr[o->nregions++] = optarg;
			break;
		}
		case 't':
			errno = 0;
			o->top = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-')
				return stop(exit_code, mr_usage("report", "--top wants a number, not '%s'",
								optarg));
			break;
		case 'l': o->mode = MR_AGG_LOCAL; break;
		case 'a': o->mode = MR_AGG_ALL; break;
		case 'b':
			o->by_line = !strcmp(optarg, "line");
			o->by_rank = !strcmp(optarg, "rank");
			o->by_member = !strcmp(optarg, "member");
			if (!o->by_line && !o->by_rank && !o->by_member && strcmp(optarg, "variable") &&
			    strcmp(optarg, "var"))
				return stop(exit_code,
					    mr_usage("report", "--by wants 'line', 'variable', 'member' "
						     "or 'rank', not '%s'", optarg));
			break;
		case 'R':
			errno = 0;
			o->rank = strtol(optarg, &end, 10);
			if (errno || *end || !*optarg || o->rank < 0)
				return stop(exit_code, mr_usage("report", "--rank wants a rank number, "
								"not '%s'", optarg));
			o->one_rank = 1;
			break;
		case 'j':
			if (!parse_jobs(optarg, &jobs))
				return stop(exit_code,
					    mr_usage("report", "--jobs wants a number from 1 to %d, "
						     "not '%s'", MR_MAX_JOBS, optarg));
			o->jobs = (size_t)jobs;
			break;
		case 'x': o->approx = 1; break;
		case 'm': o->matrix = 1; break;
		case 'P': o->pattern = 1; break;
		case 'T':
			if (mph_parse_bytes(optarg, &o->tier_budget) || !o->tier_budget)
				return stop(exit_code, mr_usage("report", "--tier-budget wants bytes "
								  "(e.g. 128M, 2G), not '%s'", optarg));
			break;
		case 'A': o->advice = o->pattern = 1; break;
		case 'J': o->format = REPORT_JSON; break; /* o->json: set above */
		case 'F':
			if (!parse_format(optarg, &o->format))
				return stop(exit_code,
					    mr_usage("report", "--format wants text, json, pprof or "
						     "trace, not '%s'", optarg));
			o->json = o->format == REPORT_JSON;
			break;
		case 'o': o->output = optarg; break;
		case 'V':
			o->pprof_code = !strcmp(optarg, "code");
			if (!o->pprof_code && strcmp(optarg, "data"))
				return stop(exit_code, mr_usage("report", "--pprof-view wants data or "
								"code, not '%s'", optarg));
			break;
		case 'H':
			o->html = optarg;
			html_arg = optarg == argv[optind - 1] ? &argv[optind - 1] : NULL;
			break;
		case 'e': o->exe = optarg; break;
		case 'f': o->force = 1; break;
		case 'h': mr_help_report(stdout); return stop(exit_code, MR_EXIT_OK);
		case ':':
			return stop(exit_code,
				    mr_usage("report", "%s needs an argument", argv[optind - 1]));
		default:
			if (optopt && lo[0].name) {
				for (size_t i = 0; lo[i].name; i++)
					if (lo[i].val == optopt && lo[i].has_arg)
						return stop(exit_code,
							    mr_usage("report", "%s needs an argument",
								     argv[optind - 1]));
			}
			return stop(exit_code, mr_usage("report", "unknown option %s", argv[optind - 1]));
		}
	}
	if (!o->jobs && getenv("MEMPHIS_REPORT_JOBS") && !report_jobs_env(&jobs))
		return stop(exit_code, mr_usage("report", "MEMPHIS_REPORT_JOBS wants a number "
						"from 1 to %d, not '%s'", MR_MAX_JOBS,
						getenv("MEMPHIS_REPORT_JOBS")));
	if (o->html && o->json)
		return stop(exit_code, mr_usage("report", "--html and --json exclude each other"));
	if (!export_options_ok(o, exit_code))
		return false;
	if (optind == argc && o->html && html_arg && is_dir(o->html))
		return html_dir_only(o, html_arg);
	if (optind == argc)
		return stop(exit_code, mr_usage("report", "missing RUNDIR"));
	o->dir = argv[optind];
	o->dirs = argv + optind;
	o->ndirs = (size_t)(argc - optind);
	return true;
}

bool report_time_span(const struct report *r, uint64_t *t0, uint64_t *t1)
{
	*t0 = UINT64_MAX;
	*t1 = 0;
	for (size_t i = 0; i < r->run->nregions; i++) {
		const struct memphis_rec_region *reg = &r->run->regions[i];

		if (!report_region_selected(r, reg->seq) || reg->t_end <= reg->t_start)
			continue;
		*t0 = reg->t_start < *t0 ? reg->t_start : *t0;
		*t1 = reg->t_end > *t1 ? reg->t_end : *t1;
	}
	return *t1 > *t0;
}

bool report_select_regions(struct report *r, int *exit_code)
{
	uint32_t maxseq = 0;

	if (!r->o.nregions)
		return true;
	for (size_t i = 0; i < r->run->nregions; i++)
		if (r->run->regions[i].seq > maxseq)
			maxseq = r->run->regions[i].seq;
	r->region_sel = calloc((size_t)maxseq + 1, 1);
	if (!r->region_sel)
		return stop(exit_code, mr_error(MR_EXIT_DATA, "out of memory"));
	r->region_sel_n = maxseq + 1;
	for (size_t k = 0; k < r->o.nregions; k++) {
		int found = 0;
		for (size_t i = 0; i < r->run->nregions; i++)
			if (!strcmp(r->run->regions[i].name, r->o.regions[k])) {
				r->region_sel[r->run->regions[i].seq] = 1;
				found = 1;
			}
		if (!found) {
			char names[512] = "";
			const char *seen[64]; /* the names listed (n x 64 compares, not n x n) */
			size_t len = 0, nseen = 0;
			for (size_t i = 0; i < r->run->nregions && len < sizeof(names) - 70 &&
					   nseen < sizeof(seen) / sizeof(seen[0]); i++) {
				const char *name = r->run->regions[i].name;
				int dup = 0;
				for (size_t j = 0; j < nseen && !dup; j++)
					dup = !strcmp(seen[j], name);
				if (dup)
					continue;
				seen[nseen++] = name;
				len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
							len ? ", " : "", name);
			}
			return stop(exit_code,
				    mr_usage("report", "no region named '%s' in %s (regions: %s)",
					     r->o.regions[k], r->o.dir, len ? names : "none"));
		}
	}
	return true;
}

