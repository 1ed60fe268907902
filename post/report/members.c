/* post/report/members.c - a variable's samples by member, and its lines stored to from two
 * nodes (members.h): a second pass over the samples, then the dense results. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "binary/layout.h"
#include "hash.h"
#include "members.h"

#define NONE UINT32_MAX

/* What the pass counts beyond the members: the store samples per (variable, region
 * instance, line, node) (STORES), per (variable, line, node, member, source line) (FROM)
 * and every sample per (variable, line) (ON_LINE), in one array found through a map of
 * their keys' hashes (slot). */
enum tkind { STORES, FROM, ON_LINE };

struct ent {
	uint64_t line;            /* address / MR_MEMBERS_LINE */
	uint64_t obj_lo;          /* the first byte of the object the line was sampled in */
	uint32_t kind, var, region, node, leaf, code; /* var: position in s->v */
	uint64_t n;
};

/* One member's counts during the pass (a leaf of the layout). */
struct acc {
	uint64_t samples, loads, stores;
	uint64_t *matrix, *stores_by_node, *loads_by_node;
	struct mph_u64map tids;   /* tid -> samples */
};

struct priv {
	struct acc **acc;         /* [var position][leaf] */
	struct ent *e;
	size_t ne, cape;
	struct mph_u64map slot;   /* a key's hash (salted past another key's) -> index in e */
	struct mph_u64map by_var; /* var id -> position in s->v */
};

static uint64_t ent_hash(const struct ent *k)
{
	uint64_t h = mph_hash64(k->line ^ (uint64_t)k->kind << 60);

	h = mph_hash64(h ^ ((uint64_t)k->var << 32 | k->region));
	h = mph_hash64(h ^ ((uint64_t)k->node << 32 | k->leaf));
	return mph_hash64(h ^ k->code);
}

static int ent_same(const struct ent *a, const struct ent *b)
{
	return a->line == b->line && a->kind == b->kind && a->var == b->var &&
	       a->region == b->region && a->node == b->node && a->leaf == b->leaf &&
	       a->code == b->code;
}

