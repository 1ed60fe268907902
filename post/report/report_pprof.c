/* post/report/report_pprof.c - --format pprof: the report's samples as pprof's profile.proto
 * (gzip'd), written with protobuf-c's code generated from pprof's own schema (Makefile).
 *
 * One pprof sample per (variable, access line, CPU node, page node, thread, region) the
 * pass counted (xcells.h), its values [samples, remote, local] and, for a hardware run,
 * the latency in cycles. The data view's stack, root first: the variable (its declaration
 * as file and line), then where its pages were placed (the line that first touched most of
 * them, else a heap variable's allocation site), then the access line in its function;
 * pprof's top, list, peek and flame graph then read "which variable, reached from where".
 * The code view keeps the access line alone, the variable a label. Labels: cpu_node and
 * page_node (numbers; absent when not known), thread (the thread index), tid, region.
 * docs/export.md. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/err.h"
#include "base/outfile.h"
#include "hash.h"
#include "profile.pb-c.h"
#include "report_impl.h"
#include "u64map.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Mapping Mapping;

#define NLABELS 6  /* cpu_node, page_node, thread, tid, region, variable */
#define MAX_VALUES 5 /* samples, remote, local, far (a node without CPUs), latency (hardware) */

/* The profile being built: tables deduplicated by key, each grown by doubling. */
struct pp {
	const struct report *r;
	Profile p;
	char **strs;
	size_t nstrs, capstrs;
	struct mph_u64map str_by_hash;  /* string hash -> index (collisions: compared) */
	Function *funcs;
	size_t nfuncs, capfuncs;
	struct mph_u64map func_by_key;  /* name << 32 | filename -> id */
	Location *locs;
	Line *lines;                    /* one per location, same index */
	size_t nlocs, caplocs;
	struct mph_u64map loc_by_key;   /* function id << 32 | line -> id */
	Sample *samples;
	size_t nsamples;
	int64_t *values;                /* [sample * nvalues + k] */
	uint64_t *loc_ids;              /* [sample * 3 + k] */
	Label *labels;                  /* [sample * NLABELS + k] */
	Label **label_ptrs;             /* the same, as protobuf-c wants them */
	size_t nvalues;
	uint32_t *var_origin;           /* [var]: location id of where its pages came from,
					 * 0 none; computed on first use (UINT32_MAX: not yet) */
	int oom;
};

/* The index of string s in the string table (0 = "", as pprof requires). */
static int64_t str(struct pp *pp, const char *s)
{
	uint64_t h = mph_hash_str(s ? s : "");
	uint64_t *slot;

	if (!s || !*s)
		return 0;
	/* a hash collision is resolved by probing the next key: h + 1, h + 2, ... */
	for (;; h = h + 1 == MPH_U64MAP_EMPTY ? 0 : h + 1) {
		slot = mph_u64map_get(&pp->str_by_hash, h);
		if (!slot)
			break;
		if (!strcmp(pp->strs[*slot], s))
			return (int64_t)*slot;
	}
	if (pp->nstrs == pp->capstrs) {
		size_t nc = pp->capstrs * 2;
		char **n = realloc(pp->strs, nc * sizeof(*n));

		if (!n) {
			pp->oom = 1;
			return 0;
		}
		pp->strs = n;
		pp->capstrs = nc;
	}
	pp->strs[pp->nstrs] = strdup(s);
	if (!pp->strs[pp->nstrs] || !mph_u64map_put(&pp->str_by_hash, h, pp->nstrs)) {
		free(pp->strs[pp->nstrs]);
		pp->oom = 1;
		return 0;
	}
	return (int64_t)pp->nstrs++;
}

/* Grow array *a of *cap elements of size sz to hold n + 1. 0 or -ENOMEM. */
static int reserve(void **a, size_t *cap, size_t n, size_t sz)
{
	void *na;
	size_t nc;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	na = realloc(*a, nc * sz);
	if (!na)
		return -ENOMEM;
	*a = na;
	*cap = nc;
	return 0;
}

/* The id of function (name, file), made on first use; 0 when out of memory. A code
 * function's system name is its name; the names memphis makes (variables, "first touch at
 * ...") have none, so that pprof takes them as already demangled: it would otherwise cut
 * what is between <> and () out of a name holding <, > or :: ("<stack of thread 2>"). */
