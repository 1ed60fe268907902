/* post/plan_cmd.c - `memphis-report plan ADVICE --exe PROGRAM`: the placement plan that
 * `memphis apply` hands to libmemphis (lib/place.c reads it; docs/apply.md).
 *
 * ADVICE is a report saved with `memphis-report --json --advice`, or a run directory whose
 * report is made here in memory the same way. Each variable whose advice has a "placement"
 * becomes one plan entry (on a machine of memory tiers the tier advice's placement comes
 * first, report_tiers.c: the fast tier while its budget lasts, partitioned, weighted by
 * the HMAT bandwidths, or the slow tier; unless it puts the variable whole in the fast
 * tier where its own advice places it on fast nodes already): a variable of static storage
 * of the executable by its vaddr and size there (found by name in PROGRAM's DWARF, so a
 * rebuilt binary is placed too), a heap or mmap call site by its chain of return addresses
 * in the executable (site.chain: the same build; in a rebuilt one, --force, by the source
 * lines of its frames as compare pairs sites: post/binary/codefind.c). The plan is text,
 * one item per line:
 *
 *   memphis-plan 1
 *   var POLICY MODE NAME            policy move | partitioned | interleave; mode
 *                                   preferred | bind; NAME as the report names it
 *   sym VADDR SIZE                  hex vaddr in PROGRAM, decimal bytes
 *   site F0 F1 ...                  hex return-address vaddrs of PROGRAM, "-" any frame
 *                                   outside it; in a rebuilt PROGRAM (--force) "LO-HI":
 *                                   the call's instruction (return address - 1) in
 *                                   [LO, HI), the code of its source line or function
 *   nodes N...                      move: one node; interleave: its nodes
 *   weights [kernel] W...           interleave (--weights): each node's weight, "kernel"
 *                                   when the kernel's weighted interleave has them
 *   ranges OFFSET NODE ...          partitioned: from each byte OFFSET of the variable (a
 *                                   heap site's objects laid end to end), NODE; the
 *                                   first OFFSET 0
 *
 * Exit 0 with the plan on stdout, lines about what is not placed (and why) on stderr;
 * 2 for advice of another program or build (unless --force), damaged or unreadable
 * input; 1 bad usage. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/infile.h"
#include "base/json.h"
#include "binary/codefind.h"
#include "binary/debuginfo.h"
#include "cmd.h"
#include "job/job.h"

struct popts {
	const char *advice, *exe;
	int force, bind;
	unsigned weights[1024]; /* --weights: per node, 0 when not given (1) */
	int weighted;
	const char *sysfs;      /* where the kernel's weighted-interleave weights are */
};

void mr_help_plan(FILE *f)
{
	fprintf(f,
		"usage: memphis-report plan ADVICE --exe PROGRAM [OPTIONS]\n\n"
		"Writes the placement plan that `memphis apply` carries out: for each variable\n"
		"whose advice names a placement (move, partitioned, interleave), where its pages go;\n"
		"with memory tiers (a node without CPUs), the tier advice's placement first.\n"
		"ADVICE is a report saved with `memphis-report --json --advice`, or a run directory.\n"
		"Globals, statics, Fortran COMMON and module variables are found in PROGRAM by\n"
		"name; heap and mmap objects by their allocation call chain.\n\n"
		"Options:\n"
		"  --exe PROGRAM  the program to be placed (required)\n"
		"  --force        accept a PROGRAM whose build-id differs from the advice's run:\n"
		"                 its heap sites are found by their source lines (the nearest\n"
		"                 line of the same file and function, as compare pairs them)\n"
		"  --bind         MPOL_BIND instead of MPOL_PREFERRED for move and partitioned\n"
		"  --weights N:W[,N:W...]\n"
		"                 interleave weighted: W pages on node N for each one of weight 1\n"
		"                 (a node not named weighs 1): the kernel's weighted interleave\n"
		"                 where it has it with these weights, else by stripes\n"
		"  -h, --help     this text\n\n"
		"Exit status: 0 plan written, 1 bad usage, 2 advice of another program or build,\n"
		"damaged or unreadable input.\n");
}

