/* post/report/report_nodes.c - the nodes' kinds and memory tiers (RUN keys "node", lib/topology.c,
 * docs/format.md): a node without CPUs (CXL memory, HBM in flat mode, a GPU's memory) and
 * the kernel's tiers, HMAT figures and memory at start, in the header and as JSON
 * run.nodes; with --advice the tier advice (docs/advice.md): the variables by samples per
 * byte, the densest in the fast tier until its budget is used. Shown only when a node has
 * no CPU or the nodes are not all of one tier: the report of a machine of sockets alone is
 * as it was. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/json.h"
#include "base/varkind.h"
#include "report_impl.h"

/* One "node" key: NODE \t CPUS \t TIER \t READ_LAT \t WRITE_LAT \t READ_BW \t WRITE_BW \t
 * BYTES \t FREE, "-" or -1 for unknown. */
struct node_info {
	long long v[9];           /* in that order, -1 unknown */
};

static const char *const fields[9] = { "node", "cpus", "tier", "read_latency_ns",
				       "write_latency_ns", "read_bandwidth_mbs",
				       "write_bandwidth_mbs", "bytes", "free_bytes" };

/* The "node" keys of the run into *out (ours to free), by node (a node's last key wins); the
 * node count when every node has one, else 0 (a run before them). */
static size_t node_infos(const struct report *r, struct node_info **out)
{
	size_t n = 0;

	*out = calloc(r->nnodes + 1, sizeof(**out));
	for (uint32_t i = 0; *out && i < r->nnodes; i++)
		(*out)[i].v[0] = -1; /* not seen yet */
	for (size_t i = 0; *out && i < r->run->nkv; i++) {
		const char *p = r->run->kv[i].value;
		struct node_info ni;
		size_t k = 0;

		if (strcmp(r->run->kv[i].key, "node"))
			continue;
		for (; k < 9 && *p; k++) {
			char *end;

			ni.v[k] = *p == '-' && (p[1] == '\t' || !p[1]) ? -1 : strtoll(p, &end, 10);
			p = strchr(p, '\t');
			if (!p)
				break;
			p++;
		}
		if (k >= 8 && ni.v[0] >= 0 && (uint64_t)ni.v[0] < r->nnodes) {
			n += (*out)[ni.v[0]].v[0] < 0;
			(*out)[ni.v[0]] = ni;
		}
	}
	return n == r->nnodes ? n : 0;
}

/* Whether the nodes are worth telling: one without CPUs, or two tiers. */
static bool worth(const struct node_info *ni, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (ni[i].v[1] == 0 || ni[i].v[2] != ni[0].v[2])
			return true;
	return false;
}

static void gib(FILE *f, long long bytes)
{
	fprintf(f, "%.1f GiB", (double)bytes / (1 << 30));
}

void report_nodes_text(const struct report *r, FILE *f)
{
	struct node_info *ni;
	size_t n = node_infos(r, &ni);

	if (n && worth(ni, n)) {
		fprintf(f, "node kinds:");
		for (size_t i = 0; i < n; i++) {
			const long long *v = ni[i].v;

			fprintf(f, "%s node %zu: ", i ? ";" : "", i);
			if (v[1] > 0)
				fprintf(f, "%lld CPU%s", v[1], v[1] == 1 ? "" : "s");
			else
				fprintf(f, "no CPU (memory only: a far tier)");
			if (v[2] >= 0)
				fprintf(f, ", memory tier %lld", v[2]);
			if (v[3] >= 0 || v[5] >= 0)
				fprintf(f, ", HMAT from its nearest CPUs: read %lld ns, %lld MB/s; write "
					"%lld ns, %lld MB/s", v[3], v[5], v[4], v[6]);
			if (v[7] >= 0) {
				fprintf(f, ", ");
				gib(f, v[7]);
				if (v[8] >= 0) {
					fprintf(f, " (");
					gib(f, v[8]);
					fprintf(f, " free at start)");
				}
			}
		}
		fprintf(f, "\n");
	}
	free(ni);
}

void report_nodes_json(struct mr_json *j, const struct report *r)
{
	struct node_info *ni;
	size_t n = node_infos(r, &ni);

	if (n && worth(ni, n)) {
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		for (size_t i = 0; i < n; i++) {
			mr_json_obj(j);
			for (int k = 0; k < 9; k++) {
				mr_json_key(j, fields[k]);
				if (ni[i].v[k] < 0)
					mr_json_null(j);
				else
					mr_json_u64(j, (uint64_t)ni[i].v[k]);
			}
			mr_json_obj_end(j);
		}
		mr_json_arr_end(j);
	}
	free(ni);
}