static uint64_t function(struct pp *pp, const char *name, const char *file, int64_t start_line,
			 int code)
{
	int64_t n = str(pp, name), f = str(pp, file);
	uint64_t key = (uint64_t)n << 33 | (uint64_t)f << 1 | (code != 0), *slot;
	Function *fn;

	slot = mph_u64map_get(&pp->func_by_key, key);
	if (slot)
		return *slot;
	if (reserve((void **)&pp->funcs, &pp->capfuncs, pp->nfuncs, sizeof(*pp->funcs)) ||
	    !mph_u64map_put(&pp->func_by_key, key, pp->nfuncs + 1)) {
		pp->oom = 1;
		return 0;
	}
	fn = &pp->funcs[pp->nfuncs];
	perftools__profiles__function__init(fn);
	fn->id = pp->nfuncs + 1;
	fn->name = n;
	fn->system_name = code ? n : 0;
	fn->filename = f;
	fn->start_line = start_line;
	return ++pp->nfuncs;
}

/* The id of the location (function fid, line), made on first use; 0 when out of memory. */
static uint64_t location(struct pp *pp, uint64_t fid, int64_t line)
{
	uint64_t key = fid << 32 | (uint64_t)(line & 0xffffffff), *slot;

	if (!fid)
		return 0;
	slot = mph_u64map_get(&pp->loc_by_key, key);
	if (slot)
		return *slot;
	if (pp->nlocs == pp->caplocs) {
		size_t cap = pp->caplocs;

		if (reserve((void **)&pp->locs, &cap, pp->nlocs, sizeof(*pp->locs)) ||
		    reserve((void **)&pp->lines, &pp->caplocs, pp->nlocs, sizeof(*pp->lines))) {
			pp->oom = 1;
			return 0;
		}
	}
	if (!mph_u64map_put(&pp->loc_by_key, key, pp->nlocs + 1)) {
		pp->oom = 1;
		return 0;
	}
	perftools__profiles__line__init(&pp->lines[pp->nlocs]);
	pp->lines[pp->nlocs].function_id = fid;
	pp->lines[pp->nlocs].line = line;
	perftools__profiles__location__init(&pp->locs[pp->nlocs]);
	pp->locs[pp->nlocs].id = pp->nlocs + 1;
	pp->locs[pp->nlocs].mapping_id = 1;
	return ++pp->nlocs;
}

/* "cg.c:118" or "cg.c:391 (in memmove)": the file into file, the line number returned;
 * 0 (file empty) for names of another form ("libgomp.so.1+0x1f7e3", "??"). */
static int64_t split_line(const char *name, char *file, size_t len)
{
	const char *colon = strchr(name, ':');
	char *end;
	unsigned long n;

	file[0] = '\0';
	if (!colon || colon == name)
		return 0;
	n = strtoul(colon + 1, &end, 10);
	if (end == colon + 1 || (*end && *end != ' '))
		return 0;
	snprintf(file, len, "%.*s", (int)(colon - name), name);
	return (int64_t)n;
}

/* The location of code line id: its function (else the line's own name) at its line. */
static uint64_t code_location(struct pp *pp, uint32_t id)
{
	const char *name = mr_attrib_line(pp->r->a, id);
	const char *func = mr_attrib_line_function(pp->r->a, id);
	char file[512];
	int64_t line = split_line(name, file, sizeof(file));

	return location(pp, function(pp, func ? func : name, file, 0, func != NULL), line);
}

/* The location of variable var: its name, where it is declared (DWARF), when known. */
static uint64_t var_location(struct pp *pp, uint32_t var)
{
	const struct mr_varinfo *vi = mr_attrib_var(pp->r->a, var);
	char file[512];
	int64_t line = vi->decl ? split_line(vi->decl, file, sizeof(file)) : 0;

	if (!line)
		file[0] = '\0';
	return location(pp, function(pp, vi->name, file, line, 0), line);
}

/* The location of where variable var's pages came from: "first touch at FILE:LINE", the
 * line that first-touched most of its sampled pages, else a heap variable's "allocated at
 * FILE:LINE"; 0 when neither is known. */