/* Add n to the entry of key k (made when new). 0 or -ENOMEM. */
static int count_ent(struct priv *p, const struct ent *k, uint64_t n)
{
	uint64_t h = ent_hash(k), *i;

	for (;; h = mph_hash64(h)) { /* a hash another key holds (or the map's empty key): on */
		if (h == MPH_U64MAP_EMPTY)
			continue;
		if (!(i = mph_u64map_get(&p->slot, h)))
			break;
		if (ent_same(&p->e[*i], k)) {
			p->e[*i].n += n;
			return 0;
		}
	}
	if (p->ne == p->cape) {
		size_t nc = p->cape ? p->cape * 2 : 1024;
		struct ent *ne = realloc(p->e, nc * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		p->e = ne;
		p->cape = nc;
	}
	if (!mph_u64map_put(&p->slot, h, p->ne))
		return -ENOMEM;
	p->e[p->ne] = *k;
	p->e[p->ne++].n = n;
	return 0;
}

/* Count sample sm of variable position k at offset off of its object (lo). 0 or -ENOMEM. */
static int count(struct mr_members *s, size_t k, const struct memphis_rec_sample *sm,
		 uint32_t cpu_node, uint32_t page_node, uint64_t lo, uint32_t code)
{
	struct priv *p = s->priv;
	size_t w = (size_t)s->nnodes + 1;
	int leaf = mr_layout_leaf(s->v[k].layout, sm->addr - lo);
	struct ent key = { sm->addr / MR_MEMBERS_LINE, lo, ON_LINE, (uint32_t)k, NONE, NONE, NONE,
			   NONE, 0 };
	struct acc *a;
	uint64_t *c;

	s->v[k].samples++;
	if (count_ent(p, &key, 1))
		return -ENOMEM;
	if (sm->flags & MPH_S_STORE) {
		key.kind = STORES;
		key.region = sm->region;
		key.node = cpu_node;
		if (count_ent(p, &key, 1))
			return -ENOMEM;
		key.kind = FROM;
		key.region = NONE;
		key.leaf = leaf < 0 ? NONE : (uint32_t)leaf;
		key.code = code;
		if (count_ent(p, &key, 1))
			return -ENOMEM;
	}
	if (leaf < 0) {
		s->v[k].padding++;
		return 0;
	}
	a = &p->acc[k][leaf];
	if (!a->matrix) {
		a->matrix = calloc(w * w + 2 * w, sizeof(*a->matrix));
		if (!a->matrix || mph_u64map_init(&a->tids, 8))
			return -ENOMEM;
		a->stores_by_node = a->matrix + w * w;
		a->loads_by_node = a->stores_by_node + w;
	}
	a->samples++;
	a->matrix[cpu_node * w + page_node]++;
	if (sm->flags & MPH_S_STORE) {
		a->stores++;
		a->stores_by_node[cpu_node]++;
	} else if (sm->flags & MPH_S_LOAD) {
		a->loads++;
		a->loads_by_node[cpu_node]++;
	}
	if (!(c = mph_u64map_put(&a->tids, sm->tid, 0)))
		return -ENOMEM;
	++*c;
	return 0;
}

/* One sample of the pass, attributed (mr_pattern_pass): counted when its variable is one
 * of s's. 0 or -ENOMEM. */
static int pass_sample(void *arg, const struct mr_pattern_in *in,
		       const struct memphis_rec_sample *sm, const struct mr_resolved *res)
{
	struct mr_members *s = arg;
	struct priv *p = s->priv;
	struct mr_extent e;
	uint64_t *pos;
	uint32_t cpu_node, page_node;

	if (!(pos = mph_u64map_get(&p->by_var, res->var)) ||
	    mr_attrib_data_extent(in->a, sm->addr, sm->time, sm->tid, &e) != res->var ||
	    e.hi <= e.lo)
		return 0;
	cpu_node = sm->cpu < in->run->ncpus && in->cpu_node[sm->cpu] < s->nnodes
			   ? in->cpu_node[sm->cpu] : s->nnodes;
	page_node = res->page_node >= 0 && (uint32_t)res->page_node < s->nnodes
			    ? (uint32_t)res->page_node : s->nnodes;
	return count(s, (size_t)*pos, sm, cpu_node, page_node, e.lo, res->line);
}

/* Entries by kind, variable, line, region, node, then most first. */
static int cmp_ent(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->var != b->var)
		return a->var < b->var ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->region != b->region)
		return a->region < b->region ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->n > b->n ? -1 : a->n < b->n;
}

/* The first entry of kind, var and line in the sorted e[0 .. n), or n. */
static size_t find(const struct ent *e, size_t n, uint32_t kind, uint32_t var, uint64_t line)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ent *m = &e[mid];

		if (m->kind < kind || (m->kind == kind && (m->var < var || (m->var == var &&
									      m->line < line))))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int cmp_side(const void *x, const void *y)
{
	const struct mr_line_side *a = x, *b = y;

	return a->stores > b->stores ? -1 : a->stores < b->stores ? 1 : (a->node > b->node) -
									(a->node < b->node);
}

static int cmp_line(const void *x, const void *y)
{
	const struct mr_shared_line *a = x, *b = y;
	uint64_t na = a->side[0].stores + a->side[1].stores, nb = b->side[0].stores +
								 b->side[1].stores;

	return na > nb ? -1 : na < nb ? 1 : (a->off > b->off) - (a->off < b->off);
}

/* The shared lines of variable position k from the sorted entries [lo, hi) of its STORES:
 * per line, the stores of each node in the region instances two nodes or more stored in. */
