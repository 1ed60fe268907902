/* post/binary/debuginfo.c - what one ELF object says about its code and data (see debuginfo.h).
 *
 * mr_debuginfo_open() reads everything once and keeps only flat, sorted arrays; lookups are
 * binary searches and nothing of libelf or libdwarf stays open afterwards:
 *   - ELF (libelf, debuginfo_elf.c): build-id note, ET_DYN/ET_EXEC, PT_LOAD and PT_TLS,
 *     and the FUNC and OBJECT/TLS symbols of .symtab and .dynsym (fallbacks when DWARF
 *     says nothing);
 *   - DWARF (libdwarf, opened on the same fd with its own reader, in a child process:
 *     debuginfo_dwarf*.c, debuginfo_child.c): the line programs of all CUs as one array of
 *     [lo, hi) -> file:line; DW_TAG_subprogram and DW_TAG_inlined_subroutine address ranges
 *     as "scopes" (innermost wins); and DW_TAG_variable DIEs whose location is a static
 *     address or a TLS offset.
 * Strings are interned into one arena owned by the struct (debuginfo_strings.c), so every
 * pointer handed out lives until mr_debuginfo_close(). The exception: DWARF in a separate
 * debug file (libc's) is read when needed, a unit at a time (debuginfo_lazy.c keeps its
 * libdwarf handle open); until all of it is read, the code lookups hold d->lock. This
 * file: open and close, the sorted lookup arrays and the public lookups.
 */
#include "debuginfo_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dwarf.h>
#include <libdwarf.h>

#include "base/infile.h"
#include "hash.h"
#include "search.h"

/* ---- building the lookup arrays ---- */

static int cmp_line(const void *a, const void *b)
{
	const struct line_ent *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Sort line ranges; where two overlap, the earlier one ends where the next starts. */
static void finish_lines(struct mr_debuginfo *d)
{
	size_t j = 0;

	if (!d->nlines)
		return;
	qsort(d->lines, d->nlines, sizeof(*d->lines), cmp_line);
	for (size_t i = 0; i < d->nlines; i++) {
		if (i + 1 < d->nlines && d->lines[i].hi > d->lines[i + 1].lo)
			d->lines[i].hi = d->lines[i + 1].lo;
		if (d->lines[i].hi > d->lines[i].lo)
			d->lines[j++] = d->lines[i];
	}
	d->nlines = j;
}

static int cmp_scope(const void *a, const void *b)
{
	const struct scope_ent *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* outer first */
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* Sort scopes (lo ascending, outer first) and link each to the smallest scope that
 * contains it, so a lookup can walk outwards from the last scope starting at or below. */
static int finish_scopes(struct mr_debuginfo *d)
{
	uint32_t *stack;
	size_t top = 0;

	if (!d->nscopes)
		return 0;
	qsort(d->scopes, d->nscopes, sizeof(*d->scopes), cmp_scope);
	stack = malloc(d->nscopes * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < d->nscopes; i++) {
		struct scope_ent *s = &d->scopes[i];

		while (top && d->scopes[stack[top - 1]].hi < s->hi)
			top--;
		s->parent = top ? stack[top - 1] : NONE;
		stack[top++] = (uint32_t)i;
	}
	free(stack);
	return 0;
}

static int cmp_var(const void *a, const void *b)
{
	const struct mr_var *x = a, *y = b;
	int r;

	if (x->tls != y->tls)
		return x->tls < y->tls ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1; /* larger (more informative) first */
	r = strcmp(x->name, y->name);
	if (r)
		return r;
	return (y->file != NULL) - (x->file != NULL); /* with a file first */
}

static uint64_t var_end(const struct mr_var *v)
{
	return v->addr + (v->size ? v->size : 1);
}

/* Sort a variable table, drop repeats of one variable (same address and name: seen in
 * several CUs or DIEs), and compute the running maximum of the ends. */
int di_finish_vars(struct var_tab *t)
{
	size_t j = 0;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_var);
	for (size_t i = 0; i < t->n; i++) {
		int dup = 0;

		/* same address and name already kept (the kept one has the larger size) */
		for (size_t k = j; k > 0 && t->v[k - 1].addr == t->v[i].addr; k--)
			if (t->v[k - 1].name == t->v[i].name) {
				dup = 1;
				break;
			}
		if (!dup)
			t->v[j++] = t->v[i];
	}
	t->n = j;
	t->maxend = malloc(t->n * sizeof(*t->maxend));
	if (!t->maxend)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		uint64_t end = var_end(&t->v[i]);

		t->maxend[i] = i && t->maxend[i - 1] > end ? t->maxend[i - 1] : end;
	}
	return 0;
}