static uint64_t origin_location(struct pp *pp, uint32_t var)
{
	const struct mr_agg_var *av = var < pp->r->agg.nvars ? &pp->r->agg.vars[var] : NULL;
	const struct mr_varinfo *vi = mr_attrib_var(pp->r->a, var);
	char name[600], file[512];
	int64_t line = 0;

	if (pp->var_origin[var] != UINT32_MAX)
		return pp->var_origin[var];
	file[0] = '\0';
	if (av && av->ft_pages && av->ft_line) {
		const char *ln = mr_attrib_line(pp->r->a, av->ft_line);

		line = split_line(ln, file, sizeof(file));
		snprintf(name, sizeof(name), "first touch at %s", ln);
	} else if (vi->site_file && vi->site_line) {
		snprintf(file, sizeof(file), "%s", vi->site_file);
		line = vi->site_line;
		snprintf(name, sizeof(name), "allocated at %s:%u", vi->site_file, vi->site_line);
	} else {
		return pp->var_origin[var] = 0;
	}
	return pp->var_origin[var] = (uint32_t)location(pp, function(pp, name, file, 0, 0), line);
}

/* A label into *l: the string s, or (s NULL) the number num in unit `unit`. The unit is
 * never empty: pprof drops a numeric label whose number and unit are both 0 (node 0,
 * the main thread). */
static void label(struct pp *pp, Label *l, const char *key, int64_t num, const char *unit,
		  const char *s)
{
	perftools__profiles__label__init(l);
	l->key = str(pp, key);
	if (s) {
		l->str = str(pp, s);
	} else {
		l->num = num;
		l->num_unit = str(pp, unit);
	}
}

/* The pprof sample of cell c. */
static void add_sample(struct pp *pp, const struct mr_xcell *c)
{
	const struct report *r = pp->r;
	size_t i = pp->nsamples;
	Sample *s = &pp->samples[i];
	int64_t *v = &pp->values[i * pp->nvalues];
	uint64_t *loc = &pp->loc_ids[i * 3];
	Label *l = &pp->labels[i * NLABELS];
	const struct memphis_rec_region *reg = mr_run_region(r->run, c->region);
	char rname[80];
	size_t nl = 0;
	enum mr_xclass cls = mr_xclass_of(c->cpu_node, c->page_node, r->nnodes, r->agg.far);

	perftools__profiles__sample__init(s);
	v[0] = (int64_t)c->n;
	v[1] = cls == MR_X_REMOTE ? (int64_t)c->n : 0;
	v[2] = cls == MR_X_LOCAL ? (int64_t)c->n : 0;
	if (r->nfar) /* a node without CPUs: the far tier's apart */
		v[3] = cls == MR_X_FAR ? (int64_t)c->n : 0;
	if (r->hw_shown && r->hw_lat)
		v[pp->nvalues - 1] = (int64_t)c->weight;
	s->value = v;
	s->n_value = pp->nvalues;
	/* leaf first */
	s->location_id = loc;
	loc[s->n_location_id++] = code_location(pp, c->line);
	if (!r->o.pprof_code) {
		uint64_t o = origin_location(pp, c->var);

		if (o)
			loc[s->n_location_id++] = o;
		loc[s->n_location_id++] = var_location(pp, c->var);
	}
	if (c->cpu_node != r->nnodes)
		label(pp, &l[nl++], "cpu_node", c->cpu_node, "node", NULL);
	if (c->page_node != r->nnodes)
		label(pp, &l[nl++], "page_node", c->page_node, "node", NULL);
	if (mr_attrib_thread_index(r->a, c->tid) >= 0)
		label(pp, &l[nl++], "thread", mr_attrib_thread_index(r->a, c->tid), "index",
		      NULL);
	label(pp, &l[nl++], "tid", c->tid, "tid", NULL);
	snprintf(rname, sizeof(rname), "%s", reg ? reg->name : "");
	if (!reg)
		snprintf(rname, sizeof(rname), "region %" PRIu32, c->region);
	label(pp, &l[nl++], "region", 0, NULL, rname);
	if (r->o.pprof_code)
		label(pp, &l[nl++], "variable", 0, NULL, mr_attrib_var(r->a, c->var)->name);
	s->n_label = nl;
	for (size_t k = 0; k < nl; k++)
		pp->label_ptrs[i * NLABELS + k] = &l[k];
	s->label = &pp->label_ptrs[i * NLABELS];
	pp->nsamples++;
}

