/* post/report/report_pass.c - the sample pass of `memphis-report report`: the cpu files read by
 * several threads at once, each sample attributed and counted once, merged so that the
 * report is the same for any number of threads.
 *
 * The files are cut into contiguous ranges of about equal bytes, one per worker. A worker
 * has its own attribution context (mr_attrib_ctx), counts (stats, aggregate, hardware
 * tables) and messages; the shared run and attribution are only read, but for what the
 * attribution does under its lock. The merge takes the workers in file order, as if one
 * thread had read the files one after the other: ids renumbered by first use
 * (mr_attrib_pass_end), counts summed, a page's first node kept, damage and warnings in
 * the order one pass would have met them. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "report_impl.h"

/* A damage or warning message, in the order the worker met it. */
struct note {
	enum { NOTE_WARNING, NOTE_DAMAGE, NOTE_UNREADABLE } kind;
	char *text;
};

struct worker {
	const struct report *r;
	size_t first, end;            /* cpu files [first, end) */
	struct mr_attrib_ctx *ctx;
	struct mr_sample_iter *it;
	struct report_stats st;
	uint64_t mix[MR_RT_COUNT][32]; /* samples by wait kind and FLAGMIX of their flags, into st
				       * at the end: one increment per sample instead of three */
	struct mr_agg agg;
	struct mr_xcells x;           /* r->want_x: the exports' counts */
	struct mr_pollwait pw;        /* the program's own waits */
	struct mr_ktime kt;           /* the kernel's samples */
	struct mr_hwsrc hw;
	struct mr_kallsyms_cache kfunc; /* kernel samples' functions (report_kernel_func) */
	struct note *notes;
	size_t nnotes, capnotes;
	int failed;                   /* out of memory: the pass fails */
	pthread_t th;
	int started;                  /* th runs it */
};

/* Keep message text of kind for the merge. */
static void add_note(struct worker *w, int kind, const char *text)
{
	char *copy;

	if (w->nnotes == w->capnotes) {
		size_t nc = w->capnotes ? w->capnotes * 2 : 8;
		struct note *nn = realloc(w->notes, nc * sizeof(*nn));

		if (!nn) {
			w->failed = 1;
			return;
		}
		w->notes = nn;
		w->capnotes = nc;
	}
	copy = strdup(text);
	if (!copy) {
		w->failed = 1;
		return;
	}
	w->notes[w->nnotes++] = (struct note){ kind, copy };
}

/* mr_sample_note_fn and mr_attrib_warn_fn of a worker. */
static void file_note(void *arg, int damage, const char *msg)
{
	add_note(arg, damage ? NOTE_DAMAGE : NOTE_WARNING, msg);
}

static void attrib_warn(void *arg, const char *msg)
{
	add_note(arg, NOTE_UNREADABLE, msg);
}

/* Count hardware sample sm, attributed to res, taken on a CPU of node index cpu_node, of
 * a page of node index page_node, in w->hw. Out of line: soft runs pay only the
 * mr_hw_sample test in count_sample. 0 or -ENOMEM. */
static __attribute__((noinline)) int count_hw(struct worker *w,
					       const struct memphis_rec_sample *sm,
					       const struct mr_resolved *res, uint32_t cpu_node,
					       uint32_t page_node)
{
	uint32_t nnodes = w->r->nnodes;
	int page_remote = page_node == nnodes || cpu_node == nnodes ? -1 : cpu_node != page_node;

	return mr_hwsrc_add(&w->hw, cpu_node, res->var, res->line, sm, page_remote);
}

/* Count sample sm, attributed to res, in w->x (ids as the aggregate takes them). Out of
 * line: reports without an export pay one test. 0 or -ENOMEM. */
static __attribute__((noinline)) int count_x(struct worker *w, const struct memphis_rec_sample *sm,
					     const struct mr_resolved *res, uint32_t cpu_node,
					     uint32_t page_node)
{
	struct mr_xcell k = {
		.var = res->var <= MR_AGG_ID_MAX ? res->var : 0,
		.line = res->line <= MR_AGG_ID_MAX ? res->line : 0,
		.cpu_node = cpu_node, .page_node = page_node, .tid = sm->tid, .region = sm->region,
	};
	return mr_xcells_add(&w->x, &k, sm->weight, sm->time,
			     mr_xclass_of(cpu_node, page_node, w->r->nnodes, w->r->agg.far));
}

