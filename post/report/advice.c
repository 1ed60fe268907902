/* post/report/advice.c - placement advice from a variable's pattern (advice.h). The rules and
 * why their thresholds are what they are: docs/advice.md. */
#include <stdlib.h>
#include <string.h>

#include "advice.h"

const char *mr_advice_name(enum mr_advice_kind k)
{
	static const char *const names[] = { NULL, "too_few", "local", "partitioned",
					     "move", "replicate", "interleave", "spread" };

	return (size_t)k < sizeof(names) / sizeof(names[0]) ? names[k] : NULL;
}

/* Thread t's range: the blocks from its samples' MR_ADVICE_RANGE_CUT quantile to the
 * 1 - MR_ADVICE_RANGE_CUT one, [*lo, *hi]. */
static void range_of(const struct mr_pattern *p, size_t t, uint32_t *lo, uint32_t *hi)
{
	const uint64_t *row = &p->tb[t * p->nblocks];
	double n = (double)p->threads[t].samples, cum = 0;

	*lo = 0;
	*hi = p->nblocks - 1;
	for (uint32_t b = 0; b < p->nblocks; b++) {
		double before = cum;

		cum += (double)row[b];
		if (before <= MR_ADVICE_RANGE_CUT * n && cum > MR_ADVICE_RANGE_CUT * n)
			*lo = b;
		if (before < (1 - MR_ADVICE_RANGE_CUT) * n && cum >= (1 - MR_ADVICE_RANGE_CUT) * n)
			*hi = b;
	}
}

/* Are the active threads' ranges pairwise disjoint (up to MR_ADVICE_OVERLAP of the
 * shorter, one block at least)? Sets out->max_overlap. */
static int disjoint(const struct mr_pattern *p, const unsigned char *act, struct mr_advice *out)
{
	uint32_t *lo = calloc(p->nthreads, sizeof(*lo)), *hi = calloc(p->nthreads, sizeof(*hi));
	int ok = lo && hi;

	for (size_t t = 0; ok && t < p->nthreads; t++)
		if (act[t])
			range_of(p, t, &lo[t], &hi[t]);
	for (size_t t = 0; ok && t < p->nthreads; t++)
		for (size_t u = t + 1; act[t] && u < p->nthreads; u++) {
			uint32_t a = lo[t] > lo[u] ? lo[t] : lo[u], b = hi[t] < hi[u] ? hi[t] : hi[u];
			uint32_t lt = hi[t] - lo[t] + 1, lu = hi[u] - lo[u] + 1;
			double ov, shorter = lt < lu ? lt : lu;

			if (!act[u] || a > b)
				continue;
			ov = (double)(b - a + 1);
			if (ov / shorter > out->max_overlap)
				out->max_overlap = ov / shorter;
			if (ov > 1 && ov > MR_ADVICE_OVERLAP * shorter)
				ok = 0;
		}
	free(lo);
	free(hi);
	return ok;
}

/* Share of the samples in blocks, each counted for the thread that holds most of it. */
static double owned(const struct mr_pattern *p)
{
	uint64_t sum = 0;

	for (uint32_t b = 0; b < p->nblocks; b++) {
		uint64_t most = 0;

		for (size_t t = 0; t < p->nthreads; t++)
			if (p->tb[t * p->nblocks + b] > most)
				most = p->tb[t * p->nblocks + b];
		sum += most;
	}
	return p->samples ? (double)sum / (double)p->samples : 0;
}

/* The bytes from the first to the last block with samples (a static array sized for the
 * largest input may be used in part only). */
static uint64_t used_bytes(const struct mr_pattern *p)
{
	uint32_t first = p->nblocks, last = 0;

	for (size_t t = 0; t < p->nthreads; t++)
		for (uint32_t b = 0; b < p->nblocks; b++)
			if (p->tb[t * p->nblocks + b]) {
				first = b < first ? b : first;
				last = b > last ? b : last;
			}
	if (first > last)
		return 0;
	if ((uint64_t)(last + 1) * p->block > p->span)
		return p->span - (uint64_t)first * p->block;
	return (uint64_t)(last - first + 1) * p->block;
}

/* Thread t's use of the variable: its samples on it as a share of all its attributed
 * samples, so that a thread that ran longer or slower (and took more samples of
 * everything) does not look like the main user; its samples when that is not counted. */
static double use_of(const struct mr_pattern *p, size_t t)
{
	const struct mr_pattern_thread *th = &p->threads[t];

	return th->all ? (double)th->samples / (double)th->all : (double)th->samples;
}

/* Are p's blocks with a known home spread over the nodes of its active threads (act)
 * already: two such nodes at least, each the home of MR_ADVICE_SPREAD_MIN of an even share
 * of them or more? Four blocks with a home at least, else it cannot be told. */