static int shared_lines(struct mr_members *s, size_t k, const struct ent *e, size_t ne,
			size_t lo, size_t hi)
{
	struct mr_member_var *v = &s->v[k];
	struct mr_line_side *by = calloc((size_t)s->nnodes + 1, sizeof(*by));

	if (!by)
		return -ENOMEM;
	for (size_t i = lo; i < hi;) { /* one line */
		size_t j = i, nn = 0;

		memset(by, 0, ((size_t)s->nnodes + 1) * sizeof(*by));
		while (j < hi && e[j].line == e[i].line) { /* its instances */
			size_t r = j, nodes = 0;

			while (r < hi && e[r].line == e[j].line && e[r].region == e[j].region)
				nodes += e[r++].node < s->nnodes;
			for (; nodes >= 2 && j < r; j++)
				by[e[j].node].stores += e[j].node < s->nnodes ? e[j].n : 0;
			j = r;
		}
		for (uint32_t n = 0; n < s->nnodes; n++) {
			by[n].node = n;
			nn += by[n].stores > 0;
		}
		if (nn >= 2) {
			struct mr_shared_line *l, *nl;
			size_t f;

			qsort(by, s->nnodes, sizeof(*by), cmp_side);
			if (by[1].stores < MR_MEMBERS_MIN_SIDE) {
				v->lines_under_min++;
				i = j;
				continue;
			}
			nl = realloc(v->lines, (v->nlines + 1) * sizeof(*nl));
			if (!nl) {
				free(by);
				return -ENOMEM;
			}
			v->lines = nl;
			l = &v->lines[v->nlines++];
			memset(l, 0, sizeof(*l));
			l->off = (int64_t)(e[i].line * MR_MEMBERS_LINE) - (int64_t)e[i].obj_lo;
			l->nnodes = (uint32_t)nn;
			f = find(e, ne, ON_LINE, (uint32_t)k, e[i].line);
			l->samples = f < ne && e[f].kind == ON_LINE && e[f].var == k &&
					     e[f].line == e[i].line ? e[f].n : 0;
			for (int sd = 0; sd < 2; sd++) { /* the member and code it stored most from */
				uint64_t most = 0;

				l->side[sd] = by[sd];
				l->side[sd].leaf = -1;
				for (f = find(e, ne, FROM, (uint32_t)k, e[i].line);
				     f < ne && e[f].kind == FROM && e[f].var == k && e[f].line == e[i].line; f++)
					if (e[f].node == by[sd].node && e[f].n > most) {
						most = e[f].n;
						l->side[sd].leaf = e[f].leaf == NONE ? -1 : (int)e[f].leaf;
						l->side[sd].code = e[f].code;
					}
			}
		}
		i = j;
	}
	free(by);
	qsort(v->lines, v->nlines, sizeof(*v->lines), cmp_line);
	return 0;
}

static int cmp_tid(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[1] > b[1] ? -1 : a[1] < b[1] ? 1 : (a[0] > b[0]) - (a[0] < b[0]);
}

/* v's members from the pass's counts of position k. 0 or -ENOMEM. */
static int finish_members(struct mr_members *s, size_t k)
{
	struct priv *p = s->priv;
	struct mr_member_var *v = &s->v[k];
	size_t nl = mr_layout_count(v->layout);

	v->m = calloc(nl ? nl : 1, sizeof(*v->m));
	if (!v->m)
		return -ENOMEM;
	for (size_t i = 0; i < nl; i++) {
		struct acc *a = &p->acc[k][i];
		struct mr_member *m = &v->m[v->nm];
		uint64_t (*t)[2];

		if (!a->samples)
			continue;
		*m = (struct mr_member){ (uint32_t)i, a->samples, a->loads, a->stores, a->matrix,
					 a->stores_by_node, a->loads_by_node, NULL, NULL, 0 };
		a->matrix = NULL; /* now the member's */
		v->nm++;
		t = malloc((a->tids.count ? a->tids.count : 1) * sizeof(*t));
		m->tids = malloc((a->tids.count ? a->tids.count : 1) * sizeof(*m->tids));
		m->tid_n = malloc((a->tids.count ? a->tids.count : 1) * sizeof(*m->tid_n));
		if (!t || !m->tids || !m->tid_n) {
			free(t);
			return -ENOMEM;
		}
		for (size_t j = 0; j <= a->tids.mask; j++)
			if (a->tids.slot[j].key != MPH_U64MAP_EMPTY) {
				t[m->ntids][0] = a->tids.slot[j].key;
				t[m->ntids++][1] = a->tids.slot[j].val;
			}
		qsort(t, m->ntids, sizeof(*t), cmp_tid);
		for (size_t j = 0; j < m->ntids; j++) {
			m->tids[j] = (uint32_t)t[j][0];
			m->tid_n[j] = t[j][1];
		}
		free(t);
	}
	return 0;
}