/* Smallest variable of t containing addr, or NULL. O(log n + overlapping variables). */
static const struct mr_var *tab_lookup(const struct var_tab *t, uint64_t addr)
{
	const struct mr_var *best = NULL;
	size_t lo = mph_upper_bound(t->v, t->n, sizeof(*t->v), offsetof(struct mr_var, addr), addr);

	for (size_t i = lo; i > 0 && t->maxend[i - 1] > addr; i--) {
		const struct mr_var *v = &t->v[i - 1];

		if (addr < var_end(v) && (!best || v->size < best->size))
			best = v;
	}
	return best;
}

/* Fortran descriptors have no size in DWARF (the type describes the data): take the ELF
 * symbol's at the same address (gfortran's __mod_MOD_var), so that loads of any of the
 * descriptor's words are the variable's. d->svars must be finished. */
void di_fix_descriptors(struct mr_debuginfo *d)
{
	for (size_t i = 0; i < d->dvars.n; i++) {
		struct mr_var *v = &d->dvars.v[i];
		const struct mr_var *s;

		if (!v->descriptor || v->size)
			continue;
		s = tab_lookup(&d->svars, v->addr);
		if (s && s->addr == v->addr)
			v->size = s->size;
	}
}

/* The array behind mr_debuginfo_vars(): every DWARF variable, plus ELF symbols that no
 * DWARF variable covers; sorted by (tls, addr). Then the four lookup views into it. */
static int build_all(struct mr_debuginfo *d)
{
	size_t n = 0;

	d->all = malloc((d->dvars.n + d->dtls.n + d->svars.n + d->stls.n + 1) * sizeof(*d->all));
	if (!d->all)
		return -ENOMEM;
	for (size_t i = 0; i < d->dvars.n; i++)
		d->all[n++] = d->dvars.v[i];
	for (size_t i = 0; i < d->dtls.n; i++)
		d->all[n++] = d->dtls.v[i];
	for (size_t i = 0; i < d->svars.n; i++)
		if (!tab_lookup(&d->dvars, d->svars.v[i].addr))
			d->all[n++] = d->svars.v[i];
	for (size_t i = 0; i < d->stls.n; i++)
		if (!tab_lookup(&d->dtls, d->stls.v[i].addr))
			d->all[n++] = d->stls.v[i];
	qsort(d->all, n, sizeof(*d->all), cmp_var);
	d->nall = n;
	for (int k = 0; k < 4; k++) {
		struct var_idx *x = &d->idx[k];

		x->v = malloc((n + 1) * sizeof(*x->v));
		x->maxend = malloc((n + 1) * sizeof(*x->maxend));
		if (!x->v || !x->maxend)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			const struct mr_var *v = &d->all[i];
			int cls = (v->kind == MR_VAR_SYMBOL ? 2 : 0) + (v->tls ? 1 : 0);

			if (cls != k)
				continue;
			x->maxend[x->n] = var_end(v);
			if (x->n && x->maxend[x->n - 1] > x->maxend[x->n])
				x->maxend[x->n] = x->maxend[x->n - 1];
			x->v[x->n++] = v;
		}
	}
	return 0;
}

static void free_all(struct mr_debuginfo *d)
{
	for (int k = 0; k < 4; k++) {
		free(d->idx[k].v);
		free(d->idx[k].maxend);
		d->idx[k] = (struct var_idx){ 0 };
	}
	free(d->all);
	d->all = NULL;
	d->nall = 0;
}

