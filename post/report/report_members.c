/* post/report/report_members.c - `--by member` (members.h) in the report: member rows under a
 * variable in the node tables, the members section after them (each member's nodes, the
 * member advice, the cache lines stored to from two nodes), and the JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "base/varkind.h"
#include "binary/layout.h"
#include "report_impl.h"

const struct mr_member_var *report_members_of(const struct report *r, uint32_t var)
{
	for (size_t i = 0; r->o.by_member && i < r->mem.n; i++)
		if (r->mem.v[i].var == var)
			return &r->mem.v[i];
	return NULL;
}

/* The name of member leaf k of variable var: the variable's (its receiving pointer's for a
 * heap variable: "hp", not "hp (malloc at ...)") with the member's path, into buf. */
static const char *member_name(const struct report *r, const struct mr_member_var *v,
			       int k, char *buf, size_t len)
{
	const struct mr_varinfo *vi = mr_attrib_var(r->a, v->var);
	uint64_t off, bytes;

	if (k < 0) {
		snprintf(buf, len, "(padding)");
		return buf;
	}
	snprintf(buf, len, "%s%s", vi->recv_name ? vi->recv_name : vi->name,
		 mr_layout_name(v->layout, (size_t)k, &off, &bytes));
	return buf;
}

/* Member m's samples in the table of CPU node `node` of mode `mode`. */
static uint64_t in_table(const struct report *r, const struct mr_member *m, uint32_t node,
			 enum mr_agg_mode mode)
{
	size_t w = (size_t)r->nnodes + 1;
	uint64_t n = 0;

	if (node >= r->nnodes)
		return 0;
	for (uint32_t p = 0; p < w; p++)
		if (mr_agg_in_mode(&r->agg, node, p, mode))
			n += m->matrix[(size_t)node * w + p];
	return n;
}

/* Member m's samples of mode `mode` from every CPU node (its remote, local, far ones). */
static uint64_t in_mode(const struct report *r, const struct mr_member *m, enum mr_agg_mode mode)
{
	uint64_t n = 0;

	for (uint32_t c = 0; c < r->nnodes; c++)
		n += in_table(r, m, c, mode);
	return n;
}

bool report_member_rows(const struct report *r, uint32_t var, uint32_t node,
			enum mr_agg_mode mode, FILE *f)
{
	const struct mr_member_var *v = report_members_of(r, var);
	char name[512];

	if (!v || !v->nm)
		return false;
	for (size_t i = 0; i < v->nm; i++) {
		uint64_t n = in_table(r, &v->m[i], node, mode);

		if (n)
			fprintf(f, "    %s %" PRIu64 "\n",
				mr_esc(member_name(r, v, (int)v->m[i].leaf, name, sizeof(name))), n);
	}
	return true;
}

