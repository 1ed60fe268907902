/* post/report/report_tiers.c - the tier advice (--advice on a run with a node without CPUs or
 * nodes of two memory tiers; docs/advice.md): the shown variables by samples per byte, the
 * densest in the fast tier (the CPU nodes of the lowest tier) while its budget lasts, the
 * rest in the slow tier, each with the placement `memphis apply` carries out
 * (post/plan_cmd.c reads it from the JSON's tier_advice):
 *   whole in the fast tier  move to the fast node of its main users, or interleave over
 *                           the fast nodes whose threads use it (a quarter of its samples
 *                           each at least)
 *   part of it              partitioned: its first bytes on the main user's node, from the
 *                           page where the budget ends the slow node; or, for a variable
 *                           shared by two fast nodes' threads with a steady stream of
 *                           accesses, interleave over those nodes and the slow ones with
 *                           weights from the HMAT read bandwidths (the fast nodes' share of
 *                           its bytes within the budget)
 *   none of it              move to the slow node (of the lowest tier among them); so
 *                           too a cold variable (under a tenth of the mean density, room
 *                           or not: moving it would gain next to nothing)
 * No placement where the budget is unknown: nothing is sent to the slow tier on a guess. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "base/varkind.h"
#include "report_impl.h"

#define MAX_NODES 64
#define U(k, v) do { mr_json_key(j, k); mr_json_u64(j, v); } while (0)
#define USER_SHARE 0.25    /* a fast node whose threads take this share uses the variable */
#define STEADY 0.75        /* occupied time bins / those a steady stream would occupy */
#define MAX_WEIGHT 100u
#define PAGE 4096u         /* a partitioned cut falls on a base page */
#define COLD 0.1           /* a density under this share of the mean: the slow tier, room
			    * or not (moving it would gain next to nothing) */

enum tier_how { TIER_NONE, TIER_WHOLE, TIER_PART, TIER_WEIGHTED, TIER_SLOW };

/* One variable of the tier advice. */
struct tier_var {
	uint32_t id;
	uint64_t bytes, samples, fast_bytes; /* fast_bytes: the part the plan puts there */
	double per_mib, now_fast;            /* samples per MiB; share of its sampled pages
					      * now in the fast tier (-1 none sampled) */
	enum tier_how how;
	bool cold;                           /* under COLD of the mean density */
	uint32_t users[MAX_NODES];           /* fast nodes using it, most samples first */
	size_t nusers;
	uint32_t occupied, bins;             /* time bins with its samples, of the regions' */
	double expected;                     /* ... and those a steady stream would fill */
	uint32_t nodes[MAX_NODES];           /* TIER_WEIGHTED: its nodes, ascending, weights */
	unsigned weights[MAX_NODES];
	size_t nnodes;
	uint32_t slow;                       /* TIER_PART, TIER_SLOW: the slow node */
};

/* What decides: the nodes' facts, the fast ones, the budget. */
struct tiers {
	struct report_node_info *ni;
	size_t n;
	bool fast[MAX_NODES];
	long long budget;                    /* -1 unknown */
	uint32_t slow;                       /* the slow node of the lowest tier */
};

/* The fast tier: the nodes with CPUs of the lowest tier among them; the budget:
 * --tier-budget, else their free memory at start (-1 unknown); the slow node of the lowest
 * tier among the others. False when there is no slow node. */