/* "0:3,1:1" into o->weights. 0, or -1 when it is not such a list. */
static int parse_weights(const char *s, struct popts *o)
{
	while (*s) {
		char *end;
		unsigned long n = strtoul(s, &end, 10), w;

		if (end == s || *end != ':' || n >= 1024)
			return -1;
		s = end + 1;
		w = strtoul(s, &end, 10);
		if (end == s || w < 1 || w > 255 || (*end && *end != ','))
			return -1;
		o->weights[n] = (unsigned)w;
		s = *end ? end + 1 : end;
	}
	o->weighted = 1;
	return 0;
}

/* Node n's weight in the kernel's weighted interleave (sysfs), 0 when unknown. */
static unsigned kernel_weight(const struct popts *o, unsigned n)
{
	char path[512];
	unsigned w = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/node%u", o->sysfs, n);
	if (!(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%u", &w) != 1)
		w = 0;
	fclose(f);
	return w;
}

/* The "weights" line of an interleave over nodes ("nodes 0 1" text after its keyword):
 * each node's weight, led by "kernel" when the kernel's weighted interleave has them
 * (its sysfs weights proportional to these). */
static void weights_line(const struct popts *o, const char *nodes, FILE *out)
{
	unsigned list[64], n = 0, kw[64];
	int kernel = 1;

	for (const char *c = nodes; *c && n < 64;) {
		char *end;
		unsigned long v = strtoul(c, &end, 10);

		if (end == c)
			break;
		list[n++] = (unsigned)v;
		c = end;
	}
	for (unsigned k = 0; k < n; k++) {
		kw[k] = kernel_weight(o, list[k]);
		/* proportional: w_k * kw_0 == kw_k * w_0 */
		kernel &= kw[k] > 0 && (o->weights[list[k]] ? o->weights[list[k]] : 1) * kw[0] ==
					       kw[k] * (o->weights[list[0]] ? o->weights[list[0]] : 1);
	}
	fprintf(out, "weights%s", kernel ? " kernel" : "");
	for (unsigned k = 0; k < n; k++)
		fprintf(out, " %u", o->weights[list[k]] ? o->weights[list[k]] : 1);
	fprintf(out, "\n");
}

static int parse(struct popts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "exe", required_argument, 0, 'e' }, { "force", no_argument, 0, 'f' },
		{ "bind", no_argument, 0, 'b' },      { "help", no_argument, 0, 'h' },
		{ "weights", required_argument, 0, 'w' },
		{ 0, 0, 0, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'e': o->exe = optarg; break;
		case 'f': o->force = 1; break;
		case 'b': o->bind = 1; break;
		case 'w':
			if (parse_weights(optarg, o))
				return mr_usage("plan", "--weights %s: N:W pairs, comma-separated, N a "
						"node below 1024, W 1 to 255", optarg);
			break;
		case 'h': mr_help_plan(stdout); return MR_EXIT_OK;
		default: return mr_usage("plan", "unknown option");
		}
	}
	if (optind != argc - 1)
		return mr_usage("plan", "give one ADVICE (a saved --json --advice report or a run "
				"directory)");
	if (!o->exe)
		return mr_usage("plan", "--exe PROGRAM is required");
	o->advice = argv[optind];
	return -1;
}

/* The report text of o->advice into *buf: the file, or the run directory's report made
 * here with --json --advice. 0, or an exit status (the error printed). */
static int load(const struct popts *o, char **buf, size_t *n)
{
	struct stat st;
	int rc;

	if (stat(o->advice, &st))
		return mr_error(MR_EXIT_DATA, "%s: %s", o->advice, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		struct report_opts ro = { .dir = o->advice, .json = 1, .pattern = 1, .advice = 1,
					  .mode = MR_AGG_REMOTE, .top = 0 };
		FILE *mem = open_memstream(buf, n);

		if (!mem)
			return mr_error(MR_EXIT_DATA, "out of memory");
		rc = job_report_run(&ro, mem);
		if (fclose(mem) || !*buf || !*n || rc)
			return rc ? rc : MR_EXIT_DATA; /* the report printed its error */
		return 0;
	}
	if ((rc = mr_in_read(o->advice, MR_IN_MAX_JSON, buf, n)))
		return mr_error(MR_EXIT_DATA, "%s: %s", o->advice, mr_in_strerror(rc, MR_IN_MAX_JSON));
	return 0;
}