/* Cells in a stable order (variable, line, nodes, thread, region): the same run gives
 * the same file for any number of pass threads. */
static int cmp_cell(const void *x, const void *y)
{
	const struct mr_xcell *a = *(const struct mr_xcell *const *)x;
	const struct mr_xcell *b = *(const struct mr_xcell *const *)y;
	const uint32_t ka[] = { a->var, a->line, a->cpu_node, a->page_node, a->tid, a->region };
	const uint32_t kb[] = { b->var, b->line, b->cpu_node, b->page_node, b->tid, b->region };

	for (size_t k = 0; k < sizeof(ka) / sizeof(ka[0]); k++)
		if (ka[k] != kb[k])
			return ka[k] < kb[k] ? -1 : 1;
	return 0;
}

/* The value types, period and times of the profile. */
static void header(struct pp *pp, ValueType *vt, ValueType *period)
{
	const struct report *r = pp->r;
	uint64_t t0, t1;
	static const char *const types[] = { "samples", "remote", "local", "far" };
	size_t counts = r->nfar ? 4 : 3;

	pp->nvalues = counts + (r->hw_shown && r->hw_lat);
	for (size_t k = 0; k < pp->nvalues; k++) {
		perftools__profiles__value_type__init(&vt[k]);
		vt[k].type = str(pp, k < counts ? types[k] : "latency");
		vt[k].unit = str(pp, k < counts ? "count" : "cycles");
	}
	perftools__profiles__value_type__init(period);
	if (mr_run_get(r->run, "hw_period")) {
		const char *unit = mr_run_get(r->run, "hw_period_unit");

		period->type = str(pp, unit && !strcmp(unit, "cycles") ? "cycles" : "events");
		period->unit = str(pp, unit && *unit ? unit : "events");
		pp->p.period = (int64_t)mr_run_get_u64(r->run, "hw_period", 0);
	} else {
		period->type = str(pp, "cpu");
		period->unit = str(pp, "nanoseconds");
		pp->p.period = (int64_t)mr_run_get_u64(r->run, "period_ns", 0);
	}
	pp->p.period_type = period;
	pp->p.sample_type = NULL; /* set by the caller: an array of pointers */
	/* the remote samples first when there are any: what the profile is for */
	pp->p.default_sample_type = str(pp, r->st.remote ? "remote" : r->st.far ? "far" : "samples");
	if (report_time_span(r, &t0, &t1)) {
		uint64_t ns;

		pp->p.duration_nanos = (int64_t)(t1 - t0);
		if (mr_run_realtime(r->run, t0, &ns) == 0)
			pp->p.time_nanos = (int64_t)ns;
	}
}

/* The comments pprof shows with -comments: where the profile comes from. */
static void comments(struct pp *pp, int64_t *c, size_t *n)
{
	const struct report *r = pp->r;
	char line[1200];
	const char *backend = mr_run_get(r->run, "backend");

	snprintf(line, sizeof(line), "memphis-report --format pprof%s %s",
		 r->o.pprof_code ? " --pprof-view code" : "", r->o.dir);
	c[(*n)++] = str(pp, line);
	snprintf(line, sizeof(line), "program %s, backend %s, weighting %s",
		 mr_run_get(r->run, "exe") ? mr_run_get(r->run, "exe") : "?",
		 backend ? backend : "?", report_weighting(mr_run_get(r->run, "weight")));
	c[(*n)++] = str(pp, line);
	if (r->nfar)
		snprintf(line, sizeof(line), "samples: %" PRIu64 " with a data address (%" PRIu64
			 " remote, %" PRIu64 " local, %" PRIu64 " far tier: pages on nodes without "
			 "CPUs, %" PRIu64 " page home unknown)", r->st.used, r->st.remote,
			 r->st.local, r->st.far, r->st.unknown_page);
	else
		snprintf(line, sizeof(line), "samples: %" PRIu64 " with a data address (%" PRIu64
			 " remote, %" PRIu64 " local, %" PRIu64 " page home unknown)",
			 r->st.used, r->st.remote, r->st.local, r->st.unknown_page);
	c[(*n)++] = str(pp, line);
}

