/* post/report/pollwait.c - the samples of the program's poll loops (see pollwait.h). */
#include "pollwait.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"

int mr_pollwait_init(struct mr_pollwait *p)
{
	memset(p, 0, sizeof(*p));
	if (mph_u64map_init(&p->n, 16) || mph_u64map_init(&p->head, 16)) {
		mr_pollwait_free(p);
		return -ENOMEM;
	}
	return 0;
}

void mr_pollwait_free(struct mr_pollwait *p)
{
	mph_u64map_free(&p->n);
	mph_u64map_free(&p->head);
}

static int add_n(struct mr_pollwait *p, uint64_t head, uint32_t line, uint32_t var, uint64_t n)
{
	uint64_t key = (uint64_t)line << 32 | var, *v, *h;

	if (key == MPH_U64MAP_EMPTY)
		return 0;
	if (!(v = mph_u64map_put(&p->n, key, 0)))
		return -ENOMEM;
	*v += n;
	if (!(h = mph_u64map_put(&p->head, line, head)))
		return -ENOMEM;
	if (head < *h)
		*h = head;
	p->total += n;
	return 0;
}

int mr_pollwait_add(struct mr_pollwait *p, uint64_t head, uint32_t line, uint32_t var)
{
	return add_n(p, head, line, var, 1);
}

int mr_pollwait_merge(struct mr_pollwait *dst, const struct mr_pollwait *src,
		      const uint32_t *var_map, size_t nvar, const uint32_t *line_map, size_t nline)
{
	for (size_t i = 0; src->n.slot && i <= src->n.mask; i++) {
		uint64_t key = src->n.slot[i].key;
		uint32_t line = (uint32_t)(key >> 32);
		const uint64_t *h;

		if (key == MPH_U64MAP_EMPTY || !(h = mph_u64map_get(&src->head, line)))
			continue;
		if (add_n(dst, *h, mr_agg_rename(line_map, nline, line),
			  mr_agg_rename(var_map, nvar, (uint32_t)key), src->n.slot[i].val))
			return -ENOMEM;
	}
	return 0;
}

struct cell {
	uint64_t head, n;
	uint32_t line, var;
};

static int by_head_var(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;

	if (a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return a->var < b->var ? -1 : a->var > b->var;
}

static int by_head_line(const void *x, const void *y)
{
	const struct cell *a = x, *b = y;

	if (a->head != b->head)
		return a->head < b->head ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

static int by_samples(const void *x, const void *y)
{
	const struct mr_pollwait_loop *a = x, *b = y;

	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return a->head < b->head ? -1 : a->head > b->head;
}

/* Loop l's variable from its cells c[0, n) sorted by variable. */
static void pick_var(struct mr_pollwait_loop *l, const struct cell *c, size_t n,
		     int (*is_local)(const void *, uint32_t), const void *arg)
{
	uint64_t best = 0;
	int best_local = 1;

	for (size_t i = 0, j; i < n; i = j) {
		uint64_t sum = 0;
		int local;

		for (j = i; j < n && c[j].var == c[i].var; j++)
			sum += c[j].n;
		if (!c[i].var)
			continue;
		local = is_local(arg, c[i].var);
		if (!l->var || (best_local && !local) || (local == best_local && sum > best)) {
			l->var = c[i].var;
			best = sum;
			best_local = local;
		}
	}
}

/* Loop l's top lines from its cells c[0, n) sorted by line. */
static void pick_lines(struct mr_pollwait_loop *l, const struct cell *c, size_t n)
{
	uint64_t top[3] = { 0 };
	const size_t k = sizeof(top) / sizeof(top[0]);

	for (size_t i = 0, j; i < n; i = j) {
		uint64_t sum = 0;
		size_t at;

		for (j = i; j < n && c[j].line == c[i].line; j++)
			sum += c[j].n;
		l->n += sum;
		for (at = 0; at < k && top[at] >= sum; at++)
			;
		if (at == k)
			continue;
		memmove(&top[at + 1], &top[at], (k - 1 - at) * sizeof(top[0]));
		memmove(&l->line[at + 1], &l->line[at], (k - 1 - at) * sizeof(l->line[0]));
		top[at] = sum;
		l->line[at] = c[i].line;
	}
}

size_t mr_pollwait_loops(const struct mr_pollwait *p, int (*is_local)(const void *, uint32_t),
			 const void *arg, struct mr_pollwait_loop *out, size_t max)
{
	struct cell *c = calloc(p->n.count ? p->n.count : 1, sizeof(*c));
	struct mr_pollwait_loop *l;
	size_t nc = 0, nl = 0;

	if (!c)
		return 0;
	for (size_t i = 0; p->n.slot && i <= p->n.mask; i++) {
		uint64_t key = p->n.slot[i].key;
		const uint64_t *h = key == MPH_U64MAP_EMPTY ? NULL
							    : mph_u64map_get(&p->head, key >> 32);

		if (h)
			c[nc++] = (struct cell){ *h, p->n.slot[i].val, (uint32_t)(key >> 32),
						 (uint32_t)key };
	}
	l = calloc(nc ? nc : 1, sizeof(*l));
	if (!l) {
		free(c);
		return 0;
	}
	qsort(c, nc, sizeof(*c), by_head_var);
	for (size_t i = 0, j; i < nc; i = j) {
		for (j = i; j < nc && c[j].head == c[i].head; j++)
			;
		l[nl].head = c[i].head;
		pick_var(&l[nl++], &c[i], j - i, is_local, arg);
	}
	qsort(c, nc, sizeof(*c), by_head_line);
	for (size_t i = 0, j, k = 0; i < nc; i = j, k++) {
		for (j = i; j < nc && c[j].head == c[i].head; j++)
			;
		pick_lines(&l[k], &c[i], j - i);
	}
	qsort(l, nl, sizeof(*l), by_samples);
	memcpy(out, l, (nl < max ? nl : max) * sizeof(*l));
	free(l);
	free(c);
	return nl;
}
