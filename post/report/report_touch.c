/* post/report/report_touch.c - a first-touch record, attributed: what the first-touch
 * tables (report.c, through mr_agg_first_touches) and the trace's first-touch events
 * (report_trace.c) count. A file of its own below both, so that neither calls the other. */
#include <string.h>

#include "report_impl.h"

void report_touch(struct report *r, size_t i, struct mr_agg_touch *out)
{
	const struct memphis_rec_touch *t = &r->run->touches[i];
	const struct memphis_rec_stack *st = NULL;
	uint64_t ps = mr_attrib_page_size(r->a);
	const uint8_t *bytes = NULL;

	memset(out, 0, sizeof(*out));
	if (t->flags & MPH_TOUCH_STACK)
		st = mr_run_touch_stack(r->run, t, &bytes);
	out->var = mr_attrib_touch_data(r->a, &r->touch_cache, t->addr, t->time, t->tid, t->ip, st,
					bytes);
	out->tid = t->tid;
	out->pages = 1;
	/* the page's start: a huge page's, whichever address in it faulted */
	out->page = (t->page_shift > 12 && t->page_shift < 40 ?
			     t->addr & ~((1ull << t->page_shift) - 1) : t->addr) / ps;
	if (out->var == 0 || out->var >= r->agg.nvars || !r->agg.vars[out->var].matrix)
		return; /* skipped: no need to attribute the rest */
	if ((t->flags & MPH_TOUCH_HUGE) && t->page_shift > 12 && t->page_shift < 40 &&
	    (1ull << t->page_shift) > ps)
		out->pages = (1ull << t->page_shift) / ps;
	/* the memory's epoch: the answer's start of validity (a heap object's allocation,
	 * an mmap's), from the cache the attribution just filled, else asked */
	if (r->touch_cache.data_ok &&
	    mr_var_range_holds(&r->touch_cache.data, t->addr, t->time, t->tid)) {
		out->epoch = r->touch_cache.data.t0;
	} else {
		struct mr_extent e;

		mr_attrib_data_extent(r->a, t->addr, t->time, t->tid, &e);
		out->epoch = e.t0;
	}
	out->page_node = report_node_index(r, mr_attrib_page_node(r->a, 0, t->addr));
	out->line = mr_attrib_touch_code(r->a, &r->touch_cache, t->ip, t->time);
	if (st) {
		int runtime;

		out->line = mr_attrib_caller(r->a, t->ip, st, bytes, out->line, &runtime);
		out->runtime_line = runtime != 0;
	}
	out->tid_node = mr_run_cpu_node(r->run, t->cpu);
}
