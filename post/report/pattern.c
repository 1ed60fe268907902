/* post/report/pattern.c - how the threads use a variable's memory (pattern.h): the layout of each
 * variable asked for, a second pass over the samples into its blocks and time bins, the
 * first touches into its blocks, then the dense arrays the report writes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/varkind.h"
#include "pattern.h"

/* Keys of the pass's maps. tid: 32 bits; block < 256: 8 bits; bin < 100: 7 bits. */
#define KEY_TB(tid, block) ((uint64_t)(tid) << 8 | (block))
#define KEY_TIME(bin, block, tid) ((uint64_t)(bin) << 40 | (uint64_t)(block) << 32 | (tid))
#define NODE_BITS 20
#define KEY_PT(page, tid) ((uint64_t)(page) << 32 | (tid)) /* page < 2^31 */

static int init_maps(struct mr_pattern *p)
{
	return mph_u64map_init(&p->tb_map, 64) || mph_u64map_init(&p->node_map, 16) ||
	       mph_u64map_init(&p->page_map, 256) || mph_u64map_init(&p->touch_map, 64) ||
	       mph_u64map_init(&p->time_map, 256) || mph_u64map_init(&p->cut_map, 256) ? -ENOMEM
										    : 0;
}

/* Cut span bytes into at most MR_PATTERN_MAX_BLOCKS blocks of whole pages. */
static void cut_blocks(struct mr_pattern *p, uint64_t page)
{
	uint64_t pages = (p->span + page - 1) / page;
	uint64_t per = (pages + MR_PATTERN_MAX_BLOCKS - 1) / MR_PATTERN_MAX_BLOCKS;

	p->block = (per ? per : 1) * page;
	p->nblocks = (uint32_t)((p->span + p->block - 1) / p->block);
}

/* The heap objects of the heap variables among s->p, laid end to end in address order:
 * each variable's heap order indexes and offsets, and its span. 0 or -ENOMEM. */
static int lay_heap(struct mr_pattern_set *s, struct mr_attrib *a)
{
	size_t n = mr_attrib_heap_count(a);
	uint64_t addr, bytes, *pos;

	for (int fill = 0; fill < 2; fill++) {
		for (size_t i = 0; i < n; i++) {
			uint32_t v = mr_attrib_heap_object(a, i, &addr, &bytes);
			struct mr_pattern *p;

			if (!(pos = mph_u64map_get(&s->by_var, v)))
				continue;
			p = &s->p[*pos];
			if (fill) {
				p->align = p->nheap ? p->align : addr % s->page_size;
				p->heap_idx[p->nheap] = i;
				p->heap_off[p->nheap++] = p->span;
				p->span += bytes;
			} else {
				p->nheap++;
			}
		}
		for (size_t k = 0; !fill && k < s->n; k++) {
			struct mr_pattern *p = &s->p[k];

			if (!p->nheap)
				continue;
			p->heap_idx = malloc(p->nheap * sizeof(*p->heap_idx));
			p->heap_off = malloc(p->nheap * sizeof(*p->heap_off));
			if (!p->heap_idx || !p->heap_off)
				return -ENOMEM;
			p->nheap = 0;
		}
	}
	return 0;
}

/* Set up the patterns of vars[0 .. n): which have a layout, their spans and blocks. */
static int layout(struct mr_pattern_set *s, struct mr_attrib *a, const uint32_t *vars, size_t n)
{
	s->p = calloc(n ? n : 1, sizeof(*s->p));
	if (!s->p || mph_u64map_init(&s->by_var, n * 2) || mph_u64map_init(&s->all, 64))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		const struct mr_varinfo *vi = mr_attrib_var(a, vars[k]);
		uint64_t *pos = mph_u64map_put(&s->by_var, vars[k], k);

		s->p[s->n++].var = vars[k];
		if (!pos || init_maps(&s->p[k]))
			return -ENOMEM;
		switch (vi->kind) {
		case MR_VAR_GLOBAL: case MR_VAR_STATIC: case MR_VAR_FUNC_STATIC:
		case MR_VAR_TLS: case MR_VAR_SYMBOL:
			s->p[k].span = vi->bytes;
			s->p[k].laid = vi->bytes > 0;
			s->p[k].align = vi->lo % s->page_size;
			break;
		case MR_VAR_HEAP:
			s->p[k].laid = 1;
			break;
		default:
			break; /* stacks, locals, runtimes, unknown: no layout to draw */
		}
	}
	if (lay_heap(s, a))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		s->p[k].laid = s->p[k].laid && s->p[k].span > 0;
		if (s->p[k].laid)
			cut_blocks(&s->p[k], s->page_size);
	}
	return 0;
}