/* The fast tier: the nodes with CPUs of the lowest tier among them (fast[n] set); the
 * budget: --tier-budget, else their free memory at start (-1 unknown). False when there is
 * no slow node. */
static bool tiers(const struct report *r, const struct node_info *ni, size_t n, bool *fast,
		  long long *budget)
{
	long long best = -1, free_b = 0;
	bool slow = false;

	for (size_t i = 0; i < n; i++)
		if (ni[i].v[1] > 0 && (best < 0 || (ni[i].v[2] >= 0 && ni[i].v[2] < best)))
			best = ni[i].v[2];
	for (size_t i = 0; i < n; i++) {
		fast[i] = ni[i].v[1] > 0 && ni[i].v[2] == best;
		slow |= !fast[i];
		if (fast[i])
			free_b = ni[i].v[8] < 0 || free_b < 0 ? -1 : free_b + ni[i].v[8];
	}
	*budget = r->o.tier_budget ? (long long)r->o.tier_budget : free_b;
	return slow;
}

/* One variable of the tier advice. */
struct tier_var {
	uint32_t id;
	uint64_t bytes, samples, fast_bytes; /* fast_bytes: the part the plan puts there */
	double per_mib, now_fast;            /* samples per MiB; share of its sampled pages
					      * now in the fast tier (-1 none sampled) */
};

