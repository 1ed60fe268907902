/* post/attrib/attrib.c - attribution of samples to variables, source lines and page homes (see
 * attrib.h for the order of attribution and the contract). This file: opening (the
 * executable and its build-id, thread stacks, TLS blocks), closing and the run-wide
 * accessors; the pieces are listed in attrib_impl.h. */
#include "attrib_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary/allocsite.h"
#include "binary/debuginfo.h"
#include "maps.h"
#include "run/heap.h"
#include "run/pages.h"
#include "search.h"
#include "u64map.h"

int mr_attrib_thread_index(const struct mr_attrib *a, uint32_t tid)
{
	uint64_t *ti = mph_u64map_get(&a->thread_by_tid, tid);

	return ti ? (int)a->run->threads[*ti].index : -1;
}

uint64_t mr_attrib_page_size(const struct mr_attrib *a)
{
	return a->pages.page_size;
}

const char *mr_attrib_exe(const struct mr_attrib *a)
{
	return a->exe_path;
}

const char *mr_attrib_exe_build_id(const struct mr_attrib *a)
{
	return a->exe_bid;
}

static int cmp_snap(const void *x, const void *y)
{
	const struct snap *a = x, *b = y;

	return (a->maps.time > b->maps.time) - (a->maps.time < b->maps.time);
}

/* Thread stacks as an index over time: one pseudo-allocation per thread start, "freed" at
 * its exit; the main thread's [stack] mapping when no range was recorded for it. */
static int build_stacks(struct mr_attrib *a)
{
	struct mr_run *run = a->run;
	size_t n = run->nthreads + a->nsnap;
	struct memphis_rec_alloc *al = calloc(n + 1, sizeof(*al));
	struct memphis_rec_free *fr = calloc(n + 1, sizeof(*fr));
	size_t na = 0, nf = 0;
	int main_has = 0, rc = -ENOMEM;
	uint32_t *stack_index = calloc(n + 1, sizeof(*stack_index)); /* per stack record */

	if (!al || !fr || !stack_index)
		goto out;
	for (size_t i = 0; i < run->nthreads; i++) {
		const struct memphis_rec_thread *t = &run->threads[i];
		if (t->event == MPH_THREAD_START && t->stack_hi > t->stack_lo) {
			al[na] = (struct memphis_rec_alloc){ .time = 0, .addr = t->stack_lo,
							     .size = t->stack_hi - t->stack_lo };
			/* a thread's stack is its own from the start of the run; reuse by a later
			 * thread is ordered by the start times */
			al[na].time = t->time;
			stack_index[na++] = t->index;
			main_has |= t->index == 0;
		} else if (t->event == MPH_THREAD_EXIT && t->stack_hi > t->stack_lo) {
			fr[nf++] = (struct memphis_rec_free){ .time = t->time, .addr = t->stack_lo };
		}
	}
	for (size_t i = 0; i < a->nsnap && !main_has; i++) {
		const struct mph_maps *m = &a->snap[i].maps;
		for (size_t k = 0; k < m->n; k++) {
			if (strcmp(m->map[k].path, "[stack]"))
				continue;
			al[na] = (struct memphis_rec_alloc){ .time = 0, .addr = m->map[k].start,
							     .size = m->map[k].end - m->map[k].start };
			stack_index[na++] = 0;
			main_has = 1;
			break;
		}
	}
	/* a thread's START time may follow its first samples slightly: start every stack at 0
	 * unless its range was used by an earlier thread */
	for (size_t i = 0; i < na; i++) {
		int reused = 0;
		for (size_t k = 0; k < na && !reused; k++)
			reused = k != i && al[k].addr == al[i].addr && al[k].time < al[i].time;
		if (!reused)
			al[i].time = 0;
		if (na > 4096)
			break; /* quadratic guard: keep recorded start times */
	}
	rc = mr_heap_build(&a->stacks, al, na, fr, nf);
	for (size_t i = 0; !rc && i < a->stacks.n; i++) /* each stack's thread index */
		a->stacks.obj[i].tag = stack_index[a->stacks.obj[i].tag];
out:
	free(stack_index);
	free(al);
	free(fr);
	return rc;
}