/* Count sample sm of a poll loop, attributed to res (its variable when want), in w->pw:
 * the loop's variable is the sample's own when it read one outside its stack, else the one
 * its registers say the loop polls. Out of line: samples outside poll loops pay one test.
 * 0 or -ENOMEM. */
static __attribute__((noinline)) int poll_sample(struct worker *w, const struct memphis_rec_sample *sm,
						  const struct mr_resolved *res, int want,
						  const struct memphis_rec_stack *stk, const uint8_t *bytes)
{
	uint32_t var = want && !res->self && !(sm->flags & MPH_S_STACK) ? res->var : 0;

	if (!var)
		var = mr_attrib_poll_var(w->ctx, sm, stk, bytes);
	return mr_pollwait_add(&w->pw, mr_attrib_poll_head(w->ctx, sm->ip, sm->time), res->line, var);
}

/* Count sample sm, taken in the kernel, in w->kt and in no table: by the line of its system
 * call (a wrapper's caller's, by its STACKS entry stk), else by the variable of its user
 * instruction's access (res when want). The library's own system calls are left out. Out
 * of line: user samples pay one test. 0 or -ENOMEM. */
static __attribute__((noinline)) int kernel_sample(struct worker *w,
						    const struct memphis_rec_sample *sm,
						    struct mr_resolved *res, int want,
						    const struct memphis_rec_stack *stk,
						    const uint8_t *bytes)
{
	int syscall = !!(sm->flags & MPH_S_SYSCALL);
	uint32_t id;

	if (syscall || !want)
		mr_attrib_sample(w->ctx, sm, 0, res);
	else
		mr_attrib_sample_var(w->ctx, sm, stk, bytes, res);
	if (syscall && stk)
		res->line = mr_attrib_ctx_caller(w->ctx, sm->ip, stk, bytes, res->line);
	if (res->self || res->line == MR_ATTRIB_SELF)
		return 0;
	id = syscall ? res->line : want ? res->var : 0;
	return mr_ktime_add(&w->kt, syscall, id, report_kernel_func(w->r, &w->kfunc, sm->sampled_ip),
			    sm->region);
}

/* The flags the pass counts, as an index of 5 bits: EXACT, APPROX, NOADDR, NONMEM (bits 0-3)
 * and KERNEL (bit 7, moved to bit 4). One increment per sample instead of six. */
#define FLAGMIX(f) (((f) & 0xfu) | (((f) >> 3) & 0x10u))
_Static_assert(MPH_S_EXACT == 1 && MPH_S_APPROX == 2 && MPH_S_NOADDR == 4 && MPH_S_NONMEM == 8 &&
	       MPH_S_KERNEL >> 3 == 0x10, "FLAGMIX's bits");

/* w->mix into w->st's total and counts of waits and flags. */
static void fold_flags(struct worker *w)
{
	struct report_stats *st = &w->st;

	for (unsigned k = 0; k < MR_RT_COUNT; k++)
		for (unsigned m = 0; m < 32; m++) {
			st->total += w->mix[k][m];
			st->wait[k] += w->mix[k][m];
		}
	for (unsigned m = 0; m < 32; m++) {
		uint64_t n = 0;

		for (unsigned k = 0; k < MR_RT_COUNT; k++)
			n += w->mix[k][m];
		st->exact += m & MPH_S_EXACT ? n : 0;
		st->approx += m & MPH_S_APPROX ? n : 0;
		st->noaddr += m & MPH_S_NOADDR ? n : 0;
		st->nonmem += m & MPH_S_NONMEM ? n : 0;
		st->noflag += m & 0xfu ? 0 : n;
		st->kernel += m & 0x10u ? n : 0;
	}
}

/* Count one sample of a selected region in w->st and, with a usable data address, in
 * the aggregate. 0 or -ENOMEM. */