static bool tiers_of(const struct report *r, struct tiers *t)
{
	const struct report_node_info *ni = t->ni;
	long long best = -1, free_b = 0, slow_tier = -1;
	bool slow = false;

	for (size_t i = 0; i < t->n; i++)
		if (ni[i].v[1] > 0 && (best < 0 || (ni[i].v[2] >= 0 && ni[i].v[2] < best)))
			best = ni[i].v[2];
	for (size_t i = 0; i < t->n; i++) {
		t->fast[i] = ni[i].v[1] > 0 && ni[i].v[2] == best;
		if (!t->fast[i] && (!slow || (ni[i].v[2] >= 0 && ni[i].v[2] < slow_tier))) {
			t->slow = (uint32_t)i;
			slow_tier = ni[i].v[2];
		}
		slow |= !t->fast[i];
		if (t->fast[i])
			free_b = ni[i].v[8] < 0 || free_b < 0 ? -1 : free_b + ni[i].v[8];
	}
	t->budget = r->o.tier_budget ? (long long)r->o.tier_budget : free_b;
	return slow;
}

/* The fast nodes whose threads use variable v (USER_SHARE of its samples on fast nodes'
 * CPUs each), most samples first; all fast nodes when none took a sample. */
static void users_of(const struct report *r, const struct tiers *t, const struct mr_agg_var *v,
		     struct tier_var *tv)
{
	size_t w = (size_t)r->nnodes + 1;
	uint64_t row[MAX_NODES] = { 0 }, all = 0;

	for (uint32_t c = 0; c < t->n; c++)
		for (size_t p = 0; t->fast[c] && p < w; p++)
			row[c] += v->matrix[c * w + p];
	for (uint32_t c = 0; c < t->n; c++)
		all += row[c];
	for (uint32_t c = 0; c < t->n; c++)
		if (t->fast[c] && (!all || (double)row[c] >= USER_SHARE * (double)all))
			tv->users[tv->nusers++] = c;
	for (size_t i = 1; i < tv->nusers; i++) /* insertion sort by samples, descending */
		for (size_t k = i; k > 0 && row[tv->users[k]] > row[tv->users[k - 1]]; k--) {
			uint32_t x = tv->users[k];

			tv->users[k] = tv->users[k - 1];
			tv->users[k - 1] = x;
		}
}

/* Its pattern's time bins with samples, and how many a steady stream of as many samples
 * would fill: s samples in B bins, each bin empty with probability (1 - 1/B)^s. */
static void steadiness(const struct report *r, struct tier_var *tv)
{
	const struct mr_pattern *p = mr_pattern_of(&r->pat, tv->id);
	uint32_t last = UINT32_MAX;

	if (!p || !p->laid || r->pat.nbins < 4)
		return;
	tv->bins = r->pat.nbins;
	for (size_t i = 0; i < p->ncells; i++) /* cells are by bin */
		if (p->cells[i].bin != last) {
			last = p->cells[i].bin;
			tv->occupied++;
		}
	tv->expected = tv->bins * (1 - pow(1 - 1.0 / tv->bins, (double)p->samples));
}

/* Weighted interleave over its users and the slow nodes, weights from the HMAT read
 * bandwidths (the smallest 1); false where a bandwidth is unknown. */
static bool hmat_weights(const struct tiers *t, struct tier_var *tv)
{
	long long min_bw = -1;

	tv->nnodes = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		bool user = false;

		for (size_t k = 0; k < tv->nusers; k++)
			user |= tv->users[k] == i;
		if (!user && t->fast[i])
			continue;
		if (t->ni[i].v[5] <= 0)
			return false;
		tv->nodes[tv->nnodes++] = i;
		min_bw = min_bw < 0 || t->ni[i].v[5] < min_bw ? t->ni[i].v[5] : min_bw;
	}
	for (size_t k = 0; k < tv->nnodes; k++) {
		double w = round((double)t->ni[tv->nodes[k]].v[5] / (double)min_bw);

		tv->weights[k] = w < 1 ? 1 : w > MAX_WEIGHT ? MAX_WEIGHT : (unsigned)w;
	}
	return tv->nnodes > tv->nusers;
}

/* The bytes of tv a weighted interleave puts on fast nodes. */
static uint64_t weighted_fast(const struct tiers *t, const struct tier_var *tv)
{
	unsigned all = 0, fast = 0;

	for (size_t k = 0; k < tv->nnodes; k++) {
		all += tv->weights[k];
		fast += t->fast[tv->nodes[k]] ? tv->weights[k] : 0;
	}
	return (uint64_t)((double)tv->bytes * fast / all);
}