/* Smallest variable of x containing addr, or NULL. O(log n + overlapping variables). */
static const struct mr_var *idx_lookup(const struct var_idx *x, uint64_t addr)
{
	const struct mr_var *best = NULL;
	size_t lo = mph_upper_bound_ptr((const void *const *)x->v, x->n,
					offsetof(struct mr_var, addr), addr);

	for (size_t i = lo; i > 0 && x->maxend[i - 1] > addr; i--) {
		const struct mr_var *v = x->v[i - 1];

		if (addr < var_end(v) && (!best || v->size < best->size))
			best = v;
	}
	return best;
}

/* ---- a separate debug file's DWARF, read when needed (debuginfo_lazy.c) ---- */

/* Sort and link the lines and scopes of the units read so far. */
static void finish_code(struct mr_debuginfo *d)
{
	finish_lines(d);
	if (finish_scopes(d))
		d->nscopes = 0; /* out of memory: no scopes rather than unlinked ones */
}

void di_need_addr_locked(struct mr_debuginfo *d, uint64_t vaddr)
{
	int rc;

	if (!atomic_load_explicit(&d->lazy_growing, memory_order_relaxed))
		return;
	rc = di_lazy_read_addr(d, vaddr);
	if (rc < 0)
		di_need_dwarf_locked(d);
	else if (rc > 0)
		finish_code(d);
}

void di_need_dwarf_locked(struct mr_debuginfo *d)
{
	if (!atomic_load_explicit(&d->lazy_growing, memory_order_relaxed))
		return;
	di_lazy_read_all(d);
	finish_code(d);
	free_all(d);
	di_fix_descriptors(d);
	if (di_finish_vars(&d->dvars) || di_finish_vars(&d->dtls) || build_all(d))
		free_all(d); /* out of memory: no variables, rather than half-built views */
	atomic_store_explicit(&d->lazy_growing, 0, memory_order_release);
}

void di_need_dwarf(struct mr_debuginfo *d)
{
	if (!atomic_load_explicit(&d->lazy_growing, memory_order_acquire))
		return;
	pthread_mutex_lock(&d->lock);
	di_need_dwarf_locked(d);
	pthread_mutex_unlock(&d->lock);
}

/* ---- public ---- */

/* The cache (mr_debuginfo_cache_hold): the objects open while it is held. */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned cache_holds;
static struct mr_debuginfo *cache_head;

/* Is d the file st opened with debug_dir (and as symbols_only)? */
static bool cache_match(const struct mr_debuginfo *d, const struct stat *st, const char *dir,
			bool symbols_only)
{
	return d->symbols_only == symbols_only && d->dev == st->st_dev && d->ino == st->st_ino &&
	       d->size == st->st_size &&
	       d->mtime.tv_sec == st->st_mtim.tv_sec && d->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       !strcmp(d->cache_dir, dir ? dir : "");
}

/* With the cache held: the object of path already open (one more reference), else NULL
 * with the file's identity in *st (st_ino 0: not cacheable). */
static struct mr_debuginfo *cache_find(const char *path, const char *dir, bool symbols_only,
				       struct stat *st)
{
	struct mr_debuginfo *d = NULL;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&cache_lock);
	if (cache_holds && path && stat(path, st) == 0)
		for (d = cache_head; d && !cache_match(d, st, dir, symbols_only); d = d->cache_next)
			;
	else
		st->st_ino = 0;
	if (d)
		d->refs++;
	pthread_mutex_unlock(&cache_lock);
	return d;
}

/* d just opened from the file st: into the cache while it is held (st_ino 0: not). */
static void cache_add(struct mr_debuginfo *d, const struct stat *st, const char *dir)
{
	pthread_mutex_lock(&cache_lock);
	if (cache_holds && st->st_ino && (d->cache_dir = strdup(dir ? dir : ""))) {
		d->dev = st->st_dev;
		d->ino = st->st_ino;
		d->size = st->st_size;
		d->mtime = st->st_mtim;
		d->refs++; /* the cache's */
		d->cache_next = cache_head;
		cache_head = d;
	}
	pthread_mutex_unlock(&cache_lock);
}

void mr_debuginfo_cache_hold(void)
{
	pthread_mutex_lock(&cache_lock);
	cache_holds++;
	pthread_mutex_unlock(&cache_lock);
}