static json_object *get(json_object *o, const char *key, json_type t)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* Array a of node numbers (< 1024) as " N N ...", into out; false when one is not. */
static bool node_list(json_object *a, char *out, size_t len)
{
	size_t pos = 0, n = a ? json_object_array_length(a) : 0;

	for (size_t i = 0; i < n && pos < len; i++) {
		json_object *v = json_object_array_get_idx(a, i);

		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 ||
		    json_object_get_int64(v) >= 1024)
			return false;
		pos += (size_t)snprintf(out + pos, len - pos, " %" PRId64, json_object_get_int64(v));
	}
	return n > 0 && pos < len;
}

/* A partitioned placement's parts as " OFFSET NODE ..." into out: its "ranges", else one
 * part per run of equal "block_nodes"; false when it has neither (or a bad one). */
static bool ranges(json_object *pl, char *out, size_t len)
{
	json_object *r = get(pl, "ranges", json_type_array), *bn = get(pl, "block_nodes", json_type_array);
	json_object *bb = get(pl, "block_bytes", json_type_int);
	size_t pos = 0, n = r ? json_object_array_length(r) : bn ? json_object_array_length(bn) : 0;
	int64_t last_off = -1, last_node = -1;

	out[0] = 0;
	if (!r && (!bb || json_object_get_int64(bb) <= 0))
		return false;
	for (size_t i = 0; i < n && pos < len; i++) {
		json_object *e = r ? json_object_array_get_idx(r, i) : NULL;
		json_object *o = e ? json_object_array_get_idx(e, 0) : NULL;
		json_object *v = e ? json_object_array_get_idx(e, 1) : json_object_array_get_idx(bn, i);
		int64_t off = e ? (o && json_object_is_type(o, json_type_int) ? json_object_get_int64(o) : -1)
				: (int64_t)i * json_object_get_int64(bb);
		int64_t node = v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : -1;

		if ((e && (!json_object_is_type(e, json_type_array) || json_object_array_length(e) != 2)) ||
		    off < 0 || off <= last_off || node < 0 || node >= 1024 || (!i && off))
			return false;
		if (node == last_node)
			continue;
		pos += (size_t)snprintf(out + pos, len - pos, " %" PRId64 " %" PRId64, off, node);
		last_off = off;
		last_node = node;
	}
	return n > 0 && pos < len;
}

/* PROGRAM's variable of static storage named name, NULL when it has none. */
static const struct mr_var *var_named(struct mr_debuginfo *di, const char *name)
{
	const struct mr_var *vars;
	size_t n = mr_debuginfo_vars(di, &vars);

	for (size_t i = 0; i < n; i++)
		if (vars[i].name && !strcmp(vars[i].name, name) && !vars[i].tls &&
		    !vars[i].descriptor && vars[i].size)
			return &vars[i];
	return NULL;
}

/* site.chain "1f49 12b4 - -" as the plan's "site" line; false when it names no frame of
 * the executable or is not such a list. */
static bool site_line(const char *chain, char *out, size_t len)
{
	size_t pos = snprintf(out, len, "site");
	int exe_frames = 0, frames = 0;
	const char *c = chain;

	while (*c && pos < len) {
		char *end;
		unsigned long long v;

		while (*c == ' ')
			c++;
		if (!*c)
			break;
		if (*c == '-' && (c[1] == ' ' || !c[1])) {
			pos += (size_t)snprintf(out + pos, len - pos, " -");
			c++;
		} else {
			errno = 0;
			v = strtoull(c, &end, 16);
			if (end == c || errno || (*end && *end != ' '))
				return false;
			pos += (size_t)snprintf(out + pos, len - pos, " %llx", v);
			c = end;
			exe_frames++;
		}
		if (++frames > 8)
			return false;
	}
	return exe_frames > 0 && pos < len;
}