static int cmp_density(const void *x, const void *y)
{
	const struct tier_var *a = x, *b = y;

	if (a->per_mib != b->per_mib)
		return a->per_mib > b->per_mib ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The program's variables among ids[0 .. n) with samples and a size, densest first, into
 * *out (ours to free), each given its part of the budget; their count. */
static size_t tier_plan(const struct report *r, const uint32_t *ids, size_t n, const bool *fast,
			long long budget, struct tier_var **out)
{
	size_t k = 0;
	long long left = budget;

	*out = calloc(n + 1, sizeof(**out));
	for (size_t i = 0; *out && i < n; i++) {
		const struct mr_varinfo *vi = mr_attrib_var(r->a, ids[i]);
		const struct mr_agg_var *v = &r->agg.vars[ids[i]];
		uint64_t in_fast = 0;

		if (!v->total || !vi->bytes || (vi->kind != MR_VAR_GLOBAL &&
						vi->kind != MR_VAR_STATIC &&
						vi->kind != MR_VAR_FUNC_STATIC && vi->kind != MR_VAR_HEAP))
			continue;
		for (uint32_t m = 0; m < r->nnodes; m++)
			in_fast += fast[m] ? v->pages_node[m] : 0;
		(*out)[k++] = (struct tier_var){ ids[i], vi->bytes, v->total, 0,
						 (double)v->total * (1 << 20) / (double)vi->bytes,
						 v->pages ? (double)in_fast / (double)v->pages : -1 };
	}
	if (!*out)
		return 0;
	qsort(*out, k, sizeof(**out), cmp_density);
	for (size_t i = 0; i < k && left > 0; i++) { /* whole while it fits; then what fits */
		uint64_t part = (*out)[i].bytes <= (uint64_t)left ? (*out)[i].bytes : (uint64_t)left;

		(*out)[i].fast_bytes = part;
		left -= (long long)part;
	}
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

/* The node list of fast (want 1) or slow (want 0) nodes, "0,1", into buf. */
static const char *node_list(const bool *fast, size_t n, bool want, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && used < len; i++)
		if (fast[i] == want)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu", used ? "," : "", i);
	return buf;
}

void report_tiers_text(const struct report *r, const uint32_t *ids, size_t nids, FILE *f)
{
	struct node_info *ni;
	size_t n = node_infos(r, &ni), k;
	bool fast[64] = { false };
	struct tier_var *tv = NULL;
	long long budget, used = 0;
	char fl[256], sl[256], line[512];

	if (!r->o.advice || !n || n > 64 || !worth(ni, n) || !tiers(r, ni, n, fast, &budget)) {
		free(ni);
		return;
	}
	k = tier_plan(r, ids, nids, fast, budget < 0 ? 0 : budget, &tv);
	node_list(fast, n, true, fl, sizeof(fl));
	node_list(fast, n, false, sl, sizeof(sl));
	fprintf(f, "\nTier advice (--advice: the variables shown by samples per MiB, densest first, "
		"in the fast tier (node%s %s) while its budget lasts, the rest in the slow tier "
		"(node%s %s)); budget ", strchr(fl, ',') ? "s" : "", fl, strchr(sl, ',') ? "s" : "",
		sl);
	if (budget < 0)
		fprintf(f, "unknown (the fast nodes' free memory was not recorded: --tier-budget "
			"BYTES):\n");
	else
		fprintf(f, "%.1f MiB (%s):\n", mib((uint64_t)budget),
			r->o.tier_budget ? "--tier-budget" : "the fast nodes' free memory at start");
	for (size_t i = 0; i < k; i++) {
		const struct tier_var *t = &tv[i];
		bool whole = t->fast_bytes == t->bytes, none = !t->fast_bytes;

		used += (long long)t->fast_bytes;
		fprintf(f, "  (%zu) %s: %.1f MiB, %" PRIu64 " samples, %.1f per MiB: ", i + 1,
			mr_esc(mr_attrib_var(r->a, t->id)->name), mib(t->bytes), t->samples,
			t->per_mib);
		if (whole)
			fprintf(f, "fast tier (budget used %.1f of %.1f MiB)", mib((uint64_t)used),
				mib((uint64_t)budget));
		else if (none)
			fprintf(f, "slow tier (%s)", budget > 0 ? "the budget is used" : "no budget");
		else
			fprintf(f, "%.1f MiB of it in the fast tier, the rest in the slow tier: it does "
				"not fit the budget left", mib(t->fast_bytes));
		if (t->now_fast >= 0)
			fprintf(f, "; now %.0f %% of its sampled pages in the fast tier", 100 * t->now_fast);
		if (t->now_fast >= 0 && ((whole && t->now_fast < 0.95) || (none && t->now_fast > 0.05) ||
					 (!whole && !none)))
			fprintf(f, ": place it (%s)", change_line(r, t->id, line, sizeof(line)));
		fprintf(f, "\n");
	}
	if (!k)
		fprintf(f, "  (no variable of the program with samples and a size)\n");
	free(tv);
	free(ni);
}

void report_tiers_json(struct mr_json *j, const struct report *r, const uint32_t *ids,
		       size_t nids)
{
	struct node_info *ni;
	size_t n = node_infos(r, &ni), k;
	bool fast[64] = { false };
	struct tier_var *tv = NULL;
	long long budget;
	char line[512];

	if (!r->o.advice || !n || n > 64 || !worth(ni, n) || !tiers(r, ni, n, fast, &budget)) {
		free(ni);
		return;
	}
	k = tier_plan(r, ids, nids, fast, budget < 0 ? 0 : budget, &tv);
	mr_json_key(j, "tier_advice");
	mr_json_obj(j);
	for (int want = 1; want >= 0; want--) {
		mr_json_key(j, want ? "fast_nodes" : "slow_nodes");
		mr_json_arr(j);
		for (size_t i = 0; i < n; i++)
			if (fast[i] == want)
				mr_json_u64(j, i);
		mr_json_arr_end(j);
	}
	mr_json_key(j, "budget_bytes");
	budget < 0 ? mr_json_null(j) : mr_json_u64(j, (uint64_t)budget);
	mr_json_key(j, "budget_from");
	mr_json_str(j, r->o.tier_budget ? "option" : "free memory");
	mr_json_key(j, "variables");
	mr_json_arr(j);
	for (size_t i = 0; i < k; i++) {
		mr_json_obj(j);
		mr_json_key(j, "name");
		mr_json_str(j, mr_attrib_var(r->a, tv[i].id)->name);
		mr_json_key(j, "bytes");
		mr_json_u64(j, tv[i].bytes);
		mr_json_key(j, "samples");
		mr_json_u64(j, tv[i].samples);
		mr_json_key(j, "per_mib");
		mr_json_dbl(j, tv[i].per_mib);
		mr_json_key(j, "fast_bytes");
		mr_json_u64(j, tv[i].fast_bytes);
		mr_json_key(j, "now_fast");
		tv[i].now_fast < 0 ? mr_json_null(j) : mr_json_dbl(j, tv[i].now_fast);
		mr_json_key(j, "line");
		mr_json_str(j, change_line(r, tv[i].id, line, sizeof(line)));
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_obj_end(j);
	free(tv);
	free(ni);
}