/* The time bins: the selected regions' span cut into at most MR_PATTERN_MAX_BINS. */
static void time_bins(struct mr_pattern_set *s, const struct mr_pattern_in *in)
{
	uint64_t t0 = UINT64_MAX, t1 = 0;

	for (size_t i = 0; i < in->run->nregions; i++) {
		const struct memphis_rec_region *reg = &in->run->regions[i];

		if (!in->selected(in->arg, reg->seq) || reg->t_end <= reg->t_start)
			continue;
		t0 = reg->t_start < t0 ? reg->t_start : t0;
		t1 = reg->t_end > t1 ? reg->t_end : t1;
	}
	if (t1 <= t0 || t0 == UINT64_MAX)
		return;
	s->t0 = t0;
	s->bin_ns = (t1 - t0 + MR_PATTERN_MAX_BINS - 1) / MR_PATTERN_MAX_BINS;
	s->nbins = (uint32_t)((t1 - t0 + s->bin_ns - 1) / s->bin_ns);
}

/* The offset of addr (thread tid, time t) in p's layout into *off; 0 when not found. */
static int place(struct mr_pattern *p, struct mr_attrib *a, const struct mr_varinfo *vi,
		 uint64_t addr, uint64_t t, uint32_t tid, uint64_t *off)
{
	struct mr_extent e;
	size_t lo = 0, hi = p->nheap;

	if (vi->kind != MR_VAR_TLS && addr >= p->last.lo && addr < p->last.hi &&
	    t >= p->last.t0 && t < p->last.t1) {
		*off = p->last_off + (addr - p->last.lo);
		return *off < p->span;
	}
	if (mr_attrib_data_extent(a, addr, t, tid, &e) != p->var || e.hi <= e.lo)
		return 0;
	if (e.heap_index != SIZE_MAX) {
		while (lo < hi) { /* heap_idx ascends */
			size_t mid = lo + (hi - lo) / 2;

			if (p->heap_idx[mid] < e.heap_index)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == p->nheap || p->heap_idx[lo] != e.heap_index)
			return 0;
		p->last_off = p->heap_off[lo];
	} else {
		p->last_off = 0;
	}
	p->last = e;
	*off = p->last_off + (addr - e.lo);
	return *off < p->span;
}

/* Count sample sm of pattern p, at offset off. 0 or -ENOMEM. */
static int count(struct mr_pattern_set *s, struct mr_pattern *p,
		 const struct memphis_rec_sample *sm, uint32_t cpu_node, int page_node,
		 uint64_t off)
{
	uint32_t block = (uint32_t)(off / p->block);
	uint32_t pn = page_node >= 0 && (uint32_t)page_node < s->nnodes ? (uint32_t)page_node
									  : s->nnodes;
	uint64_t *c, bin;

	p->samples++;
	if (sm->flags & (MPH_S_LOAD | MPH_S_STORE)) {
		p->rw_known = 1;
		p->writes += !!(sm->flags & MPH_S_STORE);
		p->reads += !(sm->flags & MPH_S_STORE);
	}
	if (!(c = mph_u64map_put(&p->tb_map, KEY_TB(sm->tid, block), 0)))
		return -ENOMEM;
	++*c;
	if (!(c = mph_u64map_put(&p->node_map, (uint64_t)sm->tid << NODE_BITS | cpu_node, 0)))
		return -ENOMEM;
	++*c;
	if (!mph_u64map_put(&p->page_map, sm->addr / s->page_size, (uint64_t)block << 32 | pn))
		return -ENOMEM;
	if ((off + p->align) / s->page_size < (1ull << 31)) {
		if (!(c = mph_u64map_put(&p->cut_map, KEY_PT((off + p->align) / s->page_size, sm->tid),
					 0)))
			return -ENOMEM;
		++*c;
	}
	if (!s->nbins)
		return 0;
	bin = sm->time > s->t0 ? (sm->time - s->t0) / s->bin_ns : 0;
	bin = bin < s->nbins ? bin : s->nbins - 1;
	if (!(c = mph_u64map_put(&p->time_map, KEY_TIME(bin, block, sm->tid), 0)))
		return -ENOMEM;
	++*c;
	return 0;
}