/* buf[0 .. len) gzip'd onto f. 0, or -EIO / -ENOMEM. */
static int put_gzip(FILE *f, const uint8_t *buf, size_t len)
{
	z_stream z;
	uint8_t out[65536];
	int rc, zr = Z_OK;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return -ENOMEM;
	z.next_in = (uint8_t *)buf;
	z.avail_in = (uInt)len; /* the caller keeps len below 4 GiB */
	rc = 0;
	while (zr != Z_STREAM_END && !rc) {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			rc = -ENOMEM;
		else if (fwrite(out, 1, sizeof(out) - z.avail_out, f) != sizeof(out) - z.avail_out)
			rc = -EIO;
	}
	deflateEnd(&z);
	return rc;
}

static void pp_free(struct pp *pp)
{
	for (size_t i = 0; i < pp->nstrs; i++)
		free(pp->strs[i]);
	free(pp->strs);
	mph_u64map_free(&pp->str_by_hash);
	free(pp->funcs);
	mph_u64map_free(&pp->func_by_key);
	free(pp->locs);
	free(pp->lines);
	mph_u64map_free(&pp->loc_by_key);
	free(pp->samples);
	free(pp->values);
	free(pp->loc_ids);
	free(pp->labels);
	free(pp->label_ptrs);
	free(pp->var_origin);
}

/* Build the profile of r into pp (pp->p and the arrays it points into). 0 or -ENOMEM. */
/* The one mapping every location names: the executable, its functions, files and lines
 * already given (pprof then neither looks for the binary nor symbolizes). */
static void mapping(struct pp *pp, Mapping *m)
{
	perftools__profiles__mapping__init(m);
	m->id = 1;
	m->filename = str(pp, mr_run_get(pp->r->run, "exe"));
	m->build_id = str(pp, mr_run_get(pp->r->run, "build_id"));
	m->has_functions = m->has_filenames = m->has_line_numbers = 1;
}