/* "cg.c:154" into file (its base name) and line; false when it is not such a name. */
static bool file_line(const char *s, char *file, size_t len, unsigned *line)
{
	const char *colon = s ? strrchr(s, ':') : NULL;
	char *end;

	if (!colon || colon == s || (size_t)(colon - s) >= len)
		return false;
	*line = (unsigned)strtoul(colon + 1, &end, 10);
	snprintf(file, len, "%.*s", (int)(colon - s), s);
	return *line > 0 && (*end == '\0' || *end == ' ');
}

/* The function a heap variable's allocation called, from its name ("malloc at ..."):
 * the C allocators and mmap by their names; NULL for another (operator new, a runtime's
 * entry): any call then. */
static const char *allocator(const char *name, char *buf, size_t len)
{
	static const char *const known[] = { "malloc", "calloc", "realloc", "reallocarray",
					     "posix_memalign", "aligned_alloc", "memalign",
					     "valloc", "pvalloc", "mmap", "mmap64", "mremap" };
	const char *at = strstr(name, " at "), *open = strrchr(name, '(');
	const char *start = open && open < at ? open + 1 : name;

	if (!at || (size_t)(at - start) >= len)
		return NULL;
	snprintf(buf, len, "%.*s", (int)(at - start), start);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(buf, known[i]))
			return buf;
	return NULL;
}

/* Heap variable v's site in a rebuilt PROGRAM (--force): its chain's frames of the
 * executable found again by their source, as compare pairs sites (file and function,
 * the nearest line): the allocation's call at site.file:line in site.function, the
 * caller's at receiver.from in the first caller, the others anywhere in their function.
 * Each frame's call is one to the function of the frame before it (the first: to its
 * allocator). The plan's "site" line with "LO-HI" vaddr ranges into out; false with a line
 * said when a frame is not found. */
static bool rebuilt_site(json_object *v, struct mr_debuginfo *di, const char *exe,
			 const char *name, char *out, size_t len)
{
	json_object *site = get(v, "site", json_type_object);
	json_object *callers = get(site, "callers", json_type_array);
	const char *chain = json_object_get_string(get(site, "chain", json_type_string));
	const char *from = json_object_get_string(get(get(v, "receiver", json_type_object), "from",
						      json_type_string));
	struct mr_code_target t[8];
	char files[8][256], tok[8][24], kind[32];
	int n = 0, idx = -1;
	size_t pos;

	for (const char *c = chain; c && *c && n < 8;) {
		while (*c == ' ')
			c++;
		if (!*c)
			break;
		snprintf(tok[n], sizeof(tok[n]), "%.*s", (int)strcspn(c, " "), c);
		c += strcspn(c, " ");
		if (idx < 0 && strcmp(tok[n], "-"))
			idx = n;
		n++;
	}
	if (idx < 0 || !get(site, "file", json_type_string) || !get(site, "function", json_type_string)) {
		fprintf(stderr, "memphis-report: plan: %s: no call chain in the executable to find in "
			"this build: not placed\n", mr_esc(name));
		return false;
	}
	memset(t, 0, sizeof(t));
	for (int k = idx; k < n; k++) {
		json_object *fn = callers ? json_object_array_get_idx(callers, (size_t)(k - idx - 1)) : NULL;

		if (!strcmp(tok[k], "-"))
			continue;
		if (k == idx) {
			snprintf(files[k], sizeof(files[k]), "%s",
				 json_object_get_string(get(site, "file", json_type_string)));
			t[k].file = files[k];
			t[k].line = (unsigned)json_object_get_int(get(site, "line", json_type_int));
			t[k].function = json_object_get_string(get(site, "function", json_type_string));
			t[k].callee = allocator(name, kind, sizeof(kind));
			continue;
		}
		/* the caller of frame k - 1, at a call to it */
		t[k].callee = k == idx + 1 ? t[idx].function : t[k - 1].function;
		t[k].function = fn ? json_object_get_string(fn) : NULL;
		if (k == idx + 1 && from && file_line(from, files[k], sizeof(files[k]), &t[k].line))
			t[k].file = files[k];
		if (!t[k].function) {
			fprintf(stderr, "memphis-report: plan: %s: its frame %d has no function to find: "
				"not placed\n", mr_esc(name), k);
			return false;
		}
	}
	for (int k = 0; k < n; k++) /* mr_code_find wants every target set */
		if (!t[k].function)
			t[k].function = "";
	mr_code_find(di, exe, t, (size_t)n);
	pos = (size_t)snprintf(out, len, "site");
	for (int k = 0; k < n && pos < len; k++) {
		if (!strcmp(tok[k], "-")) {
			pos += (size_t)snprintf(out + pos, len - pos, " -");
			continue;
		}
		if (!t[k].hi) {
			fprintf(stderr, "memphis-report: plan: %s: %s%s%.0u not found in this build: not "
				"placed\n", mr_esc(name), t[k].file ? t[k].file : t[k].function,
				t[k].file ? ":" : "", t[k].line);
			return false;
		}
		if (t[k].line && t[k].found_line != t[k].line)
			fprintf(stderr, "memphis-report: plan: %s: %s:%u is at line %u in this build\n",
				mr_esc(name), t[k].file, t[k].line, t[k].found_line);
		pos += (size_t)snprintf(out + pos, len - pos, " %" PRIx64 "-%" PRIx64, t[k].lo, t[k].hi);
	}
	return pos < len;
}