static int count_sample(struct worker *w, const struct memphis_rec_sample *sm, uint16_t addr_ok)
{
	const struct report *r = w->r;
	struct report_stats *st = &w->st;
	const struct memphis_rec_stack *stk;
	const uint8_t *bytes = NULL;
	struct mr_resolved res;
	uint32_t cpu_node, page_node;
	int want = (sm->flags & addr_ok) && sm->addr;
	uint16_t flags = sm->flags;
	unsigned k;

	stk = (want || (sm->flags & MPH_S_SYSCALL)) && (sm->flags & MPH_S_STACK)
		      ? mr_samples_stack(w->it, sm, &bytes) : NULL;
	/* a kernel sample is resolved apart (kernel_sample): it notes no page */
	k = mr_attrib_sample_wait(w->ctx, sm, stk, bytes, want && !(sm->flags & MPH_S_KERNEL), &res);
	if (__builtin_expect(k & (MR_WAIT_FENCE | MR_WAIT_POLL), 0)) {
		if (k & MR_WAIT_FENCE) {
			/* a fence's operand is the stack top, untouched: no data access */
			flags = (uint16_t)((flags & ~0xfu) | MPH_S_NONMEM);
			want = 0;
			st->fences++;
		}
		if ((k & MR_WAIT_POLL) && poll_sample(w, sm, &res, want, stk, bytes))
			return -ENOMEM;
	}
	w->mix[k & MR_WAIT_RUNTIME][FLAGMIX(flags)]++;
	if (__builtin_expect(sm->flags & MPH_S_KERNEL, 0))
		return kernel_sample(w, sm, &res, want, stk, bytes);
	if (!want)
		return 0;
	if (res.self) {
		st->self++;
		return 0;
	}
	/* the line of a sample in runtime code, told by its caller (its STACKS entry); the
	 * library's own work when that is what called it */
	if (stk && (res.line = mr_attrib_ctx_caller(w->ctx, sm->ip, stk, bytes, res.line)) ==
			   MR_ATTRIB_SELF) {
		mr_attrib_ctx_forget_page(w->ctx, sm->addr);
		st->self++;
		return 0;
	}
	st->used++;
	cpu_node = sm->cpu < r->run->ncpus ? r->cpu_node[sm->cpu] : r->nnodes;
	page_node = report_node_index(r, res.page_node);
	if (cpu_node == r->nnodes)
		st->unknown_cpu++;
	if (page_node == r->nnodes)
		st->unknown_page++;
	else if (cpu_node != r->nnodes && cpu_node != page_node)
		st->remote++;
	else if (cpu_node != r->nnodes)
		st->local++;
	if (mr_agg_add(&w->agg, res.var, res.line, cpu_node, page_node))
		return -ENOMEM;
	if (__builtin_expect(r->want_x, 0) && count_x(w, sm, &res, cpu_node, page_node))
		return -ENOMEM;
	if (__builtin_expect(mr_hw_sample(sm), 0) && count_hw(w, sm, &res, cpu_node, page_node))
		return -ENOMEM;
	if (!res.same_page && mr_agg_add_page(&w->agg, res.var, sm->addr, page_node))
		return -ENOMEM;
	return 0;
}

/* A worker's pass over its files (a thread's start routine). */
static void *work(void *arg)
{
	struct worker *w = arg;
	const struct memphis_rec_sample *s;
	uint16_t addr_ok = MPH_S_EXACT | (w->r->o.approx ? MPH_S_APPROX : 0);
	size_t n;

	while (!w->failed && (n = mr_samples_next(w->it, &s)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (!report_region_selected(w->r, s[i].region)) {
				w->st.other_regions++;
				continue;
			}
			if (count_sample(w, &s[i], addr_ok)) {
				w->failed = 1;
				break;
			}
		}
	}
	fold_flags(w);
	return NULL;
}

/* A worker per this many bytes of sample files when the count is not given: a worker
 * costs its thread and its own resolving of what the others resolve too (3 ms of CPU on a
 * cg run of 4.5 MB, for no gain in wall time; 2 workers gain 12 % on 33 MB). */
#define BYTES_PER_WORKER (16ull << 20)

