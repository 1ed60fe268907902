/* post/report/report_place.c - a run made under `memphis apply --profile`: which placement
 * each planned variable had (RUN keys "place", lib/place.c, docs/format.md) and the homes
 * of its sampled pages in this run, in the header and as JSON run.placement. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"

/* One "place" key: POLICY \t MODE \t NODES \t OBJECTS \t BYTES \t STATUS \t NAME. */
struct placed {
	char *buf;                 /* the copy the fields point into */
	const char *policy, *mode, *nodes, *status, *name;
	uint64_t objects, bytes;
};

/* Split value into p; false when it is not 7 fields (a newer or damaged key: skipped). */
static bool parse_placed(const char *value, struct placed *p)
{
	char *f[7], *save = NULL;
	size_t n = 0;

	memset(p, 0, sizeof(*p));
	if (!(p->buf = strdup(value)))
		return false;
	for (char *t = strtok_r(p->buf, "\t", &save); t && n < 7; t = strtok_r(NULL, "\t", &save))
		f[n++] = t;
	if (n != 7) {
		free(p->buf);
		return false;
	}
	p->policy = f[0], p->mode = f[1], p->nodes = f[2], p->status = f[5], p->name = f[6];
	p->objects = strtoull(f[3], NULL, 10);
	p->bytes = strtoull(f[4], NULL, 10);
	return true;
}

/* The next "place" key of run from kv[*i] on, parsed into p (its buf to free); false when
 * there is none left. */
static bool next_placed(const struct mr_run *run, size_t *i, struct placed *p)
{
	for (; *i < run->nkv; (*i)++)
		if (!strcmp(run->kv[*i].key, "place") && parse_placed(run->kv[*i].value, p)) {
			(*i)++;
			return true;
		}
	return false;
}

/* The variable the report names p->name; NULL when it has no samples here. */
static const struct mr_agg_var *var_of(const struct report *r, const char *name)
{
	for (size_t id = 1; id < r->agg.nvars; id++)
		if (r->agg.vars[id].total && !strcmp(mr_attrib_var(r->a, (uint32_t)id)->name, name))
			return &r->agg.vars[id];
	return NULL;
}

void report_place_text(const struct report *r, FILE *f)
{
	const struct mr_run *run = r->run;
	struct placed p;

	for (size_t i = 0; next_placed(run, &i, &p);) {
		const struct mr_agg_var *v;

		fprintf(f, "placement (memphis apply): %s: %s %s node%s %s%s", mr_esc(p.name),
			p.policy, strcmp(p.policy, "move") ? "over" : "to",
			strchr(p.nodes, ',') ? "s" : "", mr_esc(p.nodes),
			strcmp(p.mode, "bind") ? "" : " (bind)");
		if (p.objects)
			fprintf(f, ", %" PRIu64 " bytes in %" PRIu64 " object%s", p.bytes, p.objects,
				p.objects == 1 ? "" : "s");
		if (strcmp(p.status, "placed"))
			fprintf(f, ", %s", !strcmp(p.status, "unreached") ? "never allocated"
					   : !strncmp(p.status, "refused", 7) ? "mbind refused"
									      : "placed in part");
		if ((v = var_of(r, p.name)) && v->pages) {
			fprintf(f, "; its %" PRIu64 " sampled pages:", v->pages);
			for (uint32_t n = 0; n <= r->nnodes; n++) {
				double share = 100.0 * (double)v->pages_node[n] / (double)v->pages;

				if (!v->pages_node[n])
					continue;
				if (n < r->nnodes)
					fprintf(f, " node %u %.0f %%", n, share);
				else
					fprintf(f, " node unknown %.0f %%", share);
			}
		}
		fprintf(f, "\n");
		free(p.buf);
	}
}

void report_place_json(struct mr_json *j, const struct report *r)
{
	const struct mr_run *run = r->run;
	struct placed p;
	bool any = false;

	for (size_t i = 0; next_placed(run, &i, &p);) {
		const struct mr_agg_var *v;

		if (!any) {
			mr_json_key(j, "placement");
			mr_json_arr(j);
			any = true;
		}
		mr_json_obj(j);
		mr_json_key(j, "variable");
		mr_json_str(j, p.name);
		mr_json_key(j, "policy");
		mr_json_str(j, p.policy);
		mr_json_key(j, "mode");
		mr_json_str(j, p.mode);
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		for (const char *c = p.nodes; *c; c += strcspn(c, ","), c += *c == ',')
			mr_json_u64(j, strtoull(c, NULL, 10));
		mr_json_arr_end(j);
		mr_json_key(j, "objects");
		mr_json_u64(j, p.objects);
		mr_json_key(j, "bytes");
		mr_json_u64(j, p.bytes);
		mr_json_key(j, "status");
		mr_json_str(j, !strncmp(p.status, "refused", 7) ? "refused"
			       : !strncmp(p.status, "partly", 6) ? "partly" : p.status);
		mr_json_key(j, "sampled_pages_by_node"); /* as the variable's, here again */
		if ((v = var_of(r, p.name)))
			mr_json_u64_array(j, v->pages_node, r->nnodes + 1);
		else
			mr_json_null(j);
		mr_json_obj_end(j);
		free(p.buf);
	}
	if (any)
		mr_json_arr_end(j);
}