/* Are the nodes of placement pl (its nodes, or its ranges' nodes) all in fast[]? */
static bool all_fast(json_object *pl, json_object *fast)
{
	json_object *a = get(pl, "nodes", json_type_array), *r = get(pl, "ranges", json_type_array);
	size_t n = a ? json_object_array_length(a) : r ? json_object_array_length(r) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *e = a ? json_object_array_get_idx(a, i)
				   : json_object_array_get_idx(json_object_array_get_idx(r, i), 1);
		bool in = false;

		for (size_t k = 0; e && k < json_object_array_length(fast); k++)
			in |= json_object_get_int64(json_object_array_get_idx(fast, k)) ==
			      json_object_get_int64(e);
		if (!in)
			return false;
	}
	return n > 0;
}

/* The placement of variable v: its tier advice's (tier: the report's tier_advice, NULL
 * without one), unless that puts it whole in the fast tier and its own advice places it
 * on fast nodes too (finer: by its threads' parts); else its advice's. NULL: none. */
static json_object *placement(json_object *v, json_object *tier)
{
	json_object *adv = get(v, "advice", json_type_object);
	json_object *pl = get(adv, "placement", json_type_object);
	json_object *tv = get(tier, "variables", json_type_array);
	const char *name = json_object_get_string(get(v, "name", json_type_string));

	for (size_t i = 0; name && tv && i < json_object_array_length(tv); i++) {
		json_object *e = json_object_array_get_idx(tv, i);
		const char *n = json_object_get_string(get(e, "name", json_type_string));
		const char *how = json_object_get_string(get(e, "tier", json_type_string));
		json_object *tp = get(e, "placement", json_type_object);

		if (!n || strcmp(n, name) || !tp)
			continue;
		if (how && !strcmp(how, "fast") && pl &&
		    all_fast(pl, get(tier, "fast_nodes", json_type_array)))
			return pl;
		return tp;
	}
	return pl;
}

/* An interleave's weights from its placement's "weights" (the tier advice's, from the
 * HMAT bandwidths) into o->weights, unless --weights gave them. */