/* The number of workers: --jobs, else MEMPHIS_REPORT_JOBS, else the online CPUs but one per
 * BYTES_PER_WORKER of sample files; at most one per cpu file (at least 1). */
static size_t jobs(const struct report *r)
{
	size_t n = report_jobs(&r->o);

	if (!report_jobs_given(&r->o)) {
		uint64_t total = 0;

		for (size_t i = 0; i < r->run->ncpufiles; i++)
			total += r->run->cpus[i].size;
		if (n > total / BYTES_PER_WORKER + 1)
			n = (size_t)(total / BYTES_PER_WORKER + 1);
	}

	if (n > r->run->ncpufiles)
		n = r->run->ncpufiles ? r->run->ncpufiles : 1;
	return n;
}

/* Cut the cpu files into nw contiguous ranges of about equal bytes: a file goes to the
 * range its middle byte falls in. */
static void cut_files(const struct mr_run *run, struct worker *w, size_t nw)
{
	uint64_t total = 0, before = 0;
	size_t f = 0;

	for (size_t i = 0; i < run->ncpufiles; i++)
		total += run->cpus[i].size;
	for (size_t k = 0; k < nw; k++) {
		w[k].first = f;
		while (f < run->ncpufiles &&
		       (k + 1 == nw ||
			(before + run->cpus[f].size / 2) / (double)(total ? total : 1) <
				(double)(k + 1) / (double)nw))
			before += run->cpus[f++].size;
		w[k].end = f;
	}
}

/* Set up worker w of r. 0 or -ENOMEM. */
static int worker_init(struct report *r, struct worker *w)
{
	w->r = r;
	if (mr_agg_init(&w->agg, r->nnodes) || mr_hwsrc_init(&w->hw) || mr_pollwait_init(&w->pw) ||
	    mr_ktime_init(&w->kt) ||
	    (r->want_x && mr_xcells_init_as(&w->x, &r->x)))
		return -ENOMEM;
	w->ctx = mr_attrib_ctx_new(r->a, attrib_warn, w);
	if (!w->ctx ||
	    mr_samples_begin_files(r->run, w->first, w->end, file_note, w, &w->it))
		return -ENOMEM;
	return 0;
}

static void worker_free(struct worker *w)
{
	mr_samples_end(w->it);
	mr_attrib_ctx_free(w->ctx);
	mr_agg_free(&w->agg);
	mr_xcells_free(&w->x);
	mr_pollwait_free(&w->pw);
	mr_ktime_free(&w->kt);
	mr_hwsrc_free(&w->hw);
	for (size_t i = 0; i < w->nnotes; i++)
		free(w->notes[i].text);
	free(w->notes);
}

/* Add the pass counts of b into a. */
static void stats_add(struct report_stats *a, const struct report_stats *b)
{
	a->total += b->total;
	a->exact += b->exact;
	a->approx += b->approx;
	a->noaddr += b->noaddr;
	a->nonmem += b->nonmem;
	a->fences += b->fences;
	a->noflag += b->noflag;
	a->kernel += b->kernel;
	a->used += b->used;
	a->self += b->self;
	a->remote += b->remote;
	a->local += b->local;
	a->unknown_page += b->unknown_page;
	a->unknown_cpu += b->unknown_cpu;
	a->other_regions += b->other_regions;
	for (int k = 0; k < MR_RT_COUNT; k++)
		a->wait[k] += b->wait[k];
}

/* Was the warning of an unreadable object already given by an earlier worker w[0 .. k)? */
static int told_before(const struct worker *w, size_t k, const char *text)
{
	for (size_t j = 0; j < k; j++)
		for (size_t i = 0; i < w[j].nnotes; i++) {
			const struct note *nt = &w[j].notes[i];

			if (nt->kind == NOTE_UNREADABLE && !strcmp(nt->text, text))
				return 1;
		}
	return 0;
}

/* The workers' messages into the run, in file order; an unreadable object's warning where
 * the first worker needed it. 0 or -ENOMEM. */