/* How tv is placed with `left` bytes of budget left (budget known); returns the bytes it
 * takes of the budget. */
static uint64_t place(const struct tiers *t, struct tier_var *tv, uint64_t left)
{
	tv->slow = t->slow;
	if (tv->cold) {
		tv->how = TIER_SLOW;
		return 0;
	}
	if (tv->bytes <= left) {
		tv->how = TIER_WHOLE;
		return tv->fast_bytes = tv->bytes;
	}
	if (tv->nusers >= 2 && tv->bins && tv->occupied >= STEADY * tv->expected &&
	    hmat_weights(t, tv) && weighted_fast(t, tv) <= left) {
		tv->how = TIER_WEIGHTED;
		return tv->fast_bytes = weighted_fast(t, tv);
	}
	tv->fast_bytes = left / PAGE * PAGE;
	tv->how = tv->fast_bytes ? TIER_PART : TIER_SLOW;
	return tv->fast_bytes;
}

static int cmp_density(const void *x, const void *y)
{
	const struct tier_var *a = x, *b = y;

	if (a->per_mib != b->per_mib)
		return a->per_mib > b->per_mib ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The program's variables among ids[0 .. n) with samples and a size, densest first, into
 * *out (ours to free), each given its part of the budget and its placement; their count. */
static size_t tier_plan(const struct report *r, const uint32_t *ids, size_t n,
			const struct tiers *t, struct tier_var **out)
{
	size_t k = 0;
	uint64_t left = t->budget > 0 ? (uint64_t)t->budget : 0, samples = 0, bytes = 0;

	*out = calloc(n + 1, sizeof(**out));
	for (size_t i = 0; *out && i < n; i++) {
		const struct mr_varinfo *vi = mr_attrib_var(r->a, ids[i]);
		const struct mr_agg_var *v = &r->agg.vars[ids[i]];
		struct tier_var *tv = &(*out)[k];
		uint64_t in_fast = 0;

		if (!v->total || !vi->bytes || (vi->kind != MR_VAR_GLOBAL &&
						vi->kind != MR_VAR_STATIC &&
						vi->kind != MR_VAR_FUNC_STATIC && vi->kind != MR_VAR_HEAP))
			continue;
		for (uint32_t m = 0; m < r->nnodes; m++)
			in_fast += m < t->n && t->fast[m] ? v->pages_node[m] : 0;
		*tv = (struct tier_var){ .id = ids[i], .bytes = vi->bytes, .samples = v->total,
					 .per_mib = (double)v->total * (1 << 20) / (double)vi->bytes,
					 .now_fast = v->pages ? (double)in_fast / (double)v->pages : -1 };
		users_of(r, t, v, tv);
		steadiness(r, tv);
		k++;
	}
	if (!*out)
		return 0;
	for (size_t i = 0; i < k; i++)
		samples += (*out)[i].samples, bytes += (*out)[i].bytes;
	for (size_t i = 0; i < k; i++)
		(*out)[i].cold = (*out)[i].per_mib < COLD * (double)samples * (1 << 20) / (double)bytes;
	qsort(*out, k, sizeof(**out), cmp_density);
	for (size_t i = 0; i < k && t->budget >= 0; i++)
		left -= place(t, &(*out)[i], left);
	return k;
}

static double mib(uint64_t b)
{
	return (double)b / (1 << 20);
}

/* Where to change it: the first-touch line, else the allocation's line, else its own. */
static const char *change_line(const struct report *r, uint32_t id, char *buf, size_t len)
{
	const struct mr_varinfo *vi = mr_attrib_var(r->a, id);
	const struct mr_agg_var *v = &r->agg.vars[id];

	if (v->ft_pages)
		snprintf(buf, len, "first touched at %s", mr_attrib_line(r->a, v->ft_line));
	else if (vi->site_file)
		snprintf(buf, len, "allocated at %s:%u", vi->site_file, vi->site_line);
	else
		snprintf(buf, len, "declared at %s", vi->decl ? vi->decl : "?");
	return buf;
}

/* The nodes n[0 .. k) as "0,1" (sep ",") into buf. */
static const char *list(const uint32_t *n, size_t k, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < k && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? "," : "", n[i]);
	return buf;
}