static void placement_weights(json_object *pl, struct popts *o)
{
	json_object *w = get(pl, "weights", json_type_array), *n = get(pl, "nodes", json_type_array);

	if (o->weighted || !w || !n || json_object_array_length(w) != json_object_array_length(n))
		return;
	for (size_t i = 0; i < json_object_array_length(n); i++) {
		int64_t node = json_object_get_int64(json_object_array_get_idx(n, i));
		int64_t wt = json_object_get_int64(json_object_array_get_idx(w, i));

		if (node < 0 || node >= 1024 || wt < 1 || wt > 1000)
			return;
		o->weights[node] = (unsigned)wt;
	}
	o->weighted = 1;
}

/* One variable v of the report: its plan entry on out, or a line on stderr saying why it
 * is not placed. run_exe: the executable of the advice's run; same: PROGRAM is that build;
 * tier: the report's tier_advice (NULL: none). Returns 1 placed. */
static int plan_var(json_object *v, json_object *tier, struct mr_debuginfo *di,
		    const char *run_exe, int same, const struct popts *o, FILE *out)
{
	json_object *adv = get(v, "advice", json_type_object);
	json_object *pl = placement(v, tier);
	const char *name = json_object_get_string(get(v, "name", json_type_string));
	const char *kind = json_object_get_string(get(v, "kind", json_type_string));
	const char *pattern = json_object_get_string(get(adv, "pattern", json_type_string));
	const char *policy = json_object_get_string(get(pl, "policy", json_type_string));
	const char *object = json_object_get_string(get(v, "object", json_type_string));
	char where[200], nodes[8192];
	const struct mr_var *var;

	if (!name || !kind || (!adv && !pl))
		return 0;
	if (pattern && !strcmp(pattern, "replicate") && !pl)
		fprintf(stderr, "memphis-report: plan: %s: advice replicate needs a source change "
			"(one copy per node): not placed\n", mr_esc(name));
	if (!pl || !policy)
		return 0;
	if (!strcmp(policy, "partitioned")) {
		if (!ranges(pl, nodes, sizeof(nodes)))
			goto bad;
		snprintf(where, sizeof(where), "ranges");
	} else if (!strcmp(policy, "move") || !strcmp(policy, "interleave")) {
		if (!node_list(get(pl, "nodes", json_type_array), nodes, sizeof(nodes)))
			goto bad;
		snprintf(where, sizeof(where), "nodes");
	} else {
		goto bad;
	}
	if (!strcmp(kind, "heap")) {
		json_object *site = get(v, "site", json_type_object);
		const char *chain = json_object_get_string(get(site, "chain", json_type_string));
		char sl[256];

		if (!same && !rebuilt_site(v, di, o->exe, name, sl, sizeof(sl)))
			return 0;
		if (same && (!chain || !site_line(chain, sl, sizeof(sl)))) {
			fprintf(stderr, "memphis-report: plan: %s: no call chain in the executable "
				"(a report older than memphis apply, or allocated from a library): not "
				"placed\n", mr_esc(name));
			return 0;
		}
		fprintf(out, "var %s %s %s\n%s\n", policy,
			o->bind && strcmp(policy, "interleave") ? "bind" : "preferred", name, sl);
	} else if (!strcmp(kind, "global") || !strcmp(kind, "static") ||
		   !strcmp(kind, "function static") || !strcmp(kind, "symbol")) {
		if (object && run_exe && strcmp(object, run_exe)) {
			fprintf(stderr, "memphis-report: plan: %s: in %s, not the executable: not "
				"placed\n", mr_esc(name), mr_esc(object));
			return 0;
		}
		if (!(var = var_named(di, name))) {
			fprintf(stderr, "memphis-report: plan: %s: no such variable in %s: not "
				"placed\n", mr_esc(name), mr_esc(o->exe));
			return 0;
		}
		fprintf(out, "var %s %s %s\nsym %" PRIx64 " %" PRIu64 "\n", policy,
			o->bind && strcmp(policy, "interleave") ? "bind" : "preferred", name,
			var->addr, var->size);
	} else {
		fprintf(stderr, "memphis-report: plan: %s: a %s variable cannot be placed: not "
			"placed\n", mr_esc(name), kind);
		return 0;
	}
	fprintf(out, "%s%s\n", where, nodes);
	if (!strcmp(policy, "interleave")) {
		struct popts w = *o;

		placement_weights(pl, &w);
		if (w.weighted)
			weights_line(&w, nodes, out);
	}
	return 1;
bad:
	fprintf(stderr, "memphis-report: plan: %s: its placement is not one this memphis-report "
		"knows: not placed\n", mr_esc(name));
	return 0;
}