/* Open the executable and check its build-id against the run's. */
static int open_exe(struct mr_attrib *a, const struct mr_attrib_opts *o, char *err, size_t errlen)
{
	const char *run_exe = mr_run_get(a->run, "exe");
	const char *run_bid = mr_run_get(a->run, "build_id");
	struct mr_debuginfo *di = NULL;
	char derr[512];
	int rc;

	if (!o->exe && (!run_exe || !*run_exe)) {
		snprintf(err, errlen, "the run does not name its executable (no RUN key exe): "
			 "give it with --exe PATH");
		return -ENOENT;
	}
	a->exe_path = strdup(o->exe ? o->exe : run_exe);
	if (!a->exe_path)
		return -ENOMEM;
	if (access(a->exe_path, R_OK) < 0) {
		rc = -errno;
		snprintf(err, errlen, "executable %s: %s: the report needs the binary that ran; "
			 "point to it with --exe PATH", a->exe_path, strerror(errno));
		return rc;
	}
	rc = mr_debuginfo_open(a->exe_path, &di, derr, sizeof(derr));
	if (rc < 0) {
		snprintf(err, errlen, "executable %s: %s", a->exe_path, derr);
		return rc;
	}
	snprintf(a->exe_bid, sizeof(a->exe_bid), "%s", mr_debuginfo_build_id(di));
	/* said once, naming the object: without it every name below is a guess */
	if (!mr_debuginfo_has_symbols(di))
		mr_run_add_warning(a->run, "executable %s is stripped (no symbols, no debug "
				   "information): its variables and lines cannot be named; profile "
				   "a build with -g that is not stripped", a->exe_path);
	else if (!mr_debuginfo_has_lines(di))
		mr_run_add_warning(a->run, "executable %s has no debug information (built without "
				   "-g, or its debug file is not installed): source lines cannot be "
				   "named, variables only by ELF symbols; rebuild with -g", a->exe_path);
	if (run_bid && *run_bid && strcasecmp(run_bid, a->exe_bid)) {
		if (!o->force) {
			snprintf(err, errlen, "executable %s has build-id %s but the run was made by "
				 "build-id %s: it was rebuilt since, so its symbols would be wrong; "
				 "use the binary that ran (--exe PATH) or --force", a->exe_path,
				 a->exe_bid[0] ? a->exe_bid : "(none)", run_bid);
			mr_debuginfo_close(di);
			return -ESTALE;
		}
		mr_run_add_warning(a->run, "executable %s has build-id %s, the run's was %s: "
				   "--force given, symbols may be wrong", a->exe_path,
				   a->exe_bid[0] ? a->exe_bid : "(none)", run_bid);
	}
	/* keep it: the maps entry of the executable will use it */
	a->exe_obj = attrib_obj_for_path(a, run_exe && *run_exe ? run_exe : a->exe_path,
					 strlen(run_exe && *run_exe ? run_exe : a->exe_path));
	if (a->exe_obj == NOT_YET) {
		mr_debuginfo_close(di);
		return -ENOMEM;
	}
	a->obj[a->exe_obj].is_exe = 1;
	a->obj[a->exe_obj].di = di;
	a->obj[a->exe_obj].tried = 1;
	mr_debuginfo_load_base(di, &a->obj[a->exe_obj].v0, &a->obj[a->exe_obj].o0);
	{
		uint64_t memsz = 0, align = 0;
		mr_debuginfo_tls(di, &memsz, &align);
		if (align < 1)
			align = 1;
		a->exe_tls = memsz ? (memsz + align - 1) / align * align : 0;
	}
	return 0;
}

/* The static TLS blocks: from the run's TLS records, else the executable's alone (its block
 * ends at fs_base). Returns 0 or -ENOMEM. */
static int build_tls(struct mr_attrib *a)
{
	struct mr_run *run = a->run;
	size_t n = run->ntls ? run->ntls : 1;

	a->tls = calloc(n, sizeof(*a->tls));
	if (!a->tls)
		return -ENOMEM;
	for (size_t i = 0; i < run->ntls; i++) {
		uint32_t oi;

		if (run->tls[i].tp_offset >= 0 || !run->tls[i].memsz)
			continue; /* not a static block below fs_base */
		if (!run->tls[i].path[0]) {
			/* the executable (the dynamic linker names it ""; module id 1 only when
			 * it has TLS, else the first library with TLS) */
			if (a->exe_obj == NOT_YET)
				continue;
			oi = a->exe_obj;
		} else {
			oi = attrib_obj_for_path(a, run->tls[i].path, strlen(run->tls[i].path));
			if (oi == NOT_YET)
				return -ENOMEM;
		}
		a->tls[a->ntls++] = (struct tlsmod){ run->tls[i].tp_offset, run->tls[i].memsz, oi };
	}
	if (!run->ntls && a->exe_tls && a->exe_obj != NOT_YET)
		a->tls[a->ntls++] = (struct tlsmod){ -(int64_t)a->exe_tls, a->exe_tls, a->exe_obj };
	a->tls_lo = 0;
	for (size_t i = 0; i < a->ntls; i++)
		if (a->tls[i].off < a->tls_lo)
			a->tls_lo = a->tls[i].off;
	return 0;
}

