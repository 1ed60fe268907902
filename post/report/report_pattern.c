/* post/report/report_pattern.c - the pattern data (--pattern) and the placement advice (--advice)
 * of the report's shown variables: the JSON members "pattern" and "advice"
 * (docs/report-schema.md) and the text's advice lines (docs/advice.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "base/err.h"
#include "base/json.h"
#include "report_impl.h"

#define U(key, v) (mr_json_key(j, key), mr_json_u64(j, v))

/* A node index as JSON: the index, null for unknown. */
static void json_node_index(struct mr_json *j, const struct report *r, uint32_t n)
{
	if (n < r->nnodes)
		mr_json_u64(j, n);
	else
		mr_json_null(j);
}

/* The long arrays go on one line each (mr_json_i64_line) through buf, of at least
 * max(blocks, 4 x cells) entries: a pattern is then at most about 20 bytes a time cell. */
static void json_threads(struct mr_json *j, const struct report *r, const struct mr_pattern *p,
			 int64_t *buf)
{
	mr_json_key(j, "threads");
	mr_json_arr(j);
	for (size_t t = 0; t < p->nthreads; t++) {
		mr_json_obj(j);
		mr_json_key(j, "index");
		if (p->threads[t].index >= 0)
			mr_json_i64(j, p->threads[t].index);
		else
			mr_json_null(j);
		U("tid", p->threads[t].tid);
		mr_json_key(j, "node");
		json_node_index(j, r, p->threads[t].node);
		U("samples", p->threads[t].samples);
		U("thread_samples", p->threads[t].all);
		mr_json_obj_end(j);
	}
	mr_json_arr_end(j);
	mr_json_key(j, "thread_blocks");
	mr_json_arr(j);
	for (size_t t = 0; t < p->nthreads; t++) {
		for (uint32_t b = 0; b < p->nblocks; b++)
			buf[b] = (int64_t)p->tb[t * p->nblocks + b];
		mr_json_i64_line(j, buf, p->nblocks, 0, INT64_MIN);
	}
	mr_json_arr_end(j);
}

static void json_blocks(struct mr_json *j, const struct report *r, const struct mr_pattern *p,
			int64_t *buf)
{
	mr_json_key(j, "block_home");
	for (uint32_t b = 0; b < p->nblocks; b++)
		buf[b] = p->home[b] < r->nnodes ? (int64_t)p->home[b] : -1;
	mr_json_i64_line(j, buf, p->nblocks, 0, -1);
	mr_json_key(j, "block_first_touch");
	for (uint32_t b = 0; b < p->nblocks; b++)
		buf[b] = p->first_touch[b];
	mr_json_i64_line(j, buf, p->nblocks, 0, MR_PATTERN_FT_UNKNOWN);
}

static void json_time(struct mr_json *j, const struct report *r, const struct mr_pattern *p,
		      int64_t *buf)
{
	mr_json_key(j, "time");
	mr_json_obj(j);
	U("t0_ns", r->pat.t0);
	U("bin_ns", r->pat.bin_ns);
	U("bins", r->pat.nbins);
	mr_json_key(j, "cells");
	for (size_t i = 0; i < p->ncells; i++) {
		const struct mr_pattern_cell *c = &p->cells[i];

		buf[4 * i] = c->bin;
		buf[4 * i + 1] = c->block;
		buf[4 * i + 2] = (int64_t)c->n;
		buf[4 * i + 3] = c->thread;
	}
	mr_json_i64_line(j, buf, 4 * p->ncells, 4, INT64_MIN);
	mr_json_obj_end(j);
}