/* The plan of report text buf (from o->advice) for PROGRAM. */
static int plan(const struct popts *o, const char *buf, size_t n)
{
	json_tokener *tok = json_tokener_new();
	json_object *root = NULL, *run, *vars;
	const char *bid, *exe_bid;
	struct mr_debuginfo *di = NULL;
	char err[512];
	int rc = MR_EXIT_DATA, same, placed = 0;

	if (!tok)
		return mr_error(MR_EXIT_DATA, "out of memory");
	if (n <= INT_MAX)
		root = json_tokener_parse_ex(tok, buf, (int)n);
	if (!root) {
		mr_error(MR_EXIT_DATA, "%s: not valid JSON: %s at offset %zu", o->advice,
			 json_tokener_get_error(tok) == json_tokener_continue
				 ? "the text ends inside a value (truncated?)"
				 : json_tokener_error_desc(json_tokener_get_error(tok)),
			 json_tokener_get_parse_end(tok));
		goto out;
	}
	run = get(root, "run", json_type_object);
	vars = get(root, "variables", json_type_array);
	if (!run || !vars) {
		mr_error(MR_EXIT_DATA, "%s: not a memphis-report --json report (no \"run\" or "
			 "\"variables\")", o->advice);
		goto out;
	}
	if (mr_debuginfo_open(o->exe, &di, err, sizeof(err))) {
		mr_error(MR_EXIT_DATA, "%s", err);
		goto out;
	}
	bid = json_object_get_string(get(run, "build_id", json_type_string));
	exe_bid = mr_debuginfo_build_id(di);
	same = bid && exe_bid && !strcmp(bid, exe_bid);
	if (!same && !o->force) {
		mr_error(MR_EXIT_DATA, "%s is the advice of %s (build id %s), not of %s (build id %s): "
			 "give the advice of this program, or --force to place its variables by name",
			 o->advice, mr_esc(json_object_get_string(get(run, "exe", json_type_string))),
			 bid ? bid : "none", o->exe, exe_bid ? exe_bid : "none");
		goto out;
	}
	if (!same)
		fprintf(stderr, "memphis-report: plan: warning: %s has another build id than the "
			"advice's run (--force): variables are placed by name, heap sites by their "
			"source lines\n", o->exe);
	printf("memphis-plan 1\n");
	for (size_t i = 0; i < json_object_array_length(vars); i++)
		placed += plan_var(json_object_array_get_idx(vars, i),
				   get(root, "tier_advice", json_type_object), di,
				   json_object_get_string(get(run, "exe", json_type_string)), same, o,
				   stdout);
	if (!placed)
		fprintf(stderr, "memphis-report: plan: no variable of %s has a placement to carry out "
			"(advice local, too_few or replicate only)\n", o->advice);
	rc = fflush(stdout) ? mr_error(MR_EXIT_DATA, "writing the plan: %s", strerror(errno))
			    : MR_EXIT_OK;
out:
	if (di)
		mr_debuginfo_close(di);
	json_object_put(root);
	json_tokener_free(tok);
	return rc;
}

int mr_cmd_plan(int argc, char **argv)
{
	struct popts o = { .sysfs = "/sys/kernel/mm/mempolicy/weighted_interleave" };
	char *buf = NULL;
	size_t n = 0;
	int rc = parse(&o, argc, argv);

	if (rc >= 0)
		return rc;
	if (!(rc = load(&o, &buf, &n)))
		rc = plan(&o, buf, n);
	free(buf);
	return rc;
}