static int merge_notes(struct mr_run *run, const struct worker *w, size_t nw)
{
	for (size_t k = 0; k < nw; k++)
		for (size_t i = 0; i < w[k].nnotes; i++) {
			const struct note *nt = &w[k].notes[i];

			if (nt->kind == NOTE_UNREADABLE && told_before(w, k, nt->text))
				continue;
			if (nt->kind == NOTE_DAMAGE ? mr_run_add_damage(run, "%s", nt->text)
						    : mr_run_add_warning(run, "%s", nt->text))
				return -ENOMEM;
		}
	return 0;
}

/* The workers' counts into r, ids renamed to those of one pass. 0 or -ENOMEM. */
static int merge(struct report *r, struct worker *w, size_t nw, size_t nvars0, size_t nlines0)
{
	struct mr_attrib_ctx *ctx[MR_MAX_JOBS];
	uint32_t *vm = NULL, *lm = NULL;
	size_t nv = mr_attrib_nvars(r->a), nl = mr_attrib_nlines(r->a);
	int rc = 0;

	for (size_t k = 0; k < nw; k++) {
		ctx[k] = w[k].ctx;
		if (w[k].failed)
			rc = -ENOMEM;
	}
	if (rc || mr_attrib_pass_end(r->a, ctx, nw, nvars0, nlines0, &vm, &lm))
		rc = -ENOMEM;
	for (size_t k = 0; k < nw && !rc; k++) {
		stats_add(&r->st, &w[k].st);
		if (mr_agg_merge(&r->agg, &w[k].agg, vm, nv, lm, nl) ||
		    mr_hwsrc_merge(&r->hw, &w[k].hw, vm, lm) ||
		    mr_pollwait_merge(&r->pw, &w[k].pw, vm, nv, lm, nl) ||
		    mr_ktime_merge(&r->kt, &w[k].kt, vm, nv, lm, nl) ||
		    (r->want_x && mr_xcells_merge(&r->x, &w[k].x, vm, nv, lm, nl)))
			rc = -ENOMEM;
	}
	if (!rc)
		rc = merge_notes(r->run, w, nw);
	free(vm);
	free(lm);
	return rc;
}

/* Run the workers (the first in this thread) and wait for them. */
static void run_workers(struct worker *w, size_t nw)
{
	for (size_t k = 1; k < nw; k++)
		w[k].started = pthread_create(&w[k].th, NULL, work, &w[k]) == 0;
	work(&w[0]);
	for (size_t k = 1; k < nw; k++) {
		if (w[k].started)
			pthread_join(w[k].th, NULL);
		else
			work(&w[k]); /* no thread: its turn here, the result is the same */
	}
}

/* The exports' counts, when the format wants them, over the selected regions' time. */
static int xcells_init(struct report *r)
{
	uint64_t t0, t1;

	r->want_x = r->o.format == REPORT_PPROF || r->o.format == REPORT_TRACE;
	if (!r->want_x)
		return 0;
	report_time_span(r, &t0, &t1);
	return mr_xcells_init(&r->x, t0, t1);
}

bool report_sample_pass(struct report *r)
{
	size_t nw, nvars0 = mr_attrib_nvars(r->a), nlines0 = mr_attrib_nlines(r->a);
	struct worker *w;
	int rc = -ENOMEM;

	if (xcells_init(r))
		goto out_nomem;
	r->cpu_node = calloc(r->run->ncpus + 1, sizeof(*r->cpu_node));
	nw = jobs(r);
	w = calloc(nw, sizeof(*w));
	if (!r->cpu_node || !w)
		goto out;
	for (uint32_t i = 0; i < r->run->ncpus; i++)
		r->cpu_node[i] = report_node_index(r, mr_run_cpu_node(r->run, i));
	if (!report_far_nodes(r))
		goto out;
	cut_files(r->run, w, nw);
	for (size_t k = 0; k < nw; k++)
		if (worker_init(r, &w[k]))
			goto out;
	run_workers(w, nw);
	rc = merge(r, w, nw, nvars0, nlines0);
out:
	for (size_t k = 0; w && k < nw; k++)
		worker_free(&w[k]);
	free(w);
out_nomem:
	if (rc)
		mr_error(MR_EXIT_DATA, "out of memory aggregating samples");
	return rc == 0;
}