int mr_members_build(struct mr_members *s, const struct mr_pattern_in *in,
		     const uint32_t *vars, size_t n)
{
	struct priv *p = calloc(1, sizeof(*p));
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->priv = p;
	s->nnodes = in->nnodes;
	s->v = calloc(n ? n : 1, sizeof(*s->v));
	if (!p || !s->v || mph_u64map_init(&p->by_var, n * 2 + 2) ||
	    mph_u64map_init(&p->slot, 1024) ||
	    !(p->acc = calloc(n ? n : 1, sizeof(*p->acc))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct mr_layout *l = mr_attrib_layout(in->a, vars[i]);

		if (!l)
			continue;
		s->v[s->n] = (struct mr_member_var){ .var = vars[i], .layout = l };
		p->acc[s->n] = calloc(mr_layout_count(l) + 1, sizeof(**p->acc));
		if (!p->acc[s->n] || !mph_u64map_put(&p->by_var, vars[i], s->n))
			return -ENOMEM;
		s->n++;
	}
	if (s->n)
		rc = mr_pattern_pass(in, pass_sample, s);
	if (!rc && p->ne)
		qsort(p->e, p->ne, sizeof(*p->e), cmp_ent);
	for (size_t k = 0; !rc && k < s->n; k++) {
		size_t lo = find(p->e, p->ne, STORES, (uint32_t)k, 0), hi = lo;

		while (hi < p->ne && p->e[hi].kind == STORES && p->e[hi].var == k)
			hi++;
		rc = finish_members(s, k);
		if (!rc)
			rc = shared_lines(s, k, p->e, p->ne, lo, hi);
	}
	return rc;
}

void mr_members_free(struct mr_members *s)
{
	struct priv *p = s->priv;

	for (size_t k = 0; s->v && k < s->n; k++) {
		size_t nl = mr_layout_count(s->v[k].layout);

		for (size_t i = 0; p && p->acc && p->acc[k] && i < nl; i++) {
			free(p->acc[k][i].matrix);
			mph_u64map_free(&p->acc[k][i].tids);
		}
		if (p && p->acc)
			free(p->acc[k]);
		for (size_t i = 0; i < s->v[k].nm; i++) {
			free(s->v[k].m[i].matrix);
			free(s->v[k].m[i].tids);
			free(s->v[k].m[i].tid_n);
		}
		free(s->v[k].m);
		free(s->v[k].lines);
	}
	if (p) {
		free(p->acc);
		free(p->e);
		mph_u64map_free(&p->slot);
		mph_u64map_free(&p->by_var);
		free(p);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* The users of member m: the nodes (by_node) or threads with MR_MEMBERS_USER of its samples
 * at least, into u (room for nnodes + 1, or m->ntids); their count. */
static size_t users(const struct mr_members *s, const struct mr_member *m, int by_node,
		    uint32_t *u)
{
	size_t w = (size_t)s->nnodes + 1, n = 0;

	if (!by_node) {
		for (size_t t = 0; t < m->ntids; t++)
			if ((double)m->tid_n[t] >= MR_MEMBERS_USER * (double)m->samples)
				u[n++] = m->tids[t];
		return n;
	}
	for (uint32_t c = 0; c < s->nnodes; c++) {
		uint64_t row = 0;

		for (size_t pn = 0; pn < w; pn++)
			row += m->matrix[c * w + pn];
		if ((double)row >= MR_MEMBERS_USER * (double)m->samples)
			u[n++] = c;
	}
	return n;
}

/* Samples of member m by user u (a node index by_node, else a tid). */
static uint64_t by_user(const struct mr_members *s, const struct mr_member *m, int by_node,
			uint32_t u)
{
	size_t w = (size_t)s->nnodes + 1;
	uint64_t n = 0;

	for (size_t i = 0; !by_node && i < m->ntids; i++)
		n += m->tids[i] == u ? m->tid_n[i] : 0;
	for (size_t pn = 0; by_node && pn < w; pn++)
		n += m->matrix[(size_t)u * w + pn];
	return n;
}

int mr_member_advise(const struct mr_members *s, const struct mr_member_var *v,
		     uint64_t elements, struct mr_member_advice *out)
{
	size_t w = (size_t)s->nnodes + 1, cap = v->nm ? v->nm : 1, nodes = 0;
	uint32_t *u = NULL;
	int by_node;

	memset(out, 0, sizeof(*out));
	/* users are nodes where the members' samples come from two or more of them */
	for (uint32_t c = 0; c < s->nnodes; c++) {
		uint64_t row = 0;

		for (size_t i = 0; i < v->nm; i++)
			for (size_t pn = 0; pn < w; pn++)
				row += v->m[i].matrix[c * w + pn];
		nodes += row > 0;
	}
	by_node = nodes >= 2;
	out->by_thread = !by_node;
	for (size_t i = 0; i < v->nm; i++)
		cap = v->m[i].ntids + w > cap ? v->m[i].ntids + w : cap;
	u = malloc(cap * sizeof(*u));
	out->rw_one = malloc((v->nm ? v->nm : 1) * sizeof(*out->rw_one));
	out->rw_writer = malloc((v->nm ? v->nm : 1) * sizeof(*out->rw_writer));
	if (!u || !out->rw_one || !out->rw_writer) {
		free(u);
		return -ENOMEM;
	}
	for (size_t i = 0; i < v->nm; i++) {
		const struct mr_member *m = &v->m[i];
		uint64_t off, bytes;
		size_t g;

		if (m->samples < MR_MEMBERS_MIN_USE || users(s, m, by_node, u) != 1)
			continue; /* too few samples, or shared by several users: no group */
		for (g = 0; g < out->ngroups && out->group[g].user != u[0]; g++)
			;
		if (g == out->ngroups) {
			if (g == sizeof(out->group) / sizeof(out->group[0]))
				continue;
			out->group[g] = (struct mr_member_group){ NULL, 0, 0, u[0], 0 };
			out->group[g].members = malloc(v->nm * sizeof(size_t));
			if (!out->group[g].members) {
				free(u);
				return -ENOMEM;
			}
			out->ngroups++;
		}
		out->group[g].members[out->group[g].n++] = i;
		mr_layout_name(v->layout, m->leaf, &off, &bytes);
		out->group[g].bytes += bytes;
	}
	for (size_t g = 0; g < out->ngroups; g++) {
		uint64_t all = 0, mine = 0;

		for (size_t k = 0; k < out->group[g].n; k++) {
			const struct mr_member *m = &v->m[out->group[g].members[k]];

			all += m->samples;
			mine += by_user(s, m, by_node, out->group[g].user);
		}
		out->group[g].share = all ? (double)mine / (double)all : 0;
	}
	if (out->ngroups < 2 || elements < 2) { /* one group (or none), one struct: no split */
		for (size_t g = 0; g < out->ngroups; g++)
			free(out->group[g].members);
		out->ngroups = 0;
	}
	for (size_t i = 0; by_node && i < v->nm; i++) { /* read by every user, written by one */
		const struct mr_member *m = &v->m[i];
		size_t readers = 0, writers = 0;
		uint32_t writer = 0;

		if (m->samples < MR_MEMBERS_MIN_USE || m->stores < MR_MEMBERS_MIN_SIDE)
			continue;
		for (uint32_t c = 0; c < s->nnodes; c++) {
			readers += (double)m->loads_by_node[c] >= MR_MEMBERS_USER * (double)m->loads &&
				   m->loads_by_node[c] > 0;
			if ((double)m->stores_by_node[c] >= MR_MEMBERS_USER * (double)m->stores &&
			    m->stores_by_node[c] > 0) {
				writers++;
				writer = c;
			}
		}
		if (readers >= 2 && writers == 1) {
			out->rw_one[out->nrw_one] = i;
			out->rw_writer[out->nrw_one++] = writer;
		}
	}
	free(u);
	return 0;
}

void mr_member_advice_free(struct mr_member_advice *a)
{
	for (size_t g = 0; g < a->ngroups; g++)
		free(a->group[g].members);
	free(a->rw_one);
	free(a->rw_writer);
	memset(a, 0, sizeof(*a));
}