static void ignore_note(void *arg, int damage, const char *msg)
{
	(void)arg, (void)damage, (void)msg; /* the first pass told them */
}

static void ignore_warn(void *arg, const char *msg)
{
	(void)arg, (void)msg;
}

/* One sample of the pass, attributed (mr_pattern_pass): counted when its variable is one
 * of s's. 0 or -ENOMEM. */
static int pass_sample(void *arg, const struct mr_pattern_in *in,
		       const struct memphis_rec_sample *sm, const struct mr_resolved *res)
{
	struct mr_pattern_set *s = arg;
	struct mr_pattern *p;
	uint64_t *pos, off;
	uint32_t cpu_node;

	if (!(pos = mph_u64map_put(&s->all, sm->tid, 0)))
		return -ENOMEM;
	++*pos;
	if (!(pos = mph_u64map_get(&s->by_var, res->var)))
		return 0;
	p = &s->p[*pos];
	if (!p->laid)
		return 0;
	if (!place(p, in->a, mr_attrib_var(in->a, p->var), sm->addr, sm->time, sm->tid, &off)) {
		p->unplaced++;
		return 0;
	}
	cpu_node = sm->cpu < in->run->ncpus ? in->cpu_node[sm->cpu] : in->nnodes;
	if (cpu_node >= (1u << NODE_BITS))
		cpu_node = in->nnodes;
	return count(s, p, sm, cpu_node, res->page_node, off);
}

int mr_pattern_pass(const struct mr_pattern_in *in, mr_pattern_fn *fn, void *arg)
{
	struct mr_attrib_ctx *ctx = mr_attrib_ctx_new(in->a, ignore_warn, NULL);
	struct mr_sample_iter *it = NULL;
	const struct memphis_rec_sample *sm;
	int rc = ctx ? 0 : -ENOMEM;
	size_t n;

	if (!rc)
		rc = mr_samples_begin_files(in->run, 0, in->run->ncpufiles, ignore_note, NULL, &it);
	while (!rc && (n = mr_samples_next(it, &sm)) > 0)
		for (size_t i = 0; i < n && !rc; i++) {
			const struct memphis_rec_sample *x = &sm[i];
			const struct memphis_rec_stack *stk = NULL;
			const uint8_t *bytes = NULL;
			struct mr_resolved res;

			/* what the tables leave out: the kernel's samples (report_kernel.c), fences */
			if (!in->selected(in->arg, x->region) || !(x->flags & in->addr_ok) ||
			    !x->addr || (x->flags & MPH_S_KERNEL))
				continue;
			if (x->flags & MPH_S_STACK)
				stk = mr_samples_stack(it, x, &bytes);
			if ((mr_attrib_sample_wait(ctx, x, stk, bytes, 1, &res) & MR_WAIT_FENCE) ||
			    res.self)
				continue;
			rc = fn(arg, in, x, &res);
		}
	if (it)
		mr_samples_end(it);
	mr_attrib_ctx_free(ctx);
	return rc;
}