void mr_debuginfo_cache_release(void)
{
	struct mr_debuginfo *d = NULL;

	pthread_mutex_lock(&cache_lock);
	if (cache_holds && --cache_holds == 0) {
		d = cache_head;
		cache_head = NULL;
	}
	pthread_mutex_unlock(&cache_lock);
	while (d) {
		struct mr_debuginfo *next = d->cache_next;

		mr_debuginfo_close(d);
		d = next;
	}
}

static int open_object(const char *path, const char *debug_dir, bool symbols_only,
		       struct mr_debuginfo **out, char *err, size_t errlen)
{
	struct mr_debuginfo *d;
	struct di_ctx c = { .err = err, .errlen = errlen };
	struct stat st;
	Elf *elf;
	int fd, rc;

	*out = NULL;
	if (err && errlen)
		err[0] = '\0';
	if ((*out = cache_find(path, debug_dir, symbols_only, &st)))
		return 0;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->refs = 1;
	d->symbols_only = symbols_only;
	d->code_by_symbols = symbols_only;
	pthread_mutex_init(&d->lock, NULL);
	c.d = d;
	d->path = strdup(path ? path : "");
	if (!d->path) {
		free(d);
		return di_fail(&c, -ENOMEM, "out of memory");
	}
	fd = mr_in_open(path, MR_IN_MAX_ELF, 0);
	if (fd < 0) {
		rc = di_fail(&c, fd, "cannot open: %s", mr_in_strerror(fd, MR_IN_MAX_ELF));
		goto out_free;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		rc = di_fail(&c, -ENOSYS, "libelf too old");
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		rc = di_fail(&c, -EINVAL, "cannot read: %s", elf_errmsg(-1));
		goto out_close;
	}
	if (elf_kind(elf) != ELF_K_ELF) {
		rc = di_fail(&c, -ENOEXEC, "not an ELF file");
		goto out_elf;
	}
	rc = di_check_extent(&c, elf, fd);
	if (!rc)
		rc = di_read_phdrs(&c, elf);
	if (!rc)
		rc = di_read_symbols(&c, elf);
	if (rc)
		goto out_elf;
	if (!symbols_only && (di_find_section(elf, ".debug_info") || !debug_dir)) {
		rc = di_read_dwarf_isolated(&c, fd);
		if (rc)
			goto out_elf;
	} else if (!symbols_only) {
		di_find_debug_file(&c, elf, debug_dir);
	}
	di_finish_funcs(d);
	finish_lines(d);
	if (finish_scopes(d) || di_finish_vars(&d->svars) || (di_fix_descriptors(d), 0) ||
	    di_finish_vars(&d->dvars) || di_finish_vars(&d->dtls) || di_finish_vars(&d->stls) ||
	    build_all(d)) {
		rc = di_fail(&c, -ENOMEM, "out of memory");
		goto out_elf;
	}
	elf_end(elf);
	close(fd);
	cache_add(d, &st, debug_dir);
	*out = d;
	return 0;

out_elf:
	elf_end(elf);
out_close:
	close(fd);
out_free:
	mr_debuginfo_close(d);
	return rc;
}

int mr_debuginfo_open_dir(const char *path, const char *debug_dir, struct mr_debuginfo **out,
			  char *err, size_t errlen)
{
	return open_object(path, debug_dir, false, out, err, errlen);
}

int mr_debuginfo_open(const char *path, struct mr_debuginfo **out, char *err, size_t errlen)
{
	return open_object(path, "/usr/lib/debug", false, out, err, errlen);
}

int mr_debuginfo_open_symbols(const char *path, struct mr_debuginfo **out, char *err,
			      size_t errlen)
{
	return open_object(path, NULL, true, out, err, errlen);
}