/* "pattern" of variable id: null when it has no layout (or out of memory for its lines). */
static void json_pattern(struct mr_json *j, const struct report *r, const struct mr_pattern *p)
{
	size_t n = p->laid ? 4 * p->ncells + p->nblocks + 1 : 0;
	int64_t *buf = n ? malloc(n * sizeof(*buf)) : NULL;

	mr_json_key(j, "pattern");
	if (!buf) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	U("span_bytes", p->span);
	U("block_bytes", p->block);
	U("blocks", p->nblocks);
	U("samples", p->samples);
	U("unplaced", p->unplaced);
	json_threads(j, r, p, buf);
	json_blocks(j, r, p, buf);
	mr_json_key(j, "writes");
	p->rw_known ? mr_json_u64(j, p->writes) : mr_json_null(j);
	mr_json_key(j, "reads");
	p->rw_known ? mr_json_u64(j, p->reads) : mr_json_null(j);
	json_time(j, r, p, buf);
	mr_json_obj_end(j);
	free(buf);
}

/* The line with most samples on variable id (the loop that reads it; the lowest id among
 * equals), 0 when none or out of memory. */
static uint32_t top_line(const struct report *r, uint32_t id)
{
	struct mph_u64map n;
	uint32_t best = 0;
	uint64_t most = 0, *c;

	if (mph_u64map_init(&n, 64))
		return 0;
	for (size_t i = 0; i < r->agg.ncells; i++) {
		const struct mr_agg_cell *ce = &r->agg.cells[i];

		if (ce->var != id || !ce->line)
			continue;
		if (!(c = mph_u64map_put(&n, ce->line, 0)))
			break;
		*c += ce->n;
		if (*c > most || (*c == most && ce->line < best)) {
			most = *c;
			best = ce->line;
		}
	}
	mph_u64map_free(&n);
	return best;
}

/* Bytes as "1.9 MB", "256 KB", "512 B". */
static const char *size_text(char *buf, size_t len, uint64_t n)
{
	if (n >= 1000000)
		snprintf(buf, len, "%.1f MB", (double)n / 1e6);
	else if (n >= 1000)
		snprintf(buf, len, "%.0f KB", (double)n / 1e3);
	else
		snprintf(buf, len, "%" PRIu64 " B", n);
	return buf;
}

/* The advice of variable id in words. */
struct words {
	struct mr_advice a;
	const char *line, *loop; /* first-touch line, loop line, or NULL */
	char action[512], evidence[512];
};

/* "first touched by thread 0 (node 0) at cg.c:43" into buf. */
static void touched_text(const struct report *r, uint32_t id, const struct words *w, char *buf,
			 size_t len)
{
	const struct mr_agg_var *v = &r->agg.vars[id];
	char who[48];

	if (!w->line) {
		snprintf(buf, len, "no first touch recorded");
		return;
	}
	report_thread_text(r, v->ft_tid, who, sizeof(who));
	snprintf(buf, len, "first touched by %s (node %d) at %s", who, v->ft_tid_node, w->line);
}

/* Remote share as evidence: "48 % of 916 samples remote" ("remote or far tier" where the
 * variable has far-tier samples: both are off the CPU's node). */
static void remote_text(const struct words *w, uint64_t total, int far, char *buf, size_t len)
{
	if (w->a.remote < 0)
		snprintf(buf, len, "no sample with both nodes known");
	else
		snprintf(buf, len, "%.0f %% of %" PRIu64 " samples remote%s", 100 * w->a.remote,
			 total, far ? " or far tier" : "");
}

static void partitioned_words(const struct report *r, const struct mr_pattern *p,
			      struct words *w, const char *touched, const char *rem)
{
	char sz[32];

	snprintf(w->action, sizeof(w->action),
		 "each of %zu threads reads its own %s block%s%s: initialise it in a parallel loop "
		 "with the same schedule instead of %s%s", w->a.active,
		 size_text(sz, sizeof(sz), w->a.block_bytes), w->loop ? " in the loop at " : "",
		 w->loop ? w->loop : "", w->line ? "at " : "the current first touch",
		 w->line ? w->line : "");
	snprintf(w->evidence, sizeof(w->evidence),
		 "%.0f %% of the samples in blocks where one thread has most, the %zu threads' "
		 "ranges overlapping at most %.0f %%; %s; %s", 100 * w->a.own, w->a.active, 100 * w->a.max_overlap, rem,
		 touched);
	(void)r, (void)p;
}