/* The first touches into the blocks of the variables they touched (pages per thread). */
static int touches(struct mr_pattern_set *s, const struct mr_pattern_in *in)
{
	uint64_t ps = s->page_size, off, *c, *pos;

	for (size_t i = 0; i < in->run->ntouches; i++) {
		const struct memphis_rec_touch *t = &in->run->touches[i];
		struct mr_extent e;
		uint32_t v = mr_attrib_data_extent(in->a, t->addr, t->time, t->tid, &e);
		uint64_t pages = 1;
		struct mr_pattern *p;

		if (!(pos = mph_u64map_get(&s->by_var, v)) || !s->p[*pos].laid)
			continue;
		p = &s->p[*pos];
		if (!place(p, in->a, mr_attrib_var(in->a, v), t->addr, t->time, t->tid, &off))
			continue;
		if ((t->flags & MPH_TOUCH_HUGE) && t->page_shift > 12 && t->page_shift < 40 &&
		    (1ull << t->page_shift) > ps)
			pages = (1ull << t->page_shift) / ps;
		if (!(c = mph_u64map_put(&p->touch_map, KEY_TB(t->tid, off / p->block), 0)))
			return -ENOMEM;
		*c += pages;
	}
	return 0;
}

/* Threads by index (unknown last), then tid. */
static int cmp_thread(const void *x, const void *y)
{
	const struct mr_pattern_thread *a = x, *b = y;
	unsigned ia = (unsigned)a->index, ib = (unsigned)b->index; /* -1: last */

	if (ia != ib)
		return ia < ib ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

/* p->threads from the samples, with tpos: tid -> position. 0 or -ENOMEM. */
static int finish_threads(struct mr_pattern_set *s, struct mr_pattern *p, struct mr_attrib *a,
			  struct mph_u64map *tpos)
{
	uint64_t *best, *c;

	for (size_t i = 0; i <= p->tb_map.mask; i++) {
		uint64_t k = p->tb_map.slot[i].key;

		if (k == MPH_U64MAP_EMPTY)
			continue;
		if (!(c = mph_u64map_put(tpos, k >> 8, 0)))
			return -ENOMEM;
		*c += p->tb_map.slot[i].val;
	}
	p->threads = calloc(tpos->count ? tpos->count : 1, sizeof(*p->threads));
	best = calloc(tpos->count ? tpos->count : 1, sizeof(*best));
	if (!p->threads || !best) {
		free(best);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= tpos->mask; i++)
		if (tpos->slot[i].key != MPH_U64MAP_EMPTY) {
			uint32_t tid = (uint32_t)tpos->slot[i].key;
			const uint64_t *all = mph_u64map_get(&s->all, tid);

			p->threads[p->nthreads++] = (struct mr_pattern_thread){
				tid, mr_attrib_thread_index(a, tid), s->nnodes, tpos->slot[i].val,
				all ? *all : 0 };
		}
	qsort(p->threads, p->nthreads, sizeof(*p->threads), cmp_thread);
	for (size_t t = 0; t < p->nthreads; t++)
		*mph_u64map_get(tpos, p->threads[t].tid) = t;
	for (size_t i = 0; i <= p->node_map.mask; i++) {
		uint64_t k = p->node_map.slot[i].key, n = p->node_map.slot[i].val;
		uint32_t node = (uint32_t)(k & ((1u << NODE_BITS) - 1));
		size_t t;

		if (k == MPH_U64MAP_EMPTY || node >= s->nnodes)
			continue;
		t = *mph_u64map_get(tpos, k >> NODE_BITS);
		if (n > best[t] || (n == best[t] && node < p->threads[t].node)) {
			best[t] = n;
			p->threads[t].node = node;
		}
	}
	free(best);
	return 0;
}

/* p->home: per block the known node of most sampled pages. 0 or -ENOMEM. */
static int finish_home(struct mr_pattern_set *s, struct mr_pattern *p)
{
	size_t w = (size_t)s->nnodes + 1;
	uint64_t *n = calloc(p->nblocks * w, sizeof(*n));

	p->nnodes = s->nnodes;
	p->home = malloc(p->nblocks * sizeof(*p->home));
	if (!n || !p->home) {
		free(n);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= p->page_map.mask; i++)
		if (p->page_map.slot[i].key != MPH_U64MAP_EMPTY) {
			uint64_t v = p->page_map.slot[i].val;

			n[(v >> 32) * w + (uint32_t)v]++;
		}
	for (uint32_t b = 0; b < p->nblocks; b++) {
		uint64_t most = 0;

		p->home[b] = s->nnodes;
		for (uint32_t k = 0; k < s->nnodes; k++)
			if (n[b * w + k] > most) {
				most = n[b * w + k];
				p->home[b] = k;
			}
	}
	free(n);
	return 0;
}

/* p->first_touch: per block the thread that first touched most pages (lowest tid among
 * equals). 0 or -ENOMEM. */
static int finish_touch(struct mr_pattern *p, const struct mph_u64map *tpos)
{
	uint64_t *most = calloc(p->nblocks, sizeof(*most));
	uint32_t *who = calloc(p->nblocks, sizeof(*who));

	p->first_touch = malloc(p->nblocks * sizeof(*p->first_touch));
	if (!most || !who || !p->first_touch) {
		free(most);
		free(who);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= p->touch_map.mask; i++) {
		uint64_t k = p->touch_map.slot[i].key, n = p->touch_map.slot[i].val;
		uint32_t b = (uint32_t)(k & 0xff), tid = (uint32_t)(k >> 8);

		if (k == MPH_U64MAP_EMPTY || b >= p->nblocks)
			continue;
		if (n > most[b] || (n == most[b] && tid < who[b])) {
			most[b] = n;
			who[b] = tid;
		}
	}
	for (uint32_t b = 0; b < p->nblocks; b++) {
		const uint64_t *t = most[b] ? mph_u64map_get(tpos, who[b]) : NULL;

		p->first_touch[b] = !most[b] ? MR_PATTERN_FT_UNKNOWN
				    : t ? (int32_t)*t : MR_PATTERN_FT_OTHER;
	}
	free(most);
	free(who);
	return 0;
}

static int cmp_u64pair(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}

/* p->cells: the time map summed by (bin, block), ordered, with the thread of most. */
static int finish_cells(struct mr_pattern *p, const struct mph_u64map *tpos)
{
	size_t n = 0, m = p->time_map.count;
	uint64_t (*e)[2] = malloc((m ? m : 1) * sizeof(*e)), most = 0;

	p->cells = malloc((m ? m : 1) * sizeof(*p->cells));
	if (!e || !p->cells) {
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= p->time_map.mask; i++)
		if (p->time_map.slot[i].key != MPH_U64MAP_EMPTY) {
			e[n][0] = p->time_map.slot[i].key;
			e[n++][1] = p->time_map.slot[i].val;
		}
	qsort(e, n, sizeof(*e), cmp_u64pair);
	for (size_t i = 0; i < n; i++) {
		struct mr_pattern_cell *c = &p->cells[p->ncells];
		uint32_t tid = (uint32_t)e[i][0];

		if (!i || e[i][0] >> 32 != e[i - 1][0] >> 32) {
			*c = (struct mr_pattern_cell){ (uint32_t)(e[i][0] >> 40),
						       (uint32_t)(e[i][0] >> 32) & 0xff, 0, 0 };
			p->ncells++;
			most = 0;
		} else {
			c--;
		}
		c->n += e[i][1];
		if (e[i][1] > most) {
			most = e[i][1];
			c->thread = (uint32_t)*mph_u64map_get(tpos, tid);
		}
	}
	free(e);
	return 0;
}

/* p->page_no and p->page_nodes from the cut map, by the threads' nodes. 0 or -ENOMEM. */
static int finish_pages(struct mr_pattern *p, const struct mph_u64map *tpos)
{
	size_t m = p->cut_map.count, n = 0, nn = p->nnodes;
	uint64_t (*e)[2] = malloc((m ? m : 1) * sizeof(*e));

	p->page_no = malloc((m ? m : 1) * sizeof(*p->page_no));
	p->page_nodes = calloc(m * nn + 1, sizeof(*p->page_nodes));
	if (!e || !p->page_no || !p->page_nodes) {
		free(e);
		return -ENOMEM;
	}
	for (size_t i = 0; i <= p->cut_map.mask; i++)
		if (p->cut_map.slot[i].key != MPH_U64MAP_EMPTY) {
			e[n][0] = p->cut_map.slot[i].key;
			e[n++][1] = p->cut_map.slot[i].val;
		}
	qsort(e, n, sizeof(*e), cmp_u64pair);
	for (size_t i = 0; i < n; i++) {
		uint32_t node = p->threads[*mph_u64map_get(tpos, (uint32_t)e[i][0])].node;

		if (!p->npages || p->page_no[p->npages - 1] != e[i][0] >> 32)
			p->page_no[p->npages++] = e[i][0] >> 32;
		if (node < nn)
			p->page_nodes[(p->npages - 1) * nn + node] += e[i][1];
	}
	free(e);
	return 0;
}

/* The dense arrays of p from its maps. 0 or -ENOMEM. */
static int finish(struct mr_pattern_set *s, struct mr_pattern *p, struct mr_attrib *a)
{
	struct mph_u64map tpos;
	int rc = mph_u64map_init(&tpos, 16);

	if (!rc)
		rc = finish_threads(s, p, a, &tpos);
	if (!rc) {
		p->tb = calloc(p->nthreads * p->nblocks + 1, sizeof(*p->tb));
		rc = p->tb ? 0 : -ENOMEM;
	}
	for (size_t i = 0; !rc && i <= p->tb_map.mask; i++) {
		uint64_t k = p->tb_map.slot[i].key;

		if (k != MPH_U64MAP_EMPTY)
			p->tb[*mph_u64map_get(&tpos, k >> 8) * p->nblocks + (k & 0xff)] =
				p->tb_map.slot[i].val;
	}
	if (!rc)
		rc = finish_home(s, p) || finish_touch(p, &tpos) || finish_cells(p, &tpos) ||
				     finish_pages(p, &tpos)
			     ? -ENOMEM : 0;
	mph_u64map_free(&tpos);
	return rc;
}

int mr_pattern_build(struct mr_pattern_set *s, const struct mr_pattern_in *in,
		     const uint32_t *vars, size_t n)
{
	memset(s, 0, sizeof(*s));
	s->nnodes = in->nnodes;
	s->page_size = mr_attrib_page_size(in->a);
	if (!s->page_size)
		s->page_size = 4096;
	if (layout(s, in->a, vars, n))
		return -ENOMEM;
	time_bins(s, in);
	if (mr_pattern_pass(in, pass_sample, s) || touches(s, in))
		return -ENOMEM;
	for (size_t k = 0; k < s->n; k++)
		if (s->p[k].laid && finish(s, &s->p[k], in->a))
			return -ENOMEM;
	return 0;
}

void mr_pattern_free(struct mr_pattern_set *s)
{
	for (size_t k = 0; s->p && k < s->n; k++) {
		struct mr_pattern *p = &s->p[k];

		mph_u64map_free(&p->tb_map);
		mph_u64map_free(&p->node_map);
		mph_u64map_free(&p->page_map);
		mph_u64map_free(&p->touch_map);
		mph_u64map_free(&p->time_map);
		mph_u64map_free(&p->cut_map);
		free(p->heap_idx);
		free(p->heap_off);
		free(p->threads);
		free(p->tb);
		free(p->home);
		free(p->first_touch);
		free(p->cells);
		free(p->page_no);
		free(p->page_nodes);
	}
	free(s->p);
	mph_u64map_free(&s->by_var);
	mph_u64map_free(&s->all);
	memset(s, 0, sizeof(*s));
}

const struct mr_pattern *mr_pattern_of(const struct mr_pattern_set *s, uint32_t var)
{
	const uint64_t *pos = s->by_var.slot ? mph_u64map_get(&s->by_var, var) : NULL;

	return pos ? &s->p[*pos] : NULL;
}