static int spread(const struct mr_pattern *p, const unsigned char *act)
{
	uint32_t users[64], nusers = 0, homed = 0, least = UINT32_MAX;

	for (size_t t = 0; t < p->nthreads; t++) {
		uint32_t n = p->threads[t].node, k = 0;

		while (k < nusers && users[k] != n)
			k++;
		if (act[t] && n < p->nnodes && k == nusers && nusers < 64)
			users[nusers++] = n;
	}
	for (uint32_t b = 0; b < p->nblocks; b++)
		homed += p->home && p->home[b] < p->nnodes;
	if (nusers < 2 || homed < 4)
		return 0;
	for (uint32_t k = 0; k < nusers; k++) {
		uint32_t on = 0;

		for (uint32_t b = 0; b < p->nblocks; b++)
			on += p->home[b] == users[k];
		least = on < least ? on : least;
	}
	return (double)least / homed >= MR_ADVICE_SPREAD_MIN / nusers;
}

/* The shape of p's use (p has at least MR_ADVICE_MIN_SAMPLES samples). */
static enum mr_advice_kind shape_of(const struct mr_pattern *p, struct mr_advice *out)
{
	unsigned char *act = calloc(p->nthreads ? p->nthreads : 1, 1);
	enum mr_advice_kind k = MR_ADVICE_INTERLEAVE;
	double most = 0, sum = 0;

	for (size_t t = 0; t < p->nthreads; t++)
		sum += use_of(p, t);
	for (size_t t = 0; act && t < p->nthreads; t++) {
		act[t] = use_of(p, t) >= MR_ADVICE_ACTIVE * sum;
		out->active += act[t];
		if (use_of(p, t) > most) {
			most = use_of(p, t);
			out->top = t;
		}
	}
	out->top_share = sum > 0 ? most / sum : 0;
	out->own = owned(p);
	if (out->top_share >= MR_ADVICE_MOVE) {
		k = MR_ADVICE_MOVE_IT;
	} else if (act && out->active >= 2 && disjoint(p, act, out)) {
		k = MR_ADVICE_PARTITIONED;
		out->block_bytes = used_bytes(p) / out->active;
	} else {
		if (out->writes >= 0 && out->writes < MR_ADVICE_WRITES &&
		    p->span <= MR_ADVICE_SMALL && out->active >= 2)
			k = MR_ADVICE_REPLICATE;
	}
	out->spread = act && k == MR_ADVICE_INTERLEAVE && spread(p, act);
	free(act);
	return k;
}

void mr_advice_classify(const struct mr_pattern *p, uint64_t remote, uint64_t local,
			struct mr_advice *out)
{
	memset(out, 0, sizeof(*out));
	out->remote = remote + local ? (double)remote / (double)(remote + local) : -1;
	out->writes = -1;
	if (!p || !p->laid)
		return;
	out->samples = p->samples;
	out->kind = out->shape = MR_ADVICE_TOO_FEW;
	if (p->samples < MR_ADVICE_MIN_SAMPLES)
		return;
	if (p->rw_known && p->reads + p->writes)
		out->writes = (double)p->writes / (double)(p->reads + p->writes);
	out->shape = shape_of(p, out);
	out->kind = out->remote >= 0 && out->remote < MR_ADVICE_REMOTE ? MR_ADVICE_LOCAL
		    : out->spread					    ? MR_ADVICE_SPREAD
								      : out->shape;
}

size_t mr_advice_ranges(const struct mr_pattern *p, uint64_t page, uint64_t (*out)[2])
{
	uint32_t nn = p->nnodes;
	size_t np = p->npages, n = 0;
	double pen = (double)p->samples * MR_ADVICE_SWITCH > 3 ? (double)p->samples * MR_ADVICE_SWITCH
							       : 3;
	double *cost = calloc(np * nn + 1, sizeof(*cost));
	uint32_t *from = calloc(np * nn + 1, sizeof(*from)), *lab = calloc(np + 1, sizeof(*lab));

	page = page ? page : 4096;
	for (size_t i = 0; cost && from && lab && i < np; i++) { /* least cost ending in n */
		const uint64_t *c = &p->page_nodes[i * nn];
		uint64_t all = 0;

		for (uint32_t k = 0; k < nn; k++)
			all += c[k];
		for (uint32_t k = 0; k < nn; k++) {
			double best = 0;
			uint32_t arg = k;

			for (uint32_t m = 0; i && m < nn; m++) {
				double x = cost[(i - 1) * nn + m] + (m != k ? pen : 0);

				if (m == 0 || x < best || (x == best && m == k)) {
					best = x;
					arg = m;
				}
			}
			cost[i * nn + k] = best + (double)(all - c[k]);
			from[i * nn + k] = arg;
		}
	}
	if (cost && from && lab && np && nn) {
		for (uint32_t k = 1; k < nn; k++)
			if (cost[(np - 1) * nn + k] < cost[(np - 1) * nn + lab[np - 1]])
				lab[np - 1] = k;
		for (size_t i = np - 1; i > 0; i--)
			lab[i - 1] = from[i * nn + lab[i]];
		out[n][0] = 0;
		out[n++][1] = lab[0];
		for (size_t i = 1; i < np; i++)
			if (lab[i] != lab[i - 1]) {
				out[n][0] = (p->page_no[i - 1] + 1 +
					     (p->page_no[i] - p->page_no[i - 1] - 1) / 2) * page -
					    p->align;
				out[n++][1] = lab[i];
			}
	}
	free(cost);
	free(from);
	free(lab);
	return n;
}