static int build(struct pp *pp, ValueType *vt, ValueType **vtp, ValueType *period,
		 Mapping *m, Mapping **mp, Function ***fp, Location ***lp, Line ***linep,
		 Sample ***sp, int64_t *cm, size_t *ncm)
{
	const struct mr_xcells *x = &pp->r->x;
	size_t nv = mr_attrib_nvars(pp->r->a) + 1;
	const struct mr_xcell **cells = malloc((x->count + 1) * sizeof(*cells));
	size_t n = 0;

	pp->strs = malloc(64 * sizeof(*pp->strs));
	pp->var_origin = malloc(nv * sizeof(*pp->var_origin));
	pp->samples = calloc(x->count + 1, sizeof(*pp->samples));
	pp->values = calloc((x->count + 1) * MAX_VALUES, sizeof(*pp->values));
	pp->loc_ids = calloc((x->count + 1) * 3, sizeof(*pp->loc_ids));
	pp->labels = calloc((x->count + 1) * NLABELS, sizeof(*pp->labels));
	pp->label_ptrs = calloc((x->count + 1) * NLABELS, sizeof(*pp->label_ptrs));
	if (!cells || !pp->strs || !pp->var_origin || !pp->samples || !pp->values ||
	    !pp->loc_ids || !pp->labels || !pp->label_ptrs ||
	    mph_u64map_init(&pp->str_by_hash, 256) || mph_u64map_init(&pp->func_by_key, 256) ||
	    mph_u64map_init(&pp->loc_by_key, 256)) {
		free(cells);
		return -ENOMEM;
	}
	pp->strs[0] = strdup("");
	pp->nstrs = pp->strs[0] ? 1 : 0;
	pp->capstrs = 64;
	memset(pp->var_origin, 0xff, nv * sizeof(*pp->var_origin));
	header(pp, vt, period);
	for (size_t k = 0; k < pp->nvalues; k++)
		vtp[k] = &vt[k];
	pp->p.sample_type = vtp;
	pp->p.n_sample_type = pp->nvalues;
	mapping(pp, m);
	pp->p.mapping = mp;
	pp->p.n_mapping = 1;
	comments(pp, cm, ncm);
	pp->p.comment = cm;
	pp->p.n_comment = *ncm;
	for (size_t i = 0; x->slot && i <= x->mask; i++)
		if (x->slot[i].n)
			cells[n++] = &x->slot[i];
	qsort(cells, n, sizeof(*cells), cmp_cell);
	for (size_t i = 0; i < n && !pp->oom; i++)
		add_sample(pp, cells[i]);
	free(cells);
	*fp = malloc((pp->nfuncs + 1) * sizeof(**fp));
	*lp = malloc((pp->nlocs + 1) * sizeof(**lp));
	*linep = malloc((pp->nlocs + 1) * sizeof(**linep));
	*sp = malloc((pp->nsamples + 1) * sizeof(**sp));
	if (pp->oom || !pp->nstrs || !*fp || !*lp || !*linep || !*sp)
		return -ENOMEM;
	for (size_t i = 0; i < pp->nfuncs; i++)
		(*fp)[i] = &pp->funcs[i];
	for (size_t i = 0; i < pp->nlocs; i++) {
		(*linep)[i] = &pp->lines[i];
		pp->locs[i].line = &(*linep)[i];
		pp->locs[i].n_line = 1;
		(*lp)[i] = &pp->locs[i];
	}
	for (size_t i = 0; i < pp->nsamples; i++)
		(*sp)[i] = &pp->samples[i];
	pp->p.function = *fp;
	pp->p.n_function = pp->nfuncs;
	pp->p.location = *lp;
	pp->p.n_location = pp->nlocs;
	pp->p.sample = *sp;
	pp->p.n_sample = pp->nsamples;
	pp->p.string_table = pp->strs;
	pp->p.n_string_table = pp->nstrs;
	return 0;
}

int report_write_pprof(const struct report *r, const uint32_t *ids, size_t nids)
{
	struct pp pp;
	ValueType vt[MAX_VALUES], *vtp[MAX_VALUES], period;
	Mapping m, *mp[1] = { &m };
	Function **fp = NULL;
	Location **lp = NULL;
	Line **linep = NULL;
	Sample **sp = NULL;
	int64_t cm[4];
	size_t ncm = 0, len;
	uint8_t *buf = NULL;
	struct mr_outfile out;
	int rc;

	(void)ids;
	(void)nids;
	memset(&pp, 0, sizeof(pp));
	pp.r = r;
	perftools__profiles__profile__init(&pp.p);
	rc = build(&pp, vt, vtp, &period, &m, mp, &fp, &lp, &linep, &sp, cm, &ncm) ? MR_EXIT_DATA : 0;
	len = rc ? 0 : perftools__profiles__profile__get_packed_size(&pp.p);
	if (!rc && (len >= UINT32_MAX || !(buf = malloc(len ? len : 1))))
		rc = MR_EXIT_DATA;
	if (rc) {
		rc = mr_error(MR_EXIT_DATA, "out of memory writing the pprof profile");
		goto out;
	}
	perftools__profiles__profile__pack(&pp.p, buf);
	rc = mr_outfile_open(&out, r->o.output);
	if (rc != MR_EXIT_OK)
		goto out;
	if (put_gzip(out.f, buf, len) == -ENOMEM) {
		mr_outfile_abandon(&out);
		rc = mr_error(MR_EXIT_DATA, "out of memory compressing the pprof profile");
		goto out;
	}
	rc = mr_outfile_close(&out);
	if (rc == MR_EXIT_OK)
		fprintf(stderr, "memphis-report: wrote %s (pprof: %zu samples of %" PRIu64
			" attributed; go tool pprof -top %s)\n",
			out.to_stdout ? "standard output" : r->o.output, pp.nsamples, r->st.used,
			out.to_stdout ? "FILE" : r->o.output);
out:
	free(buf);
	free(fp);
	free(lp);
	free(linep);
	free(sp);
	pp_free(&pp);
	return rc;
}