/* The fast (want) or slow nodes of t as "0,1" into buf; their count. */
static size_t tier_list(const struct tiers *t, bool want, char *buf, size_t len)
{
	uint32_t n[MAX_NODES] = { 0 };
	size_t k = 0;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->fast[i] == want)
			n[k++] = i;
	list(n, k, buf, len);
	return k;
}

/* tv's users in ascending order (an interleave's node list) into out. */
static const uint32_t *users_up(const struct tier_var *tv, uint32_t *out)
{
	memcpy(out, tv->users, tv->nusers * sizeof(*out));
	for (size_t i = 1; i < tv->nusers; i++)
		for (size_t k = i; k > 0 && out[k] < out[k - 1]; k--) {
			uint32_t x = out[k];

			out[k] = out[k - 1];
			out[k - 1] = x;
		}
	return out;
}

/* What apply does with tv, in words, into buf. */
static void placement_text(const struct tiers *t, const struct tier_var *tv, char *buf,
			   size_t len)
{
	char a[256], b[256];
	uint32_t up[MAX_NODES];
	size_t used;

	switch (tv->how) {
	case TIER_WHOLE:
		snprintf(buf, len, "%s node%s %s", tv->nusers > 1 ? "interleave over" : "move to",
			 tv->nusers > 1 ? "s" : "", list(users_up(tv, up), tv->nusers, a, sizeof(a)));
		break;
	case TIER_PART:
		snprintf(buf, len, "partitioned: its first %.1f MiB on node %u, the rest on node %u",
			 mib(tv->fast_bytes), tv->users[0], tv->slow);
		break;
	case TIER_WEIGHTED:
		used = (size_t)snprintf(buf, len, "weighted interleave over nodes %s, weights ",
					list(tv->nodes, tv->nnodes, a, sizeof(a)));
		for (size_t k = 0; k < tv->nnodes && used < len; k++)
			used += (size_t)snprintf(buf + used, len - used, "%s%u", k ? ":" : "",
						 tv->weights[k]);
		for (size_t k = 0, u = 0; k < tv->nnodes && u < sizeof(b); k++)
			u += (size_t)snprintf(b + u, sizeof(b) - u, "%s%lld", k ? ", " : "",
					      t->ni[tv->nodes[k]].v[5]);
		if (used < len)
			snprintf(buf + used, len - used, " from the HMAT read bandwidths (%s MB/s), "
				 "%.1f MiB on the fast nodes: shared by nodes %s, a steady stream (its "
				 "samples in %u of %u time bins, %.0f expected)", b, mib(tv->fast_bytes),
				 list(users_up(tv, up), tv->nusers, a, sizeof(a)), tv->occupied, tv->bins,
				 tv->expected);
		break;
	case TIER_SLOW:
		snprintf(buf, len, "move to node %u", tv->slow);
		break;
	default:
		snprintf(buf, len, "none (the budget is unknown)");
	}
}

/* The tiers of r into *t, false when the report has no tier advice (t->ni then freed). */
static bool tiers_get(const struct report *r, struct tiers *t)
{
	memset(t, 0, sizeof(*t));
	t->n = report_node_infos(r, &t->ni);
	if (!r->o.advice || !t->n || t->n > MAX_NODES || !report_nodes_worth(t->ni, t->n) ||
	    !tiers_of(r, t)) {
		free(t->ni);
		return false;
	}
	return true;
}