/* Elements per object of v's variable (its bytes, a heap site's per allocation). */
static uint64_t elements(const struct report *r, const struct mr_member_var *v)
{
	const struct mr_varinfo *vi = mr_attrib_var(r->a, v->var);
	uint64_t per = vi->kind == MR_VAR_HEAP && vi->objects ? vi->bytes / vi->objects : vi->bytes;

	return per / mr_layout_stride(v->layout);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/* A user of the member advice: "node N" or "thread N". */
static const char *user_text(const struct report *r, const struct mr_member_advice *a,
			     uint32_t u, char *buf, size_t len)
{
	if (a->by_thread)
		report_thread_text(r, u, buf, len);
	else
		snprintf(buf, len, "node %u", u);
	return buf;
}

static void advice_text(const struct report *r, const struct mr_member_var *v, FILE *f)
{
	struct mr_member_advice a;
	char name[512], who[64];

	if (mr_member_advise(&r->mem, v, elements(r, v), &a))
		return;
	if (a.ngroups) {
		fprintf(f, "  advice: split: ");
		for (size_t g = 0; g < a.ngroups; g++) {
			fprintf(f, "%s", g ? "; " : "");
			for (size_t k = 0; k < a.group[g].n; k++)
				fprintf(f, "%s%s", k ? ", " : "",
					mr_esc(member_name(r, v, (int)v->m[a.group[g].members[k]].leaf,
							   name, sizeof(name))));
			fprintf(f, " (%" PRIu64 " bytes per element) used by %s (%.0f %%)",
				a.group[g].bytes, user_text(r, &a, a.group[g].user, who, sizeof(who)),
				100 * a.group[g].share);
		}
		fprintf(f, ": disjoint users of the same elements; keep each group in an array of "
			"its own%s\n", a.by_thread ? "" : ", first touched (placed) on its user's node");
	}
	for (size_t i = 0; i < a.nrw_one; i++)
		fprintf(f, "  advice: %s is read by every node and written by node %u alone: a "
			"copy per node, refreshed after its writes, would make its reads local\n",
			mr_esc(member_name(r, v, (int)v->m[a.rw_one[i]].leaf, name, sizeof(name))),
			a.rw_writer[i]);
	mr_member_advice_free(&a);
}

static void lines_text(const struct report *r, const struct mr_member_var *v, FILE *f)
{
	char name[512], who[2][1024]; /* a name and a line: truncated only past 1 KiB */

	for (size_t i = 0; i < v->nlines; i++) {
		const struct mr_shared_line *l = &v->lines[i];

		for (int s = 0; s < 2; s++)
			snprintf(who[s], sizeof(who[s]), "node %u stored %" PRIu64 " samples to %s at %s",
				 l->side[s].node, l->side[s].stores,
				 member_name(r, v, l->side[s].leaf, name, sizeof(name)),
				 mr_attrib_line(r->a, l->side[s].code));
		fprintf(f, "  shared line at offset %" PRId64 " (bytes %" PRId64 "..%" PRId64 "): %s; "
			"%s%s; %" PRIu64 " of the variable's %" PRIu64 " samples (%.1f %%) on it: "
			"pad or separate what each node writes (%u bytes apart at least)\n",
			l->off, l->off, l->off + MR_MEMBERS_LINE - 1, mr_esc(who[0]), mr_esc(who[1]),
			l->nnodes > 2 ? ", and more nodes" : "", l->samples, v->samples,
			pct(l->samples, v->samples), MR_MEMBERS_LINE);
	}
	if (v->lines_under_min)
		fprintf(f, "  (%" PRIu64 " more line%s stored to from two nodes with fewer than %d "
			"store samples a side: not told)\n", v->lines_under_min,
			v->lines_under_min == 1 ? "" : "s", MR_MEMBERS_MIN_SIDE);
}

void report_members_text(const struct report *r, FILE *f)
{
	char name[512];

	if (!r->o.by_member)
		return;
	fprintf(f, "\nMembers (--by member: each struct variable shown, its samples by member and "
		"node of the sampling CPU; stores from two nodes to one %d-byte line in one region "
		"instance):\n", MR_MEMBERS_LINE);
	if (!r->mem.n)
		fprintf(f, "(no variable shown has a type with members)\n");
	for (size_t k = 0; k < r->mem.n; k++) {
		const struct mr_member_var *v = &r->mem.v[k];

		fprintf(f, "%s: %" PRIu64 " bytes per element, %" PRIu64 " samples (%" PRIu64
			" on no member)\n", mr_esc(report_key_name(r, 1, v->var)),
			mr_layout_stride(v->layout), v->samples, v->padding);
		for (size_t i = 0; i < v->nm; i++) {
			const struct mr_member *m = &v->m[i];
			size_t w = (size_t)r->nnodes + 1;
			uint64_t off, bytes;

			mr_layout_name(v->layout, m->leaf, &off, &bytes);
			fprintf(f, "  %s: offset %" PRIu64 ", %" PRIu64 " bytes: %" PRIu64 " samples, "
				"%" PRIu64 " loads, %" PRIu64 " stores",
				mr_esc(member_name(r, v, (int)m->leaf, name, sizeof(name))), off, bytes,
				m->samples, m->loads, m->stores);
			uint64_t remote = in_mode(r, m, MR_AGG_REMOTE), far = in_mode(r, m, MR_AGG_FAR);
			uint64_t known = remote + in_mode(r, m, MR_AGG_LOCAL) + far;

			if (known)
				fprintf(f, ", %.1f %% remote", pct(remote, known));
			if (far)
				fprintf(f, ", %.1f %% far tier", pct(far, known));
			for (uint32_t n = 0; n < r->nnodes; n++) {
				uint64_t row = 0;

				for (size_t p = 0; p < w; p++)
					row += m->matrix[n * w + p];
				if (row)
					fprintf(f, "; node %u %.0f %%", n, pct(row, m->samples));
			}
			fprintf(f, "\n");
		}
		advice_text(r, v, f);
		lines_text(r, v, f);
	}
}

void report_members_json(struct mr_json *j, const struct report *r, uint32_t var)
{
	const struct mr_member_var *v = report_members_of(r, var);
	size_t w = (size_t)r->nnodes + 1;
	struct mr_member_advice a;
	char name[512];

	if (!r->o.by_member)
		return;
	mr_json_key(j, "members");
	if (!v) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	mr_json_key(j, "element_bytes");
	mr_json_u64(j, mr_layout_stride(v->layout));
	mr_json_key(j, "samples");
	mr_json_u64(j, v->samples);
	mr_json_key(j, "padding");
	mr_json_u64(j, v->padding);
	mr_json_key(j, "list");
	mr_json_arr(j);
	for (size_t i = 0; i < v->nm; i++) {
		const struct mr_member *m = &v->m[i];
		uint64_t off, bytes;

		mr_json_obj(j);
		mr_json_key(j, "name");
		mr_json_str(j, member_name(r, v, (int)m->leaf, name, sizeof(name)));
		mr_json_key(j, "path");
		mr_json_str(j, mr_layout_name(v->layout, m->leaf, &off, &bytes));
		mr_json_key(j, "offset");
		mr_json_u64(j, off);
		mr_json_key(j, "bytes");
		mr_json_u64(j, bytes);
		mr_json_key(j, "samples");
		mr_json_u64(j, m->samples);
		mr_json_key(j, "remote");
		mr_json_u64(j, in_mode(r, m, MR_AGG_REMOTE));
		mr_json_key(j, "local");
		mr_json_u64(j, in_mode(r, m, MR_AGG_LOCAL));
		if (r->nfar) {
			mr_json_key(j, "far");
			mr_json_u64(j, in_mode(r, m, MR_AGG_FAR));
		}
		mr_json_key(j, "loads");
		mr_json_u64(j, m->loads);
		mr_json_key(j, "stores");
		mr_json_u64(j, m->stores);
		mr_json_key(j, "counts");
		mr_json_arr(j);
		for (size_t s = 0; s < w; s++)
			mr_json_u64_array(j, &m->matrix[s * w], w);
		mr_json_arr_end(j);
		mr_json_key(j, "stores_by_node");
		mr_json_u64_array(j, m->stores_by_node, w);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "split");
	mr_json_arr(j);
	if (!mr_member_advise(&r->mem, v, elements(r, v), &a)) {
		for (size_t g = 0; g < a.ngroups; g++) {
			mr_json_obj(j);
			mr_json_key(j, "members");
			mr_json_arr(j);
			for (size_t k = 0; k < a.group[g].n; k++)
				mr_json_str(j, member_name(r, v, (int)v->m[a.group[g].members[k]].leaf,
							   name, sizeof(name)));
			mr_json_arr_end(j);
			mr_json_key(j, "bytes");
			mr_json_u64(j, a.group[g].bytes);
			mr_json_key(j, a.by_thread ? "tid" : "node");
			mr_json_u64(j, a.group[g].user);
			mr_json_key(j, "share");
			mr_json_dbl(j, a.group[g].share);
			mr_json_obj_end(j);
		}
	}
	mr_json_arr_end(j);
	mr_json_key(j, "written_by_one");
	mr_json_arr(j);
	for (size_t i = 0; i < a.nrw_one; i++) {
		mr_json_obj(j);
		mr_json_key(j, "member");
		mr_json_str(j, member_name(r, v, (int)v->m[a.rw_one[i]].leaf, name, sizeof(name)));
		mr_json_key(j, "writer");
		mr_json_u64(j, a.rw_writer[i]);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_member_advice_free(&a);
	mr_json_key(j, "shared_lines");
	mr_json_arr(j);
	for (size_t i = 0; i < v->nlines; i++) {
		const struct mr_shared_line *l = &v->lines[i];

		mr_json_obj(j);
		mr_json_key(j, "offset");
		mr_json_i64(j, l->off);
		mr_json_key(j, "samples");
		mr_json_u64(j, l->samples);
		mr_json_key(j, "nodes");
		mr_json_u64(j, l->nnodes);
		mr_json_key(j, "sides");
		mr_json_arr(j);
		for (int s = 0; s < 2; s++) {
			mr_json_obj(j);
			mr_json_key(j, "node");
			mr_json_u64(j, l->side[s].node);
			mr_json_key(j, "stores");
			mr_json_u64(j, l->side[s].stores);
			mr_json_key(j, "member");
			l->side[s].leaf < 0 ? mr_json_null(j)
					    : mr_json_str(j, member_name(r, v, l->side[s].leaf, name,
									 sizeof(name)));
			mr_json_key(j, "line");
			mr_json_str(j, mr_attrib_line(r->a, l->side[s].code));
			mr_json_obj_end(j);
		}
		mr_json_arr_end(j);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "lines_under_min");
	mr_json_u64(j, v->lines_under_min);
	mr_json_obj_end(j);
}