void mr_debuginfo_close(struct mr_debuginfo *d)
{
	struct var_tab *tabs[4];
	unsigned rc;

	if (!d)
		return;
	pthread_mutex_lock(&cache_lock);
	rc = --d->refs;
	pthread_mutex_unlock(&cache_lock);
	if (rc)
		return; /* shared: the cache or another user still has it */
	tabs[0] = &d->dvars;
	tabs[1] = &d->dtls;
	tabs[2] = &d->svars;
	tabs[3] = &d->stls;
	if (d->frames_close)
		d->frames_close(d);
	for (int i = 0; i < 4; i++) {
		free(tabs[i]->v);
		free(tabs[i]->maxend);
		free(d->idx[i].v);
		free(d->idx[i].maxend);
	}
	while (d->arena) {
		struct chunk *next = d->arena->next;

		free(d->arena);
		d->arena = next;
	}
	free(d->strs);
	free(d->strh);
	free(d->all);
	free(d->lines);
	free(d->scopes);
	free(d->funcs);
	free(d->segs);
	if (d->code_fd > 0)
		close(d->code_fd - 1);
	free(d->path);
	free(d->debug_path);
	di_lazy_free(d);
	free(d->cache_dir);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

const char *mr_debuginfo_debug_file(struct mr_debuginfo *d)
{
	di_need_dwarf(d);
	return d->debug_path;
}

const char *mr_debuginfo_build_id(const struct mr_debuginfo *d)
{
	return d->build_id;
}

int mr_debuginfo_is_pic(const struct mr_debuginfo *d)
{
	return d->pic;
}

void mr_debuginfo_load_base(const struct mr_debuginfo *d, uint64_t *vaddr0, uint64_t *offset0)
{
	*vaddr0 = d->vaddr0;
	*offset0 = d->offset0;
}

int mr_debuginfo_bias(const struct mr_debuginfo *d, uint64_t map_start, uint64_t map_offset,
		      uint64_t page_size, uint64_t *bias)
{
	if (!page_size || (page_size & (page_size - 1)) ||
	    map_offset != (d->offset0 & ~(page_size - 1)))
		return -EINVAL;
	*bias = map_start - map_offset + d->offset0 - d->vaddr0;
	return 0;
}

void mr_debuginfo_tls(const struct mr_debuginfo *d, uint64_t *memsz, uint64_t *align)
{
	*memsz = d->tls_memsz;
	*align = d->tls_align;
}

uint64_t mr_debuginfo_tls_tpoff(const struct mr_debuginfo *d)
{
	uint64_t align = d->tls_align ? d->tls_align : 1, firstbyte;

	if (!d->tls_memsz || (align & (align - 1)))
		return 0;
	/* glibc _dl_determine_tlsoffset(), TLS_TCB_AT_TP, first module: the block ends at
	 * the thread pointer and its first byte keeps p_vaddr's misalignment */
	firstbyte = (0 - d->tls_vaddr) & (align - 1);
	return (d->tls_memsz - firstbyte + align - 1) / align * align + firstbyte;
}

/* Innermost scope containing vaddr, or NULL. */
const struct scope_ent *di_scope_at(const struct mr_debuginfo *d, uint64_t vaddr)
{
	size_t lo = mph_upper_bound(d->scopes, d->nscopes, sizeof(*d->scopes),
				    offsetof(struct scope_ent, lo), vaddr);
	uint32_t i;

	if (!lo)
		return NULL;
	for (i = (uint32_t)(lo - 1); i != NONE; i = d->scopes[i].parent)
		if (vaddr < d->scopes[i].hi && vaddr >= d->scopes[i].lo)
			return &d->scopes[i];
	return NULL;
}

/* Name of the ELF function symbol containing vaddr (unsized symbols: up to the next). */
static const char *func_sym_at(const struct mr_debuginfo *d, uint64_t vaddr)
{
	size_t lo = mph_upper_bound(d->funcs, d->nfuncs, sizeof(*d->funcs),
				    offsetof(struct func_sym, addr), vaddr);
	const struct func_sym *f;

	if (!lo)
		return NULL;
	f = &d->funcs[lo - 1];
	return !f->size || vaddr < f->addr + f->size ? f->name : NULL;
}

/* 1, with d->lock held, when d's arrays may still grow: its unit of vaddr is then read
 * (unlock_code unlocks); 0 when they are final (nothing held). */
static int lock_code(struct mr_debuginfo *d, uint64_t vaddr)
{
	if (!atomic_load_explicit(&d->lazy_growing, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&d->lock);
	di_need_addr_locked(d, vaddr);
	return 1;
}

static int unlock_code(struct mr_debuginfo *d, int locked, int rc)
{
	if (locked)
		pthread_mutex_unlock(&d->lock);
	return rc;
}

static int line_at(struct mr_debuginfo *d, uint64_t vaddr, struct mr_line *out)
{
	const struct scope_ent *s;
	size_t lo;

	s = di_scope_at(d, vaddr);
	lo = mph_upper_bound(d->lines, d->nlines, sizeof(*d->lines),
			     offsetof(struct line_ent, lo), vaddr);
	memset(out, 0, sizeof(*out));
	if (s && s->name) {
		out->function = s->name;
		out->caller = s->caller;
	} else {
		out->function = func_sym_at(d, vaddr);
	}
	if (!lo || vaddr >= d->lines[lo - 1].hi)
		return -ENOENT;
	out->file = d->lines[lo - 1].file;
	out->line = d->lines[lo - 1].line;
	return 0;
}

int mr_debuginfo_line(struct mr_debuginfo *d, uint64_t vaddr, struct mr_line *out)
{
	int locked;

	if (atomic_load_explicit(&d->code_by_symbols, memory_order_relaxed)) {
		memset(out, 0, sizeof(*out));
		out->function = func_sym_at(d, vaddr);
		return -ENOENT;
	}
	locked = lock_code(d, vaddr);
	return unlock_code(d, locked, line_at(d, vaddr, out));
}

void mr_debuginfo_code_by_symbols(struct mr_debuginfo *d)
{
	atomic_store_explicit(&d->code_by_symbols, 1, memory_order_relaxed);
}

bool mr_debuginfo_has_lines(struct mr_debuginfo *d)
{
	di_need_dwarf(d);
	return d->nlines > 0;
}

bool mr_debuginfo_has_symbols(struct mr_debuginfo *d)
{
	if (d->nfuncs > 0)
		return true;
	di_need_dwarf(d);
	return d->nscopes > 0;
}

static int own_line_at(struct mr_debuginfo *d, uint64_t vaddr,
		       bool (*foreign)(const char *file), struct mr_line *out)
{
	const struct scope_ent *s;
	size_t lo;

	s = di_scope_at(d, vaddr);
	lo = mph_upper_bound(d->lines, d->nlines, sizeof(*d->lines),
			     offsetof(struct line_ent, lo), vaddr);
	memset(out, 0, sizeof(*out));
	if (!s || !s->depth)
		return -ENOENT;
	while (s->parent != NONE && s->depth)
		s = &d->scopes[s->parent];
	if (s->depth || !s->name)
		return -ENOENT;
	for (size_t i = lo; i-- > 0 && d->lines[i].lo >= s->lo;) {
		if (d->lines[i].file && d->lines[i].line && !foreign(d->lines[i].file)) {
			out->function = s->name;
			out->file = d->lines[i].file;
			out->line = d->lines[i].line;
			return 0;
		}
	}
	return -ENOENT;
}

int mr_debuginfo_own_line(struct mr_debuginfo *d, uint64_t vaddr,
			  bool (*foreign)(const char *file), struct mr_line *out)
{
	int locked;

	if (atomic_load_explicit(&d->code_by_symbols, memory_order_relaxed)) {
		memset(out, 0, sizeof(*out));
		return -ENOENT;
	}
	locked = lock_code(d, vaddr);
	return unlock_code(d, locked, own_line_at(d, vaddr, foreign, out));
}

const struct mr_var *mr_debuginfo_var_at(struct mr_debuginfo *d, uint64_t vaddr)
{
	const struct mr_var *v;

	di_need_dwarf(d);
	v = idx_lookup(&d->idx[0], vaddr);

	return v ? v : idx_lookup(&d->idx[2], vaddr);
}

const struct mr_var *mr_debuginfo_tls_var_at(struct mr_debuginfo *d, uint64_t offset)
{
	const struct mr_var *v;

	di_need_dwarf(d);
	v = idx_lookup(&d->idx[1], offset);

	return v ? v : idx_lookup(&d->idx[3], offset);
}

size_t mr_debuginfo_vars(struct mr_debuginfo *d, const struct mr_var **vars)
{
	di_need_dwarf(d);
	*vars = d->all;
	return d->nall;
}