/* Do allocation records a and b have one call site (kind and frames), so one variable? */
static int same_site(const struct memphis_rec_alloc *a, const struct memphis_rec_alloc *b)
{
	uint32_t n = a->nframes < MEMPHIS_MAX_FRAMES ? a->nframes : MEMPHIS_MAX_FRAMES;

	return a->kind == b->kind && a->nframes == b->nframes &&
	       !memcmp(a->frames, b->frames, n * sizeof(a->frames[0]));
}

/* The heap objects' index from the run's ALLOCS and FREES records, read block by block and
 * given back as it goes (mr_run_recs_release): each object's variable (by its call site)
 * is its entry's tag. A record from the call site of the one before takes its variable
 * without a lookup: what the lookups' caches would answer (a loop's million objects at one
 * site cost two hash lookups each). 0 or -ENOMEM. */
static int build_heap(struct mr_attrib *a)
{
	struct mr_run *run = a->run;
	struct memphis_rec_alloc r, last;
	struct memphis_rec_free f;
	uint32_t last_id = 0;
	int have_last = 0;

	if (mr_heap_begin(&a->heap, run->nallocs))
		return -ENOMEM;
	if (mr_run_get_u64(run, "heap_map", 0))
		a->heap.keep_below = mr_run_get_u64(run, "heap_sample_below", 0);
	for (size_t b = 0; b < run->nalloc_recs; b++) {
		struct mr_recs *blk = &run->alloc_recs[b];

		for (size_t i = 0; i < blk->n && blk->raw; i++) {
			uint32_t id;

			memcpy(&r, blk->raw + i * sizeof(r), sizeof(r));
			if (have_last && same_site(&r, &last)) {
				id = last_id;
			} else {
				id = attrib_alloc_runtime(a, &r);
				if (!id)
					id = attrib_heap_var(a, &r);
				last = r;
				last_id = id;
				have_last = 1;
			}
			/* a run of the site map's: its blocks */
			a->vars[id].objects += r.kind & MPH_ALLOC_F_RUN
						       ? r.frames[MEMPHIS_MAX_FRAMES - 1] : 1;
			a->vars[id].bytes += r.size;
			mr_heap_add(&a->heap, r.addr, r.size, r.time, id);
		}
		mr_run_recs_release(run, blk);
	}
	if (mr_heap_sort(&a->heap))
		return -ENOMEM;
	for (size_t b = 0; b < run->nfree_recs; b++) {
		struct mr_recs *blk = &run->free_recs[b];

		for (size_t i = 0; i < blk->n && blk->raw; i++) {
			memcpy(&f, blk->raw + i * sizeof(f), sizeof(f));
			mr_heap_add_free(&a->heap, f.addr, f.time);
		}
		mr_run_recs_release(run, blk);
	}
	return mr_heap_finish(&a->heap);
}