void report_tiers_text(const struct report *r, const uint32_t *ids, size_t nids, FILE *f)
{
	struct tiers t;
	struct tier_var *tv = NULL;
	uint64_t used = 0;
	char fl[256], sl[256], line[512], how[1024];
	size_t k, nf, ns;

	if (!tiers_get(r, &t))
		return;
	k = tier_plan(r, ids, nids, &t, &tv);
	nf = tier_list(&t, true, fl, sizeof(fl));
	ns = tier_list(&t, false, sl, sizeof(sl));
	fprintf(f, "\nTier advice (--advice: the variables shown by samples per MiB, densest first, "
		"in the fast tier (node%s %s) while its budget lasts, the rest in the slow tier "
		"(node%s %s); memphis apply places each as its line ends); budget ",
		nf > 1 ? "s" : "", fl, ns > 1 ? "s" : "", sl);
	if (t.budget < 0)
		fprintf(f, "unknown (the fast nodes' free memory was not recorded: --tier-budget "
			"BYTES):\n");
	else
		fprintf(f, "%.1f MiB (%s):\n", mib((uint64_t)t.budget),
			r->o.tier_budget ? "--tier-budget" : "the fast nodes' free memory at start");
	for (size_t i = 0; i < k; i++) {
		const struct tier_var *v = &tv[i];
		bool whole = v->fast_bytes == v->bytes, none = !v->fast_bytes;

		used += v->fast_bytes;
		fprintf(f, "  (%zu) %s: %.1f MiB, %" PRIu64 " samples, %.1f per MiB: ", i + 1,
			mr_esc(mr_attrib_var(r->a, v->id)->name), mib(v->bytes), v->samples,
			v->per_mib);
		if (whole)
			fprintf(f, "fast tier (budget used %.1f of %.1f MiB)", mib(used),
				mib((uint64_t)t.budget));
		else if (none)
			fprintf(f, "slow tier (%s)", v->cold ? "cold: under a tenth of the mean density"
					: t.budget > 0 ? "the budget is used" : "no budget");
		else
			fprintf(f, "%.1f MiB of it in the fast tier, the rest in the slow tier: it does "
				"not fit the budget left (budget used %.1f of %.1f MiB)",
				mib(v->fast_bytes), mib(used), mib((uint64_t)t.budget));
		if (v->now_fast >= 0)
			fprintf(f, "; now %.0f %% of its sampled pages in the fast tier", 100 * v->now_fast);
		if (v->now_fast >= 0 && ((whole && v->now_fast < 0.95) || (none && v->now_fast > 0.05) ||
					 (!whole && !none)))
			fprintf(f, ": place it (%s)", change_line(r, v->id, line, sizeof(line)));
		placement_text(&t, v, how, sizeof(how));
		fprintf(f, "; apply: %s\n", how);
	}
	if (!k)
		fprintf(f, "  (no variable of the program with samples and a size)\n");
	free(tv);
	free(t.ni);
}