/* "node 0 5 blocks, node 1 3 blocks": p's blocks by home node, into buf. */
static void homes_text(const struct report *r, const struct mr_pattern *p, char *buf, size_t len)
{
	size_t pos = 0;

	buf[0] = 0;
	for (uint32_t n = 0; n < r->nnodes && pos < len; n++) {
		uint32_t on = 0;

		for (uint32_t b = 0; b < p->nblocks; b++)
			on += p->home[b] == n;
		if (on)
			pos += (size_t)snprintf(buf + pos, len - pos, "%snode %u %u block%s",
						pos ? ", " : "", n, on, on == 1 ? "" : "s");
	}
}

static void shared_words(const struct report *r, const struct mr_pattern *p, struct words *w,
			 const char *touched, const char *rem)
{
	const struct mr_pattern_thread *top = p->nthreads ? &p->threads[w->a.top] : NULL;
	char sz[32], who[48], node[16];

	size_text(sz, sizeof(sz), p->span);
	switch (w->a.shape) {
	case MR_ADVICE_MOVE_IT:
		report_thread_text(r, top->tid, who, sizeof(who));
		if (top->node < r->nnodes)
			snprintf(node, sizeof(node), "node %u", top->node);
		else
			snprintf(node, sizeof(node), "its node");
		snprintf(w->action, sizeof(w->action),
			 "one thread uses it: allocate it on %s of %s (first touch it from that "
			 "thread, or numa_alloc_onnode)%s%s", node, who,
			 w->line ? " instead of at " : "", w->line ? w->line : "");
		snprintf(w->evidence, sizeof(w->evidence), "%s has %.0f %% of the threads' use (a "
			 "thread's samples on it over all its samples); %s; %s", who,
			 100 * w->a.top_share, rem, touched);
		break;
	case MR_ADVICE_REPLICATE:
		snprintf(w->action, sizeof(w->action),
			 "read-mostly and small (%s): replicate it, one copy per node filled on that "
			 "node, each thread reading its node's copy", sz);
		snprintf(w->evidence, sizeof(w->evidence),
			 "%.1f %% stores, %s, read by %zu threads, none with own ranges (overlap up "
			 "to %.0f %%); %s; %s", 100 * w->a.writes, sz, w->a.active,
			 100 * w->a.max_overlap, rem, touched);
		break;
	default:
		if (w->a.kind == MR_ADVICE_SPREAD) {
			char homes[96];

			homes_text(r, p, homes, sizeof(homes));
			snprintf(w->action, sizeof(w->action),
				 "shared by %zu threads with no own ranges, its pages already spread "
				 "over their nodes (%s): nothing to place; interleaving them would "
				 "trade one node's remote accesses for another's", w->a.active, homes);
			snprintf(w->evidence, sizeof(w->evidence),
				 "the thread holding each block has %.0f %% of the samples, thread "
				 "ranges overlap up to %.0f %%; %s; %s", 100 * w->a.own,
				 100 * w->a.max_overlap, rem, touched);
			break;
		}
		snprintf(w->action, sizeof(w->action),
			 "shared by %zu threads with no own ranges: interleave its pages "
			 "(numa_alloc_interleaved or mbind MPOL_INTERLEAVE%s%s, or numactl "
			 "--interleave=all)", w->a.active, w->line ? " instead of the first touch at "
								  : "", w->line ? w->line : "");
		snprintf(w->evidence, sizeof(w->evidence),
			 "the thread holding each block has %.0f %% of the samples, thread ranges "
			 "overlap up to %.0f %%; %s; %s", 100 * w->a.own, 100 * w->a.max_overlap, rem,
			 touched);
		break;
	}
}