int mr_attrib_open(struct mr_run *run, const struct mr_attrib_opts *o, struct mr_attrib **out,
		   char *err, size_t errlen)
{
	struct mr_attrib *a = calloc(1, sizeof(*a));
	struct mr_varinfo unk = { .kind = MR_VAR_UNKNOWN };
	int rc = -ENOMEM;

	*out = NULL;
	err[0] = '\0';
	if (!a)
		goto oom;
	a->run = run;
	pthread_mutex_init(&a->lock, NULL);
	a->exe_obj = NOT_YET;
	a->self_path = mr_run_get(run, "lib");
	a->heap_sampled = mr_run_get_u64(run, "heap_sample_every", 1) > 1 &&
			  !mr_run_get_u64(run, "heap_map", 0);
	a->self_name = mr_run_get(run, "lib_name");
	if (a->self_name && !a->self_name[0])
		a->self_name = NULL;
	if (mph_u64map_init(&a->obj_by_path, 64) || mph_u64map_init(&a->var_by_key, 256) ||
	    mph_u64map_init(&a->line_by_hash, 1024) || mph_u64map_init(&a->line_by_ip, 4096) ||
	    mph_u64map_init(&a->code_kinds, 256) ||
	    mph_u64map_init(&a->thread_by_tid, 64) || mr_pagemap_build(&a->pages, run))
		goto oom;
	unk.name = strdup("<unknown>");
	if (!unk.name || attrib_add_var(a, UINT64_MAX - 1, &unk) != 0)
		goto oom;
	if (attrib_intern_line(a, "??") != 0)
		goto oom;
	rc = open_exe(a, o, err, errlen);
	if (rc)
		goto fail;
	rc = -ENOMEM;
	a->snap = calloc(run->nmaps + 1, sizeof(*a->snap));
	if (!a->snap)
		goto oom;
	for (size_t i = 0; i < run->nmaps; i++) {
		if (mph_maps_parse(run->maps[i].text, run->maps[i].time, &a->snap[i].maps))
			goto oom;
		a->nsnap++;
	}
	qsort(a->snap, a->nsnap, sizeof(*a->snap), cmp_snap);
	for (size_t i = 0; i < a->nsnap; i++)
		if (attrib_build_spans(a, &a->snap[i]))
			goto oom;
	attrib_warn_changed(a);
	if (!a->nsnap) {
		/* no maps: a fixed-address executable still resolves with bias 0 */
		struct obj *eo = &a->obj[a->exe_obj];
		mr_run_add_warning(run, "no MAPS snapshot in the run: only a fixed-address "
				   "executable's globals and code can be resolved");
		if (!mr_debuginfo_is_pic(eo->di)) {
			a->snap = realloc(a->snap, sizeof(*a->snap));
			if (!a->snap)
				goto oom;
			memset(a->snap, 0, sizeof(*a->snap));
			a->snap[0].span = calloc(1, sizeof(*a->snap[0].span));
			if (!a->snap[0].span)
				goto oom;
			a->snap[0].span[0] = (struct span){ .lo = 0, .hi = UINT64_MAX, .obj = a->exe_obj,
							    .bias_known = 1 };
			a->snap[0].nspan = 1;
			a->nsnap = 1;
		}
	}
	for (size_t i = 0; i < run->nthreads; i++)
		if (run->threads[i].event == MPH_THREAD_START &&
		    !mph_u64map_put(&a->thread_by_tid, run->threads[i].tid, i))
			goto oom;
	for (size_t i = 0; i < run->nthreads; i++) {
		uint64_t *v = run->threads[i].event == MPH_THREAD_START
				      ? mph_u64map_get(&a->thread_by_tid, run->threads[i].tid) : NULL;
		if (v)
			*v = i; /* the last START of a reused tid wins */
	}
	if (build_heap(a))
		goto oom;
	if (build_stacks(a) || build_tls(a))
		goto oom;
	*out = a;
	return 0;
oom:
	snprintf(err, errlen, "out of memory preparing the attribution");
	rc = -ENOMEM;
fail:
	mr_attrib_close(a);
	return rc;
}

void mr_attrib_close(struct mr_attrib *a)
{
	if (!a)
		return;
	attrib_callers_free(a->callers);
	for (size_t i = 0; i < a->nobj; i++) {
		mr_debuginfo_close(a->obj[i].di);
		attrib_self_free(a->obj[i].self);
		free(a->obj[i].path);
		free(a->obj[i].file);
		free(a->obj[i].base);
		free(a->obj[i].unreadable);
	}
	for (size_t i = 0; i < a->nsnap; i++) {
		mph_maps_free(&a->snap[i].maps);
		free(a->snap[i].span);
	}
	for (size_t i = 0; i < a->nvars; i++) {
		free(a->vars[i].name);
		free(a->vars[i].decl);
		free(a->vars[i].site_file);
		free(a->vars[i].site_func);
		free(a->vars[i].site_callers);
		free(a->vars[i].site_chain);
		free(a->vars[i].recv_name);
		free(a->vars[i].recv_via);
		free(a->vars[i].recv_from);
	}
	for (size_t i = 0; i < a->nlines; i++) {
		free(a->lines[i]);
		free(a->line_funcs[i]);
	}
	attrib_heapvar_free(a);
	attrib_layouts_free(a);
	mr_heap_free(&a->heap);
	mr_heap_free(&a->stacks);
	attrib_locals_free(a->locals);
	mph_u64map_free(&a->obj_by_path);
	mph_u64map_free(&a->var_by_key);
	mph_u64map_free(&a->line_by_hash);
	mph_u64map_free(&a->line_by_ip);
	mph_u64map_free(&a->code_kinds);
	mph_u64map_free(&a->thread_by_tid);
	mr_pagemap_free(&a->pages);
	free(a->obj);
	free(a->snap);
	free(a->vars);
	free(a->lines);
	free(a->line_funcs);
	free(a->tls);
	free(a->var_keys);
	pthread_mutex_destroy(&a->lock);
	free(a->exe_path);
	free(a);
}