/* tv's "placement" as the pattern advice's (plan_cmd.c reads both), null for none. */
static void json_placement(struct mr_json *j, const struct tier_var *tv)
{
	static const char *const policy[] = { [TIER_WHOLE] = "move", [TIER_PART] = "partitioned",
					      [TIER_WEIGHTED] = "interleave", [TIER_SLOW] = "move" };
	uint32_t up[MAX_NODES];

	mr_json_key(j, "placement");
	if (tv->how == TIER_NONE) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	mr_json_key(j, "policy");
	mr_json_str(j, tv->how == TIER_WHOLE && tv->nusers > 1 ? "interleave" : policy[tv->how]);
	if (tv->how == TIER_PART) {
		mr_json_key(j, "ranges");
		mr_json_arr(j);
		mr_json_arr(j), mr_json_u64(j, 0), mr_json_u64(j, tv->users[0]), mr_json_arr_end(j);
		mr_json_arr(j), mr_json_u64(j, tv->fast_bytes), mr_json_u64(j, tv->slow);
		mr_json_arr_end(j);
		mr_json_arr_end(j);
	} else {
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		if (tv->how == TIER_SLOW)
			mr_json_u64(j, tv->slow);
		users_up(tv, up);
		for (size_t k = 0; tv->how == TIER_WHOLE && k < tv->nusers; k++)
			mr_json_u64(j, up[k]);
		for (size_t k = 0; tv->how == TIER_WEIGHTED && k < tv->nnodes; k++)
			mr_json_u64(j, tv->nodes[k]);
		mr_json_arr_end(j);
	}
	if (tv->how == TIER_WEIGHTED) {
		mr_json_key(j, "weights");
		mr_json_arr(j);
		for (size_t k = 0; k < tv->nnodes; k++)
			mr_json_u64(j, tv->weights[k]);
		mr_json_arr_end(j);
		mr_json_key(j, "weights_from");
		mr_json_str(j, "HMAT read bandwidth");
	}
	mr_json_obj_end(j);
}

void report_tiers_json(struct mr_json *j, const struct report *r, const uint32_t *ids,
		       size_t nids)
{
	static const char *const how[] = { "none", "fast", "part", "weighted", "slow" };
	struct tiers t;
	struct tier_var *tv = NULL;
	char line[512];
	size_t k;

	if (!tiers_get(r, &t))
		return;
	k = tier_plan(r, ids, nids, &t, &tv);
	mr_json_key(j, "tier_advice");
	mr_json_obj(j);
	for (int want = 1; want >= 0; want--) {
		mr_json_key(j, want ? "fast_nodes" : "slow_nodes");
		mr_json_arr(j);
		for (size_t i = 0; i < t.n; i++)
			if (t.fast[i] == want)
				mr_json_u64(j, i);
		mr_json_arr_end(j);
	}
	mr_json_key(j, "budget_bytes");
	t.budget < 0 ? mr_json_null(j) : mr_json_u64(j, (uint64_t)t.budget);
	mr_json_key(j, "budget_from");
	mr_json_str(j, r->o.tier_budget ? "option" : "free memory");
	mr_json_key(j, "variables");
	mr_json_arr(j);
	for (size_t i = 0; i < k; i++) {
		mr_json_obj(j);
		mr_json_key(j, "name");
		mr_json_str(j, mr_attrib_var(r->a, tv[i].id)->name);
		U("bytes", tv[i].bytes);
		U("samples", tv[i].samples);
		mr_json_key(j, "per_mib");
		mr_json_dbl(j, tv[i].per_mib);
		U("fast_bytes", tv[i].fast_bytes);
		mr_json_key(j, "now_fast");
		tv[i].now_fast < 0 ? mr_json_null(j) : mr_json_dbl(j, tv[i].now_fast);
		mr_json_key(j, "line");
		mr_json_str(j, change_line(r, tv[i].id, line, sizeof(line)));
		mr_json_key(j, "tier");
		mr_json_str(j, how[tv[i].how]);
		mr_json_key(j, "cold");
		mr_json_bool(j, tv[i].cold);
		mr_json_key(j, "users");
		mr_json_arr(j);
		for (size_t u = 0; u < tv[i].nusers; u++)
			mr_json_u64(j, tv[i].users[u]);
		mr_json_arr_end(j);
		mr_json_key(j, "time_bins");
		if (tv[i].bins) {
			mr_json_obj(j);
			U("with_samples", tv[i].occupied);
			U("of", tv[i].bins);
			mr_json_key(j, "steady_expected");
			mr_json_dbl(j, tv[i].expected);
			mr_json_obj_end(j);
		} else {
			mr_json_null(j);
		}
		json_placement(j, &tv[i]);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
	free(tv);
	free(t.ni);
}