/* The advice of shown variable id into *w; false when it has none (no layout). */
static bool advise(const struct report *r, uint32_t id, struct words *w)
{
	const struct mr_pattern *p = mr_pattern_of(&r->pat, id);
	const struct mr_agg_var *v = &r->agg.vars[id];
	char touched[160], rem[96];
	uint32_t loop;

	memset(w, 0, sizeof(*w));
	mr_advice_classify(p, v->remote + v->far, v->local, &w->a);
	if (w->a.kind == MR_ADVICE_NONE)
		return false;
	w->line = v->ft_pages ? mr_attrib_line(r->a, v->ft_line) : NULL;
	loop = w->a.kind == MR_ADVICE_PARTITIONED ? top_line(r, id) : 0;
	w->loop = loop ? mr_attrib_line(r->a, loop) : NULL;
	touched_text(r, id, w, touched, sizeof(touched));
	remote_text(w, v->remote + v->far + v->local, v->far > 0, rem, sizeof(rem));
	if (w->a.kind == MR_ADVICE_TOO_FEW) {
		snprintf(w->action, sizeof(w->action), "no advice: too few samples");
		snprintf(w->evidence, sizeof(w->evidence), "%" PRIu64 " samples on it, fewer than "
			 "the minimum of %d", w->a.samples, MR_ADVICE_MIN_SAMPLES);
	} else if (w->a.kind == MR_ADVICE_LOCAL) {
		snprintf(w->action, sizeof(w->action), "nothing to do: its accesses are local");
		snprintf(w->evidence, sizeof(w->evidence), "%s (below %.0f %%); use pattern: %s", rem, 100 * MR_ADVICE_REMOTE, mr_advice_name(w->a.shape));
	} else if (w->a.kind == MR_ADVICE_PARTITIONED) {
		partitioned_words(r, p, w, touched, rem);
	} else {
		shared_words(r, p, w, touched, rem);
	}
	return true;
}

/* The node of the thread with most samples in block b of p, nnodes when no thread with a
 * known node has one. */
static uint32_t block_node(const struct mr_pattern *p, uint32_t b, uint32_t nnodes)
{
	uint64_t most = 0;
	uint32_t node = nnodes;

	for (size_t t = 0; t < p->nthreads; t++)
		if (p->threads[t].node < nnodes && p->tb[t * p->nblocks + b] > most) {
			most = p->tb[t * p->nblocks + b];
			node = p->threads[t].node;
		}
	return node;
}

/* A partitioned placement's "ranges": [[offset, node], ...] (mr_advice_ranges). */
static void json_ranges(struct mr_json *j, const struct report *r, const struct mr_pattern *p)
{
	uint64_t (*part)[2] = malloc((p->npages ? p->npages : 1) * sizeof(*part));
	size_t n = part ? mr_advice_ranges(p, mr_attrib_page_size(r->a), part) : 0;

	mr_json_key(j, "ranges");
	mr_json_arr(j);
	for (size_t i = 0; i < n; i++)
		mr_json_i64_line(j, (int64_t[]){ (int64_t)part[i][0], (int64_t)part[i][1] }, 2, 0,
				 INT64_MIN);
	mr_json_arr_end(j);
	free(part);
}

/* The advice's "placement": what `memphis apply` carries out (docs/apply.md), null when
 * there is nothing to place. move: the main user's node; partitioned: per block of the
 * pattern the node of the thread with most samples in it (a block without any takes its
 * nearest such block's before it, else after it); interleave: the nodes of the threads
 * using it, two at least. */
static void json_placement(struct mr_json *j, const struct report *r, const struct mr_pattern *p,
			   const struct words *w)
{
	uint32_t nn = r->nnodes, *bn = NULL, used[64] = { 0 }, nused = 0, last = nn;

	mr_json_key(j, "placement");
	if (w->a.kind == MR_ADVICE_MOVE_IT && w->a.top < p->nthreads &&
	    p->threads[w->a.top].node < nn) {
		mr_json_obj(j);
		mr_json_key(j, "policy");
		mr_json_str(j, "move");
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		mr_json_u64(j, p->threads[w->a.top].node);
		mr_json_arr_end(j);
		mr_json_obj_end(j);
		return;
	}
	if (w->a.kind == MR_ADVICE_INTERLEAVE)
		for (size_t t = 0; t < p->nthreads; t++) {
			uint32_t n = p->threads[t].node, k = 0;

			while (k < nused && used[k] != n)
				k++;
			if (n < nn && k == nused && nused < 64)
				used[nused++] = n;
		}
	if (w->a.kind == MR_ADVICE_PARTITIONED && p->nblocks)
		bn = calloc(p->nblocks, sizeof(*bn));
	if (bn) {
		for (uint32_t b = 0; b < p->nblocks; b++)
			last = bn[b] = block_node(p, b, nn) < nn ? block_node(p, b, nn) : last;
		last = nn;
		for (uint32_t b = p->nblocks; b-- > 0;) /* the leading blocks without samples */
			last = bn[b] = bn[b] < nn ? bn[b] : last;
		if (bn[0] >= nn) { /* no block with a known node */
			free(bn);
			bn = NULL;
		}
	}
	if (!bn && nused < 2) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	mr_json_key(j, "policy");
	mr_json_str(j, bn ? "partitioned" : "interleave");
	if (bn) {
		mr_json_key(j, "block_bytes");
		mr_json_u64(j, p->block);
		mr_json_key(j, "block_nodes");
		mr_json_arr(j);
		for (uint32_t b = 0; b < p->nblocks; b++)
			mr_json_u64(j, bn[b]);
		mr_json_arr_end(j);
		json_ranges(j, r, p);
	} else {
		mr_json_key(j, "nodes");
		mr_json_arr(j);
		for (uint32_t k = 0; k < nused; k++)
			mr_json_u64(j, used[k]);
		mr_json_arr_end(j);
	}
	mr_json_obj_end(j);
	free(bn);
}

/* "pattern" and "advice" members of shown variable id (--pattern, --advice). */
void report_pattern_json(struct mr_json *j, const struct report *r, uint32_t id)
{
	const struct mr_pattern *p = mr_pattern_of(&r->pat, id);
	struct words w;

	if (!p)
		return;
	json_pattern(j, r, p);
	if (!r->o.advice)
		return;
	mr_json_key(j, "advice");
	if (!advise(r, id, &w)) {
		mr_json_null(j);
		return;
	}
	mr_json_obj(j);
	mr_json_key(j, "pattern");
	mr_json_str(j, mr_advice_name(w.a.kind));
	mr_json_key(j, "shape");
	mr_json_str(j, mr_advice_name(w.a.shape));
	mr_json_key(j, "action");
	mr_json_str(j, w.action);
	mr_json_key(j, "evidence");
	mr_json_str(j, w.evidence);
	mr_json_key(j, "line");
	mr_json_str(j, w.line);
	mr_json_key(j, "loop");
	mr_json_str(j, w.loop);
	mr_json_key(j, "block_bytes");
	w.a.kind == MR_ADVICE_PARTITIONED ? mr_json_u64(j, w.a.block_bytes) : mr_json_null(j);
	json_placement(j, r, p, &w);
	mr_json_obj_end(j);
}

/* The advice lines of shown variable id under its table rows (--advice). */
void report_advice_text(const struct report *r, uint32_t id, FILE *f)
{
	struct words w;

	if (!mr_pattern_of(&r->pat, id))
		return;
	if (!advise(r, id, &w)) {
		fprintf(f, "    advice: none (no layout to read a pattern from: a stack, runtime or "
			"unknown data)\n");
		return;
	}
	fprintf(f, "    advice: %s: %s\n      (%s)\n", mr_advice_name(w.a.kind), w.action,
		w.evidence);
}
